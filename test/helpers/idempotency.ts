import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { idempotencyKeys } from '../../src/store/schema.ts'
import { DRIVER, searchCars } from './cars.ts'
import { createKey, type Harness, type Res } from './harness.ts'

export const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/** A fresh Idempotency-Key. */
export const newKey = () => `idem-${randomUUID()}`

/** A secret key that makes more than the default 100 requests a minute (rate limits are tested elsewhere). */
export const roomyKey = async (h: Harness, tenantId: string, environment: 'live' | 'test' = 'live') =>
  (
    await createKey(h, tenantId, {
      type: 'secret',
      environment,
      rateLimit: { limit: 10_000, windowSeconds: 60 },
    })
  ).secret

export interface Send {
  key: string
  method?: string
  path: string
  body?: unknown
  idem?: string
  headers?: Record<string, string>
  /** Which instance answers (distributed shape); default: round robin. */
  instance?: number
}

/** A request to the public API with an optional Idempotency-Key. */
export const send = (h: Harness, o: Send) =>
  h.request({
    method: o.method ?? 'POST',
    url: `/mobility-api/v2${o.path}`,
    key: o.key,
    body: o.body,
    headers: { ...(o.idem === undefined ? {} : { 'idempotency-key': o.idem }), ...o.headers },
    instance: o.instance,
  })

/** The other instance in the distributed shape (so a replay comes from the one that did not answer first). */
export const otherInstance = (h: Harness) => h.apps.length - 1

/** `again` is `first` replayed: same status and body byte for byte, the replay header, this request's own id. */
export function assertReplay(first: Res, again: Res) {
  assert.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is not a replay')
  assert.equal(again.status, first.status, again.text)
  assert.equal(again.headers['idempotent-replayed'], 'true')
  assert.equal(again.text, first.text)
  assert.equal(again.headers['content-type'], first.headers['content-type'])
  assert.equal(again.headers.location, first.headers.location)
  assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id'])
  assert.ok(again.headers['x-ratelimit-remaining'] !== undefined, 'rate-limit headers of the new request')
}

/** The idempotency rows of a tenant, as stored. */
export const rowsOf = (h: Harness, tenantId: string) =>
  h.runtimes[0].store.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.tenantId, tenantId))

/** Waits until the tenant has a key held by a running request. */
export async function waitForRunning(h: Harness, tenantId: string) {
  for (let i = 0; i < 200; i++) {
    if ((await rowsOf(h, tenantId)).some((r) => r.state === 'running')) return
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('no request ever held the key')
}

/** A car search and prebook of a sandbox-rent offer; answers the booking body to send. */
export async function prebookedCar(h: Harness, key: string) {
  const search = await searchCars(h, key, { estimatedKilometers: 100, limit: 20 })
  assert.equal(search.status, 200, search.text)
  const offer = search.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
  assert.ok(offer, 'a sandbox-rent offer')
  const prebook = await send(h, { key, path: '/cars/prebook', body: { offerToken: offer.offerToken } })
  assert.equal(prebook.status, 200, prebook.text)
  return {
    prebookedOfferToken: prebook.body.data.prebookedOfferToken,
    driver: { ...DRIVER, phone: '+49 30 1234567', dateOfBirth: '1985-12-10', licenseNumber: 'B072RRE2I55' },
    additionalFields: { flightNumber: 'LH1234' },
  }
}

/** An available sandbox scooter near Alexanderplatz with its vehicle token. */
export async function scooter(h: Harness, key: string, skip = 0) {
  const res = await send(h, {
    key,
    path: '/micromobility',
    body: { location: ALEX, radiusMeters: 3000, providers: ['sandbox-scoot'], limit: 100 },
  })
  assert.equal(res.status, 200, res.text)
  const available = res.body.data.results.filter(
    (v: any) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 20,
  )
  assert.ok(available[skip], 'an available scooter')
  return available[skip]
}

/** Journeys Hauptbahnhof → Alexanderplatz tomorrow, prebooked; answers the ticket booking body to send. */
export async function prebookedTickets(h: Harness, key: string) {
  const stop = async (text: string) => {
    const res = await send(h, { key, method: 'GET', path: `/public-transport/stops?query=${encodeURIComponent(text)}` })
    assert.equal(res.status, 200, res.text)
    return res.body.data.stops[0].stopId
  }
  const departAt = new Date(h.clock().getTime() + 86_400_000)
  departAt.setUTCHours(9, 0, 0, 0)
  const journeys = await send(h, {
    key,
    path: '/public-transport/journeys',
    body: {
      origin: { type: 'stop', stopId: await stop('Hauptbahnhof') },
      destination: { type: 'stop', stopId: await stop('Alexanderplatz') },
      departAt: departAt.toISOString(),
      limit: 3,
    },
  })
  assert.equal(journeys.status, 200, journeys.text)
  const offer = journeys.body.data.journeys.find((j: any) => j.ticketOffers.length > 0).ticketOffers[0]
  const prebook = await send(h, { key, path: '/public-transport/prebook', body: { offerToken: offer.offerToken } })
  assert.equal(prebook.status, 200, prebook.text)
  return {
    prebookedOfferToken: prebook.body.data.prebookedOfferToken,
    customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
  }
}

/** A Deutschlandticket subscription request starting next month. */
export function subscriptionBody(h: Harness) {
  const now = h.clock()
  const startDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
  return {
    productId: 'deutschlandticket',
    holder: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      dateOfBirth: '1990-12-10',
      identification: { type: 'ID_CARD', number: 'L01X00T47' },
    },
    startDate,
  }
}
