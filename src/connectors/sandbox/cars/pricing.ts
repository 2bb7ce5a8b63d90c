import type { MileageAllowance } from '../../../contract/cars.ts'
import type { DetailedPrice, Price } from '../../../contract/shared.ts'
import { distanceMeters } from '../../../platform/geo.ts'
import { hash32 } from '../common.ts'
import type { EnergyCarrier, SandboxVehicleModel } from './fleet.ts'
import { type CountryCode, pick, type SandboxStation } from './stations.ts'
import { textsFor } from './texts.ts'

export const CURRENCY = 'EUR'
const HOUR = 3_600_000
const DAY = 24 * HOUR

/** Value-added tax included in every price, by the pickup station's country. */
export const VAT_PERCENT: Record<CountryCode, number> = { DE: 19, AT: 20, FR: 20 }
/** Rates are set for Germany; other countries cost a little more. */
const COUNTRY_RATE_FACTOR: Record<CountryCode, number> = { DE: 1, AT: 1.06, FR: 1.12 }
/** Cents per litre / kWh / kg, for estimatedFuel. */
const ENERGY_PRICES: Record<CountryCode, Record<EnergyCarrier, number>> = {
  DE: { petrol: 179, diesel: 169, lpg: 105, electricity: 49, hydrogen: 1395, cng: 145 },
  AT: { petrol: 165, diesel: 159, lpg: 109, electricity: 45, hydrogen: 1290, cng: 139 },
  FR: { petrol: 185, diesel: 172, lpg: 99, electricity: 47, hydrogen: 1490, cng: 149 },
}
const ENERGY_UNIT: Record<EnergyCarrier, string> = {
  petrol: 'l',
  diesel: 'l',
  lpg: 'l',
  electricity: 'kWh',
  hydrogen: 'kg',
  cng: 'kg',
}
/** Cents per rental day of the insurance a rate includes. */
export const INSURANCE_PER_DAY: Record<SandboxVehicleModel['insurance'], number> = {
  BASIC: 0,
  STANDARD: 690,
  COMPREHENSIVE: 1190,
  FULL_COVERAGE: 1690,
  PREMIUM: 2490,
}
export const AIRPORT_SURCHARGE = 3900
export const YOUNG_DRIVER_PER_DAY = 1500
export const YOUNG_DRIVER_MAX = 10_500
export const YOUNG_DRIVER_AGE = 25

export const eur = (amount: number, description?: string): Price => ({
  amount,
  currency: CURRENCY,
  ...(description ? { description } : {}),
})
export const money = (cents: number) => `${(cents / 100).toFixed(2)} EUR`

/** Started days of a period (a partial day counts as a day), at least 1. */
export const rentalDays = (start: Date, end: Date) => Math.max(1, Math.ceil((end.getTime() - start.getTime()) / DAY))
const startedHours = (start: Date, end: Date) => Math.max(1, Math.ceil((end.getTime() - start.getTime()) / HOUR))

/** One-way fee between two stations of the same country; undefined when the pair allows no one-way rental. */
export function oneWayFee(from: SandboxStation, to: SandboxStation): number | undefined {
  if (from.id === to.id) return 0
  if (from.address.countryCode !== to.address.countryCode) return undefined
  if (from.address.city.en === to.address.city.en) return 1900
  const km = distanceMeters(from.coordinates, to.coordinates) / 1000
  return Math.min(24_900, Math.max(4900, Math.round(km * 30)))
}

export interface QuoteInput {
  model: SandboxVehicleModel
  pickup: SandboxStation
  dropoff: SandboxStation
  start: Date
  end: Date
  estimatedKilometers: number
  driverAge?: number
  /** Price drift in percent applied to the rate (prebook). */
  ratePercent: number
  /** Hourly pricing with a daily cap (car sharing) instead of daily rates. */
  hourly: boolean
  extras?: Price[]
  extraFees?: Price[]
  /** The caller's language: the price's descriptions are in it. */
  language: string
}

export interface Quote {
  price: DetailedPrice
  pricePerDay: Price
  mileageAllowance: MileageAllowance
  days: number
  /** The daily rate after country factor and drift (what "one day's rate" means in the policies). */
  dayRate: number
  hourRate?: number
}

const round10 = (cents: number) => Math.round(cents / 10) * 10
const sum = (prices: Price[]) => prices.reduce((total, p) => total + p.amount, 0)

/** The whole price of a rental: rate, insurance, fees, extras, VAT included; fuel estimated apart. */
export function quote(input: QuoteInput): Quote {
  const { model, pickup, start, end } = input
  const texts = textsFor(input.language)
  const country = pickup.address.countryCode
  const factor = COUNTRY_RATE_FACTOR[country] * (1 + input.ratePercent / 100)
  const days = rentalDays(start, end)
  const dayRate = round10(model.dailyRate * factor)
  let base: number
  let baseText: string
  let hourRate: number | undefined
  if (input.hourly && model.hourlyRate) {
    hourRate = round10(model.hourlyRate * factor)
    const hours = startedHours(start, end)
    const fullDays = Math.floor(hours / 24)
    base = fullDays * dayRate + Math.min((hours % 24) * hourRate, dayRate)
    baseText = texts.hourly(hours, hourRate, dayRate)
  } else {
    base = days * dayRate
    baseText = texts.daily(days, dayRate)
  }

  const insurances = [
    eur(
      input.hourly ? 0 : INSURANCE_PER_DAY[model.insurance] * days,
      `${texts.insurance[model.insurance]}${input.hourly ? texts.inRate : ''}`,
    ),
  ]

  const fees: Price[] = []
  if (pickup.type === 'AIRPORT') fees.push(eur(AIRPORT_SURCHARGE, texts.airport))
  const oneWay = oneWayFee(pickup, input.dropoff) ?? 0
  if (oneWay > 0) fees.push(eur(oneWay, texts.oneWayFee(pick(input.dropoff.name, input.language))))
  if (input.driverAge !== undefined && input.driverAge < YOUNG_DRIVER_AGE) {
    fees.push(eur(Math.min(YOUNG_DRIVER_MAX, YOUNG_DRIVER_PER_DAY * days), texts.youngFee))
  }
  const mileageAllowance: MileageAllowance = model.includedKmPerDay
    ? { unlimited: false, includedKilometers: model.includedKmPerDay * days }
    : { unlimited: true }
  const km = Math.max(0, Math.round(input.estimatedKilometers))
  if (mileageAllowance.includedKilometers && km > mileageAllowance.includedKilometers) {
    const extraKm = km - mileageAllowance.includedKilometers
    fees.push(eur(extraKm * model.extraKmRate, texts.extraKm(extraKm, model.extraKmRate)))
  }
  fees.push(...(input.extraFees ?? []))
  const extras = input.extras ?? []

  const total = base + sum(insurances) + sum(fees) + sum(extras)
  const vatPercent = VAT_PERCENT[country]
  const vat = Math.round((total * vatPercent) / (100 + vatPercent))

  return {
    price: {
      totalPrice: eur(total, texts.total(baseText)),
      includedTaxes: [eur(vat, texts.vat(vatPercent))],
      includedInsurances: insurances,
      includedFees: fees,
      includedExtras: extras,
      estimatedFuel: estimatedFuel(model, country, km, input.language),
    },
    pricePerDay: eur(Math.ceil(total / days), texts.perDay),
    mileageAllowance,
    days,
    dayRate,
    hourRate,
  }
}

function estimatedFuel(model: SandboxVehicleModel, country: CountryCode, km: number, language: string): Price {
  const texts = textsFor(language)
  if (model.refillPolicy === 'FUEL_INCLUDED') return eur(0, texts.fuelIncluded)
  if (km === 0) return eur(0, texts.noDistance)
  let cents = 0
  const parts: string[] = []
  for (const { carrier, per100km } of model.energy) {
    const price = ENERGY_PRICES[country][carrier]
    cents += (km * per100km * price) / 100
    parts.push(texts.energy(per100km, ENERGY_UNIT[carrier], price))
  }
  return eur(Math.round(cents), texts.estimated(km, parts.join(' + ')))
}

/**
 * How much an offer's rate moves between search and prebook, in percent: about one offer in five goes up 3 to 8 %,
 * about one in ten goes down 2 %, the rest stays. `forceIncrease` (scenario price-increase) always moves it up.
 */
export function priceDrift(offerRef: string, forceIncrease: boolean): number {
  const h = hash32(`drift:${offerRef}`)
  const bucket = h % 10
  const up = 3 + ((h >>> 8) % 6)
  if (forceIncrease) return bucket < 2 ? up : 5
  if (bucket < 2) return up
  if (bucket === 2) return -2
  return 0
}
