import type { PricedUpsell, UpsellSummary } from '../../../contract/cars.ts'
import type { Price } from '../../../contract/shared.ts'
import { eur } from './pricing.ts'
import { type Localized, pick, type SandboxStation } from './stations.ts'
import { textsFor } from './texts.ts'

// Upsells

/** An upsell as the provider defines it: name and description in the languages the sandbox speaks. */
export interface UpsellDef extends Omit<UpsellSummary, 'name' | 'description'> {
  name: Localized
  description?: Localized
  perDay?: number
  perRental?: number
  maxPerRental?: number
  /** Only at stations of these countries. */
  countries?: string[]
}

export const RENT_UPSELLS: UpsellDef[] = [
  {
    referenceCode: 'LIABILITY',
    category: 'EXTRA_COVERAGE',
    name: {
      en: 'Third-party liability insurance',
      de: 'Haftpflichtversicherung',
      fr: 'Assurance responsabilité civile',
    },
    description: {
      en: 'Legally required cover for damage to others, up to 100 million EUR.',
      de: 'Gesetzlich vorgeschriebener Schutz für Schäden an Dritten, bis 100 Millionen EUR.',
      fr: 'Couverture légale des dommages causés aux tiers, jusqu’à 100 millions EUR.',
    },
    availability: 'ALWAYS_INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'ROADSIDE',
    category: 'EXTRA_SERVICE',
    name: { en: '24/7 roadside assistance', de: 'Pannenhilfe rund um die Uhr', fr: 'Assistance routière 24 h/24' },
    description: {
      en: 'Breakdown help and a replacement car, included in this rate.',
      de: 'Pannenhilfe und ein Ersatzwagen, in diesem Tarif enthalten.',
      fr: 'Dépannage et véhicule de remplacement, compris dans ce tarif.',
    },
    availability: 'INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'VIGNETTE',
    category: 'OTHER',
    name: {
      en: 'Austrian motorway vignette',
      de: 'Österreichische Autobahnvignette',
      fr: 'Vignette autoroutière autrichienne',
    },
    availability: 'INCLUDED',
    hasPricing: false,
    countries: ['AT'],
  },
  {
    referenceCode: 'ZERO_EXCESS',
    category: 'EXTRA_COVERAGE',
    name: { en: 'Zero excess', de: 'Keine Selbstbeteiligung', fr: 'Sans franchise' },
    description: {
      en: 'Reduces the excess for damage and theft to 0 EUR.',
      de: 'Senkt die Selbstbeteiligung bei Schaden und Diebstahl auf 0 EUR.',
      fr: 'Ramène la franchise en cas de dommage et de vol à 0 EUR.',
    },
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 1490,
  },
  {
    referenceCode: 'ADDITIONAL_DRIVER',
    category: 'EXTRA_SERVICE',
    name: { en: 'Additional driver', de: 'Zusätzlicher Fahrer', fr: 'Conducteur supplémentaire' },
    description: {
      en: 'One more person may drive; bring their licence to the counter.',
      de: 'Eine weitere Person darf fahren; bringen Sie ihren Führerschein an den Schalter mit.',
      fr: 'Une personne de plus peut conduire ; apportez son permis au comptoir.',
    },
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 1200,
    maxPerRental: 8400,
  },
  {
    referenceCode: 'CHILD_SEAT',
    category: 'CHILD_SEAT',
    name: { en: 'Child seat (9-18 kg)', de: 'Kindersitz (9-18 kg)', fr: 'Siège enfant (9-18 kg)' },
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 990,
    maxPerRental: 5940,
  },
  {
    referenceCode: 'BOOSTER_SEAT',
    category: 'CHILD_SEAT',
    name: { en: 'Booster seat (15-36 kg)', de: 'Sitzerhöhung (15-36 kg)', fr: 'Rehausseur (15-36 kg)' },
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 690,
    maxPerRental: 4140,
  },
  {
    referenceCode: 'GPS',
    category: 'GPS_DEVICE',
    name: { en: 'Portable navigation device', de: 'Mobiles Navigationsgerät', fr: 'GPS portable' },
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 890,
    maxPerRental: 5340,
  },
  {
    referenceCode: 'CROSS_BORDER',
    category: 'OTHER',
    name: { en: 'Cross-border permit', de: 'Auslandsfahrt-Genehmigung', fr: 'Autorisation de passage de frontière' },
    description: {
      en: 'Drive into neighbouring EU countries.',
      de: 'Fahrten in benachbarte EU-Länder.',
      fr: 'Circulez dans les pays voisins de l’UE.',
    },
    availability: 'BOOKABLE',
    hasPricing: true,
    perRental: 2900,
  },
  {
    referenceCode: 'SNOW_CHAINS',
    category: 'WINTER_EQUIPMENT',
    name: { en: 'Snow chains', de: 'Schneeketten', fr: 'Chaînes à neige' },
    description: {
      en: 'Booked and paid at the counter, subject to availability.',
      de: 'Buchung und Zahlung am Schalter, je nach Verfügbarkeit.',
      fr: 'Réservées et payées au comptoir, sous réserve de disponibilité.',
    },
    availability: 'BOOKABLE_ON_PICKUP',
    hasPricing: true,
    perRental: 2500,
  },
  {
    referenceCode: 'BIKE_CARRIER',
    category: 'TRANSPORT_GEAR',
    name: { en: 'Bike carrier for two bikes', de: 'Fahrradträger für zwei Räder', fr: 'Porte-vélos pour deux vélos' },
    description: {
      en: 'Ask at the counter; the price depends on the vehicle.',
      de: 'Fragen Sie am Schalter; der Preis hängt vom Fahrzeug ab.',
      fr: 'Renseignez-vous au comptoir ; le prix dépend du véhicule.',
    },
    availability: 'BOOKABLE_ON_PICKUP',
    hasPricing: false,
  },
]

export const SHARE_UPSELLS: UpsellDef[] = [
  {
    referenceCode: 'ENERGY',
    category: 'OTHER',
    name: { en: 'Charging and fuel', de: 'Laden und Tanken', fr: 'Recharge et carburant' },
    description: {
      en: 'Charge with the card in the car at no cost.',
      de: 'Laden Sie kostenlos mit der Karte im Auto.',
      fr: 'Rechargez gratuitement avec la carte dans la voiture.',
    },
    availability: 'ALWAYS_INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'PARKING',
    category: 'EXTRA_SERVICE',
    name: {
      en: 'Parking in Berlin residential zones',
      de: 'Parken in Berliner Anwohnerzonen',
      fr: 'Stationnement dans les zones résidentielles de Berlin',
    },
    availability: 'INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'DAMAGE_REDUCTION',
    category: 'EXTRA_COVERAGE',
    name: { en: 'Damage excess reduction', de: 'Reduzierte Selbstbeteiligung', fr: 'Réduction de franchise' },
    description: {
      en: 'Reduces the excess from 500 EUR to 0 EUR.',
      de: 'Senkt die Selbstbeteiligung von 500 EUR auf 0 EUR.',
      fr: 'Ramène la franchise de 500 EUR à 0 EUR.',
    },
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 790,
  },
  {
    referenceCode: 'CHILD_SEAT',
    category: 'CHILD_SEAT',
    name: { en: 'Child seat', de: 'Kindersitz', fr: 'Siège enfant' },
    description: {
      en: 'Some cars carry a child seat in the boot; see the app.',
      de: 'Manche Autos haben einen Kindersitz im Kofferraum; siehe App.',
      fr: 'Certaines voitures ont un siège enfant dans le coffre ; voir l’appli.',
    },
    availability: 'BOOKABLE_ON_PICKUP',
    hasPricing: false,
  },
]

export const upsellsAt = (defs: UpsellDef[], station: SandboxStation) =>
  defs.filter((d) => !d.countries || d.countries.includes(station.address.countryCode))

/**
 * The summaries offered at a station in a language, built once per upsell list, station and language (offers share
 * them; never mutated).
 */
const summariesCache = new WeakMap<UpsellDef[], Map<string, UpsellSummary[]>>()
export function summariesAt(defs: UpsellDef[], station: SandboxStation, language: string): UpsellSummary[] {
  let byStation = summariesCache.get(defs)
  if (!byStation) {
    byStation = new Map()
    summariesCache.set(defs, byStation)
  }
  const lang = pick({ en: 'en', de: 'de', fr: 'fr' }, language)
  let list = byStation.get(`${station.id}|${lang}`)
  if (!list) {
    list = upsellsAt(defs, station).map((d) => summary(d, lang))
    byStation.set(`${station.id}|${lang}`, list)
  }
  return list
}

export const summary = (d: UpsellDef, language: string): UpsellSummary => ({
  referenceCode: d.referenceCode,
  category: d.category,
  name: pick(d.name, language),
  ...(d.description ? { description: pick(d.description, language) } : {}),
  availability: d.availability,
  hasPricing: d.hasPricing,
})

export function upsellPrice(d: UpsellDef, days: number, language: string): Price | undefined {
  if (!d.hasPricing) return undefined
  const texts = textsFor(language)
  const name = pick(d.name, language)
  if (d.perRental !== undefined) return eur(d.perRental, texts.upsellPerRental(name))
  const perDay = d.perDay ?? 0
  const amount = Math.min(perDay * days, d.maxPerRental ?? Number.POSITIVE_INFINITY)
  return eur(amount, texts.upsellPerDay(name, days, perDay, d.maxPerRental))
}

export const priced = (d: UpsellDef, days: number, language: string): PricedUpsell => {
  const price = upsellPrice(d, days, language)
  return { ...summary(d, language), ...(price ? { price } : {}) }
}
