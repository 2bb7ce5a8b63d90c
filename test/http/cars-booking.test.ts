import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { BER_AIRPORT, bookFirst, DRIVER, near, period, searchCars } from '../helpers/cars.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

describe('car offer details, prebook and booking', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
    // This file makes more than the default 100 requests a minute with one key; rate limits are tested elsewhere.
    const roomy = { type: 'secret', environment: 'live', rateLimit: { limit: 10_000, windowSeconds: 60 } }
    t.secret = (await createKey(h, t.tenant.id, roomy)).secret
  })
  after(() => h.close())

  const firstOffer = async (key: string, providerId = 'sandbox-rent', body: Record<string, unknown> = {}) => {
    const res = await searchCars(h, key, { estimatedKilometers: 120, limit: 100, ...body })
    assert.equal(res.status, 200, res.text)
    const offer = res.body.data.offers.find((o: any) => o.provider.id === providerId)
    assert.ok(offer, `an offer of ${providerId}`)
    return offer
  }

  it('offer details: a fresh token, policies, requirements and upsells; the old token stays usable', async () => {
    const offer = await firstOffer(t.secret)
    const res = await h.api('POST', '/cars/offer-details', t.secret, { offerToken: offer.offerToken })
    assert.equal(res.status, 200, res.text)
    const d = res.body.data
    assert.notEqual(d.offer.offerToken, offer.offerToken)
    // Issue 21: the offer once (under `offer`), its upsells once (priced, in `upsells`).
    assert.deepEqual(Object.keys(d).sort(), [
      'cancellationPolicy',
      'changePolicies',
      'offer',
      'pickupRequirements',
      'upsells',
    ])
    assert.equal(d.offer.availableUpsells, undefined)
    assert.deepEqual(
      d.upsells.map((u: any) => u.referenceCode).sort(),
      offer.availableUpsells.map((u: any) => u.referenceCode).sort(),
    )
    assert.equal(d.cancellationPolicy.availability, 'AVAILABLE_VIA_API')
    assert.ok(d.cancellationPolicy.deadlines.length > 0)
    assert.ok(
      d.changePolicies.some((p: any) => p.changeType === 'RENTAL_TIMES' && p.availability === 'AVAILABLE_VIA_API'),
    )
    assert.ok(d.pickupRequirements.some((r: any) => r.type === 'MINIMUM_AGE'))
    const availability = new Set(d.upsells.map((u: any) => u.availability))
    for (const a of ['ALWAYS_INCLUDED', 'INCLUDED', 'BOOKABLE', 'BOOKABLE_ON_PICKUP']) assert.ok(availability.has(a), a)
    const prebook = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(prebook.status, 200, prebook.text)
  })

  it('prebook consumes the offer token; a second prebook is 409 OFFER_TOKEN_ALREADY_USED', async () => {
    const offer = await firstOffer(t.secret)
    const first = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(first.status, 200)
    const d = first.body.data
    assert.ok(d.prebookedOfferToken)
    assert.equal(d.appAccessAvailable, false)
    assert.equal(typeof d.price.totalPrice.amount, 'number')
    const again = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(again.status, 409)
    assert.equal(again.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.equal(again.body.error.details.reason, 'OFFER_ALREADY_PREBOOKED')
    assert.match(again.body.error.message, /prebooked/, 'says the offer was prebooked, not that a booking exists')
  })

  it('concurrent prebooks of one offer: one proceeds, the others 409 INTERNAL_ERROR (retry); later ones ALREADY_USED', async () => {
    const offer = await firstOffer(t.secret)
    // The sandbox takes 100 ms to prebook (it holds the car), so the others meet the first one still running.
    const results = await Promise.all(
      Array.from({ length: 8 }, () => h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })),
    )
    assert.equal(results.filter((r) => r.status === 200).length, 1)
    const others = results.filter((r) => r.status !== 200)
    for (const r of others) {
      assert.equal(r.status, 409)
      // On a very busy machine a request may only arrive once the first is done: then the offer is used.
      assert.ok(['INTERNAL_ERROR', 'OFFER_TOKEN_ALREADY_USED'].includes(r.body.error.code), r.text)
      if (r.body.error.code === 'INTERNAL_ERROR') assert.equal(r.body.error.details.retryable, true)
    }
    assert.ok(
      others.some((r) => r.body.error.code === 'INTERNAL_ERROR'),
      'the others met the first one running',
    )
    const after = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(after.status, 409)
    assert.equal(after.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    // Offer details would hand out a fresh token of the same, spent offer: it says so instead.
    const details = await h.api('POST', '/cars/offer-details', t.secret, { offerToken: offer.offerToken })
    assert.equal(details.status, 409, details.text)
    assert.equal(details.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
  })

  it('INVALID_OFFER_TOKEN for garbage, tampering and other tenants; OFFER_EXPIRED after usableUntil', async () => {
    const offer = await firstOffer(t.secret)
    const tampered =
      offer.offerToken.slice(0, 30) + (offer.offerToken[30] === 'a' ? 'b' : 'a') + offer.offerToken.slice(31)
    const other = await createTenant(h)
    for (const [key, token] of [
      [t.secret, 'garbage'],
      [t.secret, tampered],
      [other.secret, offer.offerToken],
      [t.test, offer.offerToken],
    ]) {
      const res = await h.api('POST', '/cars/prebook', key, { offerToken: token })
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'INVALID_OFFER_TOKEN')
    }
    h.clock.advance(1201_000)
    const expired = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(expired.status, 404)
    assert.equal(expired.body.error.code, 'OFFER_EXPIRED')
    const details = await h.api('POST', '/cars/offer-details', t.secret, { offerToken: offer.offerToken })
    assert.equal(details.body.error.code, 'OFFER_EXPIRED')
  })

  it('an offer of a provider the tenant no longer uses is 404 OFFER_EXPIRED, not a server error', async () => {
    const own = await createTenant(h)
    const offer = await firstOffer(own.secret, 'sandbox-rent')
    const prebooked = await firstOffer(own.secret, 'sandbox-rent')
    const prebook = await h.api('POST', '/cars/prebook', own.secret, { offerToken: prebooked.offerToken })
    assert.equal(prebook.status, 200, prebook.text)
    const patched = await h.admin('PATCH', `/tenants/${own.tenant.id}`, { providers: ['sandbox-share'] })
    assert.equal(patched.status, 200, patched.text)
    for (const [path, body] of [
      ['/cars/offer-details', { offerToken: offer.offerToken }],
      ['/cars/prebook', { offerToken: offer.offerToken }],
      ['/cars/bookings', { prebookedOfferToken: prebook.body.data.prebookedOfferToken, driver: DRIVER }],
    ] as const) {
      const res = await h.api('POST', path, own.secret, body)
      assert.equal(res.status, 404, `${path}: ${res.text}`)
      assert.equal(res.body.error.code, 'OFFER_EXPIRED')
      assert.equal(res.body.error.details.reason, 'PROVIDER_NOT_AVAILABLE')
    }
  })

  it('app access: APP_ACCESS_NOT_AVAILABLE where unsupported, appAccessAvailable where it is', async () => {
    const rent = await firstOffer(t.secret, 'sandbox-rent')
    const refused = await h.api('POST', '/cars/prebook', t.secret, { offerToken: rent.offerToken, accessMethod: 'APP' })
    assert.equal(refused.status, 400)
    assert.equal(refused.body.error.code, 'APP_ACCESS_NOT_AVAILABLE')
    const share = await firstOffer(t.secret, 'sandbox-share')
    const ok = await h.api('POST', '/cars/prebook', t.secret, { offerToken: share.offerToken, accessMethod: 'APP' })
    assert.equal(ok.status, 200, ok.text)
    assert.equal(ok.body.data.appAccessAvailable, true)
  })

  it('reports price changes between search and prebook', async () => {
    const offer = await firstOffer(t.test)
    const res = await h.api(
      'POST',
      '/cars/prebook',
      t.test,
      { offerToken: offer.offerToken },
      { 'x-sandbox-scenario': 'price-increase:sandbox-rent' },
    )
    assert.equal(res.status, 200, res.text)
    const codes = res.body.data.warnings.map((w: any) => w.code)
    assert.ok(codes.includes('PRICE_CHANGED') && codes.includes('PRICE_INCREASED'), codes.join())
    const increase = res.body.data.warnings.find((w: any) => w.code === 'PRICE_INCREASED')
    assert.ok(Number(increase.details.newValue) > Number(increase.details.originalValue))
  })

  it('books once per prebooked token; reads it back; lists it', async () => {
    const { booking, prebook } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const b = booking.body.data
    assert.match(b.bookingId, /^[A-Z2-9]{10}$/)
    assert.equal(booking.headers.location, `/mobility-api/v2/cars/bookings/${b.bookingId}`)
    assert.equal(b.status, 'CONFIRMED')
    assert.deepEqual(b.driver, DRIVER)
    assert.equal(b.offerPrice.currency, b.chargedRate.currency)
    assert.equal(b.statusHistory[0].status, 'CONFIRMED')
    const again = await h.api('POST', '/cars/bookings', t.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      driver: DRIVER,
    })
    assert.equal(again.status, 409)
    assert.equal(again.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.equal(again.body.error.details.bookingId, b.bookingId, 'the 409 names the booking made with the token')
    const read = await h.api('GET', `/cars/bookings/${b.bookingId}`, t.secret)
    assert.equal(read.status, 200)
    assert.equal(read.body.data.bookingId, b.bookingId)
    assert.equal(read.body.data.status, 'CONFIRMED')
    const list = await h.api('GET', '/bookings?limit=100', t.secret)
    assert.ok(list.body.data.bookings.some((x: any) => x.bookingId === b.bookingId))
    assert.equal(list.body.data.pagination.currentPage, 0)
    const past = await h.api('GET', '/bookings?page=99', t.secret)
    assert.deepEqual(past.body.data.bookings, [])
    const unknown = await h.api('GET', '/cars/bookings/ABCDEFGHJK', t.secret)
    assert.equal(unknown.status, 404)
    const other = await createTenant(h)
    assert.equal((await h.api('GET', `/cars/bookings/${b.bookingId}`, other.secret)).status, 404)
    assert.equal(
      (await h.api('GET', `/cars/bookings/${b.bookingId}`, t.test)).status,
      404,
      'live bookings are not test bookings',
    )
  })

  it('50 concurrent bookings with one prebooked token → exactly one booking', async () => {
    const offer = await firstOffer(t.secret, 'sandbox-share')
    const prebook = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    const token = prebook.body.data.prebookedOfferToken
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        h.api('POST', '/cars/bookings', t.secret, { prebookedOfferToken: token, driver: DRIVER }),
      ),
    )
    const created = results.filter((r) => r.status === 201)
    assert.equal(created.length, 1)
    assert.ok(
      results
        .filter((r) => r.status !== 201)
        .every(
          (r) =>
            r.status === 409 &&
            r.body.error.code === 'OFFER_TOKEN_ALREADY_USED' &&
            r.body.error.details.bookingId === created[0].body.data.bookingId,
        ),
    )
  })

  it('MISSING_REQUIRED_FIELD at the airport, then books with the collected field on the same token', async () => {
    const search = await searchCars(h, t.secret, {
      pickup: near(BER_AIRPORT, 2000),
      estimatedKilometers: 50,
      limit: 100,
    })
    const offer = search.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
    assert.ok(offer, 'an airport offer')
    const prebook = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.ok(prebook.body.data.requiredFields.some((f: any) => f.field === 'flightNumber'))
    const token = prebook.body.data.prebookedOfferToken
    const missing = await h.api('POST', '/cars/bookings', t.secret, { prebookedOfferToken: token, driver: DRIVER })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.error.code, 'MISSING_REQUIRED_FIELD')
    assert.equal(missing.body.error.details.retryable, true)
    const field = missing.body.error.details.requiredFields[0]
    assert.deepEqual(Object.keys(field).sort(), ['field', 'label', 'message', 'type'])
    assert.equal(field.field, 'flightNumber')
    // The label and message are for the driver's form: in the caller's language.
    const german = await h.api(
      'POST',
      '/cars/bookings',
      t.secret,
      { prebookedOfferToken: token, driver: DRIVER },
      {
        'accept-language': 'de',
      },
    )
    assert.equal(german.body.error.details.requiredFields[0].label, 'Flugnummer')
    // Spec 3.2: the prebook stays valid while the fields are collected, even past the token's own validity: each
    // MISSING_REQUIRED_FIELD answer gives it another full validity and says until when.
    const expiry = Date.parse(prebook.body.data.usableUntil)
    h.clock.advance(expiry - h.clock().getTime() - 10_000)
    const late = await h.api('POST', '/cars/bookings', t.secret, { prebookedOfferToken: token, driver: DRIVER })
    assert.equal(late.body.error.code, 'MISSING_REQUIRED_FIELD')
    assert.ok(Date.parse(late.body.error.details.usableUntil) > expiry + 60_000, late.text)
    h.clock.advance(70_000)
    // A value of the wrong type is invalid, not missing.
    for (const flightNumber of [true, 'not a flight']) {
      const wrong = await h.api('POST', '/cars/bookings', t.secret, {
        prebookedOfferToken: token,
        driver: DRIVER,
        additionalFields: { flightNumber },
      })
      assert.equal(wrong.status, 400, wrong.text)
      assert.equal(wrong.body.error.code, 'INVALID_REQUEST', String(flightNumber))
      assert.ok(wrong.body.error.details['additionalFields.flightNumber'])
    }
    const booked = await h.api('POST', '/cars/bookings', t.secret, {
      prebookedOfferToken: token,
      driver: DRIVER,
      additionalFields: { flightNumber: 'LH1234' },
    })
    assert.equal(booked.status, 201, booked.text)
    assert.equal(booked.body.data.additionalFields.flightNumber, 'LH1234')
  })

  it('a failed booking attempt leaves the token usable; BOOKING_FAILED from the provider', async () => {
    const offer = await firstOffer(t.test, 'sandbox-rent')
    const prebook = await h.api('POST', '/cars/prebook', t.test, { offerToken: offer.offerToken })
    const token = prebook.body.data.prebookedOfferToken
    const failed = await h.api(
      'POST',
      '/cars/bookings',
      t.test,
      { prebookedOfferToken: token, driver: DRIVER },
      { 'x-sandbox-scenario': 'booking-fails:sandbox-rent' },
    )
    assert.equal(failed.status, 500)
    assert.equal(failed.body.error.code, 'BOOKING_FAILED')
    const errored = await h.api(
      'POST',
      '/cars/bookings',
      t.test,
      { prebookedOfferToken: token, driver: DRIVER },
      { 'x-sandbox-scenario': 'provider-error:sandbox-rent' },
    )
    assert.ok(errored.status >= 500)
    const booked = await h.api('POST', '/cars/bookings', t.test, { prebookedOfferToken: token, driver: DRIVER })
    assert.equal(booked.status, 201, booked.text)
  })

  it("checks the driver's date of birth: in the past, and old enough for the car at pickup", async () => {
    const offer = await firstOffer(t.secret, 'sandbox-rent')
    const prebook = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    const token = prebook.body.data.prebookedOfferToken
    const attempt = (dateOfBirth: string) =>
      h.api('POST', '/cars/bookings', t.secret, {
        prebookedOfferToken: token,
        driver: { ...DRIVER, dateOfBirth },
        additionalFields: { flightNumber: 'LH1234' },
      })
    const future = await attempt(`${h.clock().getUTCFullYear() + 1}-01-01`)
    assert.equal(future.status, 400, future.text)
    assert.equal(future.body.error.code, 'INVALID_REQUEST')
    assert.ok(future.body.error.details['driver.dateOfBirth'])
    const child = await attempt(`${h.clock().getUTCFullYear() - 14}-01-01`)
    assert.equal(child.status, 400, child.text)
    assert.equal(child.body.error.code, 'INVALID_REQUEST')
    assert.match(child.body.error.details['driver.dateOfBirth'], /at least \d+/)
    // Both refusals left the token usable.
    const adult = await attempt('1980-05-17')
    assert.equal(adult.status, 201, adult.text)
    assert.equal(adult.body.data.driver.dateOfBirth, '1980-05-17')
  })

  it('NO_AVAILABLE_CARD once every unit of a model is booked for the window', async () => {
    const dates = period(h, 24 * 40, 1)
    const body = { dates, filters: { category: ['SPORTS'] }, limit: 100 }
    const first = await searchCars(h, t.secret, body)
    assert.equal(first.status, 200, first.text)
    const target = first.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
    assert.ok(target, 'a sports car')
    const same = (o: any) =>
      o.provider.id === 'sandbox-rent' &&
      o.pickupLocation.id === target.pickupLocation.id &&
      o.vehicle.model === target.vehicle.model
    // Prebook the same model several times (each search issues a fresh offer), then book them all.
    const tokens: string[] = []
    for (let i = 0; i < 8; i++) {
      const search = await searchCars(h, t.secret, body)
      const offer = search.status === 200 ? search.body.data.offers.find(same) : undefined
      if (!offer) break
      const prebook = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
      if (prebook.status === 200) tokens.push(prebook.body.data.prebookedOfferToken)
    }
    const codes: string[] = []
    for (const token of tokens) {
      const res = await h.api('POST', '/cars/bookings', t.secret, {
        prebookedOfferToken: token,
        driver: DRIVER,
        additionalFields: { flightNumber: 'LH1' },
      })
      codes.push(res.status === 201 ? 'BOOKED' : res.body.error.code)
      if (res.body.error?.code === 'NO_AVAILABLE_CARD') assert.equal(res.status, 409)
    }
    assert.ok(codes.includes('BOOKED'), JSON.stringify(codes))
    assert.ok(codes.includes('NO_AVAILABLE_CARD'), codes.join())
    const conflict = codes.indexOf('NO_AVAILABLE_CARD')
    assert.ok(
      codes.slice(conflict).every((c) => c === 'NO_AVAILABLE_CARD'),
      codes.join(),
    )
  })
})
