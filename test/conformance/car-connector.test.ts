import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_PROVIDERS } from '../../src/connectors/default-providers.ts'
import { buildRegistry } from '../../src/connectors/registry.ts'
import { isCarConnector, type ProviderCarOffer } from '../../src/connectors/types/cars.ts'
import { CAR_CATEGORIES, FUEL_TYPES, REFILL_POLICIES, TRANSMISSIONS } from '../../src/contract/cars.ts'
import type { ApiError } from '../../src/contract/errors.ts'
import { SANDBOX_SCENARIOS } from '../../src/contract/sandbox.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { buildConnector, type KvFactory, rejectsWith } from '../helpers/connectors.ts'
import { testRedis } from '../helpers/redis.ts'
import {
  BER,
  BERLIN,
  book,
  type CarProfile,
  type CarSetup,
  CITIES,
  carConnectorSuite,
  check,
  DAY,
  DRIVER,
  firstBookable,
  HOUR,
  period,
  query,
  scenario,
  T0,
} from './suites/car.ts'

/** The sandbox car providers: the car suite on the in-memory store and on Redis, then what is theirs alone. */

type SandboxCar = 'sandbox-rent' | 'sandbox-share'

/** Builds a sandbox provider through the registry, as the service does, on a memory store and a test clock. */
function build(
  id: SandboxCar,
  options: Record<string, unknown> = {},
  shared?: Pick<CarSetup, 'clock' | 'kv'>,
  makeKv?: KvFactory,
): CarSetup {
  const setup = buildConnector(id, { is: isCarConnector, name: 'car' }, { options, shared, makeKv, start: T0 })
  return { providerId: id, ...setup }
}

function sandboxProfile(id: SandboxCar, makeKv?: KvFactory): CarProfile {
  return {
    name: `${id}${makeKv ? ' on Redis' : ''}`,
    make: (options) => build(id, options, undefined, makeKv),
    twin: (s) => build(id, {}, s),
    reference: id === 'sandbox-rent' ? /^SR-[0-9A-Z]{6}$/ : /^SS-[0-9A-Z]{6}$/,
    unknownReference: id === 'sandbox-rent' ? 'SR-ZZZZZZ' : 'SS-ZZZZZZ',
  }
}

/** What both sandbox car providers do that a real provider would not: scenarios, latency and failure options. */
function sandboxCarSpecifics(profile: CarProfile, settings: { skip?: string } = {}) {
  const make = (options?: Record<string, unknown>) => profile.make(options)
  describe(`sandbox car specifics: ${profile.name}`, { skip: settings.skip }, () => {
    it('books under the sandbox operator account', async () => {
      const s = make()
      const booking = await book(s, (await firstBookable(s)).offerRef)
      check.driver(booking.operatorAccount)
      assert.equal(booking.operatorAccount.firstName, 'Sandbox')
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

// Both on the in-memory store (one instance) and on Redis (the state several instances share).

const shared = await testRedis('cars')
const redisSkip = shared.skip
const onRedis: KvFactory = shared.kv

for (const id of ['sandbox-rent', 'sandbox-share'] as const) {
  for (const [profile, settings] of [
    [sandboxProfile(id), {}],
    [sandboxProfile(id, onRedis), { skip: redisSkip }],
  ] as const) {
    carConnectorSuite(profile, settings)
    sandboxCarSpecifics(profile, settings)
  }
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
