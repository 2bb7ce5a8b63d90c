import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }
const HBF = { latitude: 52.5251, longitude: 13.3694 }

describe('public transport', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  const findStop = async (text: string) => {
    const res = await h.api('GET', `/public-transport/stops?query=${encodeURIComponent(text)}`, t.secret)
    assert.equal(res.status, 200, res.text)
    assert.ok(res.body.data.stops.length > 0, `a stop for ${text}`)
    return res.body.data.stops[0]
  }
  const tomorrowAt = (hour: number) => {
    const d = new Date(h.clock().getTime() + 86_400_000)
    d.setUTCHours(hour - 1, 0, 0, 0)
    return d.toISOString()
  }

  it('finds stops by coordinates (nearest first, cursor pages) and by text (merged, one page)', async () => {
    const near = await h.api(
      'GET',
      `/public-transport/stops?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radiusMeters=2000&limit=3`,
      t.secret,
    )
    assert.equal(near.status, 200, near.text)
    const stops = near.body.data.stops
    assert.equal(stops.length, 3)
    assert.ok(stops[0].name.includes('Alexanderplatz'))
    const distances = stops.map((s: any) => s.distanceFromSearch)
    assert.deepEqual(
      distances,
      [...distances].sort((a: number, b: number) => a - b),
    )
    assert.match(stops[0].stopId, /^sandbox-transit:/)
    assert.equal(near.body.data.pagination.hasMore, true)
    // `radius` and `q` are aliases of `radiusMeters` and `query`.
    const tight = (params: string) =>
      h.api('GET', `/public-transport/stops?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&${params}`, t.secret)
    const byAlias = await tight('radius=300&limit=100')
    assert.equal(byAlias.status, 200, byAlias.text)
    assert.deepEqual(byAlias.body.data.stops, (await tight('radiusMeters=300&limit=100')).body.data.stops)
    assert.ok(byAlias.body.data.stops.length < (await tight('limit=100')).body.data.stops.length)
    const qAlias = await h.api('GET', '/public-transport/stops?q=alexanderplatz', t.secret)
    assert.equal(qAlias.status, 200, qAlias.text)
    assert.deepEqual(
      qAlias.body.data.stops,
      (await h.api('GET', '/public-transport/stops?query=alexanderplatz', t.secret)).body.data.stops,
    )
    const next = await h.api(
      'GET',
      `/public-transport/stops?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radiusMeters=2000&limit=3&cursor=${encodeURIComponent(near.body.data.pagination.nextCursor)}`,
      t.secret,
    )
    assert.ok(next.body.data.stops.every((s: any) => !stops.some((x: any) => x.stopId === s.stopId)))

    const text = await h.api('GET', '/public-transport/stops?query=ALEXANDERPLATZ&limit=1', t.secret)
    assert.equal(text.body.data.pagination.hasMore, false)
    assert.equal(text.body.data.pagination.nextCursor, undefined)
    assert.match(text.body.data.stops[0].name, /Alexanderplatz/)
    // A cursor of other parameters (the coordinate search above) starts the text search afresh (spec 8).
    const switched = await h.api(
      'GET',
      `/public-transport/stops?query=ALEXANDERPLATZ&limit=1&cursor=${encodeURIComponent(near.body.data.pagination.nextCursor)}`,
      t.secret,
    )
    assert.equal(switched.status, 200, switched.text)
    assert.deepEqual(switched.body.data.stops, text.body.data.stops)
    const garbage = await h.api('GET', '/public-transport/stops?query=ALEXANDERPLATZ&cursor=nonsense', t.secret)
    assert.equal(garbage.body.error.code, 'INVALID_CURSOR')
    const diacritics = await h.api('GET', '/public-transport/stops?query=warschauer%20strasse', t.secret)
    assert.ok(diacritics.body.data.stops.some((s: any) => /Warschauer Stra(ß|ss)e/.test(s.name)))
    const perProvider = await h.api(
      'GET',
      '/public-transport/stops?query=platz&provider=sandbox-transit&limit=1',
      t.secret,
    )
    assert.equal(perProvider.status, 200)
    assert.equal(perProvider.body.data.pagination.hasMore, true)
    const bad = await h.api('GET', '/public-transport/stops', t.secret)
    assert.equal(bad.status, 400)
    const badCoord = await h.api('GET', '/public-transport/stops?latitude=91&longitude=13', t.secret)
    assert.equal(badCoord.body.error.code, 'INVALID_LOCATION')
  })

  it("a text search of one provider pages through the provider's whole list: each stop once, none lost", async () => {
    const base = '/public-transport/stops?query=S&provider=sandbox-transit'
    const all = await h.api('GET', `${base}&limit=100`, t.secret)
    assert.equal(all.status, 200, all.text)
    const expected = all.body.data.stops.map((s: any) => s.stopId)
    assert.ok(expected.length > 30, 'enough stops, with ties in relevance')
    const paged: string[] = []
    let cursor: string | undefined
    do {
      const res = await h.api(
        'GET',
        `${base}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        t.secret,
      )
      assert.equal(res.status, 200, res.text)
      paged.push(...res.body.data.stops.map((s: any) => s.stopId))
      cursor = res.body.data.pagination.nextCursor
    } while (cursor && paged.length < 200)
    assert.deepEqual(paged.slice(0, expected.length), expected)
  })

  it('a first page that no provider answered is an error naming each failure (stops, journeys)', async () => {
    const failing = { 'x-sandbox-scenario': 'provider-error:sandbox-transit' }
    const stops = await h.api(
      'GET',
      `/public-transport/stops?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radiusMeters=3000`,
      t.test,
      undefined,
      failing,
    )
    assert.equal(stops.status, 500, stops.text)
    assert.equal(stops.body.error.code, 'PROVIDER_ERROR')
    assert.equal(stops.body.error.details.providers[0].id, 'sandbox-transit')
    assert.equal(stops.body.error.details.providers[0].status, 'FAILED')
    const journeys = await h.api(
      'POST',
      '/public-transport/journeys',
      t.test,
      {
        origin: { type: 'coordinates', coordinates: HBF },
        destination: { type: 'address', address: 'Alexanderplatz, Berlin' },
      },
      { 'x-sandbox-scenario': 'provider-timeout:sandbox-transit' },
    )
    assert.equal(journeys.status, 504, journeys.text)
    assert.equal(journeys.body.error.code, 'TIMEOUT')
    assert.equal(journeys.body.error.details.providers[0].status, 'TIMEOUT', journeys.text)
  })

  it('stop pages: a provider failing on a page is asked again on the next (spec 8); cursors last 30 minutes', async () => {
    const base = `/public-transport/stops?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radiusMeters=3000&limit=4`
    const page = (cursor?: string, scenario?: string) =>
      h.api(
        'GET',
        cursor ? `${base}&cursor=${encodeURIComponent(cursor)}` : base,
        t.test,
        undefined,
        scenario ? { 'x-sandbox-scenario': scenario } : {},
      )
    const clean: string[] = []
    let cursor: string | undefined
    do {
      const res = await page(cursor)
      assert.equal(res.status, 200, res.text)
      clean.push(...res.body.data.stops.map((s: any) => s.stopId))
      cursor = res.body.data.pagination.nextCursor
    } while (cursor)

    const first = await page()
    const failed = await page(first.body.data.pagination.nextCursor, 'provider-error:sandbox-transit')
    assert.equal(failed.status, 200, failed.text)
    assert.deepEqual(failed.body.data.stops, [])
    assert.equal(failed.body.data.providers[0].status, 'FAILED')
    assert.equal(failed.body.data.providers[0].error.code, 'PROVIDER_ERROR')
    assert.equal(failed.body.data.providers[0].stops, 0)
    assert.ok(first.body.data.providers[0].stops > 0)
    assert.equal(failed.body.data.pagination.hasMore, true, 'the failed provider is asked again on the next page')
    const seen = first.body.data.stops.map((s: any) => s.stopId)
    cursor = failed.body.data.pagination.nextCursor
    while (cursor) {
      const res = await page(cursor)
      seen.push(...res.body.data.stops.map((s: any) => s.stopId))
      cursor = res.body.data.pagination.nextCursor
    }
    assert.deepEqual(seen, clean, 'the same stops in the same order, none lost')

    const fresh = await page()
    h.clock.advance(31 * 60_000)
    const expired = await page(fresh.body.data.pagination.nextCursor)
    assert.equal(expired.status, 400)
    assert.equal(expired.body.error.code, 'INVALID_CURSOR')
    assert.equal(expired.body.error.details.reason, 'CURSOR_EXPIRED')
  })

  it('lists departures at a stop in time order', async () => {
    const stop = await findStop('Alexanderplatz')
    const res = await h.api(
      'GET',
      `/public-transport/stops/${encodeURIComponent(stop.stopId)}/departures?from=${encodeURIComponent(tomorrowAt(9))}&limit=10`,
      t.secret,
    )
    assert.equal(res.status, 200, res.text)
    const deps = res.body.data.departures
    assert.equal(deps.length, 10)
    const times = deps.map((d: any) => Date.parse(d.scheduledTime))
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    )
    assert.ok(times[0] >= Date.parse(tomorrowAt(9)))
    assert.ok(deps.every((d: any) => d.line.name && d.headsign))
    assert.equal((await h.api('GET', '/public-transport/stops/sandbox-transit:nope/departures', t.secret)).status, 404)
  })

  it('plans journeys with legs and ticket offers; prebook, book, tickets, cancel', async () => {
    const from = await findStop('Hauptbahnhof')
    const to = await findStop('Alexanderplatz')
    const res = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: from.stopId },
      destination: { type: 'stop', stopId: to.stopId },
      departAt: tomorrowAt(10),
      limit: 3,
    })
    assert.equal(res.status, 200, res.text)
    const journeys = res.body.data.journeys
    assert.ok(journeys.length > 0)
    const j = journeys[0]
    assert.ok(Date.parse(j.departure) >= Date.parse(tomorrowAt(10)))
    assert.ok(j.legs.some((l: any) => l.mode !== 'WALK'))
    assert.ok(j.ticketOffers.length > 0)
    const offer = j.ticketOffers[0]
    assert.equal(offer.price.currency, 'EUR')

    const coords = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'coordinates', coordinates: HBF },
      destination: { type: 'address', address: 'Alexanderplatz, Berlin' },
      departAt: tomorrowAt(10),
    })
    assert.equal(coords.status, 200, coords.text)
    assert.ok(coords.body.data.journeys.length > 0)
    // Journeys that have already left are planned, but sell no tickets.
    const past = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: from.stopId },
      destination: { type: 'stop', stopId: to.stopId },
      departAt: new Date(h.clock().getTime() - 30 * 60_000).toISOString(),
      limit: 5,
    })
    assert.equal(past.status, 200, past.text)
    const left = past.body.data.journeys.filter((x: any) => Date.parse(x.departure) < h.clock().getTime())
    assert.ok(left.length > 0, 'some planned journeys have left')
    assert.ok(left.every((x: any) => x.ticketOffers.length === 0))
    const unknownStop = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: 'sandbox-transit:nope' },
      destination: { type: 'coordinates', coordinates: ALEX },
    })
    assert.equal(unknownStop.status, 404, unknownStop.text)
    assert.equal(unknownStop.body.error.code, 'NOT_FOUND')
    assert.equal(unknownStop.body.error.details['origin.stopId'], 'sandbox-transit:nope')
    // Any limit up to 100 is accepted (spec 8); above that is INVALID_REQUEST.
    const many = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'coordinates', coordinates: HBF },
      destination: { type: 'address', address: 'Alexanderplatz, Berlin' },
      departAt: tomorrowAt(10),
      limit: 100,
    })
    assert.equal(many.status, 200, many.text)
    assert.ok(many.body.data.journeys.length >= coords.body.data.journeys.length)
    const tooMany = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'coordinates', coordinates: HBF },
      destination: { type: 'coordinates', coordinates: ALEX },
      limit: 101,
    })
    assert.equal(tooMany.status, 400)
    assert.equal(tooMany.body.error.code, 'INVALID_REQUEST')

    const neither = await h.api('POST', '/public-transport/prebook', t.secret, {})
    assert.equal(neither.status, 400)
    assert.equal(neither.body.error.code, 'INVALID_REQUEST')
    // Either field will do, so the error names both (issue 21).
    assert.deepEqual(neither.body.error.details, {
      offerTokens: 'one of offerTokens or offerToken is required',
      offerToken: 'one of offerTokens or offerToken is required',
    })
    const both = await h.api('POST', '/public-transport/prebook', t.secret, {
      offerToken: offer.offerToken,
      offerTokens: [offer.offerToken],
    })
    assert.equal(both.status, 400)
    const sameTwice = await h.api('POST', '/public-transport/prebook', t.secret, {
      offerTokens: [offer.offerToken, offer.offerToken],
    })
    assert.equal(sameTwice.status, 400, sameTwice.text)
    assert.equal(sameTwice.body.error.code, 'INVALID_REQUEST')
    assert.ok(sameTwice.body.error.details['offerTokens[1]'])
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(prebook.status, 200, prebook.text)
    assert.equal(prebook.body.data.total.amount, offer.price.amount)
    const again = await h.api('POST', '/public-transport/prebook', t.secret, { offerTokens: [offer.offerToken] })
    assert.equal(again.status, 409)
    assert.equal(again.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.deepEqual(again.body.error.details, { 'offerTokens[0]': 'was already prebooked' })
    const single = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    assert.deepEqual(single.body.error.details, { offerToken: 'was already prebooked' }, 'named as sent')
    const booking = await h.api('POST', '/public-transport/bookings', t.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    })
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId
    assert.match(id, /^[A-Z2-9]{10}$/)
    const twice = await h.api('POST', '/public-transport/bookings', t.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    })
    assert.equal(twice.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.equal(twice.body.error.details.bookingId, id)
    const notReady = await h.api('GET', `/public-transport/bookings/${id}/tickets`, t.secret)
    assert.equal(notReady.status, 409)
    assert.equal(notReady.body.error.code, 'TICKET_NOT_READY')
    h.clock.advance(10_000)
    const issued = await h.api('GET', `/public-transport/bookings/${id}/tickets`, t.secret)
    assert.equal(issued.status, 200, issued.text)
    assert.ok(issued.body.data.tickets.every((x: any) => x.status === 'ISSUED' && x.data))
    const read = await h.api('GET', `/public-transport/bookings/${id}`, t.secret)
    assert.equal(read.body.data.bookingId, id)
    const cancel = await h.api('POST', `/public-transport/bookings/${id}/cancel`, t.secret)
    assert.equal(cancel.status, 200, cancel.text)
    assert.equal(cancel.body.data.status, 'CANCELLED')
    // Cancelling again answers the same cancelled booking (as for cars) and changes nothing, updatedAt included.
    h.clock.advance(60_000)
    const recancel = await h.api('POST', `/public-transport/bookings/${id}/cancel`, t.secret)
    assert.equal(recancel.status, 200, recancel.text)
    assert.equal(recancel.body.data.status, 'CANCELLED')
    assert.equal(recancel.body.data.updatedAt, cancel.body.data.updatedAt)
    assert.deepEqual(recancel.body.data.statusHistory, cancel.body.data.statusHistory)
    const reread = await h.api('GET', `/public-transport/bookings/${id}`, t.secret)
    assert.equal(reread.body.data.updatedAt, cancel.body.data.updatedAt)
  })

  it('ticket offers are usable for OFFER_TOKEN_TTL_SECONDS, but not once the journey has left', async () => {
    const from = await findStop('Hauptbahnhof')
    const to = await findStop('Alexanderplatz')
    const res = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: from.stopId },
      destination: { type: 'stop', stopId: to.stopId },
      limit: 3,
    })
    assert.equal(res.status, 200, res.text)
    // (A journey whose ticket offers did not arrive in time comes without them; take the first that has some.)
    const journey = res.body.data.journeys.find((j: any) => j.ticketOffers.length > 0)
    assert.ok(journey, `${h.clock().toISOString()} ${res.text.slice(0, 600)}`)
    const offer = journey.ticketOffers[0]
    assert.equal(Date.parse(offer.usableUntil), h.clock().getTime() + 1200 * 1000)
    const leaves = Date.parse(journey.departure)
    assert.ok(leaves + 60_000 < Date.parse(offer.usableUntil), 'the journey leaves within the validity')
    h.clock.set(leaves + 60_000)
    const late = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(late.status, 400, late.text)
    assert.equal(late.body.error.code, 'OFFER_EXPIRED')
    assert.equal(late.body.error.details.reason, 'DEPARTED')
  })

  it('route statuses: 400 OFFER_EXPIRED, 400 BOOKING_FAILED, 400 OPERATION_NOT_SUPPORTED', async () => {
    const from = await findStop('Hauptbahnhof')
    const to = await findStop('Alexanderplatz')
    const plan = async (key: string) =>
      (
        await h.api('POST', '/public-transport/journeys', key, {
          origin: { type: 'stop', stopId: from.stopId },
          destination: { type: 'stop', stopId: to.stopId },
          departAt: tomorrowAt(11),
        })
      ).body.data.journeys[0].ticketOffers[0].offerToken
    const expiring = await plan(t.secret)
    h.clock.advance(2 * 3600_000)
    const expired = await h.api('POST', '/public-transport/prebook', t.secret, { offerTokens: [expiring] })
    assert.equal(expired.status, 400)
    assert.equal(expired.body.error.code, 'OFFER_EXPIRED')

    // sold-out: journeys without ticket offers, and a prebook of an earlier offer is 400 OFFER_EXPIRED (SOLD_OUT).
    const soldOut = { 'x-sandbox-scenario': 'sold-out:sandbox-transit' }
    const bare = await h.api(
      'POST',
      '/public-transport/journeys',
      t.test,
      { origin: { type: 'stop', stopId: from.stopId }, destination: { type: 'stop', stopId: to.stopId } },
      soldOut,
    )
    assert.equal(bare.status, 200, bare.text)
    assert.ok(bare.body.data.journeys.length > 0)
    assert.ok(bare.body.data.journeys.every((j: any) => j.ticketOffers.length === 0))
    const gone = await h.api('POST', '/public-transport/prebook', t.test, { offerToken: await plan(t.test) }, soldOut)
    assert.equal(gone.status, 400, gone.text)
    assert.equal(gone.body.error.code, 'OFFER_EXPIRED')
    assert.equal(gone.body.error.details.reason, 'SOLD_OUT')

    const token = await plan(t.test)
    const prebook = await h.api('POST', '/public-transport/prebook', t.test, { offerTokens: [token] })
    const failed = await h.api(
      'POST',
      '/public-transport/bookings',
      t.test,
      {
        prebookedOfferToken: prebook.body.data.prebookedOfferToken,
        customer: { firstName: 'A', lastName: 'B', email: 'a@example.com' },
      },
      { 'x-sandbox-scenario': 'booking-fails:sandbox-transit' },
    )
    assert.equal(failed.status, 400)
    assert.equal(failed.body.error.code, 'BOOKING_FAILED')
    assert.equal((await h.api('GET', '/public-transport/bookings/ABCDEFGHJK', t.secret)).status, 404)

    // The booking itself: 400 OFFER_EXPIRED once the prebooked token ran out.
    const late = await h.api('POST', '/public-transport/prebook', t.test, { offerToken: await plan(t.test) })
    assert.equal(late.status, 200, late.text)
    h.clock.advance(2 * 3600_000)
    const expiredBooking = await h.api('POST', '/public-transport/bookings', t.test, {
      prebookedOfferToken: late.body.data.prebookedOfferToken,
      customer: { firstName: 'A', lastName: 'B', email: 'a@example.com' },
    })
    assert.equal(expiredBooking.status, 400, expiredBooking.text)
    assert.equal(expiredBooking.body.error.code, 'OFFER_EXPIRED')

    // Cancellation the provider refuses: 400 BOOKING_FAILED (spec 7.2).
    const fresh = await h.api('POST', '/public-transport/prebook', t.test, { offerToken: await plan(t.test) })
    const booked = await h.api('POST', '/public-transport/bookings', t.test, {
      prebookedOfferToken: fresh.body.data.prebookedOfferToken,
      customer: { firstName: 'A', lastName: 'B', email: 'a@example.com' },
    })
    assert.equal(booked.status, 201, booked.text)
    const refused = await h.api(
      'POST',
      `/public-transport/bookings/${booked.body.data.bookingId}/cancel`,
      t.test,
      undefined,
      { 'x-sandbox-scenario': 'cancel-refused:sandbox-transit' },
    )
    assert.equal(refused.status, 400, refused.text)
    assert.equal(refused.body.error.code, 'BOOKING_FAILED')
  })

  it('subscriptions: products, create, list, read, cancel and their error codes', async () => {
    const products = await h.api('GET', '/public-transport/subscriptions/products', t.secret)
    assert.equal(products.status, 200, products.text)
    const dt = products.body.data.products.find((p: any) => p.productId === 'deutschlandticket')
    assert.ok(dt)
    const holder = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      dateOfBirth: '1990-12-10',
      identification: { type: 'ID_CARD', number: 'L01X00T47' },
    }
    const next = new Date(h.clock().getTime())
    const startDate = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
    const created = await h.api('POST', '/public-transport/subscriptions', t.secret, {
      productId: 'deutschlandticket',
      holder,
      startDate,
    })
    assert.equal(created.status, 201, created.text)
    const unborn = await h.api('POST', '/public-transport/subscriptions', t.secret, {
      productId: 'deutschlandticket',
      holder: { ...holder, dateOfBirth: `${h.clock().getUTCFullYear() + 1}-01-01` },
      startDate,
    })
    assert.equal(unborn.status, 400, unborn.text)
    assert.equal(unborn.body.error.details['traveller.dateOfBirth'], 'must be a date in the past')
    assert.deepEqual(
      products.body.data.providers.map((p: any) => [p.id, p.status]),
      [['sandbox-transit', 'OK']],
    )
    // A provider that does not answer is its failure (spec 7.1), not an unknown product.
    for (const [scenario, code, status] of [
      ['provider-error', 'PROVIDER_ERROR', 500],
      ['provider-timeout', 'TIMEOUT', 504],
    ] as const) {
      const header = { 'x-sandbox-scenario': `${scenario}:sandbox-transit` }
      const list = await h.api('GET', '/public-transport/subscriptions/products', t.test, undefined, header)
      assert.equal(list.status, status, list.text)
      assert.equal(list.body.error.code, code)
      assert.equal(list.body.error.details.providers[0].id, 'sandbox-transit')
      const subscribe = await h.api(
        'POST',
        '/public-transport/subscriptions',
        t.test,
        { productId: 'deutschlandticket', holder, startDate, pin: '1234' },
        header,
      )
      assert.equal(subscribe.status, status, subscribe.text)
      assert.equal(subscribe.body.error.code, code)
    }
    const id = created.body.data.subscriptionId
    assert.ok(!created.text.includes('L01X00T47'), 'identification numbers are masked')
    const list = await h.api('GET', '/public-transport/subscriptions', t.secret)
    assert.ok(list.body.data.subscriptions.some((s: any) => s.subscriptionId === id))
    const read = await h.api('GET', `/public-transport/subscriptions/${id}`, t.secret)
    assert.equal(read.status, 200)
    h.clock.advance(1000)
    const again = await h.api('GET', `/public-transport/subscriptions/${id}`, t.secret)
    assert.equal(again.body.data.updatedAt, read.body.data.updatedAt, 'reading changes nothing')
    const unknown = await h.api('GET', '/public-transport/subscriptions/sub_AAAAAAAAAAAAAAAA', t.secret)
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.error.code, 'SUBSCRIPTION_NOT_FOUND')

    const codes: Record<string, unknown> = {}
    const attempt = async (body: Record<string, unknown>) => {
      const res = await h.api('POST', '/public-transport/subscriptions', t.secret, {
        productId: 'deutschlandticket',
        holder,
        startDate,
        ...body,
      })
      return `${res.status} ${res.body.error?.code}`
    }
    codes.noId = await attempt({ holder: { ...holder, identification: undefined } })
    codes.badId = await attempt({ holder: { ...holder, identification: { type: 'ID_CARD', number: 'x' } } })
    codes.pin = await attempt({ productId: 'vbb-abo-ab' })
    const unavailable = products.body.data.products.find((p: any) => !p.available)
    codes.unavailable = await attempt({ productId: unavailable.productId })
    codes.unknown = await attempt({ productId: 'no-such-product' })
    assert.equal(codes.noId, '400 INVALID_IDENTIFICATION')
    assert.equal(codes.badId, '400 INVALID_IDENTIFICATION')
    assert.equal(codes.pin, '400 PIN_REQUIRED')
    assert.equal(codes.unavailable, '422 PRODUCT_NOT_AVAILABLE')
    assert.equal(codes.unknown, '422 PRODUCT_NOT_AVAILABLE')

    // A start date the provider refuses: details map only field paths to messages (spec 7.1).
    const midMonth = await h.api('POST', '/public-transport/subscriptions', t.secret, {
      productId: 'deutschlandticket',
      holder,
      startDate: `${startDate.slice(0, 8)}15`,
    })
    assert.equal(midMonth.status, 400, midMonth.text)
    assert.equal(midMonth.body.error.code, 'INVALID_REQUEST')
    assert.deepEqual(Object.keys(midMonth.body.error.details), ['startDate'])
  })

  it('subscription cancellation: withdrawn before the start, minimum term, already cancelled, expired', async () => {
    const holder = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      dateOfBirth: '1990-12-10',
      identification: { type: 'PASSPORT', number: 'C01X00T47' },
    }
    const now = new Date(h.clock().getTime())
    const month = (offset: number) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 10)
    const create = async (startDate: string) => {
      const res = await h.api('POST', '/public-transport/subscriptions', t.secret, {
        productId: 'deutschlandticket',
        holder,
        startDate,
      })
      assert.equal(res.status, 201, res.text)
      return res.body.data.subscriptionId as string
    }
    const cancel = (id: string) => h.api('POST', `/public-transport/subscriptions/${id}/cancel`, t.secret)

    const future = await create(month(1))
    const withdrawn = await cancel(future)
    assert.equal(withdrawn.status, 200, withdrawn.text)
    assert.equal(withdrawn.body.data.status, 'CANCELLED')
    const again = await cancel(future)
    assert.equal(again.status, 409)
    assert.equal(again.body.error.code, 'SUBSCRIPTION_ALREADY_CANCELLED')

    const current = await create(month(0))
    const early = await cancel(current)
    assert.equal(early.status, 422)
    assert.equal(early.body.error.code, 'SUBSCRIPTION_NOT_CANCELLABLE')

    h.clock.advance(400 * 86_400_000)
    const read = await h.api('GET', `/public-transport/subscriptions/${future}`, t.secret)
    assert.equal(read.status, 200)
    const later = new Date(h.clock().getTime())
    const expiredOne = await create(
      new Date(Date.UTC(later.getUTCFullYear(), later.getUTCMonth(), 1)).toISOString().slice(0, 10),
    )
    h.clock.advance(45 * 86_400_000)
    const ended = await cancel(expiredOne)
    assert.equal(ended.status, 200, ended.text)
    h.clock.advance(70 * 86_400_000)
    const expired = await cancel(expiredOne)
    assert.equal(expired.status, 422)
    assert.equal(expired.body.error.code, 'SUBSCRIPTION_EXPIRED')
    const status = await h.api('GET', `/public-transport/subscriptions/${expiredOne}`, t.secret)
    assert.equal(status.body.data.status, 'EXPIRED')
  })

  it('retention NONE: subscriptions and ticket bookings answer 403 DATA_RETENTION_NONE; stops and journeys (without tickets) still work', async () => {
    const none = await createTenant(h, { dataRetention: 'NONE' })
    const subs = await h.api('GET', '/public-transport/subscriptions', none.secret)
    assert.equal(subs.status, 403)
    assert.equal(subs.body.error.code, 'DATA_RETENTION_NONE')
    const stops = await h.api('GET', '/public-transport/stops?query=Alexanderplatz', none.secret)
    assert.ok(stops.body.data.stops.length > 0)
    const stopId = stops.body.data.stops[0].stopId
    const journey = await h.api('POST', '/public-transport/journeys', none.secret, {
      origin: { type: 'stop', stopId },
      destination: { type: 'coordinates', coordinates: HBF },
    })
    // Spec 4.5: planning needs no stored booking; the provider that books only with one offers no tickets here.
    assert.equal(journey.status, 200, journey.text)
    assert.ok(journey.body.data.journeys.length > 0)
    assert.ok(journey.body.data.journeys.every((j: any) => (j.ticketOffers ?? []).length === 0))
    const withTickets = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId },
      destination: { type: 'coordinates', coordinates: HBF },
    })
    assert.ok(withTickets.body.data.journeys.some((j: any) => j.ticketOffers.length > 0))
    const token = withTickets.body.data.journeys.flatMap((j: any) => j.ticketOffers)[0].offerToken
    const prebook = await h.api('POST', '/public-transport/prebook', none.secret, { offerToken: token })
    assert.equal(prebook.status, 400, "another tenant's token")
    assert.equal(prebook.body.error.code, 'INVALID_OFFER_TOKEN')
    const badCoords = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'coordinates', coordinates: { latitude: 100, longitude: 13 } },
      destination: { type: 'stop', stopId },
    })
    assert.equal(badCoords.body.error.code, 'INVALID_LOCATION')
  })
})

describe('public transport: a provider that lacks an operation', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.json')
    writeFileSync(
      file,
      JSON.stringify({
        providers: [
          {
            id: 'transit-no-sales',
            name: 'Transit without sales',
            connector: 'sandbox',
            environments: ['live'],
            options: { profile: 'transit', disabledOperations: ['BOOK'] },
          },
          {
            id: 'transit-no-prebook',
            name: 'Transit that sells no tickets through prebook',
            connector: 'sandbox',
            environments: ['live'],
            options: { profile: 'transit', disabledOperations: ['PREBOOK'] },
          },
          {
            id: 'transit-flaky',
            name: 'Transit that always fails',
            connector: 'sandbox',
            environments: ['live'],
            options: { profile: 'transit', failureRate: 1 },
          },
          {
            id: 'transit-no-after-sales',
            name: 'Transit without cancellation or tickets',
            connector: 'sandbox',
            environments: ['live'],
            options: { profile: 'transit', disabledOperations: ['CANCEL', 'TICKETS'] },
          },
        ],
      }),
    )
    h = await startHarness({ env: { PROVIDERS_FILE: file } })
    t = await createTenant(h)
  })
  after(() => h.close())

  /** The first ticket offer of a journey of `providerId` from Hauptbahnhof to Alexanderplatz tomorrow at 09:00. */
  const firstOffer = async (providerId: string) => {
    const search = async (q: string) => {
      const res = await h.api('GET', `/public-transport/stops?query=${q}&limit=100`, t.secret)
      return res.body.data.stops.find((s: any) => s.provider.id === providerId).stopId
    }
    const departAt = new Date(h.clock().getTime() + 86_400_000)
    departAt.setUTCHours(9, 0, 0, 0)
    const plan = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: await search('Hauptbahnhof') },
      destination: { type: 'stop', stopId: await search('Alexanderplatz') },
      departAt: departAt.toISOString(),
    })
    assert.equal(plan.status, 200, plan.text)
    return plan.body.data.journeys[0].ticketOffers[0]
  }

  /** Books (or tries to) a journey of `providerId` from Hauptbahnhof to Alexanderplatz. */
  const bookWith = async (providerId: string) => {
    const offer = await firstOffer(providerId)
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, { offerTokens: [offer.offerToken] })
    assert.equal(prebook.status, 200, prebook.text)
    return h.api('POST', '/public-transport/bookings', t.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      customer: { firstName: 'A', lastName: 'B', email: 'a@example.com' },
    })
  }

  it('400 OPERATION_NOT_SUPPORTED when prebooking with a provider that cannot prebook', async () => {
    const offer = await firstOffer('transit-no-prebook')
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(prebook.status, 400, prebook.text)
    assert.equal(prebook.body.error.code, 'OPERATION_NOT_SUPPORTED')
  })

  it('503 SERVICE_UNAVAILABLE once a failing provider has opened its circuit breaker', async () => {
    const path = '/public-transport/stops/transit-flaky%3A900100003/departures'
    // Each failing read counts against the provider's breaker (other tests here may have counted some already).
    let last: any
    for (let i = 0; i < 8; i++) {
      last = await h.api('GET', path, t.secret)
      assert.ok(['PROVIDER_ERROR', 'SERVICE_UNAVAILABLE'].includes(last.body.error?.code), last.text)
      if (last.status === 503) break
    }
    assert.equal(last.status, 503, last.text)
    assert.equal(last.body.error.code, 'SERVICE_UNAVAILABLE')
    assert.equal(last.body.error.details.reason, 'CIRCUIT_OPEN')
  })

  it('400 OPERATION_NOT_SUPPORTED when booking with a provider that cannot book', async () => {
    const booking = await bookWith('transit-no-sales')
    assert.equal(booking.status, 400)
    assert.equal(booking.body.error.code, 'OPERATION_NOT_SUPPORTED')
  })

  it('400 OPERATION_NOT_SUPPORTED for the cancellation and the tickets of a provider without them', async () => {
    const booking = await bookWith('transit-no-after-sales')
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId
    const read = await h.api('GET', `/public-transport/bookings/${id}`, t.secret)
    assert.equal(read.status, 200, read.text)
    for (const [method, path] of [
      ['POST', `/public-transport/bookings/${id}/cancel`],
      ['GET', `/public-transport/bookings/${id}/tickets`],
    ] as const) {
      const res = await h.api(method, path, t.secret)
      assert.equal(res.status, 400, `${method} ${path}: ${res.text}`)
      assert.equal(res.body.error.code, 'OPERATION_NOT_SUPPORTED')
    }
  })
})
