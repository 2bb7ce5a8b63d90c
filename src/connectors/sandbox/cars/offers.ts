import type { RequiredField } from '../../../contract/car-bookings.ts'
import { ApiError } from '../../../contract/errors.ts'
import type { LocationDetails, Price, Warning } from '../../../contract/shared.ts'
import { detail } from '../../../platform/i18n/texts.ts'
import type { OfferTerms, ProviderCarOffer } from '../../types/cars.ts'
import type { SandboxVehicleModel } from './fleet.ts'
import { type Contact, cancellationPolicy, changePolicies, type PolicyInput, pickupRequirements } from './policies.ts'
import { oneWayFee, type Quote, quote, YOUNG_DRIVER_AGE } from './pricing.ts'
import type { CarProfile } from './profiles.ts'
import { encodeOfferRef, type OfferParams } from './refs.ts'
import { COUNTRY_NAMES, pick, type SandboxStation } from './stations.ts'
import { textsFor } from './texts.ts'
import { priced, summariesAt, upsellPrice, upsellsAt } from './upsells.ts'

/** What the offer builders need to know about the provider and the call. */
export interface OfferScope {
  profile: CarProfile
  providerId: string
  websiteUrl: string
  contact: Contact
  language: string
}

/** The data an offer reference points to. */
export interface Resolved {
  pickup: SandboxStation
  dropoff: SandboxStation
  model: SandboxVehicleModel
  units: number
  start: Date
  end: Date
}

export const FLIGHT_NUMBER = 'flightNumber'

/** What a booking at this station needs besides the driver: the flight number at airports, in the caller's language. */
export function requiredFields(pickup: SandboxStation, language: string): RequiredField[] {
  if (pickup.type !== 'AIRPORT') return []
  const texts = textsFor(language)
  return [{ field: FLIGHT_NUMBER, type: 'string', label: texts.flightLabel, message: texts.flightMessage }]
}

/** The stations, model and period of an offer; OFFER_EXPIRED when the provider no longer has them. */
export function resolve(profile: CarProfile, params: OfferParams): Resolved {
  const pickup = profile.stations.find((s) => s.id === params.s)
  const dropoff = profile.stations.find((s) => s.id === params.d)
  const model = profile.fleet.get(params.m)
  const units = pickup?.fleet[params.m] ?? 0
  if (!pickup || !dropoff || !model || units === 0) {
    throw new ApiError('OFFER_EXPIRED', 'The provider no longer offers this car', { reason: 'UNKNOWN_OFFER' })
  }
  return { pickup, dropoff, model, units, start: new Date(params.a), end: new Date(params.b) }
}

export function location(station: SandboxStation, language: string): LocationDetails {
  return {
    id: station.id,
    name: pick(station.name, language),
    address: {
      street: station.address.street,
      city: pick(station.address.city, language),
      postalCode: station.address.postalCode,
      country: pick(COUNTRY_NAMES[station.address.countryCode], language),
      countryCode: station.address.countryCode,
    },
    coordinates: { ...station.coordinates },
    additionalInfo: pick(station.additionalInfo, language),
    operatingHours: station.operatingHours,
  }
}

/** The priced BOOKABLE upsells chosen, in the order given; INVALID_REQUEST for unknown or unselectable ones. */
export function selectedExtras(
  profile: CarProfile,
  pickup: SandboxStation,
  codes: string[],
  days: number,
  language: string,
): Price[] {
  const defs = upsellsAt(profile.upsells, pickup)
  return codes.map((code) => {
    const def = defs.find((d) => d.referenceCode === code)
    if (!def) throw new ApiError('INVALID_REQUEST', undefined, { upsells: detail('UNKNOWN_UPSELL', { code }) })
    if (def.availability !== 'BOOKABLE') {
      throw new ApiError('INVALID_REQUEST', undefined, {
        upsells: detail('UPSELL_NOT_SELECTABLE', { code, availability: def.availability }),
      })
    }
    return upsellPrice(def, days, language) ?? { amount: 0, currency: 'EUR', description: pick(def.name, language) }
  })
}

export interface PriceOptions {
  ratePercent: number
  upsells?: string[]
  changeFees?: number[]
  /** The caller's language (the price's descriptions). */
  language: string
}

export function quoteFor(profile: CarProfile, params: OfferParams, r: Resolved, options: PriceOptions): Quote {
  const base = {
    model: r.model,
    pickup: r.pickup,
    dropoff: r.dropoff,
    start: r.start,
    end: r.end,
    estimatedKilometers: params.k,
    driverAge: params.g,
    ratePercent: options.ratePercent,
    hourly: profile.hourly,
    language: options.language,
  }
  const days = quote(base).days
  return quote({
    ...base,
    extras: selectedExtras(profile, r.pickup, options.upsells ?? [], days, options.language),
    extraFees: (options.changeFees ?? []).map((amount) => ({
      amount,
      currency: 'EUR',
      description: textsFor(options.language).changeFeeLine,
    })),
  })
}

function offerWarnings(params: OfferParams, r: Resolved, q: Quote, free: number, language: string): Warning[] {
  const texts = textsFor(language)
  const warnings: Warning[] = []
  if (free === 1) {
    warnings.push({
      code: 'LIMITED_AVAILABILITY',
      message: texts.limited,
      severity: 'WARNING',
    })
  }
  const oneWay = oneWayFee(r.pickup, r.dropoff) ?? 0
  if (oneWay > 0) {
    warnings.push({
      code: 'ONE_WAY_FEE_APPLIES',
      message: texts.oneWay(oneWay),
      severity: 'INFO',
      details: { newValue: oneWay },
    })
  }
  if (params.g !== undefined && params.g < YOUNG_DRIVER_AGE) {
    warnings.push({
      code: 'AGE_RESTRICTION_APPLIES',
      message: texts.young,
      severity: 'INFO',
      field: 'driverAge',
      details: { originalValue: params.g },
    })
  }
  const included = q.mileageAllowance.includedKilometers
  if (included && params.k > included) {
    warnings.push({
      code: 'ADDITIONAL_FEES_MAY_APPLY',
      message: texts.mileage(included),
      severity: 'INFO',
      field: 'estimatedKilometers',
      details: { originalValue: params.k, newValue: included },
    })
  }
  return warnings
}

/** A complete offer for the reference's parameters, priced with the given drift and upsells. */
export function buildOffer(
  scope: OfferScope,
  params: OfferParams,
  r: Resolved,
  free: number,
  options: PriceOptions,
): { offer: ProviderCarOffer; quote: Quote } {
  const q = quoteFor(scope.profile, params, r, options)
  const offerRef = encodeOfferRef(params)
  const linkPath = `${r.pickup.id}/${r.model.id}?start=${encodeURIComponent(params.a)}&end=${encodeURIComponent(params.b)}`
  const web = `${scope.websiteUrl}/book/${linkPath}`
  const offer: ProviderCarOffer = {
    offerRef,
    vehicle: { ...r.model.vehicle, features: [...r.model.vehicle.features] },
    pickupLocation: location(r.pickup, scope.language),
    dropoffLocation: location(r.dropoff, scope.language),
    rentalPeriod: { start: params.a, end: params.b },
    price: q.price,
    pricePerDay: q.pricePerDay,
    insurance: r.model.insurance,
    refillPolicy: r.model.refillPolicy,
    mileageAllowance: q.mileageAllowance,
    distanceMeters: params.x,
    deepLinks: scope.profile.appAccess
      ? { android: `${scope.websiteUrl}/app/${linkPath}`, ios: `${scope.websiteUrl}/app/${linkPath}`, web }
      : { web },
    availableUpsells: summariesAt(scope.profile.upsells, r.pickup, scope.language),
    warnings: offerWarnings(params, r, q, free, scope.language),
  }
  return { offer, quote: q }
}

export function policyInput(
  scope: Pick<OfferScope, 'profile' | 'websiteUrl' | 'contact' | 'language'>,
  r: Resolved,
  total: number,
  lateFee: number,
  now: Date,
): PolicyInput {
  return {
    kind: scope.profile.kind,
    station: r.pickup,
    contact: scope.contact,
    websiteUrl: scope.websiteUrl,
    start: r.start,
    total,
    lateFee,
    now,
    language: scope.language,
  }
}

export const lateFeeOf = (profile: CarProfile, q: Quote) => (profile.hourly ? (q.hourRate ?? q.dayRate) : q.dayRate)

/** Cancellation and change policies, pickup requirements and every upsell (priced) of an offer or booking. */
export function buildTerms(
  scope: OfferScope,
  r: Resolved,
  total: number,
  lateFee: number,
  days: number,
  now: Date,
): OfferTerms {
  const p = policyInput(scope, r, total, lateFee, now)
  return {
    cancellationPolicy: cancellationPolicy(p),
    changePolicies: changePolicies(p),
    pickupRequirements: pickupRequirements(scope.profile.kind, r.model.vehicle.category, scope.language),
    upsells: upsellsAt(scope.profile.upsells, r.pickup).map((d) => priced(d, days, scope.language)),
  }
}
