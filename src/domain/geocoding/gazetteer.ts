import type { Coordinates } from '../../contract/shared.ts'

/** The bundled places: Berlin in some detail, and the other cities the sandbox providers serve. */

export type CityKey = 'berlin' | 'munich' | 'hamburg' | 'paris' | 'vienna'

export interface Labels {
  en: string
  de?: string
  fr?: string
}

export interface Place {
  id: string
  kind: 'city' | 'district' | 'station' | 'airport' | 'landmark' | 'street' | 'square'
  city: CityKey
  coordinates: Coordinates
  /** The name to show, per language (English is the fallback). */
  labels: Labels
  /** Every way the place is written, in German, English and French; matched without case and diacritics. */
  aliases: string[]
}

export interface City {
  countryCode: string
  /** Names of the city (a query naming it is "in" the city). */
  names: string[]
  /** Names of the country, in the three languages. */
  country: string[]
}

export const CITIES: Record<CityKey, City> = {
  berlin: { countryCode: 'DE', names: ['Berlin'], country: ['Deutschland', 'Germany', 'Allemagne'] },
  munich: { countryCode: 'DE', names: ['München', 'Munich'], country: ['Deutschland', 'Germany', 'Allemagne'] },
  hamburg: { countryCode: 'DE', names: ['Hamburg', 'Hambourg'], country: ['Deutschland', 'Germany', 'Allemagne'] },
  paris: { countryCode: 'FR', names: ['Paris'], country: ['Frankreich', 'France'] },
  vienna: { countryCode: 'AT', names: ['Wien', 'Vienna', 'Vienne'], country: ['Österreich', 'Austria', 'Autriche'] },
}

type Kind = Place['kind']

const place = (
  id: string,
  kind: Kind,
  city: CityKey,
  [latitude, longitude]: [number, number],
  labels: Labels | string,
  aliases: string[],
): Place => ({
  id,
  kind,
  city,
  coordinates: { latitude, longitude },
  labels: typeof labels === 'string' ? { en: labels } : labels,
  aliases,
})

/** Order matters only for ties: earlier places win (Berlin first, as the sandbox's home). */
export const PLACES: Place[] = [
  // Berlin
  place('berlin', 'city', 'berlin', [52.52, 13.405], 'Berlin', ['Berlin', 'Berlin Mitte', 'Mitte']),
  place('alexanderplatz', 'square', 'berlin', [52.5219, 13.4132], 'Alexanderplatz, Berlin', [
    'Alexanderplatz',
    'Berlin Alexanderplatz',
    'Bahnhof Alexanderplatz',
    'Alexanderplatz station',
  ]),
  place(
    'berlinhbf',
    'station',
    'berlin',
    [52.5251, 13.3694],
    { en: 'Berlin Central Station', de: 'Berlin Hauptbahnhof', fr: 'Gare centrale de Berlin' },
    [
      'Berlin Hauptbahnhof',
      'Hauptbahnhof',
      'Berlin Hbf',
      'Hbf',
      'Berlin Central Station',
      'Berlin main station',
      'Gare centrale de Berlin',
    ],
  ),
  place(
    'ber',
    'airport',
    'berlin',
    [52.3667, 13.5033],
    {
      en: 'Berlin Brandenburg Airport (BER)',
      de: 'Flughafen Berlin Brandenburg (BER)',
      fr: 'Aéroport de Berlin-Brandebourg (BER)',
    },
    [
      'Flughafen BER',
      'BER',
      'BER Airport',
      'Flughafen Berlin Brandenburg',
      'Berlin Brandenburg Airport',
      'Flughafen Berlin',
      'Berlin Airport',
      'Aéroport de Berlin-Brandebourg',
      'Aéroport de Berlin',
      'Flughafen Willy Brandt',
      'Schönefeld',
      'Flughafen Schönefeld',
    ],
  ),
  place('potsdamerplatz', 'square', 'berlin', [52.5096, 13.3759], 'Potsdamer Platz, Berlin', ['Potsdamer Platz']),
  place(
    'brandenburgertor',
    'landmark',
    'berlin',
    [52.5163, 13.3777],
    { en: 'Brandenburg Gate, Berlin', de: 'Brandenburger Tor, Berlin', fr: 'Porte de Brandebourg, Berlin' },
    ['Brandenburger Tor', 'Brandenburg Gate', 'Porte de Brandebourg', 'Pariser Platz'],
  ),
  place(
    'zoo',
    'station',
    'berlin',
    [52.5069, 13.3323],
    { en: 'Berlin Zoologischer Garten', fr: 'Gare de Berlin Zoologischer Garten' },
    ['Zoologischer Garten', 'Berlin Zoologischer Garten', 'Bahnhof Zoo', 'Zoo station', 'Berlin Zoo', 'Zoo Berlin'],
  ),
  place('kudamm', 'street', 'berlin', [52.5027, 13.3262], 'Kurfürstendamm, Berlin', ['Kurfürstendamm', "Ku'damm"]),
  place('friedrichstrasse', 'street', 'berlin', [52.5201, 13.3874], 'Friedrichstraße, Berlin', [
    'Friedrichstraße',
    'Bahnhof Friedrichstraße',
    'Friedrichstrasse station',
  ]),
  place('warschauer', 'street', 'berlin', [52.5058, 13.4493], 'Warschauer Straße, Berlin', [
    'Warschauer Straße',
    'Bahnhof Warschauer Straße',
    'Warschauer Brücke',
  ]),
  place('ostkreuz', 'station', 'berlin', [52.5031, 13.469], 'Berlin Ostkreuz', ['Ostkreuz', 'Bahnhof Ostkreuz']),
  place('ostbahnhof', 'station', 'berlin', [52.5103, 13.4349], 'Berlin Ostbahnhof', [
    'Ostbahnhof',
    'Berlin Ostbahnhof',
  ]),
  place('gesundbrunnen', 'station', 'berlin', [52.5486, 13.3884], 'Berlin Gesundbrunnen', ['Gesundbrunnen']),
  place('suedkreuz', 'station', 'berlin', [52.4753, 13.3655], 'Berlin Südkreuz', ['Südkreuz', 'Berlin Südkreuz']),
  place(
    'tempelhoferfeld',
    'landmark',
    'berlin',
    [52.4733, 13.4014],
    { en: 'Tempelhof Field, Berlin', de: 'Tempelhofer Feld, Berlin', fr: 'Parc de Tempelhof, Berlin' },
    ['Tempelhofer Feld', 'Tempelhof Field', 'Tempelhofer Park', 'Flughafen Tempelhof', 'Tempelhof'],
  ),
  place('reichstag', 'landmark', 'berlin', [52.5186, 13.3761], 'Reichstag, Berlin', [
    'Reichstag',
    'Reichstagsgebäude',
    'Bundestag',
  ]),
  place(
    'museumsinsel',
    'landmark',
    'berlin',
    [52.5169, 13.4019],
    { en: 'Museum Island, Berlin', de: 'Museumsinsel, Berlin', fr: 'Île aux Musées, Berlin' },
    ['Museumsinsel', 'Museum Island', 'Île aux Musées'],
  ),
  place('checkpointcharlie', 'landmark', 'berlin', [52.5075, 13.3904], 'Checkpoint Charlie, Berlin', [
    'Checkpoint Charlie',
  ]),
  place('eastsidegallery', 'landmark', 'berlin', [52.505, 13.4397], 'East Side Gallery, Berlin', ['East Side Gallery']),
  place('unterdenlinden', 'street', 'berlin', [52.517, 13.3889], 'Unter den Linden, Berlin', ['Unter den Linden']),
  place('karlmarxallee', 'street', 'berlin', [52.5177, 13.437], 'Karl-Marx-Allee, Berlin', ['Karl-Marx-Allee']),
  place('hackeschermarkt', 'square', 'berlin', [52.5225, 13.402], 'Hackescher Markt, Berlin', ['Hackescher Markt']),
  place('gendarmenmarkt', 'square', 'berlin', [52.5138, 13.3928], 'Gendarmenmarkt, Berlin', ['Gendarmenmarkt']),
  place('kollwitzplatz', 'square', 'berlin', [52.5362, 13.4176], 'Kollwitzplatz, Berlin', ['Kollwitzplatz']),
  place('boxhagenerplatz', 'square', 'berlin', [52.5104, 13.4593], 'Boxhagener Platz, Berlin', ['Boxhagener Platz']),
  place('rosenthalerplatz', 'square', 'berlin', [52.5295, 13.4015], 'Rosenthaler Platz, Berlin', ['Rosenthaler Platz']),
  place('savignyplatz', 'square', 'berlin', [52.5057, 13.3195], 'Savignyplatz, Berlin', ['Savignyplatz']),
  place('leopoldplatz', 'square', 'berlin', [52.5466, 13.3593], 'Leopoldplatz, Berlin', ['Leopoldplatz']),
  place('bergmannstrasse', 'street', 'berlin', [52.4895, 13.3937], 'Bergmannstraße, Berlin', ['Bergmannstraße']),
  place('kreuzberg', 'district', 'berlin', [52.4986, 13.403], 'Kreuzberg, Berlin', ['Kreuzberg']),
  place('prenzlauerberg', 'district', 'berlin', [52.5388, 13.4244], 'Prenzlauer Berg, Berlin', ['Prenzlauer Berg']),
  place('friedrichshain', 'district', 'berlin', [52.5155, 13.454], 'Friedrichshain, Berlin', ['Friedrichshain']),
  place('neukoelln', 'district', 'berlin', [52.4811, 13.435], 'Neukölln, Berlin', ['Neukölln']),
  place('charlottenburg', 'district', 'berlin', [52.5167, 13.3041], 'Charlottenburg, Berlin', ['Charlottenburg']),
  place('schoeneberg', 'district', 'berlin', [52.4823, 13.3554], 'Schöneberg, Berlin', ['Schöneberg']),
  place('wedding', 'district', 'berlin', [52.55, 13.35], 'Wedding, Berlin', ['Wedding']),

  // Munich
  place('munich', 'city', 'munich', [48.1351, 11.582], { en: 'Munich', de: 'München', fr: 'Munich' }, [
    'München',
    'Munich',
  ]),
  place(
    'marienplatz',
    'square',
    'munich',
    [48.1374, 11.5755],
    { en: 'Marienplatz, Munich', de: 'Marienplatz, München' },
    ['Marienplatz'],
  ),
  place(
    'muenchenhbf',
    'station',
    'munich',
    [48.1402, 11.5586],
    { en: 'Munich Central Station', de: 'München Hauptbahnhof', fr: 'Gare centrale de Munich' },
    [
      'München Hauptbahnhof',
      'München Hbf',
      'Munich Central Station',
      'Munich main station',
      'Munich Hauptbahnhof',
      'Gare centrale de Munich',
    ],
  ),
  place(
    'muc',
    'airport',
    'munich',
    [48.3538, 11.7861],
    { en: 'Munich Airport (MUC)', de: 'Flughafen München (MUC)', fr: 'Aéroport de Munich (MUC)' },
    ['Flughafen München', 'Munich Airport', 'MUC', 'Aéroport de Munich', 'Flughafen Franz Josef Strauß'],
  ),
  place(
    'englischergarten',
    'landmark',
    'munich',
    [48.1642, 11.6056],
    { en: 'English Garden, Munich', de: 'Englischer Garten, München', fr: 'Jardin anglais, Munich' },
    ['Englischer Garten', 'English Garden', 'Jardin anglais'],
  ),
  place(
    'stachus',
    'square',
    'munich',
    [48.139, 11.5656],
    { en: 'Karlsplatz (Stachus), Munich', de: 'Karlsplatz (Stachus), München' },
    ['Stachus', 'Karlsplatz'],
  ),

  // Hamburg
  place('hamburg', 'city', 'hamburg', [53.5511, 9.9937], { en: 'Hamburg', fr: 'Hambourg' }, ['Hamburg', 'Hambourg']),
  place(
    'hamburghbf',
    'station',
    'hamburg',
    [53.553, 10.0069],
    { en: 'Hamburg Central Station', de: 'Hamburg Hauptbahnhof', fr: 'Gare centrale de Hambourg' },
    ['Hamburg Hauptbahnhof', 'Hamburg Hbf', 'Hamburg Central Station', 'Gare centrale de Hambourg'],
  ),
  place(
    'ham',
    'airport',
    'hamburg',
    [53.6304, 9.9882],
    { en: 'Hamburg Airport (HAM)', de: 'Flughafen Hamburg (HAM)', fr: 'Aéroport de Hambourg (HAM)' },
    ['Flughafen Hamburg', 'Hamburg Airport', 'HAM', 'Aéroport de Hambourg', 'Flughafen Fuhlsbüttel'],
  ),
  place('elbphilharmonie', 'landmark', 'hamburg', [53.5413, 9.9841], 'Elbphilharmonie, Hamburg', ['Elbphilharmonie']),
  place('jungfernstieg', 'street', 'hamburg', [53.553, 9.993], 'Jungfernstieg, Hamburg', ['Jungfernstieg']),
  place('reeperbahn', 'street', 'hamburg', [53.5497, 9.9633], 'Reeperbahn, Hamburg', ['Reeperbahn']),

  // Paris
  place('paris', 'city', 'paris', [48.8566, 2.3522], 'Paris', ['Paris']),
  place('garedunord', 'station', 'paris', [48.8809, 2.3553], 'Paris Gare du Nord', [
    'Gare du Nord',
    'Paris Nord',
    'Paris Gare du Nord',
  ]),
  place('garedelyon', 'station', 'paris', [48.8443, 2.3744], 'Paris Gare de Lyon', [
    'Gare de Lyon',
    'Paris Gare de Lyon',
  ]),
  place(
    'cdg',
    'airport',
    'paris',
    [49.0097, 2.5479],
    {
      en: 'Paris Charles de Gaulle Airport (CDG)',
      de: 'Flughafen Paris-Charles-de-Gaulle (CDG)',
      fr: 'Aéroport Paris-Charles-de-Gaulle (CDG)',
    },
    [
      'Aéroport Charles de Gaulle',
      'Charles de Gaulle Airport',
      'Flughafen Charles de Gaulle',
      'Roissy',
      'CDG',
      'Paris CDG',
      'Roissy-Charles-de-Gaulle',
    ],
  ),
  place(
    'orly',
    'airport',
    'paris',
    [48.7262, 2.3652],
    { en: 'Paris Orly Airport (ORY)', de: 'Flughafen Paris-Orly (ORY)', fr: 'Aéroport de Paris-Orly (ORY)' },
    ["Aéroport d'Orly", 'Orly', 'Paris Orly', 'ORY', 'Orly Airport', 'Flughafen Orly'],
  ),
  place(
    'eiffel',
    'landmark',
    'paris',
    [48.8584, 2.2945],
    { en: 'Eiffel Tower, Paris', de: 'Eiffelturm, Paris', fr: 'Tour Eiffel, Paris' },
    ['Tour Eiffel', 'Eiffel Tower', 'Eiffelturm'],
  ),
  place('champselysees', 'street', 'paris', [48.8698, 2.3078], 'Avenue des Champs-Élysées, Paris', [
    'Champs-Élysées',
    'Avenue des Champs-Élysées',
  ]),
  place('louvre', 'landmark', 'paris', [48.8606, 2.3376], { en: 'Louvre, Paris', fr: 'Musée du Louvre, Paris' }, [
    'Louvre',
    'Musée du Louvre',
  ]),
  place('notredame', 'landmark', 'paris', [48.853, 2.3499], 'Notre-Dame de Paris', [
    'Notre-Dame de Paris',
    'Notre-Dame',
  ]),

  // Vienna
  place('vienna', 'city', 'vienna', [48.2082, 16.3738], { en: 'Vienna', de: 'Wien', fr: 'Vienne' }, [
    'Wien',
    'Vienna',
    'Vienne',
  ]),
  place(
    'wienhbf',
    'station',
    'vienna',
    [48.1852, 16.376],
    { en: 'Vienna Central Station', de: 'Wien Hauptbahnhof', fr: 'Gare centrale de Vienne' },
    ['Wien Hauptbahnhof', 'Wien Hbf', 'Vienna Central Station', 'Vienna main station', 'Gare centrale de Vienne'],
  ),
  place('westbahnhof', 'station', 'vienna', [48.1966, 16.3376], { en: 'Vienna Westbahnhof', de: 'Wien Westbahnhof' }, [
    'Wien Westbahnhof',
    'Westbahnhof',
  ]),
  place(
    'vie',
    'airport',
    'vienna',
    [48.1103, 16.5697],
    { en: 'Vienna Airport (VIE)', de: 'Flughafen Wien (VIE)', fr: 'Aéroport de Vienne (VIE)' },
    ['Flughafen Wien', 'Vienna Airport', 'VIE', 'Flughafen Wien-Schwechat', 'Schwechat', 'Aéroport de Vienne'],
  ),
  place(
    'stephansplatz',
    'square',
    'vienna',
    [48.2085, 16.3731],
    { en: "Stephansplatz (St. Stephen's Cathedral), Vienna", de: 'Stephansplatz, Wien', fr: 'Stephansplatz, Vienne' },
    ['Stephansplatz', 'Stephansdom', "St. Stephen's Cathedral"],
  ),
  place(
    'schoenbrunn',
    'landmark',
    'vienna',
    [48.1845, 16.3122],
    { en: 'Schönbrunn Palace, Vienna', de: 'Schloss Schönbrunn, Wien', fr: 'Château de Schönbrunn, Vienne' },
    ['Schloss Schönbrunn', 'Schönbrunn Palace', 'Schönbrunn', 'Château de Schönbrunn'],
  ),
  place('prater', 'landmark', 'vienna', [48.2166, 16.3958], { en: 'Prater, Vienna', de: 'Prater, Wien' }, [
    'Prater',
    'Wiener Prater',
    'Riesenrad',
  ]),
]
