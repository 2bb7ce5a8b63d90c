import { ApiError } from '../../../contract/errors.ts'
import type { Warning } from '../../../contract/shared.ts'
import { distanceMeters } from '../../../platform/geo.ts'
import { detail } from '../../../platform/i18n/texts.ts'
import { type Lru, lru } from '../../../platform/lru.ts'
import type { CarConnector, CarSearchAnswer, CarSearchQuery, ProviderStation } from '../../types/cars.ts'
import type { CallContext, GeoArea } from '../../types/common.ts'
import { hasScenario } from '../common.ts'
import {
  buildOffer,
  buildTerms,
  FLIGHT_NUMBER,
  lateFeeOf,
  location,
  quoteFor,
  type Resolved,
  requiredFields,
  resolve,
} from './offers.ts'
import { minimumAge } from './policies.ts'
import { oneWayFee, priceDrift, rentalDays } from './pricing.ts'
import { roundPeriod } from './profiles.ts'
import { decodeOfferRef, decodePrebookRef, encodePrebookRef, type OfferParams } from './refs.ts'
import type { CarRuntime } from './runtime.ts'
import type { SandboxStation } from './stations.ts'
import type { BookingRecord } from './store.ts'
import { textsFor } from './texts.ts'

/** How many search answers a provider keeps at hand, and for how long at most (a safety net for the version). */
const OFFER_MEMO_ANSWERS = 64
const OFFER_MEMO_MS = 60_000
/** Environments × availability versions × languages with answers kept; past this many, the memo starts afresh. */
const OFFER_MEMO_SCOPES = 8

const areaKey = (area: GeoArea) => `${area.coordinates.latitude},${area.coordinates.longitude},${area.radiusMeters}`

/**
 * What a search answer depends on in the query, as one string made once per query object: every provider of a
 * search gets the same query, so they share the string (and the hash a map lookup computes of it).
 */
const queryKeys = new WeakMap<CarSearchQuery, string>()
function queryKey(query: CarSearchQuery): string {
  let key = queryKeys.get(query)
  if (key === undefined) {
    key = `${query.start.getTime()}|${query.end.getTime()}|${areaKey(query.pickup)}|${query.dropoff ? areaKey(query.dropoff) : ''}|${query.estimatedKilometers ?? 0}|${query.driverAge ?? ''}`
    queryKeys.set(query, key)
  }
  return key
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

/** Full years from a date of birth (YYYY-MM-DD) to a day. */
function ageOn(dateOfBirth: string, day: Date): number {
  const [y, m, d] = dateOfBirth.split('-').map(Number)
  const before = day.getUTCMonth() + 1 < m || (day.getUTCMonth() + 1 === m && day.getUTCDate() < d)
  return day.getUTCFullYear() - y - (before ? 1 : 0)
}

const FLIGHT_PATTERN = /^[A-Z0-9]{2,3}\s?\d{1,4}[A-Z]?$/i

const nearest = (stations: SandboxStation[], area: GeoArea) =>
  stations
    .map((station) => ({ station, distance: distanceMeters(area.coordinates, station.coordinates) }))
    .filter((s) => s.distance <= area.radiusMeters)
    .sort((a, b) => a.distance - b.distance)

function timeRounded(field: string, from: Date, to: Date, language: string): Warning {
  return {
    code: 'TIME_ROUNDED',
    message: textsFor(language).rounded(from.toISOString(), to.toISOString()),
    severity: 'INFO',
    field,
    details: { originalValue: from.toISOString(), newValue: to.toISOString() },
  }
}

type Answers = Lru<string, { answer: CarSearchAnswer; until: number; start: number }>

/** Search, stations, offer details, prebook and book: the way to a booking. */
export function shopping(rt: CarRuntime) {
  const { entry, profile, store, enter, scopeOf, soldOut, expired, bookable, present } = rt
  // Answers by environment, availability version and language, then by query (see queryKey).
  const memo = new Map<string, Answers>()
  // The scope of the last search (its key made once, not per call): the memo still holds its answers, since the
  // memo is only ever cleared right before a new scope becomes the last one.
  let last: { environment: string; version: string; language: string; answers: Answers } | undefined
  const answersOf = (environment: string, version: string, language: string): Answers => {
    if (last?.environment === environment && last.version === version && last.language === language) return last.answers
    const scopeKey = `${environment}|${version}|${language}`
    let answers = memo.get(scopeKey)
    if (!answers) {
      if (memo.size >= OFFER_MEMO_SCOPES) memo.clear()
      answers = lru(OFFER_MEMO_ANSWERS)
      memo.set(scopeKey, answers)
    }
    last = { environment, version, language, answers }
    return answers
  }
  /** A search the memo has no answer for: every car priced, the answer kept in `answers`. */
  async function price(query: CarSearchQuery, ctx: CallContext, answers: Answers): Promise<CarSearchAnswer> {
    const { start, end } = roundPeriod(query.start, query.end, profile.roundMinutes)
    const searchedPeriod = { start: start.toISOString(), end: end.toISOString() }
    const warnings: Warning[] = []
    if (start.getTime() !== query.start.getTime())
      warnings.push(timeRounded('dates.start', query.start, start, ctx.language))
    if (end.getTime() !== query.end.getTime()) warnings.push(timeRounded('dates.end', query.end, end, ctx.language))
    const none = { offers: [], searchedPeriod, warnings }
    const age = query.driverAge
    if (soldOut(ctx) || start <= ctx.now || rentalDays(start, end) > profile.maxDays) return none
    if (age !== undefined && age < 18) return none
    let dropoff: SandboxStation | undefined
    if (query.dropoff) {
      if (!profile.oneWay) return none
      dropoff = nearest(profile.stations, query.dropoff)[0]?.station
      if (!dropoff) return none
    }
    const scope = scopeOf(ctx)
    const found = nearest(profile.stations, query.pickup)
    const free = await Promise.all(
      found.map(({ station }) => store.freeUnits(ctx.environment, station.id, station.fleet, start, end)),
    )
    const offers = found.flatMap(({ station, distance }, i) => {
      const to = dropoff ?? station
      if (oneWayFee(station, to) === undefined) return []
      return Object.entries(station.fleet).flatMap(([modelId, units]) => {
        const model = profile.fleet.get(modelId)
        if (!model || free[i][modelId] <= 0) return []
        if (age !== undefined && age < minimumAge(model.vehicle.category)) return []
        const params: OfferParams = {
          s: station.id,
          d: to.id,
          m: modelId,
          a: searchedPeriod.start,
          b: searchedPeriod.end,
          k: query.estimatedKilometers ?? 0,
          ...(age !== undefined ? { g: age } : {}),
          x: Math.round(distance),
        }
        const r: Resolved = { pickup: station, dropoff: to, model, units, start, end }
        return [buildOffer(scope, params, r, free[i][modelId], { ratePercent: 0, language: ctx.language }).offer]
      })
    })
    const answer = deepFreeze({ offers, searchedPeriod, warnings })
    answers.set(queryKey(query), { answer, until: Date.now() + OFFER_MEMO_MS, start: start.getTime() })
    return answer
  }
  return {
    // Small on purpose: an async function keeps every local of its body while it waits (20 calls per car search, each
    // through the provider's latency), so pricing the cars is a function of its own (`price`).
    async searchCars(query: CarSearchQuery, ctx: CallContext): Promise<CarSearchAnswer> {
      await enter(ctx, 'SEARCH')
      if (!(query.end > query.start)) throw new ApiError('INVALID_DATE_RANGE', 'The rental must end after it starts')
      // The answer depends on nothing but the query, the language and the availability (through its version), so a
      // repeated search gets the same immutable answer instead of pricing every car again: the simulated provider
      // stays cheap to run. What depends on the call (a scenario, the time) is checked on every call.
      const answers = answersOf(ctx.environment, await store.availabilityVersion(ctx.environment), ctx.language)
      const known = answers.get(queryKey(query))
      if (known && known.until > Date.now() && known.start > ctx.now.getTime() && !soldOut(ctx)) return known.answer
      return price(query, ctx, answers)
    },

    async stations(area: GeoArea, ctx: CallContext): Promise<ProviderStation[]> {
      await enter(ctx, 'STATIONS')
      return nearest(profile.stations, area).map(({ station, distance }) => ({
        ...location(station, ctx.language),
        stationType: station.type,
        distanceMeters: Math.round(distance),
      }))
    },

    async offerDetails(offerRef: string, ctx: CallContext) {
      await enter(ctx, 'OFFER_DETAILS')
      const params = decodeOfferRef(offerRef)
      const { r, free } = await bookable(ctx, params)
      const { offer, quote } = buildOffer(scopeOf(ctx), params, r, free, { ratePercent: 0, language: ctx.language })
      const terms = buildTerms(
        scopeOf(ctx),
        r,
        quote.price.totalPrice.amount,
        lateFeeOf(profile, quote),
        quote.days,
        ctx.now,
      )
      return { offer, terms }
    },

    async prebook(offerRef: string, input: { accessMethod?: 'APP'; upsells: string[] }, ctx: CallContext) {
      await enter(ctx, 'PREBOOK')
      if (input.accessMethod === 'APP' && !profile.appAccess) {
        throw new ApiError('APP_ACCESS_NOT_AVAILABLE', 'This provider hands over cars at the counter only')
      }
      const params = decodeOfferRef(offerRef)
      const { r, free } = await bookable(ctx, params)
      const upsells = [...new Set(input.upsells)]
      const scope = scopeOf(ctx)
      const drift = priceDrift(offerRef, hasScenario(ctx, entry.id, 'price-increase'))
      const before = quoteFor(profile, params, r, { ratePercent: 0, upsells, language: ctx.language }).price.totalPrice
        .amount
      const { offer, quote } = buildOffer(scope, params, r, free, {
        ratePercent: drift,
        upsells,
        language: ctx.language,
      })
      const total = quote.price.totalPrice.amount
      const warnings: Warning[] = []
      if (total !== before) {
        const up = total > before
        const details = { originalValue: before, newValue: total }
        warnings.push(
          {
            code: 'PRICE_CHANGED',
            message: textsFor(ctx.language).priceChanged(before, total),
            severity: up ? 'WARNING' : 'INFO',
            field: 'price.totalPrice',
            details,
          },
          {
            code: up ? 'PRICE_INCREASED' : 'PRICE_DECREASED',
            message: up ? textsFor(ctx.language).priceUp : textsFor(ctx.language).priceDown,
            severity: up ? 'WARNING' : 'INFO',
            field: 'price.totalPrice',
            details,
          },
        )
      }
      return {
        prebookRef: encodePrebookRef({
          o: params,
          u: upsells,
          r: drift,
          t: total,
          ...(input.accessMethod ? { p: input.accessMethod } : {}),
        }),
        offer,
        terms: buildTerms(scope, r, total, lateFeeOf(profile, quote), quote.days, ctx.now),
        requiredFields: requiredFields(r.pickup, ctx.language),
        appAccessAvailable: profile.appAccess,
        warnings,
      }
    },

    async book(prebookRef: string, input: Parameters<CarConnector['book']>[1], ctx: CallContext) {
      await enter(ctx, 'BOOK')
      const pre = decodePrebookRef(prebookRef)
      const accessMethod = input.accessMethod ?? pre.p
      if (accessMethod === 'APP' && !profile.appAccess) {
        throw new ApiError('APP_ACCESS_NOT_AVAILABLE', 'This provider hands over cars at the counter only')
      }
      const r = resolve(profile, pre.o)
      if (r.start <= ctx.now) throw expired('PICKUP_TIME_PASSED')
      // The same eligibility as the search's driverAge: the driver's age on the pickup day.
      const born = input.driver.dateOfBirth
      const youngest = minimumAge(r.model.vehicle.category)
      if (born && ageOn(born, r.start) < youngest) {
        throw new ApiError('INVALID_REQUEST', undefined, {
          'driver.dateOfBirth': detail('DRIVER_TOO_YOUNG', { age: youngest }),
        })
      }
      const fields = requiredFields(r.pickup, ctx.language)
      const missing = fields.filter((f) => {
        const value = input.additionalFields?.[f.field]
        return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
      })
      if (missing.length > 0) {
        throw new ApiError('MISSING_REQUIRED_FIELD', undefined, { requiredFields: missing, retryable: true })
      }
      const flight = input.additionalFields?.[FLIGHT_NUMBER]
      if (fields.length > 0 && (typeof flight !== 'string' || !FLIGHT_PATTERN.test(flight.trim()))) {
        throw new ApiError('INVALID_REQUEST', undefined, {
          'additionalFields.flightNumber': detail('MUST_BE_FLIGHT_NUMBER', { example: 'LH 1234' }),
        })
      }
      if (hasScenario(ctx, entry.id, 'booking-fails')) {
        throw new ApiError('BOOKING_FAILED', 'The provider rejected the booking (scenario)', { reason: 'SCENARIO' })
      }
      // Taken by other bookings meanwhile (the loser of a race for the last car): a 409 that says so, never a 5xx.
      const noCar = () =>
        new ApiError('NO_AVAILABLE_CARD', 'Every car of this model is booked for these dates', {
          reason: 'VEHICLE_NOT_AVAILABLE',
        })
      if (soldOut(ctx)) throw noCar()
      const quote = quoteFor(profile, pre.o, r, { ratePercent: pre.r, upsells: pre.u, language: ctx.language })
      const reference = await store.nextReference(ctx.environment)
      if (!(await store.hold(ctx.environment, r.pickup.id, r.model.id, r.units, reference, r.start, r.end, ctx.now))) {
        throw noCar()
      }
      const now = ctx.now.toISOString()
      const record: BookingRecord = {
        v: 1,
        reference,
        status: hasScenario(ctx, entry.id, 'booking-pending') ? 'PENDING' : 'CONFIRMED',
        offer: pre.o,
        ratePercent: pre.r,
        upsells: pre.u,
        ...(accessMethod ? { accessMethod } : {}),
        driver: { ...input.driver },
        additionalFields: { ...(input.additionalFields ?? {}) },
        changeFees: [],
        price: quote.price,
        lateFee: lateFeeOf(profile, quote),
        createdAt: now,
        updatedAt: now,
        ...(profile.vehicleActions ? { locked: true } : {}),
      }
      await store.saveBooking(ctx.environment, record)
      return present(ctx, record)
    },
  } satisfies Partial<CarConnector>
}
