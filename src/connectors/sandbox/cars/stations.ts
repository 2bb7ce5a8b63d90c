import type { Coordinates } from '../../../contract/shared.ts'

export { type Localized, pick } from '../common.ts'

import type { Localized } from '../common.ts'

export type StationType = 'AIRPORT' | 'RAILWAY_STATION' | 'CITY' | 'HOTEL'
export type CountryCode = 'DE' | 'AT' | 'FR'

export interface SandboxStation {
  /** Stable short lowercase alphanumeric id. */
  id: string
  name: Localized
  type: StationType
  address: { street: string; postalCode: string; city: Localized; countryCode: CountryCode }
  coordinates: Coordinates
  operatingHours: string
  additionalInfo: Localized
  /** Vehicle model id → how many units of it the station has. */
  fleet: Record<string, number>
  /** The station's franchise partner handles cancellations by phone or e-mail only. */
  manualContact?: { phone: string; email: string; url: string }
}

export const COUNTRY_NAMES: Record<CountryCode, Localized> = {
  DE: { en: 'Germany', de: 'Deutschland', fr: 'Allemagne' },
  AT: { en: 'Austria', de: 'Österreich', fr: 'Autriche' },
  FR: { en: 'France', de: 'Frankreich', fr: 'France' },
}

export const BERLIN: Localized = { en: 'Berlin' }
export const H24 = 'Mo-Su 00:00-24:00'

/** sandbox-rent: rental counters at airports, railway stations, city centres and one hotel desk. */
export const RENT_STATIONS: SandboxStation[] = [
  {
    id: 'ber',
    name: {
      en: 'Berlin Brandenburg Airport (BER), Terminal 1',
      de: 'Flughafen Berlin Brandenburg (BER), Terminal 1',
      fr: 'Aéroport Berlin-Brandebourg (BER), Terminal 1',
    },
    type: 'AIRPORT',
    address: { street: 'Melli-Beese-Ring 1', postalCode: '12529', city: { en: 'Schönefeld' }, countryCode: 'DE' },
    coordinates: { latitude: 52.3667, longitude: 13.5033 },
    operatingHours: H24,
    additionalInfo: {
      en: 'Rental car centre on level U1 of Terminal 1; follow the signs "Mietwagen / Car rental". Cars are parked in P2.',
      de: 'Mietwagenzentrum auf Ebene U1 im Terminal 1; folgen Sie den Schildern "Mietwagen". Die Fahrzeuge stehen im P2.',
      fr: 'Centre de location au niveau U1 du Terminal 1 ; suivez les panneaux « Mietwagen / Car rental ». Les voitures sont au parking P2.',
    },
    fleet: {
      polo: 4,
      fiat500: 3,
      sandero: 2,
      golf: 3,
      id3: 2,
      corolla: 2,
      octavia: 3,
      passat: 2,
      bmw5: 2,
      mirai: 1,
      sclass: 1,
      tiguan: 2,
      modely: 2,
      transporter: 2,
      evito: 1,
      mx5: 1,
    },
  },
  {
    id: 'berhbf',
    name: { en: 'Berlin Central Station', de: 'Berlin Hauptbahnhof', fr: 'Gare centrale de Berlin' },
    type: 'RAILWAY_STATION',
    address: { street: 'Europaplatz 1', postalCode: '10557', city: BERLIN, countryCode: 'DE' },
    coordinates: { latitude: 52.5251, longitude: 13.3694 },
    operatingHours: 'Mo-Fr 06:00-22:00; Sa-Su 08:00-20:00',
    additionalInfo: {
      en: 'Counter in the DB Reisezentrum passage, level 0 (north side). Return cars to the car park Europaplatz, level -1.',
      de: 'Schalter in der Passage beim DB Reisezentrum, Ebene 0 (Nordseite). Rückgabe im Parkhaus Europaplatz, Ebene -1.',
      fr: 'Comptoir dans le passage du DB Reisezentrum, niveau 0 (côté nord). Retour au parking Europaplatz, niveau -1.',
    },
    fleet: { polo: 3, golf: 2, leon: 2, id3: 2, octavia: 2, passat: 1, mirai: 1, modely: 1, transporter: 1 },
  },
  {
    id: 'beralex',
    name: { en: 'Berlin Alexanderplatz' },
    type: 'CITY',
    address: { street: 'Alexanderplatz 5', postalCode: '10178', city: BERLIN, countryCode: 'DE' },
    coordinates: { latitude: 52.5219, longitude: 13.4132 },
    operatingHours: 'Mo-Fr 07:00-20:00; Sa 08:00-16:00',
    additionalInfo: {
      en: 'Office next to the Galeria entrance; cars are in the underground car park, entrance Dircksenstraße.',
      de: 'Büro neben dem Galeria-Eingang; die Fahrzeuge stehen in der Tiefgarage, Einfahrt Dircksenstraße.',
      fr: 'Agence à côté de l’entrée Galeria ; les voitures sont au parking souterrain, entrée Dircksenstraße.',
    },
    fleet: { fiat500: 2, polo: 2, sandero: 1, golf: 2, corolla: 1, tiguan: 1, evito: 1 },
  },
  {
    id: 'berzoo',
    name: { en: 'Berlin Zoologischer Garten', de: 'Berlin Zoologischer Garten' },
    type: 'RAILWAY_STATION',
    address: { street: 'Hardenbergplatz 11', postalCode: '10623', city: BERLIN, countryCode: 'DE' },
    coordinates: { latitude: 52.5069, longitude: 13.3323 },
    operatingHours: 'Mo-Fr 07:00-21:00; Sa-Su 09:00-18:00',
    additionalInfo: {
      en: 'Opposite the station exit Hardenbergplatz, ground floor of the Bikini Berlin side building.',
      de: 'Gegenüber dem Bahnhofsausgang Hardenbergplatz, Erdgeschoss im Seitenflügel des Bikini Berlin.',
      fr: 'En face de la sortie Hardenbergplatz de la gare, rez-de-chaussée de l’aile du Bikini Berlin.',
    },
    fleet: { golf: 2, octavia: 1, bmw5: 1, sclass: 1, modely: 1, mx5: 1 },
  },
  {
    id: 'berpots',
    name: { en: 'Berlin Potsdamer Platz' },
    type: 'CITY',
    address: { street: 'Potsdamer Platz 1', postalCode: '10785', city: BERLIN, countryCode: 'DE' },
    coordinates: { latitude: 52.5096, longitude: 13.3759 },
    operatingHours: 'Mo-Sa 08:00-20:00',
    additionalInfo: {
      en: 'In the Arkaden car park, level -2; the desk is next to the pay machines.',
      de: 'Im Parkhaus der Arkaden, Ebene -2; der Schalter ist neben den Kassenautomaten.',
      fr: 'Au parking des Arkaden, niveau -2 ; le comptoir est à côté des caisses automatiques.',
    },
    fleet: { polo: 2, id3: 1, passat: 1, bmw5: 1, sclass: 1, porsche911: 1, tiguan: 1 },
  },
  {
    id: 'beradlon',
    name: {
      en: 'Berlin Mitte Hotel Desk, Unter den Linden',
      de: 'Berlin Mitte Hotelschalter, Unter den Linden',
      fr: 'Berlin Mitte, comptoir de l’hôtel, Unter den Linden',
    },
    type: 'HOTEL',
    address: { street: 'Unter den Linden 77', postalCode: '10117', city: BERLIN, countryCode: 'DE' },
    coordinates: { latitude: 52.5162, longitude: 13.3808 },
    operatingHours: 'Mo-Su 08:00-18:00',
    additionalInfo: {
      en: 'Ask the concierge in the hotel lobby; the car is brought to the hotel entrance.',
      de: 'Fragen Sie den Concierge in der Hotellobby; das Fahrzeug wird zum Hoteleingang gebracht.',
      fr: 'Adressez-vous au concierge dans le hall de l’hôtel ; la voiture est amenée devant l’entrée.',
    },
    fleet: { sclass: 1, bmw5: 1, porsche911: 1 },
  },
  {
    id: 'berost',
    name: { en: 'Berlin Ostbahnhof' },
    type: 'RAILWAY_STATION',
    address: { street: 'Koppenstraße 3', postalCode: '10243', city: BERLIN, countryCode: 'DE' },
    coordinates: { latitude: 52.5103, longitude: 13.4349 },
    operatingHours: 'Mo-Fr 07:00-19:00; Sa 08:00-14:00',
    additionalInfo: {
      en: 'Counter at the south exit (Koppenstraße); cars are on the car park behind the station.',
      de: 'Schalter am Südausgang (Koppenstraße); die Fahrzeuge stehen auf dem Parkplatz hinter dem Bahnhof.',
      fr: 'Comptoir à la sortie sud (Koppenstraße) ; les voitures sont sur le parking derrière la gare.',
    },
    fleet: { sandero: 1, leon: 1, golf: 1, transporter: 1, evito: 1 },
  },
  {
    id: 'muchbf',
    name: { en: 'Munich Central Station', de: 'München Hauptbahnhof', fr: 'Gare centrale de Munich' },
    type: 'RAILWAY_STATION',
    address: {
      street: 'Bayerstraße 10a',
      postalCode: '80335',
      city: { en: 'Munich', de: 'München' },
      countryCode: 'DE',
    },
    coordinates: { latitude: 48.1402, longitude: 11.5586 },
    operatingHours: 'Mo-Fr 06:00-22:00; Sa-Su 08:00-21:00',
    additionalInfo: {
      en: 'Rental centre opposite track 26; cars are in the car park Bayerstraße.',
      de: 'Mietwagenzentrum gegenüber Gleis 26; die Fahrzeuge stehen im Parkhaus Bayerstraße.',
      fr: 'Centre de location en face de la voie 26 ; les voitures sont au parking Bayerstraße.',
    },
    fleet: { polo: 2, golf: 2, octavia: 2, tiguan: 2, bmw5: 1, modely: 1 },
  },
  {
    id: 'muc',
    name: { en: 'Munich Airport (MUC)', de: 'Flughafen München (MUC)', fr: 'Aéroport de Munich (MUC)' },
    type: 'AIRPORT',
    address: {
      street: 'Nordallee 25',
      postalCode: '85356',
      city: { en: 'Munich Airport', de: 'München-Flughafen', fr: 'Aéroport de Munich' },
      countryCode: 'DE',
    },
    coordinates: { latitude: 48.3538, longitude: 11.7861 },
    operatingHours: H24,
    additionalInfo: {
      en: 'Car rental centre in the Munich Airport Center (MAC), level 3, between Terminal 1 and 2.',
      de: 'Mietwagenzentrum im Munich Airport Center (MAC), Ebene 3, zwischen Terminal 1 und 2.',
      fr: 'Centre de location dans le Munich Airport Center (MAC), niveau 3, entre les terminaux 1 et 2.',
    },
    fleet: { polo: 3, golf: 2, passat: 2, bmw5: 2, sclass: 1, tiguan: 2, transporter: 1, mx5: 1 },
  },
  {
    id: 'hamhbf',
    name: { en: 'Hamburg Central Station', de: 'Hamburg Hauptbahnhof', fr: 'Gare centrale de Hambourg' },
    type: 'RAILWAY_STATION',
    address: { street: 'Glockengießerwall 8', postalCode: '20095', city: { en: 'Hamburg' }, countryCode: 'DE' },
    coordinates: { latitude: 53.553, longitude: 10.0069 },
    operatingHours: 'Mo-Fr 06:30-21:30; Sa-Su 08:00-20:00',
    additionalInfo: {
      en: 'Counter at the north exit, Glockengießerwall; cars in the Galeria car park, level 2.',
      de: 'Schalter am Nordausgang, Glockengießerwall; Fahrzeuge im Parkhaus Galeria, Ebene 2.',
      fr: 'Comptoir à la sortie nord, Glockengießerwall ; voitures au parking Galeria, niveau 2.',
    },
    fleet: { polo: 2, golf: 2, id3: 1, octavia: 1, transporter: 1 },
  },
  {
    id: 'ham',
    name: { en: 'Hamburg Airport (HAM)', de: 'Flughafen Hamburg (HAM)', fr: 'Aéroport de Hambourg (HAM)' },
    type: 'AIRPORT',
    address: { street: 'Flughafenstraße 1-3', postalCode: '22335', city: { en: 'Hamburg' }, countryCode: 'DE' },
    coordinates: { latitude: 53.6304, longitude: 9.9882 },
    operatingHours: H24,
    additionalInfo: {
      en: 'Car rental desks in the arrivals hall of Terminal 1; cars in car park P1.',
      de: 'Mietwagenschalter in der Ankunftshalle von Terminal 1; Fahrzeuge im Parkhaus P1.',
      fr: 'Comptoirs de location dans le hall des arrivées du Terminal 1 ; voitures au parking P1.',
    },
    fleet: { polo: 2, golf: 2, passat: 1, tiguan: 1, modely: 1 },
  },
  {
    id: 'parnord',
    name: { en: 'Paris Gare du Nord', fr: 'Paris Gare du Nord', de: 'Paris Gare du Nord' },
    type: 'RAILWAY_STATION',
    address: { street: '18 Rue de Dunkerque', postalCode: '75010', city: { en: 'Paris' }, countryCode: 'FR' },
    coordinates: { latitude: 48.8809, longitude: 2.3553 },
    operatingHours: 'Mo-Fr 07:00-21:00; Sa-Su 08:00-19:00',
    additionalInfo: {
      en: 'Operated by a franchise partner: car park Indigo Gare du Nord, level -1, rue de Maubeuge entrance.',
      fr: 'Agence partenaire : parking Indigo Gare du Nord, niveau -1, entrée rue de Maubeuge.',
      de: 'Betrieben von einem Franchisepartner: Parkhaus Indigo Gare du Nord, Ebene -1, Einfahrt Rue de Maubeuge.',
    },
    fleet: { fiat500: 2, golf: 1, corolla: 1, passat: 1, evito: 1 },
    manualContact: {
      phone: '+33 1 84 88 00 10',
      email: 'paris-nord@rent.sandbox.example',
      url: 'https://rent.sandbox.example/stations/parnord',
    },
  },
  {
    id: 'cdg',
    name: {
      en: 'Paris Charles de Gaulle Airport (CDG), Terminal 2',
      fr: 'Aéroport Paris-Charles-de-Gaulle (CDG), Terminal 2',
      de: 'Flughafen Paris-Charles-de-Gaulle (CDG), Terminal 2',
    },
    type: 'AIRPORT',
    address: {
      street: 'Terminal 2, Route de l’Arpenteur',
      postalCode: '95700',
      city: { en: 'Roissy-en-France' },
      countryCode: 'FR',
    },
    coordinates: { latitude: 49.0097, longitude: 2.5479 },
    operatingHours: H24,
    additionalInfo: {
      en: 'Car rental area between Terminals 2C and 2E, level 1; follow the "Location de voitures" signs.',
      fr: 'Espace loueurs entre les terminaux 2C et 2E, niveau 1 ; suivez « Location de voitures ».',
      de: 'Mietwagenbereich zwischen den Terminals 2C und 2E, Ebene 1; folgen Sie den Schildern "Location de voitures".',
    },
    fleet: { fiat500: 2, polo: 2, corolla: 2, passat: 1, bmw5: 1, tiguan: 1 },
  },
  {
    id: 'vie',
    name: { en: 'Vienna Airport (VIE)', de: 'Flughafen Wien (VIE)', fr: 'Aéroport de Vienne (VIE)' },
    type: 'AIRPORT',
    address: {
      street: 'Office Park 1, Flughafen Wien',
      postalCode: '1300',
      city: { en: 'Schwechat' },
      countryCode: 'AT',
    },
    coordinates: { latitude: 48.1203, longitude: 16.5631 },
    operatingHours: H24,
    additionalInfo: {
      en: 'Car rental centre in car park 3, level 0; a vignette for Austrian motorways is included.',
      de: 'Mietwagenzentrum im Parkhaus 3, Ebene 0; die Autobahnvignette ist enthalten.',
      fr: 'Centre de location au parking 3, niveau 0 ; la vignette autoroutière autrichienne est comprise.',
    },
    fleet: { polo: 2, golf: 2, octavia: 2, tiguan: 1, transporter: 1 },
  },
  {
    id: 'viehbf',
    name: { en: 'Vienna Central Station', de: 'Wien Hauptbahnhof', fr: 'Gare centrale de Vienne' },
    type: 'RAILWAY_STATION',
    address: {
      street: 'Am Hauptbahnhof 1',
      postalCode: '1100',
      city: { en: 'Vienna', de: 'Wien', fr: 'Vienne' },
      countryCode: 'AT',
    },
    coordinates: { latitude: 48.1852, longitude: 16.376 },
    operatingHours: 'Mo-Fr 07:00-20:00; Sa 08:00-13:00',
    additionalInfo: {
      en: 'Operated by a franchise partner in the BahnhofCity car park, level -2.',
      de: 'Betrieben von einem Franchisepartner im Parkhaus BahnhofCity, Ebene -2.',
      fr: 'Agence partenaire au parking BahnhofCity, niveau -2.',
    },
    fleet: { polo: 1, golf: 1, octavia: 1, passat: 1 },
    manualContact: {
      phone: '+43 1 25300 77',
      email: 'wien-hbf@rent.sandbox.example',
      url: 'https://rent.sandbox.example/stations/viehbf',
    },
  },
]
