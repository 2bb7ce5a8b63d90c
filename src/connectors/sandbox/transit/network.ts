/**
 * The network of the bundled Berlin feed (`./feed/`, written by `make-feed.ts`): stations with their real positions,
 * VBB fare zones and platforms, and the lines that serve them. The feed is generated from this table and the fares
 * read the zones from it, so the two never disagree.
 *
 * Ids follow the shape of VBB's: a station is a nine-digit number (`900100003` is S+U Alexanderplatz), its platforms
 * are `<station>_<group>` or, where each direction has its own, `<station>_<group><1|2>` (`900100003_U5`,
 * `900100003_S1`). A station without platforms is one plain stop under the station's id.
 */

/** VBB fare zones: A inside the Ringbahn (the ring included), B the rest of Berlin, C the surrounding area. */
export type FareZone = 'A' | 'B' | 'C'

/** A kind of platform at a station: the lines of one group share it. */
export type PlatformGroup = 'S' | 'RING' | 'U2' | 'U5' | 'U8' | 'TRAM' | 'BUS' | 'RE'

export interface Platforms {
  /** One platform (both directions) or two (direction 0, direction 1), by platform code. */
  codes: string[]
  /** Where the platforms are, when not close to the station's point. */
  at?: [number, number]
}

export interface Station {
  id: string
  name: string
  lat: number
  lon: number
  zone: FareZone
  /** Platforms by group; a station without them is one plain stop. */
  platforms?: Partial<Record<PlatformGroup, Platforms>>
  /** Step-free access (wheelchair_boarding 1), else 2. */
  stepFree?: boolean
}

const st = (
  id: string,
  name: string,
  lat: number,
  lon: number,
  zone: FareZone = 'A',
  platforms?: Station['platforms'],
  stepFree = true,
): Station => ({ id, name, lat, lon, zone, ...(platforms ? { platforms } : {}), stepFree })

const one = (code: string, at?: [number, number]): Platforms => ({ codes: [code], ...(at ? { at } : {}) })
const two = (a: string, b: string, at?: [number, number]): Platforms => ({ codes: [a, b], ...(at ? { at } : {}) })

export const STATIONS = {
  // Stadtbahn (S5, S7)
  westkreuz: st('900024102', 'S Westkreuz', 52.501, 13.2834, 'A', { S: two('3', '4') }),
  charlottenburg: st('900024101', 'S Charlottenburg', 52.5051, 13.3047),
  savignyplatz: st('900024203', 'S Savignyplatz', 52.5052, 13.3191, 'A', undefined, false),
  zoo: st('900023201', 'S+U Zoologischer Garten', 52.5067, 13.3323, 'A', {
    S: two('5', '6'),
    U2: one('U2', [52.5069, 13.3335]),
    BUS: one('Hardenbergplatz', [52.5064, 13.331]),
  }),
  tiergarten: st('900003103', 'S Tiergarten', 52.514, 13.3362),
  bellevue: st('900003102', 'S Bellevue', 52.5199, 13.3471, 'A', undefined, false),
  hbf: st('900003201', 'S+U Berlin Hauptbahnhof', 52.5251, 13.3694, 'A', {
    S: two('15', '16'),
    U5: one('U5', [52.5247, 13.3697]),
    RE: two('1', '2', [52.5248, 13.3691]),
    TRAM: one('Invalidenstr.', [52.5265, 13.3689]),
  }),
  friedrichstr: st('900100001', 'S+U Friedrichstraße', 52.5203, 13.387, 'A', { S: two('3', '4') }),
  hackescher: st('900100002', 'S Hackescher Markt', 52.5225, 13.4024),
  alex: st('900100003', 'S+U Alexanderplatz', 52.5219, 13.4132, 'A', {
    S: two('1', '2', [52.5215, 13.4118]),
    U2: one('U2', [52.5219, 13.4129]),
    U5: one('U5', [52.5216, 13.4143]),
    U8: one('U8', [52.5224, 13.4137]),
    BUS: one('Memhardstr.', [52.5232, 13.4115]),
  }),
  jannowitz: st('900100004', 'S+U Jannowitzbrücke', 52.515, 13.418, 'A', { S: two('1', '2'), U8: one('U8') }),
  ostbahnhof: st('900120005', 'S Ostbahnhof', 52.5103, 13.4348),
  warschauer: st('900120004', 'S+U Warschauer Straße', 52.5056, 13.4494, 'A', {
    S: two('1', '2'),
    TRAM: one('Tram', [52.5066, 13.4486]),
  }),
  ostkreuz: st('900120003', 'S Ostkreuz', 52.503, 13.469, 'A', { S: two('1', '2'), RING: two('11', '12') }),

  // Ringbahn (S41, S42), the northern, eastern and southern arc
  westhafen: st('900001201', 'S+U Westhafen', 52.5363, 13.344),
  wedding: st('900009104', 'S+U Wedding', 52.5428, 13.3664),
  gesundbrunnen: st('900007102', 'S+U Gesundbrunnen', 52.5486, 13.3883, 'A', {
    RING: two('1', '2'),
    U8: one('U8', [52.5489, 13.3878]),
  }),
  schoenhauser: st('900110001', 'S+U Schönhauser Allee', 52.5492, 13.4145, 'A', {
    RING: two('1', '2'),
    U2: one('U2', [52.5494, 13.4135]),
  }),
  prenzlauer: st('900110002', 'S Prenzlauer Allee', 52.5447, 13.4275),
  greifswalder: st('900110003', 'S Greifswalder Straße', 52.5405, 13.4391),
  landsberger: st('900110004', 'S Landsberger Allee', 52.5291, 13.4553),
  storkower: st('900110012', 'S Storkower Straße', 52.524, 13.465, 'A', undefined, false),
  frankfurterAllee: st('900120001', 'S+U Frankfurter Allee', 52.5137, 13.4751, 'A', {
    RING: two('1', '2'),
    U5: one('U5', [52.5144, 13.4746]),
  }),
  treptowerPark: st('900190001', 'S Treptower Park', 52.4935, 13.4617),
  sonnenallee: st('900077106', 'S Sonnenallee', 52.4728, 13.4555),
  neukoelln: st('900078201', 'S+U Neukölln', 52.4694, 13.4424),
  hermannstr: st('900079221', 'S+U Hermannstraße', 52.4673, 13.4316, 'A', {
    RING: two('1', '2'),
    U8: one('U8', [52.4676, 13.4311]),
  }),
  tempelhof: st('900068201', 'S+U Tempelhof', 52.47, 13.3856),
  suedkreuz: st('900058101', 'S Südkreuz', 52.4752, 13.3653, 'A', {
    RING: two('1', '2'),
    RE: two('5', '6', [52.4748, 13.3656]),
  }),

  // U2
  pankow: st('900130002', 'S+U Pankow', 52.5674, 13.412, 'B'),
  vinetastr: st('900130011', 'U Vinetastraße', 52.5594, 13.4135, 'B'),
  eberswalder: st('900110006', 'U Eberswalder Straße', 52.541, 13.4121, 'A', {
    U2: one('U2'),
    TRAM: one('Tram', [52.5406, 13.4128]),
  }),
  senefelder: st('900110005', 'U Senefelderplatz', 52.5323, 13.4127, 'A', undefined, false),
  rosaLuxemburg: st('900100016', 'U Rosa-Luxemburg-Platz', 52.5281, 13.4103, 'A', undefined, false),
  klosterstr: st('900100015', 'U Klosterstraße', 52.517, 13.4125, 'A', undefined, false),
  maerkischesMuseum: st('900100014', 'U Märkisches Museum', 52.5123, 13.409),
  spittelmarkt: st('900100013', 'U Spittelmarkt', 52.5113, 13.404),
  hausvogteiplatz: st('900100012', 'U Hausvogteiplatz', 52.5134, 13.3961, 'A', undefined, false),
  stadtmitte: st('900100011', 'U Stadtmitte', 52.5113, 13.3899),
  mohrenstr: st('900100010', 'U Mohrenstraße', 52.5118, 13.3845, 'A', undefined, false),
  potsdamerPlatz: st('900100020', 'S+U Potsdamer Platz', 52.5096, 13.3765, 'A', {
    U2: one('U2', [52.5094, 13.3787]),
    RE: two('1', '2', [52.5093, 13.3762]),
    BUS: one('Bus', [52.5098, 13.3771]),
  }),
  mendelssohn: st('900017101', 'U Mendelssohn-Bartholdy-Park', 52.5035, 13.3748),
  gleisdreieck: st('900017103', 'U Gleisdreieck', 52.4995, 13.3743),
  buelowstr: st('900056102', 'U Bülowstraße', 52.4975, 13.3625, 'A', undefined, false),
  nollendorfplatz: st('900056104', 'U Nollendorfplatz', 52.4993, 13.3535),
  wittenbergplatz: st('900056101', 'U Wittenbergplatz', 52.5017, 13.3431),
  ernstReuter: st('900023101', 'U Ernst-Reuter-Platz', 52.5119, 13.3222),

  // U5
  bundestag: st('900100501', 'U Bundestag', 52.5202, 13.3731),
  brandenburgerTor: st('900100025', 'S+U Brandenburger Tor', 52.5163, 13.3811),
  unterDenLinden: st('900100500', 'U Unter den Linden', 52.517, 13.3889, 'A', {
    U5: one('U5'),
    BUS: one('Bus', [52.5173, 13.3885]),
  }),
  museumsinsel: st('900100537', 'U Museumsinsel', 52.517, 13.399),
  rotesRathaus: st('900100045', 'U Rotes Rathaus', 52.5186, 13.4085),
  schillingstr: st('900100027', 'U Schillingstraße', 52.5203, 13.422),
  strausbergerPlatz: st('900120025', 'U Strausberger Platz', 52.518, 13.4325),
  weberwiese: st('900120009', 'U Weberwiese', 52.5166, 13.4451),
  frankfurterTor: st('900120008', 'U Frankfurter Tor', 52.5158, 13.4541, 'A', {
    U5: one('U5'),
    TRAM: one('Tram', [52.5163, 13.4537]),
  }),
  samariterstr: st('900120006', 'U Samariterstraße', 52.5148, 13.4649, 'A', undefined, false),
  magdalenenstr: st('900160004', 'U Magdalenenstraße', 52.5124, 13.4873, 'B'),
  lichtenberg: st('900160001', 'S+U Lichtenberg', 52.5107, 13.4983, 'B'),

  // U8
  osloerStr: st('900009202', 'U Osloer Straße', 52.5571, 13.3731, 'B'),
  pankstr: st('900009203', 'U Pankstraße', 52.5524, 13.3814, 'B', undefined, false),
  voltastr: st('900007103', 'U Voltastraße', 52.5419, 13.393, 'A', undefined, false),
  bernauerStr: st('900007110', 'U Bernauer Straße', 52.5376, 13.3966, 'A', {
    U8: one('U8'),
    TRAM: one('Tram', [52.5381, 13.3972]),
  }),
  rosenthalerPlatz: st('900100023', 'U Rosenthaler Platz', 52.5297, 13.4014, 'A', undefined, false),
  weinmeisterstr: st('900100051', 'U Weinmeisterstraße', 52.5253, 13.4054, 'A', undefined, false),
  heinrichHeine: st('900100008', 'U Heinrich-Heine-Straße', 52.5108, 13.4163),
  moritzplatz: st('900013101', 'U Moritzplatz', 52.5037, 13.4107),
  kottbusserTor: st('900013102', 'U Kottbusser Tor', 52.4991, 13.418),
  schoenleinstr: st('900016201', 'U Schönleinstraße', 52.4932, 13.422, 'A', undefined, false),
  hermannplatz: st('900078101', 'U Hermannplatz', 52.4869, 13.4246),
  boddinstr: st('900079201', 'U Boddinstraße', 52.48, 13.4255, 'A', undefined, false),
  leinestr: st('900079202', 'U Leinestraße', 52.473, 13.428, 'A', undefined, false),

  // Tram M10
  invalidenpark: st('900003253', 'Invalidenpark', 52.5282, 13.3771),
  naturkundemuseum: st('900100009', 'U Naturkundemuseum', 52.5301, 13.3836),
  nordbahnhof: st('900007104', 'S Nordbahnhof', 52.5326, 13.3888),
  mauergedenkstaette: st('900007150', 'Gedenkstätte Berliner Mauer', 52.5354, 13.3905),
  wollinerStr: st('900007151', 'Wolliner Str.', 52.5386, 13.4012),
  jahnSportpark: st('900110508', 'Friedrich-Ludwig-Jahn-Sportpark', 52.5405, 13.4065),
  prenzlauerDanziger: st('900110509', 'Prenzlauer Allee/Danziger Str.', 52.5388, 13.4246),
  greifswalderDanziger: st('900110510', 'Greifswalder Str./Danziger Str.', 52.5367, 13.4331),
  conradBlenkle: st('900110511', 'Conrad-Blenkle-Str.', 52.533, 13.441),
  petersburger: st('900120510', 'Landsberger Allee/Petersburger Str.', 52.5271, 13.4496),
  bersarinplatz: st('900120511', 'Bersarinplatz', 52.5188, 13.4531),
  gruenberger: st('900120512', 'Grünberger Str./Warschauer Str.', 52.5106, 13.4536),

  // Buses 100 and 200
  breitscheidplatz: st('900023652', 'Breitscheidplatz', 52.5048, 13.3355),
  luetzowplatz: st('900005252', 'Lützowplatz', 52.5045, 13.3505),
  nordischeBotschaften: st('900005253', 'Nordische Botschaften/Adenauer-Stiftung', 52.508, 13.3555),
  grosserStern: st('900003151', 'Großer Stern', 52.5145, 13.3501),
  schlossBellevue: st('900003152', 'Schloss Bellevue', 52.5172, 13.353),
  hausDerKulturen: st('900003153', 'Haus der Kulturen der Welt', 52.5187, 13.365),
  reichstag: st('900100562', 'Reichstag/Bundestag', 52.5184, 13.376),
  staatsoper: st('900100513', 'Staatsoper', 52.5168, 13.3953),
  lustgarten: st('900100514', 'Lustgarten', 52.5183, 13.4),
  marienkirche: st('900100515', 'Spandauer Str./Marienkirche', 52.52, 13.4065),
  budapesterStr: st('900023653', 'Budapester Str.', 52.5053, 13.3412),
  hiroshimasteg: st('900005254', 'Hiroshimasteg', 52.5076, 13.356),
  philharmonie: st('900005255', 'Philharmonie', 52.5098, 13.3698),
  varianFry: st('900005256', 'Varian-Fry-Str./Potsdamer Platz', 52.5077, 13.3725),
  leipzigerWilhelm: st('900100516', 'Leipziger Str./Wilhelmstr.', 52.5098, 13.3833),

  // Airport
  ber: st('900260005', 'Flughafen BER', 52.3667, 13.5033, 'C', { RE: two('1', '2') }),
} satisfies Record<string, Station>

export type StationKey = keyof typeof STATIONS

export type RouteKind = 'S_BAHN' | 'U_BAHN' | 'TRAM' | 'BUS' | 'REGIONAL'

/** GTFS route_type of each kind (basic types, which every consumer reads). */
export const ROUTE_TYPE: Record<RouteKind, number> = { TRAM: 0, U_BAHN: 1, S_BAHN: 2, REGIONAL: 2, BUS: 3 }

/** A service window: from `start` to `end` (GTFS times, may pass 24:00) one trip every `headway` minutes. */
export type Window = [start: string, end: string, headway: number]

export interface Line {
  id: string
  name: string
  longName: string
  kind: RouteKind
  group: PlatformGroup
  color: string
  textColor: string
  /** Stations in direction 0; direction 1 runs them backwards. */
  stations: StationKey[]
  /** Minutes from direction 0's start at which the service pattern begins (lines sharing track are offset). */
  offset: number
  /** Weekday and weekend service windows, for trips leaving either terminus. */
  weekday: Window[]
  weekend: Window[]
  /** Frequency-based trips (frequencies.txt, exact_times=1) or one trip per departure. */
  frequencies: boolean
}

const U_WEEKDAY: Window[] = [
  ['04:30:00', '06:00:00', 10],
  ['06:00:00', '20:00:00', 5],
  ['20:00:00', '24:40:00', 10],
]
const U_WEEKEND: Window[] = [
  ['05:00:00', '09:00:00', 10],
  ['09:00:00', '20:00:00', 5],
  ['20:00:00', '25:00:00', 10],
]
const S_WEEKDAY: Window[] = [
  ['04:30:00', '21:00:00', 10],
  ['21:00:00', '24:50:00', 20],
]
const S_WEEKEND: Window[] = [
  ['05:00:00', '21:00:00', 10],
  ['21:00:00', '25:10:00', 20],
]
const TRAM_WEEKDAY: Window[] = [
  ['04:30:00', '06:00:00', 10],
  ['06:00:00', '20:00:00', 5],
  ['20:00:00', '24:40:00', 10],
]
const TRAM_WEEKEND: Window[] = [
  ['05:00:00', '20:00:00', 10],
  ['20:00:00', '25:00:00', 15],
]
const BUS_WEEKDAY: Window[] = [
  ['05:00:00', '20:00:00', 10],
  ['20:00:00', '24:30:00', 20],
]
const BUS_WEEKEND: Window[] = [
  ['06:00:00', '20:00:00', 10],
  ['20:00:00', '24:30:00', 20],
]

const line = (
  id: string,
  longName: string,
  kind: RouteKind,
  group: PlatformGroup,
  color: string,
  stations: StationKey[],
  service: { weekday: Window[]; weekend: Window[]; offset?: number; frequencies?: boolean; textColor?: string },
): Line => ({
  id,
  name: id,
  longName,
  kind,
  group,
  color,
  textColor: service.textColor ?? 'FFFFFF',
  stations,
  offset: service.offset ?? 0,
  weekday: service.weekday,
  weekend: service.weekend,
  frequencies: service.frequencies ?? true,
})

const STADTBAHN: StationKey[] = [
  'westkreuz',
  'charlottenburg',
  'savignyplatz',
  'zoo',
  'tiergarten',
  'bellevue',
  'hbf',
  'friedrichstr',
  'hackescher',
  'alex',
  'jannowitz',
  'ostbahnhof',
  'warschauer',
  'ostkreuz',
]

/** Clockwise (S41): from Westhafen over Gesundbrunnen and Ostkreuz to Südkreuz and Westkreuz. */
const RING: StationKey[] = [
  'westhafen',
  'wedding',
  'gesundbrunnen',
  'schoenhauser',
  'prenzlauer',
  'greifswalder',
  'landsberger',
  'storkower',
  'frankfurterAllee',
  'ostkreuz',
  'treptowerPark',
  'sonnenallee',
  'neukoelln',
  'hermannstr',
  'tempelhof',
  'suedkreuz',
]

export const LINES: Line[] = [
  line('S5', 'Westkreuz – Ostkreuz', 'S_BAHN', 'S', 'EB7405', STADTBAHN, {
    weekday: S_WEEKDAY,
    weekend: S_WEEKEND,
  }),
  line('S7', 'Westkreuz – Ostkreuz', 'S_BAHN', 'S', '816DA6', STADTBAHN, {
    weekday: S_WEEKDAY,
    weekend: S_WEEKEND,
    offset: 5,
  }),
  line('S41', 'Ring ⟳ Westhafen – Südkreuz', 'S_BAHN', 'RING', 'AD5937', RING, {
    weekday: S_WEEKDAY.map(([a, b, h]) => [a, b, h === 10 ? 5 : 10]),
    weekend: S_WEEKEND,
  }),
  line('S42', 'Ring ⟲ Südkreuz – Westhafen', 'S_BAHN', 'RING', 'CB6418', [...RING].reverse(), {
    weekday: S_WEEKDAY.map(([a, b, h]) => [a, b, h === 10 ? 5 : 10]),
    weekend: S_WEEKEND,
    offset: 2,
  }),
  line(
    'U2',
    'Pankow – Ernst-Reuter-Platz',
    'U_BAHN',
    'U2',
    'DA421E',
    [
      'pankow',
      'vinetastr',
      'schoenhauser',
      'eberswalder',
      'senefelder',
      'rosaLuxemburg',
      'alex',
      'klosterstr',
      'maerkischesMuseum',
      'spittelmarkt',
      'hausvogteiplatz',
      'stadtmitte',
      'mohrenstr',
      'potsdamerPlatz',
      'mendelssohn',
      'gleisdreieck',
      'buelowstr',
      'nollendorfplatz',
      'wittenbergplatz',
      'zoo',
      'ernstReuter',
    ],
    { weekday: U_WEEKDAY, weekend: U_WEEKEND, offset: 1 },
  ),
  line(
    'U5',
    'Hauptbahnhof – Lichtenberg',
    'U_BAHN',
    'U5',
    '7E5330',
    [
      'hbf',
      'bundestag',
      'brandenburgerTor',
      'unterDenLinden',
      'museumsinsel',
      'rotesRathaus',
      'alex',
      'schillingstr',
      'strausbergerPlatz',
      'weberwiese',
      'frankfurterTor',
      'samariterstr',
      'frankfurterAllee',
      'magdalenenstr',
      'lichtenberg',
    ],
    { weekday: U_WEEKDAY, weekend: U_WEEKEND, offset: 3 },
  ),
  line(
    'U8',
    'Osloer Straße – Hermannstraße',
    'U_BAHN',
    'U8',
    '224F86',
    [
      'osloerStr',
      'pankstr',
      'gesundbrunnen',
      'voltastr',
      'bernauerStr',
      'rosenthalerPlatz',
      'weinmeisterstr',
      'alex',
      'jannowitz',
      'heinrichHeine',
      'moritzplatz',
      'kottbusserTor',
      'schoenleinstr',
      'hermannplatz',
      'boddinstr',
      'leinestr',
      'hermannstr',
    ],
    { weekday: U_WEEKDAY, weekend: U_WEEKEND, offset: 2 },
  ),
  line(
    'M10',
    'Hauptbahnhof – Warschauer Straße',
    'TRAM',
    'TRAM',
    'D82020',
    [
      'hbf',
      'invalidenpark',
      'naturkundemuseum',
      'nordbahnhof',
      'mauergedenkstaette',
      'bernauerStr',
      'wollinerStr',
      'jahnSportpark',
      'eberswalder',
      'prenzlauerDanziger',
      'greifswalderDanziger',
      'conradBlenkle',
      'petersburger',
      'bersarinplatz',
      'frankfurterTor',
      'gruenberger',
      'warschauer',
    ],
    { weekday: TRAM_WEEKDAY, weekend: TRAM_WEEKEND, offset: 4 },
  ),
  line(
    '100',
    'Zoologischer Garten – Alexanderplatz',
    'BUS',
    'BUS',
    'A5027D',
    [
      'zoo',
      'breitscheidplatz',
      'luetzowplatz',
      'nordischeBotschaften',
      'grosserStern',
      'schlossBellevue',
      'hausDerKulturen',
      'reichstag',
      'unterDenLinden',
      'staatsoper',
      'lustgarten',
      'marienkirche',
      'alex',
    ],
    { weekday: BUS_WEEKDAY, weekend: BUS_WEEKEND },
  ),
  line(
    '200',
    'Zoologischer Garten – Alexanderplatz',
    'BUS',
    'BUS',
    'A5027D',
    [
      'zoo',
      'budapesterStr',
      'hiroshimasteg',
      'philharmonie',
      'varianFry',
      'potsdamerPlatz',
      'leipzigerWilhelm',
      'unterDenLinden',
      'staatsoper',
      'lustgarten',
      'marienkirche',
      'alex',
    ],
    { weekday: BUS_WEEKDAY, weekend: BUS_WEEKEND, offset: 5 },
  ),
  line(
    'FEX',
    'Flughafen-Express Hauptbahnhof – Flughafen BER',
    'REGIONAL',
    'RE',
    'E2001A',
    ['hbf', 'suedkreuz', 'ber'],
    {
      weekday: [['04:34:00', '24:05:00', 30]],
      weekend: [['05:04:00', '24:05:00', 60]],
      frequencies: false,
    },
  ),
  line(
    'RE8',
    'Hauptbahnhof – Flughafen BER',
    'REGIONAL',
    'RE',
    'E2001A',
    ['hbf', 'potsdamerPlatz', 'suedkreuz', 'ber'],
    {
      weekday: [['05:12:00', '23:13:00', 60]],
      weekend: [['06:12:00', '23:13:00', 60]],
      frequencies: false,
    },
  ),
]

/** The feed's stop id of `station`'s platform for `group` in `direction` (the station's own id when it has none). */
export function platformId(key: StationKey, group: PlatformGroup, direction: 0 | 1): string {
  const station: Station = STATIONS[key]
  if (!station.platforms) return station.id
  const platforms = station.platforms[group]
  if (!platforms) throw new Error(`${station.name} has no ${group} platform`)
  return platformIds(station.id, group, platforms)[Math.min(direction, platforms.codes.length - 1)]
}

/** The stop ids of a station's platforms of one group, in the order of their codes. */
export const platformIds = (stationId: string, group: PlatformGroup, platforms: Platforms) =>
  platforms.codes.length === 1
    ? [`${stationId}_${group}`]
    : platforms.codes.map((_, i) => `${stationId}_${group}${i + 1}`)

/** Every stop id of the feed (stations and platforms) → its fare zone. */
export const ZONE_OF_STOP: ReadonlyMap<string, FareZone> = (() => {
  const zones = new Map<string, FareZone>()
  for (const station of Object.values(STATIONS) as Station[]) {
    zones.set(station.id, station.zone)
    for (const [group, platforms] of Object.entries(station.platforms ?? {})) {
      for (const id of platformIds(station.id, group as PlatformGroup, platforms)) zones.set(id, station.zone)
    }
  }
  return zones
})()

/** Route id → what kind of line it is (fares tell S-Bahn from regional trains, both GTFS rail). */
export const KIND_OF_ROUTE: ReadonlyMap<string, RouteKind> = new Map(LINES.map((l) => [l.id, l.kind]))
