import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ERROR_CODES } from '../../src/contract/errors.ts'
import { BER_AIRPORT, BERLIN, DRIVER, near, period } from '../helpers/cars.ts'
import { englishIn } from '../helpers/english.ts'
import { ALEX, bookTickets } from '../helpers/flows.ts'
import {
  createKey,
  createTenant,
  type Harness,
  type Res,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

/** Keys whose values are never prose: identifiers, tokens, addresses of machines and people. */
const NOT_PROSE = /(token|cursor|url|href|email|phone|^id$|Id$|ids$|reference|qrCode|image|logo|deepLink|polyline)/i

/** Every string meant for people in `body` (strings with a space), with its path. */
function texts(body: unknown, path = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (typeof body === 'string') {
    if (/\s/.test(body)) out.push([path, body])
  } else if (Array.isArray(body)) {
    for (const [i, v] of body.entries()) texts(v, `${path}[${i}]`, out)
  } else if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) if (!NOT_PROSE.test(k)) texts(v, path ? `${path}.${k}` : k, out)
  }
  return out
}

const LANGUAGES = ['de', 'fr'] as const

/**
 * Issue 21: every text for people follows the caller's language. Each flow of the sandbox (every provider kind, every
 * answer that carries prose) and every error code runs in German and French; an English sentence anywhere in those
 * answers fails, naming where it is. The same flows in English must show English (the detector is not blind).
 */
describe('every answer in the caller language (de, fr)', { skip: skipReason }, () => {
  let h: Harness
  let key: string
  let tenantId: string
  /** English found, by language: `language path: text`. */
  const found: Record<string, string[]> = { de: [], fr: [], en: [] }
  const seen: Record<string, number> = { de: 0, fr: 0, en: 0 }
  /** Error codes answered, by language. */
  const codes: Record<string, Set<string>> = { de: new Set(), fr: new Set(), en: new Set() }

  before(async () => {
    h = await startHarness()
  })
  /** A tenant of its own per language: stored bookings keep the texts of the language they were booked in. */
  const freshKey = async () => {
    const t: TenantFixture = await createTenant(h)
    tenantId = t.tenant.id
    const roomy = { type: 'secret', environment: 'test', rateLimit: { limit: 100_000, windowSeconds: 60 } }
    return (await createKey(h, t.tenant.id, roomy)).secret
  }
  after(() => h.close())

  /** Asks in `language` and records every English sentence of the answer. */
  const ask = async (
    language: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    as: string | null = key,
  ): Promise<Res> => {
    const res = await h.api(method, path, as ?? undefined, body, { 'accept-language': language, ...headers })
    if (res.body?.error?.code) codes[language].add(res.body.error.code)
    if (res.headers['content-type']?.toString().includes('json')) {
      for (const [where, text] of texts(res.body)) {
        seen[language]++
        if (englishIn(text)) found[language].push(`${method} ${path.split('?')[0]} ${res.status} ${where}: ${text}`)
      }
    }
    return res
  }
  const ok = (res: Res, status = 200) => {
    assert.equal(res.status, status, res.text)
    return res.body.data
  }

  /** Every flow of the sandbox with prose in it, in `language`. */
  async function walk(language: string) {
    key = await freshKey()
    const q = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      ask(language, method, path, body, headers)

    ok(await q('GET', '/mobility-providers'))
    ok(await q('GET', `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&radius=30000`))

    // Cars: a one-way rental from the airport by a young driver, a few kilometres, at an odd minute (every warning).
    const dates = period(h)
    const odd = { start: dates.start.replace(':00:00', ':10:00'), end: dates.end }
    const search = ok(
      await q('POST', '/cars', {
        pickup: near(BER_AIRPORT, 5000),
        dropoff: near(BERLIN, 20_000),
        dates: odd,
        driverAge: 21,
        estimatedKilometers: 2000,
        limit: 100,
      }),
    )
    const offers = search.offers as any[]
    assert.ok(offers.length > 0)
    const providers = [...new Set(offers.map((o) => o.provider.id))]
    const used = new Set<unknown>()
    for (const providerId of providers) {
      const offer = offers.find((o) => o.provider.id === providerId)
      used.add(offer)
      ok(await q('POST', '/cars/offer-details', { offerToken: offer.offerToken }))
      const scenario = { 'x-sandbox-scenario': `price-increase:${providerId}` }
      const prebook = ok(await q('POST', '/cars/prebook', { offerToken: offer.offerToken }, scenario))
      const missing = await q('POST', '/cars/bookings', {
        prebookedOfferToken: prebook.prebookedOfferToken,
        driver: DRIVER,
      })
      const booked = ok(
        await q('POST', '/cars/bookings', {
          prebookedOfferToken: prebook.prebookedOfferToken,
          driver: DRIVER,
          additionalFields: { flightNumber: 'LH1234' },
        }),
        missing.status === 400 ? 201 : 409,
      )
      if (!booked) continue
      const id = booked.bookingId
      ok(await q('GET', `/cars/bookings/${id}`))
      await q('POST', `/cars/bookings/${id}/vehicle-action`, { action: 'UNLOCK' })
      ok(await q('POST', `/cars/bookings/${id}/cancel`, { reason: 'Plans changed' }))
    }
    // Refusals of the car providers.
    const first = offers.find((o) => !used.has(o))
    const pre = ok(await q('POST', '/cars/prebook', { offerToken: first.offerToken }))
    const scenario = (name: string) => ({ 'x-sandbox-scenario': `${name}:${first.provider.id}` })
    await q(
      'POST',
      '/cars/bookings',
      { prebookedOfferToken: pre.prebookedOfferToken, driver: DRIVER, additionalFields: { flightNumber: 'LH1234' } },
      scenario('booking-fails'),
    )
    await q('POST', '/cars/offer-details', { offerToken: first.offerToken }, scenario('sold-out'))
    const kept = ok(
      await q('POST', '/cars/bookings', {
        prebookedOfferToken: pre.prebookedOfferToken,
        driver: DRIVER,
        additionalFields: { flightNumber: 'LH1234' },
      }),
      201,
    )
    await q('POST', `/cars/bookings/${kept.bookingId}/cancel`, {}, scenario('cancel-refused'))
    await q(
      'POST',
      `/cars/bookings/${kept.bookingId}/vehicle-action`,
      { action: 'UNLOCK' },
      scenario('vehicle-rejects'),
    )
    ok(await q('GET', '/bookings'))

    // Micromobility: search, zones, a vehicle, a trip from reservation to its end, a rejected command.
    const micro = ok(await q('POST', '/micromobility', { location: ALEX, radiusMeters: 3000, limit: 100 }))
    ok(await q('GET', `/micromobility/zones?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radius=5000`))
    const free = (micro.results as any[]).filter(
      (v) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 30,
    )
    ok(await q('GET', `/micromobility/vehicles/${encodeURIComponent(free[0].vehicleId)}`))
    const trip = ok(
      await q('POST', '/micromobility/trips', { action: 'RESERVE', vehicleToken: free[0].vehicleToken }),
      201,
    )
    ok(await q('POST', '/micromobility/trips', { action: 'START', tripId: trip.tripId }), 201)
    await q('POST', `/micromobility/trips/${trip.tripId}/vehicle-action`, { action: 'LOCK' })
    await q(
      'POST',
      `/micromobility/trips/${trip.tripId}/vehicle-action`,
      { action: 'UNLOCK' },
      {
        'x-sandbox-scenario': 'vehicle-rejects',
      },
    )
    ok(await q('POST', `/micromobility/trips/${trip.tripId}/end`, {}))
    ok(await q('GET', `/micromobility/trips/${trip.tripId}`))
    await q('POST', `/micromobility/trips/${trip.tripId}/cancel`, {})
    const reserved = ok(
      await q('POST', '/micromobility/trips', { action: 'RESERVE', vehicleToken: free[1].vehicleToken }),
      201,
    )
    ok(await q('POST', `/micromobility/trips/${reserved.tripId}/cancel`, {}))
    ok(await q('GET', '/micromobility/trips'))

    // Public transport: stops, departures, journeys with tickets, booking, tickets, alerts, vehicles.
    const alerts = { 'x-sandbox-scenario': 'transit-alert' }
    const stops = ok(await q('GET', '/public-transport/stops?query=Friedrichstra%C3%9Fe', undefined, alerts))
    const stopId = stops.stops[0].stopId
    ok(await q('GET', `/public-transport/stops/${encodeURIComponent(stopId)}/departures`, undefined, alerts))
    ok(await q('GET', '/public-transport/alerts', undefined, alerts))
    ok(await q('GET', `/public-transport/vehicles?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}`))
    const main = ok(await q('GET', '/public-transport/stops?query=Hauptbahnhof')).stops[0].stopId
    const tomorrow = new Date(h.clock().getTime() + 86_400_000)
    tomorrow.setUTCHours(9, 0, 0, 0)
    const journeys = ok(
      await q(
        'POST',
        '/public-transport/journeys',
        {
          origin: { type: 'stop', stopId: main },
          destination: { type: 'stop', stopId },
          departAt: tomorrow.toISOString(),
          limit: 2,
        },
        alerts,
      ),
    )
    const ticketOffers = journeys.journeys.flatMap((j: any) => j.ticketOffers ?? [])
    for (const offer of ticketOffers.slice(0, 3)) {
      const prebook = ok(await q('POST', '/public-transport/prebook', { offerToken: offer.offerToken }))
      const booking = ok(
        await q('POST', '/public-transport/bookings', {
          prebookedOfferToken: prebook.prebookedOfferToken,
          traveller: DRIVER,
        }),
        201,
      )
      ok(await q('GET', `/public-transport/bookings/${booking.bookingId}`))
      await q('GET', `/public-transport/bookings/${booking.bookingId}/tickets`)
      await q('POST', `/public-transport/bookings/${booking.bookingId}/cancel`, {})
    }
    await q(
      'POST',
      '/public-transport/prebook',
      { offerToken: ticketOffers[0].offerToken },
      {
        'x-sandbox-scenario': 'sold-out',
      },
    )

    // Subscriptions: products, one of each that can be had, cancelled.
    const products = ok(await q('GET', '/public-transport/subscriptions/products'))
    const next = h.clock()
    const startDate = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
    for (const product of products.products ?? products) {
      const res = await q('POST', '/public-transport/subscriptions', {
        productId: product.productId ?? product.id,
        traveller: {
          ...DRIVER,
          dateOfBirth: '1990-12-10',
          identification: { type: 'ID_CARD', number: 'L01X00T47' },
        },
        startDate,
      })
      if (res.status !== 201) continue
      const id = res.body.data.subscriptionId
      ok(await q('GET', `/public-transport/subscriptions/${id}`))
      await q('POST', `/public-transport/subscriptions/${id}/cancel`, {})
    }
    ok(await q('GET', '/public-transport/subscriptions'))
    await q('POST', '/public-transport/subscriptions', {
      productId: 'deutschlandticket',
      traveller: { ...DRIVER, dateOfBirth: '1990-12-10' },
      startDate: '2000-01-01',
    })

    // Multimodal: every source.
    ok(await q('POST', '/multimodal', { location: ALEX, radiusMeters: 1500 }))
  }

  it('the sandbox in German and French has no English sentence; in English it has', async () => {
    for (const language of ['en', ...LANGUAGES]) await walk(language)
    assert.ok(seen.en > 50 && found.en.length > 10, `the English walk shows English (${found.en.length} of ${seen.en})`)
    for (const language of LANGUAGES) {
      assert.ok(seen[language] > 50, `${language}: texts were walked`)
      assert.deepEqual(found[language], [], `${language}: English sentences`)
    }
  })

  /** Every error code, provoked in `language` (the sandbox walk has provoked some already). */
  async function provoke(language: string) {
    key = await freshKey()
    codes[language].clear()
    const q = (
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
      as: string | null = key,
    ) => ask(language, method, path, body, headers, as)
    const search = (body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
      q('POST', '/cars', { pickup: near(BER_AIRPORT, 5000), dates: period(h), limit: 100, ...body }, headers)
    const offers = ok(await search()).offers as any[]
    const rent = offers.filter((o) => o.provider.id === 'sandbox-rent')

    await q('POST', '/cars', {})
    await q('POST', '/multimodal', { location: { latitude: 95, longitude: 13 } })
    const d = period(h)
    await search({ dates: { start: d.end, end: d.start } })
    await search({ pickup: { type: 'address', address: 'Qwxzv Nonexistentstraße 999, Atlantis' } })
    await search({}, { 'x-sandbox-scenario': 'sold-out' })
    await q('POST', '/cars/offer-details', { offerToken: rent[0].offerToken }, { 'x-sandbox-scenario': 'sold-out' })
    await search({}, { 'x-sandbox-scenario': 'provider-error' })
    await search({}, { 'x-sandbox-scenario': 'provider-timeout' })
    await q('POST', '/cars/prebook', { offerToken: 'not-a-token' })
    await q('POST', '/cars/prebook', { offerToken: rent[0].offerToken, accessMethod: 'APP' })
    const pre = ok(await q('POST', '/cars/prebook', { offerToken: rent[0].offerToken }))
    await q('POST', '/cars/prebook', { offerToken: rent[0].offerToken })
    await q('POST', '/cars/prebook', { offerToken: pre.prebookedOfferToken })
    const booking = { prebookedOfferToken: pre.prebookedOfferToken, driver: DRIVER }
    await q('POST', '/cars/bookings', booking)
    const flight = { ...booking, additionalFields: { flightNumber: 'LH1234' } }
    await q('POST', '/cars/bookings', flight, { 'x-sandbox-scenario': 'booking-fails' })
    const booked = ok(await q('POST', '/cars/bookings', flight), 201)
    await q('POST', `/cars/bookings/${booked.bookingId}/vehicle-action`, { action: 'UNLOCK' })
    await q('POST', '/cars/bookings', { prebookedOfferToken: rent[0].offerToken, driver: DRIVER })
    await q('GET', `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&cursor=garbage`)
    await q('GET', '/cars/bookings/ABCDEFGHJK')
    await q('GET', '/nowhere')
    await q('GET', '/bookings', undefined, {}, null)
    await q('GET', '/bookings', undefined, {}, 'svc_test_not_a_key_at_all')
    const publishable = (await createKey(h, tenantId, { type: 'publishable', environment: 'test' })).secret
    await q('POST', '/cars/prebook', { offerToken: rent[1].offerToken }, {}, publishable)
    const none = await createTenant(h, { dataRetention: 'NONE' })
    await q('GET', '/bookings', undefined, {}, none.test)
    const slow = (
      await createKey(h, tenantId, { type: 'secret', environment: 'test', rateLimit: { limit: 1, windowSeconds: 60 } })
    ).secret
    await q('GET', '/mobility-providers', undefined, {}, slow)
    await q('GET', '/mobility-providers', undefined, {}, slow)
    // The same Idempotency-Key while the first request still runs: 409 INTERNAL_ERROR (IDEMPOTENCY_KEY_IN_PROGRESS).
    const again = { 'idempotency-key': `k-${language}`, 'x-sandbox-scenario': 'provider-slow' }
    await Promise.all([
      q('POST', '/cars/prebook', { offerToken: rent[2].offerToken }, again),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 200))
        return q('POST', '/cars/prebook', { offerToken: rent[2].offerToken }, again)
      })(),
    ])
    // The last car of a model: one more booking than units (NO_AVAILABLE_CARD).
    const target = rent.find((o) => o.vehicle.category === 'SPORTS') ?? rent[3]
    const same = (o: any) =>
      o.provider.id === target.provider.id &&
      o.pickupLocation.id === target.pickupLocation.id &&
      o.vehicle.model === target.vehicle.model
    const tokens: string[] = []
    for (let i = 0; i < 4; i++) {
      const found = (ok(await search()).offers as any[]).find(same)
      if (!found) break
      const p = await q('POST', '/cars/prebook', { offerToken: found.offerToken })
      if (p.status === 200) tokens.push(p.body.data.prebookedOfferToken)
    }
    for (const token of tokens) {
      await q('POST', '/cars/bookings', {
        prebookedOfferToken: token,
        driver: DRIVER,
        additionalFields: { flightNumber: 'LH1234' },
      })
    }

    // Texts of details written by the domain: two names for one field, two radii, an Idempotency-Key, a stop id, a
    // cursor, a webhook URL, a tile address.
    await search({ pickup: { type: 'coordinates', coordinates: BERLIN, radiusMeters: 500, walkingTimeMinutes: 5 } })
    await q('POST', '/public-transport/prebook', {})
    await q('POST', '/public-transport/bookings', { prebookedOfferToken: 'x', traveller: DRIVER, customer: DRIVER })
    await q('POST', '/public-transport/bookings', { prebookedOfferToken: 'x' })
    await q('POST', '/cars/prebook', { offerToken: rent[0].offerToken }, { 'idempotency-key': 'ä' })
    await q('GET', '/public-transport/alerts?stopId=nostop')
    await q('GET', '/public-transport/alerts?provider=sandbox-transit&stopId=other:1')
    await q('GET', '/micromobility/trips?cursor=garbage')
    await q('GET', '/multimodal/tiles/01/0/0.mvt')
    const live = await createTenant(h)
    await q('POST', '/webhooks', { url: 'http://example.com/hook', events: ['car.booking.created'] }, {}, live.secret)
    await q(
      'POST',
      '/webhooks',
      { url: 'https://u:p@example.com/hook', events: ['car.booking.created'] },
      {},
      live.secret,
    )

    // Tickets not issued yet.
    const tickets = await bookTickets(h, key, { 'x-sandbox-scenario': 'ticket-delay' })
    await q('GET', `/public-transport/bookings/${tickets.bookingId}/tickets`, undefined, {
      'x-sandbox-scenario': 'ticket-delay',
    })

    // Micromobility: the wrong QR code.
    const micro = ok(await q('POST', '/micromobility', { location: ALEX, radiusMeters: 3000, limit: 100 }))
    const free = (micro.results as any[]).find((v) => v.isAvailable && v.vehicleToken)
    await q('POST', '/micromobility/trips', {
      action: 'START',
      vehicleToken: free.vehicleToken,
      scannedQrCode: 'WRONG',
    })

    // Subscriptions: unknown product and id, identification, cancelled twice, this month's, expired.
    const person = { ...DRIVER, dateOfBirth: '1990-12-10' }
    const identified = { ...person, identification: { type: 'ID_CARD', number: 'L01X00T47' } }
    const now = h.clock()
    const month = (offset: number) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 10)
    const subscribe = (traveller: unknown, startDate: string, productId = 'deutschlandticket') =>
      q('POST', '/public-transport/subscriptions', { productId, traveller, startDate })
    await subscribe(identified, month(1), 'no-such-product')
    await subscribe(identified, month(1), 'deutschlandticket-job')
    await subscribe(person, month(1))
    await subscribe(person, month(1), 'vbb-abo-ab')
    await q('GET', '/public-transport/subscriptions/SUB_NOT_THERE')
    const future = ok(await subscribe(identified, month(1)), 201).subscriptionId
    ok(await q('POST', `/public-transport/subscriptions/${future}/cancel`, {}))
    await q('POST', `/public-transport/subscriptions/${future}/cancel`, {})
    const current = ok(await subscribe(identified, month(0)), 201).subscriptionId
    await q('POST', `/public-transport/subscriptions/${current}/cancel`, {})
    h.clock.advance(45 * 86_400_000)
    await q('POST', `/public-transport/subscriptions/${current}/cancel`, {})
    h.clock.advance(70 * 86_400_000)
    await q('POST', `/public-transport/subscriptions/${current}/cancel`, {})
  }

  it('every error code in German and French has no English sentence', async () => {
    for (const language of LANGUAGES) await provoke(language)
    /**
     * Not provoked here: POLICY_VIOLATION (the service never answers it), SERVICE_UNAVAILABLE (an outage or a full
     * heap; its details carry codes and numbers only: test/http/load-shedding, test/distributed).
     */
    const expected = ERROR_CODES.filter((c) => c !== 'POLICY_VIOLATION' && c !== 'SERVICE_UNAVAILABLE').sort()
    for (const language of LANGUAGES) {
      assert.deepEqual([...codes[language]].sort(), expected, `${language}: every error code was answered`)
      assert.deepEqual(found[language], [], `${language}: English sentences`)
    }
  })
})
