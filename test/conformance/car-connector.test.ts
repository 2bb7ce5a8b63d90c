import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_PROVIDERS } from '../../src/connectors/default-providers.ts'
import { buildRegistry } from '../../src/connectors/registry.ts'
import {
  type CarConnector,
  type CarSearchQuery,
  isCarConnector,
  type ProviderCarOffer,
} from '../../src/connectors/types/cars.ts'
import type { Scenario } from '../../src/connectors/types/common.ts'
import {
  CAR_CATEGORIES,
  CancellationPolicy,
  CHANGE_TYPES,
  ChangeTypePolicy,
  Driver,
  FUEL_TYPES,
  MileageAllowance,
  PickupRequirement,
  PricedUpsell,
  REFILL_POLICIES,
  RequiredField,
  TRANSMISSIONS,
  UPSELL_AVAILABILITY,
  UpsellSummary,
  Vehicle,
} from '../../src/contract/cars.ts'
import type { ApiError } from '../../src/contract/errors.ts'
import { SANDBOX_SCENARIOS } from '../../src/contract/sandbox.ts'
import { Coordinates, DetailedPrice, LocationDetails, Price, Warning } from '../../src/contract/shared.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { buildConnector, type ConnectorSetup, type KvFactory, rejectsWith, validator } from '../helpers/connectors.ts'
import { testRedis } from '../helpers/redis.ts'

// ---------------------------------------------------------------------------------------------------------------
// Set-up

const T0 = Date.parse('2031-05-05T08:00:00.000Z')
const HOUR = 3_600_000
const DAY = 24 * HOUR
const BERLIN = { latitude: 52.52, longitude: 13.405 }
const BER = { latitude: 52.3667, longitude: 13.5033 }
const CITIES = {
  munich: { latitude: 48.1374, longitude: 11.5755 },
  hamburg: { latitude: 53.5511, longitude: 9.9937 },
  paris: { latitude: 48.8566, longitude: 2.3522 },
  vienna: { latitude: 48.2082, longitude: 16.3738 },
}
const DRIVER = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }

const check = {
  vehicle: validator(Vehicle, 'Vehicle'),
  location: validator(LocationDetails, 'LocationDetails'),
  detailedPrice: validator(DetailedPrice, 'DetailedPrice'),
  price: validator(Price, 'Price'),
  mileage: validator(MileageAllowance, 'MileageAllowance'),
  upsellSummary: validator(UpsellSummary, 'UpsellSummary'),
  pricedUpsell: validator(PricedUpsell, 'PricedUpsell'),
  warning: validator(Warning, 'Warning'),
  cancellation: validator(CancellationPolicy, 'CancellationPolicy'),
  change: validator(ChangeTypePolicy, 'ChangeTypePolicy'),
  requirement: validator(PickupRequirement, 'PickupRequirement'),
  requiredField: validator(RequiredField, 'RequiredField'),
  driver: validator(Driver, 'Driver'),
  coordinates: validator(Coordinates, 'Coordinates'),
}

interface Setup extends ConnectorSetup<CarConnector> {
  providerId: string
}

/** Builds a sandbox provider through the registry, as the service does, on a memory store and a test clock. */
function build(
  id: 'sandbox-rent' | 'sandbox-share',
  options: Record<string, unknown> = {},
  shared?: Pick<Setup, 'clock' | 'kv'>,
  makeKv?: KvFactory,
): Setup {
  const setup = buildConnector(id, { is: isCarConnector, name: 'car' }, { options, shared, makeKv, start: T0 })
  return { providerId: id, ...setup }
}

/** A period `days` long, starting `inHours` after the clock, on the full hour. */
function period(s: Setup, inHours = 5 * 24, days = 3) {
  const start = new Date(Math.floor((s.clock().getTime() + inHours * HOUR) / HOUR) * HOUR)
  return { start, end: new Date(start.getTime() + days * DAY) }
}

const query = (s: Setup, extra: Partial<CarSearchQuery> = {}): CarSearchQuery => ({
  pickup: { coordinates: BERLIN, radiusMeters: 20_000 },
  ...period(s),
  estimatedKilometers: 300,
  driverAge: 30,
  ...extra,
})

const scenario = (name: string, target: string): Scenario[] => [{ name, target }]

const isAirport = (offer: ProviderCarOffer) => ['ber', 'muc', 'ham', 'cdg', 'vie'].includes(offer.pickupLocation.id)
const sameCar = (a: ProviderCarOffer) => (b: ProviderCarOffer) =>
  b.pickupLocation.id === a.pickupLocation.id &&
  b.vehicle.make === a.vehicle.make &&
  b.vehicle.model === a.vehicle.model

function checkOffer(offer: ProviderCarOffer) {
  assert.equal(typeof offer.offerRef, 'string')
  check.vehicle(offer.vehicle)
  check.location(offer.pickupLocation, 'pickup')
  check.location(offer.dropoffLocation, 'dropoff')
  check.detailedPrice(offer.price)
  check.price(offer.pricePerDay)
  check.mileage(offer.mileageAllowance)
  for (const u of offer.availableUpsells ?? []) check.upsellSummary(u)
  for (const w of offer.warnings ?? []) check.warning(w)
  const p = offer.price
  assert.ok(Number.isInteger(p.totalPrice.amount) && p.totalPrice.amount > 0)
  const parts = [...p.includedInsurances, ...p.includedFees, ...p.includedExtras].reduce((a, x) => a + x.amount, 0)
  assert.ok(parts <= p.totalPrice.amount, 'the included parts are inside the total')
  assert.ok(p.includedTaxes.length > 0 && p.includedTaxes[0].amount > 0, 'VAT is listed')
  assert.ok(offer.distanceMeters >= 0)
  if (offer.vehicle.fuelType === 'ELECTRIC' || offer.vehicle.fuelType === 'HYDROGEN')
    assert.equal(offer.vehicle.co2Emissions, 0)
  if (offer.refillPolicy === 'FUEL_INCLUDED') assert.equal(p.estimatedFuel.amount, 0)
  if (!offer.mileageAllowance.unlimited) assert.ok((offer.mileageAllowance.includedKilometers ?? 0) > 0)
}

async function firstBookable(s: Setup, extra: Partial<CarSearchQuery> = {}) {
  const answer = await s.connector.searchCars(query(s, extra), s.ctx())
  const offer = answer.offers.find((o) => !isAirport(o))
  assert.ok(offer, 'an offer away from airports')
  return offer
}

async function book(s: Setup, offerRef: string, fields: Record<string, string> = {}, scenarios: Scenario[] = []) {
  const pre = await s.connector.prebook(offerRef, { upsells: [] }, s.ctx({ scenarios }))
  return s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: fields }, s.ctx({ scenarios }))
}

// ---------------------------------------------------------------------------------------------------------------
// The shared suite

/** What every sandbox car connector must do, whatever its profile. */
export function carConnectorSuite(
  name: string,
  make: (options?: Record<string, unknown>) => Setup,
  settings: { skip?: string } = {},
) {
  describe(`CarConnector conformance: ${name}`, { skip: settings.skip }, () => {
    it('searches near Berlin: offers with valid shapes, inside the radius, for the searched period', async () => {
      const s = make()
      const answer = await s.connector.searchCars(query(s), s.ctx())
      assert.ok(answer.offers.length >= 5, `${answer.offers.length} offers`)
      for (const w of answer.warnings) check.warning(w)
      for (const offer of answer.offers) {
        checkOffer(offer)
        assert.ok(offer.distanceMeters <= 20_000)
        assert.deepEqual(offer.rentalPeriod, answer.searchedPeriod)
        assert.equal(offer.pickupLocation.address.countryCode, 'DE')
        assert.equal(offer.price.totalPrice.currency, 'EUR')
      }
      const again = await s.connector.searchCars(query(s), s.ctx())
      assert.deepEqual(again, answer, 'deterministic')
    })

    it('lists stations nearest first, with type and distance; localized names', async () => {
      const s = make()
      const stations = await s.connector.stations(
        { coordinates: BERLIN, radiusMeters: 20_000 },
        s.ctx({ language: 'de-DE' }),
      )
      assert.ok(stations.length >= 3)
      for (const st of stations) {
        check.location(st)
        assert.ok(['AIRPORT', 'RAILWAY_STATION', 'CITY', 'HOTEL'].includes(st.stationType))
        assert.ok(st.distanceMeters <= 20_000)
        assert.match(st.id, /^[a-z0-9]+$/)
      }
      assert.deepEqual(
        stations.map((x) => x.distanceMeters),
        [...stations.map((x) => x.distanceMeters)].sort((a, b) => a - b),
      )
      assert.deepEqual(
        await s.connector.stations({ coordinates: { latitude: 0, longitude: 0 }, radiusMeters: 5_000 }, s.ctx()),
        [],
      )
    })

    it('offer details: the offer again with policies, requirements and upsells of every availability', async () => {
      const s = make()
      const offer = await firstBookable(s)
      const { offer: again, terms } = await s.connector.offerDetails(offer.offerRef, s.ctx())
      checkOffer(again)
      assert.deepEqual(again.price, offer.price)
      check.cancellation(terms.cancellationPolicy)
      assert.equal(terms.cancellationPolicy.availability, 'AVAILABLE_VIA_API')
      assert.equal(terms.cancellationPolicy.currentTerms?.fee?.amount, 0, 'free cancellation now')
      assert.ok((terms.cancellationPolicy.deadlines ?? []).length > 0)
      for (const c of terms.changePolicies) check.change(c)
      assert.deepEqual(terms.changePolicies.map((c) => c.changeType).sort(), [...CHANGE_TYPES].sort())
      assert.ok(terms.pickupRequirements.some((r) => r.type === 'MINIMUM_AGE' && typeof r.value === 'number'))
      for (const r of terms.pickupRequirements) check.requirement(r)
      for (const u of terms.upsells) check.pricedUpsell(u)
      assert.deepEqual([...new Set(terms.upsells.map((u) => u.availability))].sort(), [...UPSELL_AVAILABILITY].sort())
      for (const u of terms.upsells) assert.equal(u.price !== undefined, u.hasPricing, u.referenceCode)
      await rejectsWith(s.connector.offerDetails('garbage', s.ctx()), 'INVALID_OFFER_TOKEN')
    })

    it('round trip: prebook, book, read, change rental times, cancel free of charge', async () => {
      const s = make()
      const offer = await firstBookable(s)
      const bookable = (await s.connector.offerDetails(offer.offerRef, s.ctx())).terms.upsells.find(
        (u) => u.availability === 'BOOKABLE' && u.hasPricing,
      )
      assert.ok(bookable)
      const pre = await s.connector.prebook(offer.offerRef, { upsells: [bookable.referenceCode] }, s.ctx())
      assert.equal(typeof pre.prebookRef, 'string')
      checkOffer(pre.offer)
      for (const w of pre.warnings) check.warning(w)
      assert.deepEqual(pre.requiredFields, [])
      assert.ok(pre.offer.price.includedExtras.some((x) => x.amount === bookable.price?.amount))
      const booking = await s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: {} }, s.ctx())
      assert.equal(booking.status, 'CONFIRMED')
      assert.match(booking.reference, /^S[RS]-[0-9A-Z]{6}$/)
      assert.deepEqual(booking.price, pre.offer.price)
      assert.deepEqual(booking.chargedRate, { amount: booking.price.totalPrice.amount, currency: 'EUR' })
      assert.ok(booking.upsells.some((u) => u.referenceCode === bookable.referenceCode))
      check.vehicle(booking.vehicle)
      check.driver(booking.operatorAccount)
      assert.equal(booking.operatorAccount.firstName, 'Sandbox')
      check.cancellation(booking.terms.cancellationPolicy)

      const read = await s.connector.getBooking(booking.reference, s.ctx())
      assert.deepEqual(read, booking)

      const longer = {
        start: new Date(booking.rentalPeriod.start).toISOString(),
        end: new Date(Date.parse(booking.rentalPeriod.end) + DAY).toISOString(),
      }
      const changed = await s.connector.changeBooking(booking.reference, { rentalPeriod: longer }, s.ctx())
      assert.deepEqual(changed.rentalPeriod, longer)
      assert.ok(changed.price.totalPrice.amount > booking.price.totalPrice.amount, 'a longer rental costs more')
      assert.equal(changed.chargedRate.amount, changed.price.totalPrice.amount)
      await rejectsWith(
        s.connector.changeBooking(
          booking.reference,
          { rentalPeriod: { start: longer.end, end: longer.start } },
          s.ctx(),
        ),
        'INVALID_DATE_RANGE',
      )

      const cancelled = await s.connector.cancelBooking(booking.reference, { reason: 'plans changed' }, s.ctx())
      assert.equal(cancelled.status, 'CANCELLED')
      assert.equal(cancelled.cancellation?.fee.amount, 0)
      assert.equal(cancelled.cancellation?.refund.amount, changed.price.totalPrice.amount)
      assert.equal(cancelled.cancellation?.reason, 'plans changed')
      assert.equal(cancelled.chargedRate.amount, 0)
      assert.deepEqual(await s.connector.cancelBooking(booking.reference, {}, s.ctx()), cancelled, 'already cancelled')
      assert.equal((await s.connector.getBooking(booking.reference, s.ctx())).status, 'CANCELLED')
    })

    it('unknown references answer NOT_FOUND', async () => {
      const s = make()
      const ref = s.providerId === 'sandbox-rent' ? 'SR-ZZZZZZ' : 'SS-ZZZZZZ'
      await rejectsWith(s.connector.getBooking(ref, s.ctx()), 'NOT_FOUND')
      await rejectsWith(s.connector.getBooking('nonsense', s.ctx()), 'NOT_FOUND')
      await rejectsWith(s.connector.changeBooking(ref, { notes: 'x' }, s.ctx()), 'NOT_FOUND')
      await rejectsWith(s.connector.cancelBooking(ref, {}, s.ctx()), 'NOT_FOUND')
    })

    it('NO_AVAILABLE_CARD once every unit is booked for an overlapping window; LIMITED_AVAILABILITY before', async () => {
      const s = make()
      const target = await firstBookable(s)
      const prebooked = await Promise.all(
        Array.from({ length: 6 }, () => s.connector.prebook(target.offerRef, { upsells: [] }, s.ctx())),
      )
      const outcomes: string[] = []
      let warnedBeforeLast = false
      for (const pre of prebooked) {
        const current = (await s.connector.searchCars(query(s), s.ctx())).offers.find(sameCar(target))
        const limited = !!current?.warnings?.some((w) => w.code === 'LIMITED_AVAILABILITY')
        try {
          await s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: {} }, s.ctx())
          outcomes.push('BOOKED')
          warnedBeforeLast = limited
        } catch (error) {
          outcomes.push((error as ApiError).code)
        }
      }
      const units = outcomes.filter((o) => o === 'BOOKED').length
      assert.ok(units >= 1 && units < 6, outcomes.join())
      assert.deepEqual(outcomes.slice(units), Array(6 - units).fill('NO_AVAILABLE_CARD'))
      assert.ok(warnedBeforeLast, 'the last unit was offered with LIMITED_AVAILABILITY')
      const after = await s.connector.searchCars(query(s), s.ctx())
      assert.equal(after.offers.find(sameCar(target)), undefined, 'no longer offered there')
      await rejectsWith(s.connector.offerDetails(target.offerRef, s.ctx()), 'OFFER_EXPIRED', { reason: 'SOLD_OUT' })
      await rejectsWith(s.connector.prebook(target.offerRef, { upsells: [] }, s.ctx()), 'OFFER_EXPIRED', {
        reason: 'SOLD_OUT',
      })
      // A window that does not overlap is still free.
      const later = (await s.connector.searchCars(query(s, period(s, 20 * 24, 2)), s.ctx())).offers.find(
        sameCar(target),
      )
      assert.ok(later, 'free again for another window')
    })

    it('concurrent bookings never take more units than there are (and another instance on the same store agrees)', async () => {
      const s = make()
      const twin = build(s.providerId as 'sandbox-rent' | 'sandbox-share', {}, s)
      const target = await firstBookable(s)
      const prebooked = await Promise.all(
        Array.from({ length: 8 }, () => s.connector.prebook(target.offerRef, { upsells: [] }, s.ctx())),
      )
      const results = await Promise.allSettled(
        prebooked.map((pre, i) =>
          (i % 2 ? twin : s).connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: {} }, s.ctx()),
        ),
      )
      const booked = results.filter((r) => r.status === 'fulfilled')
      assert.ok(booked.length >= 1 && booked.length < 8)
      for (const r of results) {
        if (r.status === 'rejected') assert.equal((r.reason as ApiError).code, 'NO_AVAILABLE_CARD')
      }
      const refs = booked.map((r) => (r as PromiseFulfilledResult<{ reference: string }>).value.reference)
      assert.equal(new Set(refs).size, refs.length, 'unique references')
      for (const ref of refs) assert.equal((await twin.connector.getBooking(ref, twin.ctx())).reference, ref)
    })

    it('scenario provider-error fails every call of that provider only', async () => {
      const s = make()
      const mine = scenario('provider-error', s.providerId)
      await rejectsWith(s.connector.searchCars(query(s), s.ctx({ scenarios: mine })), 'PROVIDER_ERROR')
      await rejectsWith(
        s.connector.stations({ coordinates: BERLIN, radiusMeters: 1000 }, s.ctx({ scenarios: mine })),
        'PROVIDER_ERROR',
      )
      await rejectsWith(s.connector.getBooking('SR-AAAAAA', s.ctx({ scenarios: mine })), 'PROVIDER_ERROR')
      const answer = await s.connector.searchCars(
        query(s),
        s.ctx({ scenarios: scenario('provider-error', 'someone-else') }),
      )
      assert.ok(answer.offers.length > 0)
    })

    it('scenario provider-timeout: the call hangs until its signal aborts, then rejects', async () => {
      const s = make()
      const controller = new AbortController()
      let settled = false
      const call = s.connector.searchCars(
        query(s),
        s.ctx({ scenarios: scenario('provider-timeout', s.providerId), signal: controller.signal }),
      )
      call.then(
        () => {
          settled = true
        },
        () => {
          settled = true
        },
      )
      await new Promise((r) => setTimeout(r, 60))
      assert.equal(settled, false, 'still waiting')
      controller.abort()
      await rejectsWith(call, 'TIMEOUT')
    })

    it('scenarios sold-out, price-increase, booking-fails, booking-pending, cancel-refused', async () => {
      const s = make()
      const id = s.providerId
      const offer = await firstBookable(s)
      const soldOut = await s.connector.searchCars(query(s), s.ctx({ scenarios: scenario('sold-out', id) }))
      assert.deepEqual(soldOut.offers, [])
      await rejectsWith(
        s.connector.offerDetails(offer.offerRef, s.ctx({ scenarios: scenario('sold-out', id) })),
        'OFFER_EXPIRED',
        {
          reason: 'SOLD_OUT',
        },
      )
      await rejectsWith(
        s.connector.prebook(offer.offerRef, { upsells: [] }, s.ctx({ scenarios: scenario('sold-out', id) })),
        'OFFER_EXPIRED',
      )

      const pricier = await s.connector.prebook(
        offer.offerRef,
        { upsells: [] },
        s.ctx({ scenarios: scenario('price-increase', id) }),
      )
      const codes = pricier.warnings.map((w) => w.code)
      assert.ok(codes.includes('PRICE_CHANGED') && codes.includes('PRICE_INCREASED'), codes.join())
      const increase = pricier.warnings.find((w) => w.code === 'PRICE_INCREASED')!
      assert.equal(increase.details?.originalValue, offer.price.totalPrice.amount)
      assert.equal(increase.details?.newValue, pricier.offer.price.totalPrice.amount)
      assert.ok(Number(increase.details?.newValue) > Number(increase.details?.originalValue))

      const pre = await s.connector.prebook(offer.offerRef, { upsells: [] }, s.ctx())
      const input = { driver: DRIVER, additionalFields: {} }
      await rejectsWith(
        s.connector.book(pre.prebookRef, input, s.ctx({ scenarios: scenario('booking-fails', id) })),
        'BOOKING_FAILED',
      )
      const pending = await s.connector.book(
        pre.prebookRef,
        input,
        s.ctx({ scenarios: scenario('booking-pending', id) }),
      )
      assert.equal(pending.status, 'PENDING')
      assert.equal((await s.connector.getBooking(pending.reference, s.ctx())).status, 'CONFIRMED')
      assert.equal((await s.connector.getBooking(pending.reference, s.ctx())).status, 'CONFIRMED')
      await rejectsWith(
        s.connector.cancelBooking(pending.reference, {}, s.ctx({ scenarios: scenario('cancel-refused', id) })),
        'BOOKING_FAILED',
        { reason: 'CANCELLATION_REFUSED' },
      )
      assert.equal((await s.connector.getBooking(pending.reference, s.ctx())).status, 'CONFIRMED')
      assert.ok(SANDBOX_SCENARIOS.length >= 7 && SANDBOX_SCENARIOS.every((x) => x.description.length > 10))
    })

    it('driver age: none under 18; under 21 only ECONOMY and COMPACT with a surcharge; LUXURY and SPORTS from 25', async () => {
      const s = make()
      assert.deepEqual((await s.connector.searchCars(query(s, { driverAge: 17 }), s.ctx())).offers, [])
      const young = await s.connector.searchCars(query(s, { driverAge: 19 }), s.ctx())
      assert.ok(young.offers.length > 0)
      for (const o of young.offers) {
        assert.ok(['ECONOMY', 'COMPACT'].includes(o.vehicle.category), o.vehicle.category)
        assert.ok(o.warnings?.some((w) => w.code === 'AGE_RESTRICTION_APPLIES'))
        assert.ok(o.price.includedFees.some((f) => /young driver/i.test(f.description ?? '')))
      }
      const mid = await s.connector.searchCars(query(s, { driverAge: 23 }), s.ctx())
      assert.ok(mid.offers.every((o) => !['LUXURY', 'SPORTS'].includes(o.vehicle.category)))
    })

    it('options: latencyMs delays and honours abort; failureRate fails calls deterministically; bad options are refused', async () => {
      const slow = make({ latencyMs: 5_000 })
      const controller = new AbortController()
      const started = Date.now()
      setTimeout(() => controller.abort(), 30)
      await rejectsWith(
        slow.connector.stations({ coordinates: BERLIN, radiusMeters: 1000 }, slow.ctx({ signal: controller.signal })),
        'TIMEOUT',
      )
      assert.ok(Date.now() - started < 2_000)
      const quick = make({ latencyMs: 20 })
      const t = Date.now()
      await quick.connector.stations({ coordinates: BERLIN, radiusMeters: 1000 }, quick.ctx())
      assert.ok(Date.now() - t >= 15)

      const broken = make({ failureRate: 1 })
      await rejectsWith(
        broken.connector.stations({ coordinates: BERLIN, radiusMeters: 1000 }, broken.ctx()),
        'PROVIDER_ERROR',
      )
      const outcomes = async () => {
        const flaky = make({ failureRate: 0.5 })
        const results: boolean[] = []
        for (let i = 0; i < 20; i++) {
          results.push(
            await flaky.connector.stations({ coordinates: BERLIN, radiusMeters: 1000 }, flaky.ctx()).then(
              () => true,
              () => false,
            ),
          )
        }
        return results
      }
      const first = await outcomes()
      assert.deepEqual(await outcomes(), first)
      assert.ok(first.includes(true) && first.includes(false))

      for (const bad of [{ failureRate: 2 }, { latencyMs: -1 }, { latencyMs: 'slow' }]) {
        const problems: string[] = []
        const base = DEFAULT_PROVIDERS.find((p) => p.id === 'sandbox-rent')!
        const registry = buildRegistry(
          [{ ...base, options: { ...base.options, ...bad } }],
          { kv: memoryKv(), clock: () => new Date() },
          (_, m) => problems.push(m),
        )
        assert.equal(registry.get('sandbox-rent')?.status, 'UNAVAILABLE')
        assert.match(problems[0], /latencyMs|failureRate/)
      }
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
// The two sandbox car providers

// Both on the in-memory store (one instance) and on Redis (the state several instances share).

const shared = await testRedis('cars')
const redis = shared.skip ?? shared.redis!
const onRedis: KvFactory = shared.kv

for (const id of ['sandbox-rent', 'sandbox-share'] as const) {
  carConnectorSuite(id, (options) => build(id, options))
  carConnectorSuite(`${id} on Redis`, (options) => build(id, options, undefined, onRedis), {
    skip: typeof redis === 'string' ? redis : undefined,
  })
}

describe('sandbox-rent specifics', () => {
  const rent = () => build('sandbox-rent')

  it('has every CarCategory, FuelType, Transmission and RefillPolicy near Berlin and at its other stations', async () => {
    const s = rent()
    const offers: ProviderCarOffer[] = []
    for (const coordinates of [BERLIN, ...Object.values(CITIES)]) {
      const answer = await s.connector.searchCars(query(s, { pickup: { coordinates, radiusMeters: 50_000 } }), s.ctx())
      assert.ok(answer.offers.length > 0)
      offers.push(...answer.offers)
    }
    const seen = (f: (o: ProviderCarOffer) => string) => [...new Set(offers.map(f))].sort()
    assert.deepEqual(
      seen((o) => o.vehicle.category),
      [...CAR_CATEGORIES].sort(),
    )
    assert.deepEqual(
      seen((o) => o.vehicle.fuelType),
      [...FUEL_TYPES].sort(),
    )
    assert.deepEqual(
      seen((o) => o.vehicle.transmission),
      [...TRANSMISSIONS].sort(),
    )
    assert.deepEqual(
      seen((o) => o.refillPolicy),
      [...REFILL_POLICIES].sort(),
    )
    assert.deepEqual(
      seen((o) => o.pickupLocation.address.countryCode),
      ['AT', 'DE', 'FR'],
    )
    assert.ok(offers.some((o) => !o.mileageAllowance.unlimited) && offers.some((o) => o.mileageAllowance.unlimited))
    for (const o of offers) {
      const vat = o.price.includedTaxes[0]
      const percent = o.pickupLocation.address.countryCode === 'DE' ? 19 : 20
      assert.equal(vat.amount, Math.round((o.price.totalPrice.amount * percent) / (100 + percent)))
      assert.equal(o.price.estimatedFuel.amount === 0, o.refillPolicy === 'FUEL_INCLUDED', o.vehicle.model)
    }
  })

  it('rounds times up to the half hour and says so (TIME_ROUNDED)', async () => {
    const s = rent()
    const start = new Date(T0 + 3 * DAY + 10 * 60_000)
    const end = new Date(T0 + 5 * DAY + 30 * 60_000)
    const answer = await s.connector.searchCars(query(s, { start, end }), s.ctx())
    assert.equal(answer.searchedPeriod.start, new Date(T0 + 3 * DAY + 30 * 60_000).toISOString())
    assert.equal(answer.searchedPeriod.end, end.toISOString())
    assert.deepEqual(answer.warnings, [
      {
        code: 'TIME_ROUNDED',
        message: answer.warnings[0].message,
        severity: 'INFO',
        field: 'dates.start',
        details: { originalValue: start.toISOString(), newValue: answer.searchedPeriod.start },
      },
    ])
  })

  it('prices: daily rate × started days, airport surcharge, one-way fee, estimated fuel, extras', async () => {
    const s = rent()
    const at = (days: number, hours = 0) => {
      const { start } = period(s)
      return { start, end: new Date(start.getTime() + days * DAY + hours * HOUR) }
    }
    const three = (await s.connector.searchCars(query(s, at(3)), s.ctx())).offers
    const partial = (await s.connector.searchCars(query(s, at(3, 2)), s.ctx())).offers
    const polo = (list: ProviderCarOffer[], station: string) =>
      list.find((o) => o.pickupLocation.id === station && o.vehicle.model === 'Polo 1.0 TSI')!
    const city = polo(three, 'beralex')
    const airport = polo(three, 'ber')
    assert.equal(city.price.totalPrice.amount, 3 * 4200)
    assert.equal(polo(partial, 'beralex').price.totalPrice.amount, 4 * 4200, 'a started day counts')
    assert.equal(airport.price.totalPrice.amount, 3 * 4200 + 3900)
    assert.ok(airport.price.includedFees.some((f) => /airport/i.test(f.description ?? '')))
    assert.ok(city.price.estimatedFuel.amount > 0)

    const oneWay = await s.connector.searchCars(
      query(s, { dropoff: { coordinates: CITIES.munich, radiusMeters: 10_000 } }),
      s.ctx(),
    )
    const o = oneWay.offers[0]
    assert.equal(o.dropoffLocation.id, 'muchbf')
    assert.ok(o.warnings?.some((w) => w.code === 'ONE_WAY_FEE_APPLIES'))
    assert.ok(o.price.includedFees.some((f) => /one-way/i.test(f.description ?? '')))
    const toParis = await s.connector.searchCars(
      query(s, { dropoff: { coordinates: CITIES.paris, radiusMeters: 10_000 } }),
      s.ctx(),
    )
    assert.deepEqual(toParis.offers, [], 'no one-way rentals across borders')

    const upsold = await s.connector.prebook(city.offerRef, { upsells: ['CHILD_SEAT', 'CROSS_BORDER'] }, s.ctx())
    assert.equal(upsold.offer.price.includedExtras.length, 2)
    await rejectsWith(s.connector.prebook(city.offerRef, { upsells: ['JETPACK'] }, s.ctx()), 'INVALID_REQUEST')
    await rejectsWith(s.connector.prebook(city.offerRef, { upsells: ['SNOW_CHAINS'] }, s.ctx()), 'INVALID_REQUEST')
  })

  it('prices drift between search and prebook for some offers, with PRICE_CHANGED and the direction', async () => {
    const s = rent()
    const offers = (
      await s.connector.searchCars(query(s, { pickup: { coordinates: BERLIN, radiusMeters: 25_000 } }), s.ctx())
    ).offers
    const directions = new Set<string>()
    for (const offer of offers) {
      const pre = await s.connector.prebook(offer.offerRef, { upsells: [] }, s.ctx())
      const codes = pre.warnings.map((w) => w.code)
      const before = offer.price.totalPrice.amount
      const after = pre.offer.price.totalPrice.amount
      if (after === before) {
        assert.deepEqual(codes, [])
        continue
      }
      const direction = after > before ? 'PRICE_INCREASED' : 'PRICE_DECREASED'
      directions.add(direction)
      assert.deepEqual(codes, ['PRICE_CHANGED', direction])
      for (const w of pre.warnings) assert.deepEqual(w.details, { originalValue: before, newValue: after })
      assert.equal(pre.warnings[1].severity, direction === 'PRICE_INCREASED' ? 'WARNING' : 'INFO')
      if (direction === 'PRICE_INCREASED') assert.ok(after <= Math.ceil(before * 1.09))
      const booked = await s.connector.book(
        pre.prebookRef,
        { driver: DRIVER, additionalFields: { flightNumber: 'LH 1234' } },
        s.ctx(),
      )
      assert.equal(booked.price.totalPrice.amount, after, 'the booking keeps the prebooked price')
    }
    assert.deepEqual([...directions].sort(), ['PRICE_DECREASED', 'PRICE_INCREASED'])
  })

  it('MISSING_REQUIRED_FIELD at BER, then books with the flight number', async () => {
    const s = rent()
    const answer = await s.connector.searchCars(
      query(s, { pickup: { coordinates: BER, radiusMeters: 2_000 } }),
      s.ctx(),
    )
    const offer = answer.offers[0]
    assert.equal(offer.pickupLocation.id, 'ber')
    assert.equal(offer.pickupLocation.address.street, 'Melli-Beese-Ring 1')
    assert.equal(offer.pickupLocation.operatingHours, 'Mo-Su 00:00-24:00')
    const pre = await s.connector.prebook(offer.offerRef, { upsells: [] }, s.ctx())
    assert.deepEqual(
      pre.requiredFields.map((f) => f.field),
      ['flightNumber'],
    )
    for (const f of pre.requiredFields) check.requiredField(f)
    await assert.rejects(
      s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: {} }, s.ctx()),
      (error: ApiError) => {
        assert.equal(error.code, 'MISSING_REQUIRED_FIELD')
        assert.equal(error.details?.retryable, true)
        assert.deepEqual(error.details?.requiredFields, pre.requiredFields)
        return true
      },
    )
    await rejectsWith(
      s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: { flightNumber: '???' } }, s.ctx()),
      'INVALID_REQUEST',
    )
    const booking = await s.connector.book(
      pre.prebookRef,
      { driver: DRIVER, additionalFields: { flightNumber: 'LH1234' } },
      s.ctx(),
    )
    assert.equal(booking.status, 'CONFIRMED')
    assert.match(booking.reference, /^SR-[0-9A-Z]{6}$/)
    assert.equal(booking.operatorAccount.email, 'ops@rent.sandbox.example')
  })

  it('cancellation: free until 48 h before pickup, then one day’s rate; the policy’s current terms follow the clock', async () => {
    const s = rent()
    const offer = await firstBookable(s)
    const early = await book(s, offer.offerRef)
    const late = await book(s, offer.offerRef)
    const start = Date.parse(early.rentalPeriod.start)
    const deadlines = early.terms.cancellationPolicy.deadlines ?? []
    assert.equal(deadlines[0].deadline, new Date(start - 48 * HOUR).toISOString())
    const free = await s.connector.cancelBooking(early.reference, {}, s.ctx())
    assert.deepEqual(free.cancellation?.fee, { amount: 0, currency: 'EUR' })

    s.clock.set(start - 24 * HOUR)
    const read = await s.connector.getBooking(late.reference, s.ctx())
    const fee = read.terms.cancellationPolicy.currentTerms?.fee?.amount ?? 0
    assert.ok(fee > 0)
    const charged = await s.connector.cancelBooking(late.reference, { reason: 'ill' }, s.ctx())
    assert.equal(charged.cancellation?.fee.amount, fee)
    assert.equal(charged.cancellation?.refund.amount, late.price.totalPrice.amount - fee)
    assert.equal(charged.chargedRate.amount, fee)
    assert.ok(fee <= Math.ceil(late.price.totalPrice.amount / 3), "one day's rate of a three-day rental")
  })

  it('changes: rental times via API with a fee after the deadline; other change types refused with contact details', async () => {
    const s = rent()
    const booking = await book(s, (await firstBookable(s)).offerRef)
    const rentalTimes = booking.terms.changePolicies.find((p) => p.changeType === 'RENTAL_TIMES')
    assert.equal(rentalTimes?.availability, 'AVAILABLE_VIA_API')
    await assert.rejects(
      s.connector.changeBooking(booking.reference, { driver: { firstName: 'Grace' } }, s.ctx()),
      (e: ApiError) => {
        assert.equal(e.code, 'OPERATION_NOT_SUPPORTED')
        assert.equal(e.details?.changeType, 'DRIVER_INFO')
        assert.equal(e.details?.availability, 'REQUIRES_MANUAL_CONTACT')
        assert.ok(e.details?.manualContact)
        return true
      },
    )
    await rejectsWith(
      s.connector.changeBooking(booking.reference, { pickupLocationId: 'berzoo' }, s.ctx()),
      'OPERATION_NOT_SUPPORTED',
      {
        availability: 'NOT_AVAILABLE',
      },
    )
    await rejectsWith(
      s.connector.changeBooking(booking.reference, { vehicleCategory: 'VAN' }, s.ctx()),
      'OPERATION_NOT_SUPPORTED',
    )
    const start = Date.parse(booking.rentalPeriod.start)
    s.clock.set(start - 12 * HOUR)
    const shifted = {
      start: new Date(start + HOUR + 5 * 60_000).toISOString(),
      end: new Date(Date.parse(booking.rentalPeriod.end) + HOUR).toISOString(),
    }
    const changed = await s.connector.changeBooking(booking.reference, { rentalPeriod: shifted }, s.ctx())
    assert.equal(changed.rentalPeriod.start, new Date(start + 90 * 60_000).toISOString(), 'rounded to the half hour')
    assert.ok(changed.price.includedFees.some((f) => f.description === 'Change fee' && f.amount > 0))
  })

  it('app access is not available; vehicle actions are not supported', async () => {
    const s = rent()
    const offer = await firstBookable(s)
    await rejectsWith(
      s.connector.prebook(offer.offerRef, { accessMethod: 'APP', upsells: [] }, s.ctx()),
      'APP_ACCESS_NOT_AVAILABLE',
    )
    const pre = await s.connector.prebook(offer.offerRef, { upsells: [] }, s.ctx())
    assert.equal(pre.appAccessAvailable, false)
    await rejectsWith(
      s.connector.book(pre.prebookRef, { driver: DRIVER, accessMethod: 'APP', additionalFields: {} }, s.ctx()),
      'APP_ACCESS_NOT_AVAILABLE',
    )
    const booking = await s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: {} }, s.ctx())
    await rejectsWith(s.connector.vehicleAction(booking.reference, 'UNLOCK', s.ctx()), 'OPERATION_NOT_SUPPORTED')
  })

  it('a franchise station (Paris Gare du Nord) takes cancellations by phone or e-mail only', async () => {
    const s = rent()
    const answer = await s.connector.searchCars(
      query(s, { pickup: { coordinates: CITIES.paris, radiusMeters: 5_000 } }),
      s.ctx({ language: 'fr' }),
    )
    const offer = answer.offers.find((o) => o.pickupLocation.id === 'parnord')!
    assert.equal(offer.pickupLocation.address.country, 'France')
    const { terms } = await s.connector.offerDetails(offer.offerRef, s.ctx())
    assert.equal(terms.cancellationPolicy.availability, 'REQUIRES_MANUAL_CONTACT')
    assert.ok(terms.cancellationPolicy.manualContact?.phone && terms.cancellationPolicy.manualContact.email)
    const booking = await book(s, offer.offerRef)
    await rejectsWith(s.connector.cancelBooking(booking.reference, {}, s.ctx()), 'BOOKING_FAILED', {
      reason: 'CANCELLATION_REFUSED',
      availability: 'REQUIRES_MANUAL_CONTACT',
    })
    await rejectsWith(
      s.connector.changeBooking(
        booking.reference,
        { rentalPeriod: { start: booking.rentalPeriod.start, end: booking.rentalPeriod.end } },
        s.ctx(),
      ),
      'OPERATION_NOT_SUPPORTED',
    )
  })

  it('localizes station names and countries (de)', async () => {
    const s = rent()
    const [hbf] = await s.connector.stations(
      { coordinates: { latitude: 52.5251, longitude: 13.3694 }, radiusMeters: 100 },
      s.ctx({ language: 'de' }),
    )
    assert.equal(hbf.name, 'Berlin Hauptbahnhof')
    assert.equal(hbf.address.country, 'Deutschland')
    assert.equal(hbf.stationType, 'RAILWAY_STATION')
  })
})

describe('sandbox-share specifics', () => {
  const share = () => build('sandbox-share')

  it('app access; no one-way rentals; hourly prices with energy included', async () => {
    const s = share()
    const { start } = period(s)
    const answer = await s.connector.searchCars(query(s, { start, end: new Date(start.getTime() + 3 * HOUR) }), s.ctx())
    assert.deepEqual(answer.warnings, [])
    const offer = answer.offers[0]
    assert.equal(offer.refillPolicy, 'FUEL_INCLUDED')
    assert.equal(offer.vehicle.isConfirmed, true)
    assert.ok(offer.deepLinks?.android && offer.deepLinks.ios)
    assert.ok(offer.price.totalPrice.amount < 10_000, 'three hours cost less than a day')
    const oneWay = await s.connector.searchCars(
      query(s, { dropoff: { coordinates: BER, radiusMeters: 5_000 } }),
      s.ctx(),
    )
    assert.deepEqual(oneWay.offers, [])
    const pre = await s.connector.prebook(offer.offerRef, { accessMethod: 'APP', upsells: [] }, s.ctx())
    assert.equal(pre.appAccessAvailable, true)
    const booking = await s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: {} }, s.ctx())
    assert.equal(booking.accessMethod, 'APP')
    assert.match(booking.reference, /^SS-[0-9A-Z]{6}$/)
    const driver = await s.connector.changeBooking(booking.reference, { driver: { phone: '+49 30 555' } }, s.ctx())
    assert.equal(driver.reference, booking.reference)
  })

  it('vehicle actions only for a confirmed booking, from booking until the end of the rental', async () => {
    const s = share()
    const offer = await firstBookable(s, { ...period(s, 24, 0.25) })
    const booking = await book(s, offer.offerRef)
    const end = Date.parse(booking.rentalPeriod.end)
    // A day before pickup: the sandbox car answers, so clients can try their app flow at once.
    assert.deepEqual(await s.connector.vehicleAction(booking.reference, 'HONK', s.ctx()), { status: 'COMPLETED' })
    for (const action of ['UNLOCK', 'HONK', 'FLASH_LIGHTS', 'LOCK'] as const) {
      assert.deepEqual(await s.connector.vehicleAction(booking.reference, action, s.ctx()), { status: 'COMPLETED' })
    }
    const located = await s.connector.vehicleAction(booking.reference, 'LOCATE', s.ctx())
    assert.equal(located.status, 'COMPLETED')
    check.coordinates(located.vehicleLocation)
    assert.ok(Math.abs(located.vehicleLocation!.latitude - offer.pickupLocation.coordinates.latitude) < 0.001)
    await rejectsWith(s.connector.vehicleAction('SS-ZZZZZZ', 'UNLOCK', s.ctx()), 'NOT_FOUND')
    s.clock.set(end)
    await rejectsWith(s.connector.vehicleAction(booking.reference, 'UNLOCK', s.ctx()), 'PROVIDER_ERROR', {
      reason: 'VEHICLE_REJECTED',
      cause: 'RENTAL_ENDED',
    })

    const other = await book(s, (await firstBookable(s, period(s, 48, 1))).offerRef)
    s.clock.set(Date.parse(other.rentalPeriod.start) - 30 * 60_000)
    const cancelled = await s.connector.cancelBooking(other.reference, {}, s.ctx())
    assert.ok((cancelled.cancellation?.fee.amount ?? 0) > 0, 'within the last hour a fee applies')
    await rejectsWith(s.connector.vehicleAction(other.reference, 'UNLOCK', s.ctx()), 'PROVIDER_ERROR', {
      reason: 'VEHICLE_REJECTED',
    })
  })
})
