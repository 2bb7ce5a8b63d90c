import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CarConnector, CarSearchQuery, ProviderCarOffer } from '../../../src/connectors/types/cars.ts'
import type { Scenario } from '../../../src/connectors/types/common.ts'
import {
  CancellationPolicy,
  ChangeTypePolicy,
  Driver,
  PickupRequirement,
  RequiredField,
} from '../../../src/contract/car-bookings.ts'
import {
  CHANGE_TYPES,
  MileageAllowance,
  PricedUpsell,
  UPSELL_AVAILABILITY,
  UpsellSummary,
  Vehicle,
} from '../../../src/contract/cars.ts'
import type { ApiError } from '../../../src/contract/errors.ts'
import { Coordinates, DetailedPrice, LocationDetails, Price, Warning } from '../../../src/contract/shared.ts'
import { type ConnectorSetup, rejectsWith, validator } from '../../helpers/connectors.ts'

/**
 * The car suite: what every car connector must do, whatever its provider. A test file runs it for its implementation
 * with a profile (how to build it, the facts that differ between providers) and keeps its provider's quirks in
 * "specifics" blocks of its own.
 */

export const T0 = Date.parse('2031-05-05T08:00:00.000Z')
export const HOUR = 3_600_000
export const DAY = 24 * HOUR
export const BERLIN = { latitude: 52.52, longitude: 13.405 }
export const BER = { latitude: 52.3667, longitude: 13.5033 }
export const CITIES = {
  munich: { latitude: 48.1374, longitude: 11.5755 },
  hamburg: { latitude: 53.5511, longitude: 9.9937 },
  paris: { latitude: 48.8566, longitude: 2.3522 },
  vienna: { latitude: 48.2082, longitude: 16.3738 },
}
export const DRIVER = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }

export const check = {
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

export interface CarSetup extends ConnectorSetup<CarConnector> {
  providerId: string
}

export interface CarProfile {
  name: string
  /** A fresh provider (its own store and clock at T0), with `options` over its own. */
  make(options?: Record<string, unknown>): CarSetup
  /** A second instance of the same provider on the same store and clock, as another service instance. */
  twin(s: CarSetup): CarSetup
  /** The provider's booking references. */
  reference: RegExp
  /** A well-formed reference the provider never gave. */
  unknownReference: string
}

/** A period `days` long, starting `inHours` after the clock, on the full hour. */
export function period(s: CarSetup, inHours = 5 * 24, days = 3) {
  const start = new Date(Math.floor((s.clock().getTime() + inHours * HOUR) / HOUR) * HOUR)
  return { start, end: new Date(start.getTime() + days * DAY) }
}

export const query = (s: CarSetup, extra: Partial<CarSearchQuery> = {}): CarSearchQuery => ({
  pickup: { coordinates: BERLIN, radiusMeters: 20_000 },
  ...period(s),
  estimatedKilometers: 300,
  driverAge: 30,
  ...extra,
})

export const scenario = (name: string, target: string): Scenario[] => [{ name, target }]

export const isAirport = (offer: ProviderCarOffer) =>
  ['ber', 'muc', 'ham', 'cdg', 'vie'].includes(offer.pickupLocation.id)
export const sameCar = (a: ProviderCarOffer) => (b: ProviderCarOffer) =>
  b.pickupLocation.id === a.pickupLocation.id &&
  b.vehicle.make === a.vehicle.make &&
  b.vehicle.model === a.vehicle.model

export function checkOffer(offer: ProviderCarOffer) {
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

export async function firstBookable(s: CarSetup, extra: Partial<CarSearchQuery> = {}) {
  const answer = await s.connector.searchCars(query(s, extra), s.ctx())
  const offer = answer.offers.find((o) => !isAirport(o))
  assert.ok(offer, 'an offer away from airports')
  return offer
}

export async function book(
  s: CarSetup,
  offerRef: string,
  fields: Record<string, string> = {},
  scenarios: Scenario[] = [],
) {
  const pre = await s.connector.prebook(offerRef, { upsells: [] }, s.ctx({ scenarios }))
  return s.connector.book(pre.prebookRef, { driver: DRIVER, additionalFields: fields }, s.ctx({ scenarios }))
}

// ---------------------------------------------------------------------------------------------------------------
// The shared suite

// ---------------------------------------------------------------------------------------------------------------
// The suite

export function carConnectorSuite(profile: CarProfile, settings: { skip?: string } = {}) {
  const make = (options?: Record<string, unknown>) => profile.make(options)
  describe(`CarConnector conformance: ${profile.name}`, { skip: settings.skip }, () => {
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
      assert.match(booking.reference, profile.reference)
      assert.deepEqual(booking.price, pre.offer.price)
      assert.deepEqual(booking.chargedRate, { amount: booking.price.totalPrice.amount, currency: 'EUR' })
      assert.ok(booking.upsells.some((u) => u.referenceCode === bookable.referenceCode))
      check.vehicle(booking.vehicle)
      check.driver(booking.operatorAccount)
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
      const ref = profile.unknownReference
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
      const twin = profile.twin(s)
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
  })
}
