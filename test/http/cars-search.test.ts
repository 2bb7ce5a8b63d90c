import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import fastJson from 'fast-json-stringify'
import { CarSearchResult } from '../../src/contract/cars.ts'
import { responses } from '../../src/contract/common.ts'
import { MAX_SESSION_OFFERS } from '../../src/domain/cars/search.ts'
import { BER_AIRPORT, BERLIN, near, period, searchCars } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

describe('POST /cars', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
  })
  after(() => h.close())

  it('writes exactly what the answer schema allows, from cached parts or not, with and without prices', async () => {
    // What the route's own serializer would write for the same answer: no field more, none less, none changed.
    const schemaSerializer = fastJson(responses(CarSearchResult)[200] as object)
    for (const body of [{ estimatedKilometers: 120 }, {}, { estimatedKilometers: 120 }, { sortBy: 'DISTANCE' }]) {
      const res = await searchCars(h, t.secret, { limit: 30, ...body })
      assert.equal(res.status, 200, res.text)
      assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/)
      assert.deepEqual(JSON.parse(schemaSerializer(res.body)), res.body)
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.text)))
      for (const offer of res.body.data.offers) {
        assert.equal(offer.price !== undefined, body.estimatedKilometers !== undefined)
        assert.ok(offer.offerToken && offer.usableUntil && offer.provider.id && offer.vehicle.make)
        assert.equal(typeof offer.distanceFromSearch, 'number')
        assert.ok(offer.deepLinks && offer.availableUpsells.length > 0 && offer.recommendation)
      }
      assert.ok(res.body.data.offers.some((o: any) => o.warnings?.length > 0))
    }
  })

  it('searches every car provider and merges their offers, with prices only when estimatedKilometers is sent', async () => {
    const res = await searchCars(h, t.secret, { estimatedKilometers: 250, limit: 100 })
    assert.equal(res.status, 200, res.text)
    const data = res.body.data
    const providers = new Set(data.offers.map((o: any) => o.provider.id))
    assert.ok(providers.has('sandbox-rent') && providers.has('sandbox-share'))
    assert.deepEqual(data.providers.map((p: any) => [p.id, p.status]).sort(), [
      ['sandbox-rent', 'OK'],
      ['sandbox-share', 'OK'],
    ])
    for (const offer of data.offers) {
      assert.ok(offer.price, 'price with estimatedKilometers')
      assert.equal(typeof offer.price.totalPrice.amount, 'number')
      assert.equal(offer.price.totalPrice.currency.length, 3)
      assert.ok(offer.offerToken.length > 40)
      assert.ok(Date.parse(offer.usableUntil) > h.clock().getTime())
      assert.equal(typeof offer.distanceFromSearch, 'number')
      assert.ok(offer.recommendation.score >= 0 && offer.recommendation.score <= 100)
      for (const f of Object.values(offer.recommendation.factors) as number[]) assert.ok(f >= 0 && f <= 1)
    }
    assert.equal(data.offers.filter((o: any) => o.recommendation.reasonCode === 'BEST_OVERALL').length, 1)
    assert.ok(data.searchedPeriod.start && data.searchedPeriod.end)

    const unpriced = await searchCars(h, t.secret, { limit: 5 })
    assert.equal(unpriced.status, 200)
    for (const offer of unpriced.body.data.offers) assert.equal(offer.price, undefined)
  })

  it('normalizes offsets to UTC and reports rounded times', async () => {
    const start = new Date(h.clock().getTime() + 3 * 86_400_000)
    start.setUTCHours(9, 10, 0, 0)
    const local = (d: Date) => new Date(d.getTime() + 3600_000).toISOString().replace('Z', '+01:00').replace('.000', '')
    const end = new Date(start.getTime() + 2 * 86_400_000)
    const res = await h.api('POST', '/cars', t.secret, {
      pickup: near(),
      dates: { start: local(start), end: local(end) },
      limit: 5,
    })
    assert.equal(res.status, 200, res.text)
    const searched = res.body.data.searchedPeriod
    assert.match(searched.start, /Z$/)
    assert.ok(Date.parse(searched.start) >= start.getTime())
    const rounded = res.body.data.warnings.find((w: any) => w.code === 'TIME_ROUNDED')
    assert.ok(rounded, 'the sandbox rounds 09:10 to the half hour and says so')
    assert.ok(rounded.details.originalValue !== undefined && rounded.details.newValue !== undefined)
    const french = await h.api(
      'POST',
      '/cars',
      t.secret,
      { pickup: near(), dates: { start: local(start), end: local(end) }, limit: 5 },
      { 'accept-language': 'fr' },
    )
    const roundedFr = french.body.data.warnings.find((w: any) => w.code === 'TIME_ROUNDED')
    assert.match(roundedFr.message, /demi-heure/, 'warnings in the caller language')
    assert.match(french.body.data.offers[0].recommendation.reason, /^[^A-Z]*[A-Z]/)
    assert.notEqual(french.body.data.offers[0].recommendation.reason, res.body.data.offers[0].recommendation.reason)
  })

  it('a request shorter than the rounding step becomes a rental of one step, never one without length', async () => {
    const start = new Date(h.clock().getTime() + 3 * 86_400_000)
    start.setUTCHours(11, 7, 27, 0)
    const end = new Date(start.getTime() + 60_000)
    const res = await h.api('POST', '/cars', t.secret, {
      pickup: near(),
      dates: { start: start.toISOString(), end: end.toISOString() },
      limit: 100,
    })
    assert.equal(res.status, 200, res.text)
    const searched = res.body.data.searchedPeriod
    assert.ok(Date.parse(searched.end) > Date.parse(searched.start), JSON.stringify(searched))
    assert.ok(res.body.data.offers.length > 0)
    for (const offer of res.body.data.offers) {
      assert.ok(Date.parse(offer.rentalPeriod.end) > Date.parse(offer.rentalPeriod.start), offer.provider.id)
    }
  })

  it('rejects bad dates with INVALID_DATE_RANGE', async () => {
    const past = { start: new Date(h.clock().getTime() - 3600_000).toISOString(), end: period(h).end }
    const reversed = { start: period(h).end, end: period(h).start }
    const malformed = { start: 'tomorrow', end: period(h).end }
    const dateOnly = { start: period(h).start.slice(0, 10), end: period(h).end }
    const missingEnd = { start: period(h).start }
    for (const dates of [past, reversed, malformed, dateOnly, missingEnd]) {
      const res = await h.api('POST', '/cars', t.secret, { pickup: near(), dates })
      assert.equal(res.status, 400, JSON.stringify(dates))
      assert.equal(res.body.error.code, 'INVALID_DATE_RANGE', res.text)
    }
    const both = await h.api('POST', '/cars', t.secret, { pickup: near(), dates: malformed, limit: 0 })
    assert.equal(both.body.error.code, 'INVALID_REQUEST', 'other fields wrong too: the general code')
    assert.ok(both.body.error.details['dates.start'] && both.body.error.details.limit)
  })

  it('rejects bad coordinates with INVALID_LOCATION and other bad input with INVALID_REQUEST', async () => {
    const bad = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'coordinates', coordinates: { latitude: 91, longitude: 13 } },
      dates: period(h),
    })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error.code, 'INVALID_LOCATION')
    assert.ok(bad.body.error.details['pickup.coordinates.latitude'])
    // A location without its content is an invalid location, whichever type it names.
    for (const pickup of [{ type: 'address' }, { type: 'address', address: '' }, { type: 'place' }]) {
      const res = await h.api('POST', '/cars', t.secret, { pickup, dates: period(h) })
      assert.equal(res.status, 400, JSON.stringify(pickup))
      assert.equal(res.body.error.code, 'INVALID_LOCATION', JSON.stringify(pickup))
    }
    const cases = [
      { pickup: near(BERLIN, 60_000) },
      { pickup: { type: 'coordinates', coordinates: BERLIN, walkingTimeMinutes: 61 } },
      { filters: { minSeats: 16 } },
      { filters: { minDoors: 7 } },
      { filters: { colour: 'red' } },
      { limit: 101 },
      { sortBy: 'CHEAPEST' },
      { pickup: { type: 'place', placeId: 'P_NOT-VALID' } },
      { pickup: { type: 'spaceship' } },
    ]
    for (const body of cases) {
      const res = await h.api('POST', '/cars', t.secret, { pickup: near(), dates: period(h), ...body })
      assert.equal(res.status, 400, JSON.stringify(body))
      assert.ok(['INVALID_REQUEST', 'INVALID_LOCATION'].includes(res.body.error.code), JSON.stringify(body))
    }
    const extra = await h.api('POST', '/cars', t.secret, {
      pickup: near(),
      dates: period(h),
      filters: { colour: 'red' },
    })
    assert.equal(extra.body.error.code, 'INVALID_REQUEST')
    assert.equal(extra.body.error.details['filters.colour'], 'is not allowed')
  })

  it('geocodes addresses; GEOCODING_FAILED when nothing matches', async () => {
    const res = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'address', address: 'Alexanderplatz, 10178 Berlin', radiusMeters: 5000 },
      dates: period(h),
    })
    assert.equal(res.status, 200, res.text)
    assert.ok(res.body.data.offers.length > 0)
    const walking = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'address', address: 'Berlin Hauptbahnhof', walkingTimeMinutes: 15 },
      dates: period(h),
    })
    assert.equal(walking.status, 200, walking.text)
    for (const o of walking.body.data.offers) assert.ok(o.distanceFromSearch <= 15 * 80 + 1)
    const nowhere = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'address', address: 'Qwxzv Nonexistentstraße 999, Atlantis' },
      dates: period(h),
    })
    assert.equal(nowhere.status, 400)
    assert.equal(nowhere.body.error.code, 'GEOCODING_FAILED')
  })

  it('finds stations with p_ place ids that POST /cars accepts', async () => {
    const res = await h.api(
      'GET',
      `/cars/stations?latitude=${BER_AIRPORT.latitude}&longitude=${BER_AIRPORT.longitude}&radius=3000`,
      t.secret,
    )
    assert.equal(res.status, 200, res.text)
    const stations = res.body.data.stations
    assert.ok(stations.length > 0)
    for (const s of stations) assert.match(s.placeId, /^p_[a-z0-9]+$/)
    const airport = stations.find((s: any) => s.stationType === 'AIRPORT')
    assert.ok(airport)
    const search = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'place', placeId: airport.placeId },
      dates: period(h),
    })
    assert.equal(search.status, 200, search.text)
    assert.ok(
      search.body.data.offers.every((o: any) => o.pickupLocation.id === airport.id || o.distanceFromSearch < 400),
    )

    const same = await h.api(
      'GET',
      `/cars/stations?latitude=${BER_AIRPORT.latitude}&longitude=${BER_AIRPORT.longitude}&radiusMeters=3000`,
      t.secret,
    )
    assert.deepEqual(same.body.data.stations, stations)
    const down = await h.api(
      'GET',
      `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&radiusMeters=3000`,
      t.test,
      undefined,
      { 'x-sandbox-scenario': 'provider-timeout:sandbox-rent,provider-timeout:sandbox-share' },
    )
    assert.equal(down.status, 504, down.text)
    assert.equal(down.body.error.code, 'TIMEOUT')
    assert.deepEqual(
      down.body.error.details.providers.map((p: any) => p.status),
      ['TIMEOUT', 'TIMEOUT'],
    )
    const bad = await h.api('GET', '/cars/stations?latitude=95&longitude=13', t.secret)
    assert.equal(bad.body.error.code, 'INVALID_LOCATION')
    const paged = await h.api(
      'GET',
      `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&radius=30000&limit=2`,
      t.secret,
    )
    assert.equal(paged.body.data.stations.length, 2)
    assert.equal(paged.body.data.pagination.hasMore, true)
    const next = await h.api(
      'GET',
      `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&radius=30000&limit=2&cursor=${encodeURIComponent(paged.body.data.pagination.nextCursor)}`,
      t.secret,
    )
    assert.notDeepEqual(next.body.data.stations[0].id, paged.body.data.stations[0].id)
    // Each provider's entry counts its stations and says why it failed, as search's entries do.
    const failed = await h.api(
      'GET',
      `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&radius=30000`,
      t.test,
      undefined,
      { 'x-sandbox-scenario': 'provider-error:sandbox-share' },
    )
    assert.equal(failed.status, 200, failed.text)
    const share = failed.body.data.providers.find((p: any) => p.id === 'sandbox-share')
    assert.equal(share.status, 'FAILED')
    assert.equal(share.stations, 0)
    assert.equal(share.error.code, 'PROVIDER_ERROR')
    assert.equal(typeof share.error.message, 'string')
    const rent = failed.body.data.providers.find((p: any) => p.id === 'sandbox-rent')
    assert.equal(rent.status, 'OK')
    assert.equal(rent.error, undefined)
    assert.equal(rent.stations, failed.body.data.stations.filter((s: any) => s.provider.id === 'sandbox-rent').length)
  })

  it('one-way rentals: the car is returned at the dropoff, with the one-way fee', async () => {
    const hbf = { latitude: 52.5251, longitude: 13.3694 }
    const res = await searchCars(h, t.secret, {
      pickup: near({ latitude: 52.5219, longitude: 13.4132 }, 1500),
      dropoff: near(hbf, 1500),
      estimatedKilometers: 20,
      limit: 100,
    })
    assert.equal(res.status, 200, res.text)
    const oneWay = res.body.data.offers.filter((o: any) => o.dropoffLocation.id !== o.pickupLocation.id)
    assert.ok(oneWay.length > 0, 'offers returned elsewhere')
    for (const o of oneWay) {
      assert.ok(o.warnings?.some((w: any) => w.code === 'ONE_WAY_FEE_APPLIES'))
      assert.ok(o.price.includedFees.length > 0)
    }
  })

  it('filters and sorts', async () => {
    const suv = await searchCars(h, t.secret, { filters: { category: ['SUV'] }, limit: 100 })
    assert.equal(suv.status, 200, suv.text)
    assert.ok(suv.body.data.offers.length > 0)
    assert.ok(suv.body.data.offers.every((o: any) => o.vehicle.category === 'SUV'))
    const electric = await searchCars(h, t.secret, {
      filters: { fuelType: ['ELECTRIC'], transmission: ['AUTOMATIC'], minSeats: 4 },
    })
    assert.ok(electric.body.data.offers.every((o: any) => o.vehicle.fuelType === 'ELECTRIC' && o.vehicle.seats >= 4))
    const unlimited = await searchCars(h, t.secret, { filters: { unlimitedMileage: true } })
    assert.ok(unlimited.body.data.offers.every((o: any) => o.mileageAllowance.unlimited))
    const cheap = await searchCars(h, t.secret, { estimatedKilometers: 100, sortBy: 'PRICE_LOW_TO_HIGH', limit: 100 })
    const prices = cheap.body.data.offers.map((o: any) => o.price.totalPrice.amount)
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => a - b),
    )
    const capped = await searchCars(h, t.secret, {
      estimatedKilometers: 100,
      filters: { maxTotalPrice: prices[Math.floor(prices.length / 2)] },
      limit: 100,
    })
    assert.ok(
      capped.body.data.offers.every((o: any) => o.price.totalPrice.amount <= prices[Math.floor(prices.length / 2)]),
    )
    const near_ = await searchCars(h, t.secret, { sortBy: 'DISTANCE', limit: 100 })
    const distances = near_.body.data.offers.map((o: any) => o.distanceFromSearch)
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    )
    const expensive = await searchCars(h, t.secret, {
      estimatedKilometers: 100,
      sortBy: 'PRICE_HIGH_TO_LOW',
      limit: 100,
    })
    const desc = expensive.body.data.offers.map((o: any) => o.price.totalPrice.amount)
    assert.deepEqual(
      desc,
      [...desc].sort((a, b) => b - a),
    )
  })

  it('applies driver age eligibility; NO_OFFERS_AVAILABLE when nothing is left', async () => {
    const young = await searchCars(h, t.secret, { driverAge: 19, limit: 100 })
    assert.equal(young.status, 200)
    assert.ok(young.body.data.offers.every((o: any) => !['LUXURY', 'SPORTS'].includes(o.vehicle.category)))
    for (const driverAge of [17, 15, 0]) {
      const minor = await searchCars(h, t.secret, { driverAge })
      assert.equal(minor.status, 404, `driverAge ${driverAge}`)
      assert.equal(minor.body.error.code, 'NO_OFFERS_AVAILABLE')
    }
    const negative = await searchCars(h, t.secret, { driverAge: -1 })
    assert.equal(negative.body.error.code, 'INVALID_REQUEST')
  })

  it('pages with an opaque cursor; changed parameters start over silently; a tampered cursor is INVALID_CURSOR', async () => {
    const first = await searchCars(h, t.secret, { limit: 3, sortBy: 'DISTANCE' })
    assert.equal(first.body.data.offers.length, 3)
    assert.equal(first.body.data.pagination.hasMore, true)
    const cursor = first.body.data.pagination.nextCursor
    const body = { pickup: near(), dates: period(h), limit: 3, sortBy: 'DISTANCE' }
    const seen = new Set(
      first.body.data.offers.map((o: any) => `${o.provider.id}|${o.pickupLocation.id}|${o.vehicle.model}`),
    )
    let next = cursor
    let pages = 1
    while (next && pages < 60) {
      const page = await h.api('POST', '/cars', t.secret, { ...body, cursor: next })
      assert.equal(page.status, 200, page.text)
      for (const o of page.body.data.offers) {
        const id = `${o.provider.id}|${o.pickupLocation.id}|${o.vehicle.model}`
        assert.ok(!seen.has(id), `offer ${id} served twice`)
        seen.add(id)
      }
      next = page.body.data.pagination.nextCursor
      if (!page.body.data.pagination.hasMore) assert.equal(next, undefined)
      pages++
    }
    assert.ok(pages > 1)
    // The same cursor again (a client's retry) answers the same page.
    const twice = await h.api('POST', '/cars', t.secret, { ...body, cursor })
    const again = await h.api('POST', '/cars', t.secret, { ...body, cursor })
    const ids = (r: any) =>
      r.body.data.offers.map((o: any) => `${o.provider.id}|${o.pickupLocation.id}|${o.vehicle.model}`)
    assert.deepEqual(ids(again), ids(twice))
    const changed = await h.api('POST', '/cars', t.secret, { ...body, sortBy: 'PRICE_LOW_TO_HIGH', cursor })
    assert.equal(changed.status, 200)
    assert.equal(changed.body.data.offers.length, 3)
    const tampered = `${cursor.slice(0, -3)}${cursor.endsWith('A') ? 'B' : 'A'}xx`
    const bad = await h.api('POST', '/cars', t.secret, { ...body, cursor: tampered })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error.code, 'INVALID_CURSOR')
    const other = await createTenant(h)
    const foreign = await h.api('POST', '/cars', other.secret, { ...body, cursor })
    assert.equal(foreign.body.error.code, 'INVALID_CURSOR')
  })

  it('reports a failing or slow provider, keeps the others, and asks it again on the next page', async () => {
    const started = Date.now()
    const res = await searchCars(h, t.test, { limit: 100 }, { 'x-sandbox-scenario': 'provider-timeout:sandbox-rent' })
    assert.equal(res.status, 200, res.text)
    assert.ok(Date.now() - started < 5000, 'a timed-out provider does not hold the answer for the whole deadline')
    const status = Object.fromEntries(res.body.data.providers.map((p: any) => [p.id, p.status]))
    assert.deepEqual(status, { 'sandbox-rent': 'TIMEOUT', 'sandbox-share': 'OK' })
    assert.ok(res.body.data.offers.length > 0)
    assert.ok(res.body.data.offers.every((o: any) => o.provider.id === 'sandbox-share'))
    assert.equal(res.body.data.pagination.hasMore, true)
    const retry = await h.api('POST', '/cars', t.test, {
      pickup: near(),
      dates: period(h),
      limit: 100,
      cursor: res.body.data.pagination.nextCursor,
    })
    assert.equal(retry.status, 200, retry.text)
    assert.ok(retry.body.data.offers.length > 0)
    assert.ok(
      retry.body.data.offers.every((o: any) => o.provider.id === 'sandbox-rent'),
      'the late provider joins',
    )
    assert.deepEqual(
      retry.body.data.providers.map((p: any) => p.id),
      ['sandbox-rent'],
    )
    assert.equal(retry.body.data.providers[0].status, 'OK')

    // When no provider answers, there is nothing to page through: 500 PROVIDER_ERROR (504 TIMEOUT when every one
    // timed out), with each provider's failure in the details.
    const none = await searchCars(
      h,
      t.test,
      { limit: 100 },
      { 'x-sandbox-scenario': 'provider-error:sandbox-share,provider-timeout:sandbox-rent' },
    )
    assert.equal(none.status, 500, none.text)
    assert.equal(none.body.error.code, 'PROVIDER_ERROR')
    assert.deepEqual(Object.fromEntries(none.body.error.details.providers.map((p: any) => [p.id, p.status])), {
      'sandbox-rent': 'TIMEOUT',
      'sandbox-share': 'FAILED',
    })
    const slow = await searchCars(
      h,
      t.test,
      { limit: 100 },
      { 'x-sandbox-scenario': 'provider-timeout:sandbox-share,provider-timeout:sandbox-rent' },
    )
    assert.equal(slow.status, 504, slow.text)
    assert.equal(slow.body.error.code, 'TIMEOUT')

    const partial = await searchCars(
      h,
      t.test,
      { limit: 100 },
      { 'x-sandbox-scenario': 'provider-error:sandbox-share', 'accept-language': 'de' },
    )
    assert.ok(partial.body.data.offers.length > 0)
    // The failure is reported with its code, in the caller's language.
    const failed = partial.body.data.providers.find((p: any) => p.id === 'sandbox-share')
    assert.deepEqual(failed.error, { code: 'PROVIDER_ERROR', message: 'Der Anbieter hat einen Fehler gemeldet.' })
    assert.ok(partial.body.data.offers.every((o: any) => o.provider.id === 'sandbox-rent'))
  })

  it('stops asking a provider that keeps failing, so paging ends', async () => {
    const scenario = { 'x-sandbox-scenario': 'provider-error:sandbox-share' }
    let res = await searchCars(h, t.test, { limit: 100 }, scenario)
    assert.equal(res.status, 200, res.text)
    let pages = 1
    while (res.body.data.pagination.hasMore && pages < 10) {
      res = await h.api(
        'POST',
        '/cars',
        t.test,
        { pickup: near(), dates: period(h), limit: 100, cursor: res.body.data.pagination.nextCursor },
        scenario,
      )
      assert.equal(res.status, 200)
      pages++
    }
    assert.equal(res.body.data.pagination.hasMore, false)
    assert.ok(pages <= 3, `${pages} pages`)
  })

  it('honours X-Sandbox-Scenario for test keys only', async () => {
    const live = await searchCars(h, t.secret, { limit: 100 }, { 'x-sandbox-scenario': 'provider-error:sandbox-share' })
    assert.ok(live.body.data.providers.every((p: any) => p.status === 'OK'))
    const typoOnLive = await searchCars(h, t.secret, { limit: 1 }, { 'x-sandbox-scenario': 'provider-eror' })
    assert.equal(typoOnLive.status, 200, 'live keys ignore the header altogether')
    // A test key's typo answers 400 instead of passing silently.
    for (const header of ['provider-eror:sandbox-share', 'sold-out:a:b', 'Provider-Error', 'x,provider-error']) {
      const res = await searchCars(h, t.test, { limit: 1 }, { 'x-sandbox-scenario': header })
      assert.equal(res.status, 400, header)
      assert.equal(res.body.error.code, 'INVALID_REQUEST', header)
      assert.ok(res.body.error.details['X-Sandbox-Scenario'], header)
      assert.ok(res.body.error.details.knownScenarios.includes('provider-error'))
    }
    const fine = await searchCars(h, t.test, { limit: 1 }, { 'x-sandbox-scenario': ' provider-slow:nobody , ' })
    assert.equal(fine.status, 200, 'a known scenario aimed at a provider the tenant lacks does nothing')
  })

  it('lets publishable keys search from an allowed origin, not book', async () => {
    const search = await searchCars(h, t.publishable, { limit: 1 }, { origin: 'https://app.example' })
    assert.equal(search.status, 200)
    const prebook = await h.api(
      'POST',
      '/cars/prebook',
      t.publishable,
      { offerToken: search.body.data.offers[0].offerToken },
      { origin: 'https://app.example' },
    )
    assert.equal(prebook.status, 403)
    assert.equal(prebook.body.error.code, 'FORBIDDEN')
  })
})

describe('POST /cars with more offers than a search session holds', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json')
    const providers = Array.from({ length: 6 }, (_, i) => ({
      id: `rent-${i + 1}`,
      name: `Rent ${i + 1}`,
      connector: 'sandbox',
      environments: ['live'],
      options: { profile: i % 2 === 0 ? 'rent' : 'share' },
    }))
    writeFileSync(file, JSON.stringify({ providers }))
    h = await startHarness({ env: { PROVIDERS_FILE: file } })
    t = await createTenant(h)
  })
  after(() => h.close())

  it(`pages through every matching offer, past the ${MAX_SESSION_OFFERS} a session keeps at once`, async () => {
    const body = { pickup: near(BERLIN, 50_000), limit: 100 }
    const first = await searchCars(h, t.secret, body)
    assert.equal(first.status, 200, first.text)
    const total = first.body.data.providers.reduce((n: number, p: any) => n + p.offers, 0)
    assert.ok(total > MAX_SESSION_OFFERS, `the setup matches more than a session holds (${total})`)
    const key = (o: any) => `${o.provider.id}|${o.pickupLocation.id}|${o.vehicle.make} ${o.vehicle.model}`
    const seen = first.body.data.offers.map(key)
    let cursor = first.body.data.pagination.nextCursor
    let pages = 1
    while (cursor) {
      const res = await searchCars(h, t.secret, { ...body, cursor })
      assert.equal(res.status, 200, res.text)
      seen.push(...res.body.data.offers.map(key))
      cursor = res.body.data.pagination.nextCursor
      assert.ok(++pages < 20, 'paging ends')
    }
    assert.equal(seen.length, total, 'every matching offer is served')
    assert.equal(new Set(seen).size, seen.length, 'none twice')
  })
})
