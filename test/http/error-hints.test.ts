import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bookFirst, DRIVER, searchCars } from '../helpers/cars.ts'
import { englishIn } from '../helpers/english.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/** Issue 21: an error that names the mistake (details.reason) and where the token or id belongs. */
describe('errors that say how to fix them', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  let other: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
    other = await createTenant(h)
    const roomy = { type: 'secret', environment: 'live', rateLimit: { limit: 10_000, windowSeconds: 60 } }
    t.secret = (await createKey(h, t.tenant.id, roomy)).secret
  })
  after(() => h.close())

  const offerToken = async (key: string) => {
    const res = await searchCars(h, key, { estimatedKilometers: 100, limit: 5 })
    assert.equal(res.status, 200, res.text)
    return res.body.data.offers[0].offerToken as string
  }
  const prebooked = async (key: string) => {
    const res = await h.api('POST', '/cars/prebook', key, { offerToken: await offerToken(key) })
    assert.equal(res.status, 200, res.text)
    return res.body.data.prebookedOfferToken as string
  }
  const book = (key: string, token: string, headers?: Record<string, string>) =>
    h.api(
      'POST',
      '/cars/bookings',
      key,
      { prebookedOfferToken: token, driver: DRIVER, additionalFields: { flightNumber: 'LH1234' } },
      headers,
    )

  it('an offer token sent to POST /cars/bookings: WRONG_TOKEN_KIND, prebook it first', async () => {
    const res = await book(t.secret, await offerToken(t.secret))
    assert.equal(res.status, 400, res.text)
    const e = res.body.error
    assert.equal(e.code, 'INVALID_OFFER_TOKEN')
    assert.equal(e.details.reason, 'WRONG_TOKEN_KIND')
    assert.equal(e.details.expected, 'prebookedOfferToken')
    assert.equal(e.details.received, 'offerToken')
    assert.equal(e.details.sendTo, 'POST /cars/prebook')
    assert.match(e.details.prebookedOfferToken, /is a car offer token: send it to POST \/cars\/prebook first/)
    assert.match(e.message, /another kind/)
  })

  it('a prebooked token sent to prebook or offer details: WRONG_TOKEN_KIND, book with it', async () => {
    const token = await prebooked(t.secret)
    for (const path of ['/cars/prebook', '/cars/offer-details']) {
      const res = await h.api('POST', path, t.secret, { offerToken: token })
      assert.equal(res.status, 400, res.text)
      assert.equal(res.body.error.details.reason, 'WRONG_TOKEN_KIND')
      assert.equal(res.body.error.details.expected, 'offerToken')
      assert.equal(res.body.error.details.received, 'prebookedOfferToken')
      assert.equal(res.body.error.details.sendTo, 'POST /cars/bookings')
    }
  })

  it('a live token with a test key, and the reverse: OTHER_ENVIRONMENT', async () => {
    const live = await offerToken(t.secret)
    const res = await h.api('POST', '/cars/prebook', t.test, { offerToken: live })
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(
      { ...res.body.error.details, offerToken: undefined },
      { reason: 'OTHER_ENVIRONMENT', offerToken: undefined, tokenEnvironment: 'live', keyEnvironment: 'test' },
    )
    assert.match(res.body.error.details.offerToken, /live environment: use it with a live API key/)
    const test = await offerToken(t.test)
    const back = await h.api('POST', '/cars/offer-details', t.secret, { offerToken: test })
    assert.equal(back.body.error.details.reason, 'OTHER_ENVIRONMENT')
    assert.equal(back.body.error.details.tokenEnvironment, 'test')
  })

  it("garbage, a tampered token and another tenant's token: MALFORMED_TOKEN, nothing about the other tenant", async () => {
    const theirs = await offerToken(other.secret)
    const mine = await offerToken(t.secret)
    const tampered = `${mine.slice(0, -4)}${mine.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
    for (const token of ['x'.repeat(60), tampered, theirs]) {
      const res = await h.api('POST', '/cars/prebook', t.secret, { offerToken: token })
      assert.equal(res.status, 400, res.text)
      assert.equal(res.body.error.code, 'INVALID_OFFER_TOKEN')
      assert.deepEqual(Object.keys(res.body.error.details).sort(), ['offerToken', 'reason'])
      assert.equal(res.body.error.details.reason, 'MALFORMED_TOKEN')
    }
  })

  it('cursors of another list or environment: INVALID_CURSOR with CURSOR_OF_ANOTHER_LIST or OTHER_ENVIRONMENT', async () => {
    const micro = await h.api('POST', '/micromobility', t.secret, { location: ALEX, radiusMeters: 3000, limit: 1 })
    assert.equal(micro.status, 200, micro.text)
    const cursor = micro.body.data.pagination.nextCursor
    assert.ok(cursor)
    const stops = await h.api(
      'GET',
      `/public-transport/stops?latitude=52.52&longitude=13.405&cursor=${encodeURIComponent(cursor)}`,
      t.secret,
    )
    assert.equal(stops.status, 400, stops.text)
    assert.equal(stops.body.error.code, 'INVALID_CURSOR')
    assert.equal(stops.body.error.details.reason, 'CURSOR_OF_ANOTHER_LIST')
    assert.equal(stops.body.error.details.sendTo, 'POST /micromobility')
    const cars = await searchCars(h, t.secret, { cursor })
    assert.equal(cars.body.error.details.reason, 'CURSOR_OF_ANOTHER_LIST')
    const testKey = await h.api('POST', '/micromobility', t.test, { location: ALEX, radiusMeters: 3000, cursor })
    assert.equal(testKey.status, 400, testKey.text)
    assert.equal(testKey.body.error.details.reason, 'OTHER_ENVIRONMENT')
    const garbage = await h.api('POST', '/micromobility', t.secret, { location: ALEX, cursor: 'y'.repeat(60) })
    assert.equal(garbage.body.error.details.reason, 'MALFORMED_CURSOR')
  })

  it('a vehicle token of the other environment, or an offer token as vehicle token', async () => {
    const micro = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 20,
    })
    const token = micro.body.data.results.find((v: any) => v.vehicleToken).vehicleToken
    const rider = { userEmail: 'rider@example.com', userName: 'Rider', action: 'RESERVE' }
    const res = await h.api('POST', '/micromobility/trips', t.test, { ...rider, vehicleToken: token })
    assert.equal(res.status, 404, res.text)
    assert.equal(res.body.error.details.reason, 'OTHER_ENVIRONMENT')
    const wrong = await h.api('POST', '/micromobility/trips', t.secret, {
      ...rider,
      vehicleToken: await offerToken(t.secret),
    })
    assert.equal(wrong.body.error.details.reason, 'WRONG_TOKEN_KIND')
    assert.equal(wrong.body.error.details.received, 'offerToken')
  })

  it('a booking id of the other environment: 404 with OTHER_ENVIRONMENT; of another tenant: a plain 404', async () => {
    const { booking } = await bookFirst(h, t.secret)
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId
    const res = await h.api('GET', `/cars/bookings/${id}`, t.test)
    assert.equal(res.status, 404, res.text)
    assert.equal(res.body.error.details.reason, 'OTHER_ENVIRONMENT')
    assert.equal(res.body.error.details.idEnvironment, 'live')
    assert.match(res.body.error.details.hint, /live API key/)
    const theirs = await h.api('GET', `/cars/bookings/${id}`, other.secret)
    assert.equal(theirs.status, 404)
    assert.equal(theirs.body.error.details.reason, undefined)
    const trip = await h.api('GET', '/micromobility/trips/trp_0000000000000000', t.test)
    assert.equal(trip.status, 404)
    assert.equal(trip.body.error.details.reason, undefined)
  })

  it('a subscription start date in the past names the allowed range', async () => {
    const res = await h.api('POST', '/public-transport/subscriptions', t.secret, {
      productId: 'deutschlandticket',
      holder: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        dateOfBirth: '1990-12-10',
        identification: { type: 'ID_CARD', number: 'L01X00T47' },
      },
      startDate: '2020-01-01',
    })
    assert.equal(res.status, 400, res.text)
    const d = res.body.error.details
    assert.equal(d.reason, 'START_DATE_IN_PAST')
    const now = h.clock()
    assert.equal(
      d.earliestStartDate,
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10),
    )
    assert.ok(d.latestStartDate > d.earliestStartDate)
    assert.match(d.startDate, /first day of the current month \(\d{4}-\d{2}-01\) or of a later month; today is/)
  })

  it('in German and French: the reason message and the detail text', async () => {
    const token = await offerToken(t.secret)
    const de = await book(t.secret, token, { 'accept-language': 'de' })
    assert.equal(de.headers['content-language'], 'de')
    assert.match(de.body.error.message, /anderen Art/)
    assert.match(
      de.body.error.details.prebookedOfferToken,
      /Mietwagenangebots: senden Sie es zuerst an POST \/cars\/prebook/,
    )
    const fr = await book(t.secret, token, { 'accept-language': 'fr-CH, en;q=0.5' })
    assert.match(fr.body.error.details.prebookedOfferToken, /jeton d'offre de location de voiture/)
  })

  it('validation details and domain details in German and French carry no English sentence', async () => {
    const texts = (body: any): string[] =>
      Object.entries(body.error.details ?? {})
        .filter(
          ([k, v]) => typeof v === 'string' && k !== 'reason' && !/Environment$|^(expected|received|sendTo)$/.test(k),
        )
        .map(([, v]) => v as string)
    for (const language of ['de', 'fr']) {
      const headers = { 'accept-language': language }
      const answers = [
        await h.api(
          'POST',
          '/cars',
          t.secret,
          { pickup: { type: 'nowhere' }, sortBy: 'X', limit: 1000, extra: 1 },
          headers,
        ),
        await h.api('POST', '/cars', t.secret, {}, headers),
        await searchCars(
          h,
          t.secret,
          { dates: { start: '2020-01-01T00:00:00Z', end: '2019-01-01T00:00:00Z' } },
          headers,
        ),
        await h.api('POST', '/cars/prebook', t.secret, { offerToken: 'z'.repeat(60) }, headers),
        await h.api('GET', '/micromobility/trips/trp_0000000000000000', t.secret, undefined, headers),
        await book(t.secret, await offerToken(t.secret), headers),
      ]
      for (const res of answers) {
        assert.ok(res.status >= 400, res.text)
        assert.equal(englishIn(res.body.error.message), undefined, `${language}: ${res.body.error.message}`)
        for (const text of texts(res.body)) assert.equal(englishIn(text), undefined, `${language}: ${text}`)
      }
    }
  })
})
