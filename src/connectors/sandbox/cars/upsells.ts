import type { PricedUpsell, UpsellSummary } from '../../../contract/cars.ts'
import type { Price } from '../../../contract/shared.ts'
import { eur, money } from './pricing.ts'
import type { SandboxStation } from './stations.ts'

// Upsells

export interface UpsellDef extends UpsellSummary {
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
    name: 'Third-party liability insurance',
    description: 'Legally required cover for damage to others, up to 100 million EUR.',
    availability: 'ALWAYS_INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'ROADSIDE',
    category: 'EXTRA_SERVICE',
    name: '24/7 roadside assistance',
    description: 'Breakdown help and a replacement car, included in this rate.',
    availability: 'INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'VIGNETTE',
    category: 'OTHER',
    name: 'Austrian motorway vignette',
    availability: 'INCLUDED',
    hasPricing: false,
    countries: ['AT'],
  },
  {
    referenceCode: 'ZERO_EXCESS',
    category: 'EXTRA_COVERAGE',
    name: 'Zero excess',
    description: 'Reduces the excess for damage and theft to 0 EUR.',
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 1490,
  },
  {
    referenceCode: 'ADDITIONAL_DRIVER',
    category: 'EXTRA_SERVICE',
    name: 'Additional driver',
    description: 'One more person may drive; bring their licence to the counter.',
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 1200,
    maxPerRental: 8400,
  },
  {
    referenceCode: 'CHILD_SEAT',
    category: 'CHILD_SEAT',
    name: 'Child seat (9-18 kg)',
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 990,
    maxPerRental: 5940,
  },
  {
    referenceCode: 'BOOSTER_SEAT',
    category: 'CHILD_SEAT',
    name: 'Booster seat (15-36 kg)',
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 690,
    maxPerRental: 4140,
  },
  {
    referenceCode: 'GPS',
    category: 'GPS_DEVICE',
    name: 'Portable navigation device',
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 890,
    maxPerRental: 5340,
  },
  {
    referenceCode: 'CROSS_BORDER',
    category: 'OTHER',
    name: 'Cross-border permit',
    description: 'Drive into neighbouring EU countries.',
    availability: 'BOOKABLE',
    hasPricing: true,
    perRental: 2900,
  },
  {
    referenceCode: 'SNOW_CHAINS',
    category: 'WINTER_EQUIPMENT',
    name: 'Snow chains',
    description: 'Booked and paid at the counter, subject to availability.',
    availability: 'BOOKABLE_ON_PICKUP',
    hasPricing: true,
    perRental: 2500,
  },
  {
    referenceCode: 'BIKE_CARRIER',
    category: 'TRANSPORT_GEAR',
    name: 'Bike carrier for two bikes',
    description: 'Ask at the counter; the price depends on the vehicle.',
    availability: 'BOOKABLE_ON_PICKUP',
    hasPricing: false,
  },
]

export const SHARE_UPSELLS: UpsellDef[] = [
  {
    referenceCode: 'ENERGY',
    category: 'OTHER',
    name: 'Charging and fuel',
    description: 'Charge with the card in the car at no cost.',
    availability: 'ALWAYS_INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'PARKING',
    category: 'EXTRA_SERVICE',
    name: 'Parking in Berlin residential zones',
    availability: 'INCLUDED',
    hasPricing: false,
  },
  {
    referenceCode: 'DAMAGE_REDUCTION',
    category: 'EXTRA_COVERAGE',
    name: 'Damage excess reduction',
    description: 'Reduces the excess from 500 EUR to 0 EUR.',
    availability: 'BOOKABLE',
    hasPricing: true,
    perDay: 790,
  },
  {
    referenceCode: 'CHILD_SEAT',
    category: 'CHILD_SEAT',
    name: 'Child seat',
    description: 'Some cars carry a child seat in the boot; see the app.',
    availability: 'BOOKABLE_ON_PICKUP',
    hasPricing: false,
  },
]

export const upsellsAt = (defs: UpsellDef[], station: SandboxStation) =>
  defs.filter((d) => !d.countries || d.countries.includes(station.address.countryCode))

/** The summaries offered at a station, built once per upsell list and station (offers share them; never mutated). */
const summariesCache = new WeakMap<UpsellDef[], Map<string, UpsellSummary[]>>()
export function summariesAt(defs: UpsellDef[], station: SandboxStation): UpsellSummary[] {
  let byStation = summariesCache.get(defs)
  if (!byStation) {
    byStation = new Map()
    summariesCache.set(defs, byStation)
  }
  let list = byStation.get(station.id)
  if (!list) {
    list = upsellsAt(defs, station).map(summary)
    byStation.set(station.id, list)
  }
  return list
}

export const summary = (d: UpsellDef): UpsellSummary => ({
  referenceCode: d.referenceCode,
  category: d.category,
  name: d.name,
  ...(d.description ? { description: d.description } : {}),
  availability: d.availability,
  hasPricing: d.hasPricing,
})

export function upsellPrice(d: UpsellDef, days: number): Price | undefined {
  if (!d.hasPricing) return undefined
  if (d.perRental !== undefined) return eur(d.perRental, `${d.name}, per rental`)
  const perDay = d.perDay ?? 0
  const amount = Math.min(perDay * days, d.maxPerRental ?? Number.POSITIVE_INFINITY)
  return eur(
    amount,
    `${d.name}: ${days} × ${money(perDay)}${d.maxPerRental ? `, at most ${money(d.maxPerRental)}` : ''}`,
  )
}

export const priced = (d: UpsellDef, days: number): PricedUpsell => {
  const price = upsellPrice(d, days)
  return { ...summary(d), ...(price ? { price } : {}) }
}
