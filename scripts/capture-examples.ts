/**
 * Records the examples of the API document: runs every operation once against the sandbox, in the order a client
 * would (search → details → prebook → booking → change → cancel; search → trip → end; journeys → tickets; the admin
 * API), on an in-memory service, and writes each request and success answer to src/api/examples/captured.json.
 * The searches send the requests of src/api/examples/requests.ts. The document shifts the recorded dates to the day
 * it is served (src/api/examples/index.ts), so the file only needs recording again when the answers change shape:
 * test/http/openapi-examples.test.ts fails then (every example is validated against its schema).
 *
 *   npm run openapi:examples
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { liveExamples } from '../src/api/examples/requests.ts'
import { ADMIN_PREFIX, API_PREFIX, createApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import type { OperationExample } from '../src/http/openapi/examples.ts'
import { generateTokenKeys } from '../src/platform/tokens.ts'
import { openRuntime } from '../src/runtime.ts'

const OUT = new URL('../src/api/examples/captured.json', import.meta.url)
const ADMIN_TOKEN = 'capture-admin-token-0123456789'
/** Answers that are not JSON, or are the document itself. */
const SKIP = new Set(['getMetrics', 'getOpenApiDocument'])
/** Lists in answers are cut to this many items: an example shows the shape, not the whole fleet. */
const MAX_ITEMS = 2

const dataDir = mkdtempSync(join(tmpdir(), 'mas-examples-'))
const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, TOKEN_KEYS: generateTokenKeys(), ADMIN_TOKEN })
const runtime = await openRuntime(config, { logger: false, inMemory: true, sampleLogger: { info() {}, debug() {} } })
const app = await createApp(runtime)
const now = new Date()
const live = liveExamples(now)
const demo = await app.services.tenants.ensureDemoTenant(3000)
const testKey = demo?.keys.find((k) => k.environment === 'test' && k.type === 'secret')?.secret
if (!testKey) throw new Error('no demo test key')

/** The answers are JSON, read here by key. */
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON answers
type Json = any

interface Captured extends OperationExample {
  status: number
}
const captured: Record<string, Captured> = {}

/** Sends one request and records it under `operationId` (null: not recorded); answers the parsed body. */
async function call(
  operationId: string | null,
  method: string,
  path: string,
  example: OperationExample = {},
  key: string = testKey as string,
): Promise<Json> {
  let url = path
  for (const [name, value] of Object.entries(example.params ?? {})) {
    url = url.replace(`{${name}}`, encodeURIComponent(String(value)))
  }
  const query = new URLSearchParams(
    Object.entries(example.query ?? {}).map(([k, v]) => [k, String(v)] as [string, string]),
  )
  const res = await app.inject({
    method: method as 'GET',
    url: `${url}${query.size > 0 ? `?${query}` : ''}`,
    headers: { authorization: `Bearer ${key}`, host: 'localhost:3000' },
    ...(example.body !== undefined ? { payload: example.body as object } : {}),
  })
  if (res.statusCode >= 300) throw new Error(`${operationId}: ${res.statusCode} ${res.body}`)
  const type = String(res.headers['content-type'] ?? '')
  const response = type.startsWith('application/json') ? JSON.parse(res.body) : res.body
  if (operationId) captured[operationId] = { ...example, status: res.statusCode, response }
  return response
}

const api = (path: string) => `${API_PREFIX}${path}`
const liveCall = (operationId: string, method: string, path: string) =>
  call(operationId, method, api(path), live[operationId])
const DRIVER = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com', phone: '+49 30 1234567' }

try {
  await liveCall('checkApiKey', 'GET', '/auth/check')
  await liveCall('listMobilityProviders', 'GET', '/mobility-providers')

  // Cars: rental, then sharing with app access.
  const search = await liveCall('searchCars', 'POST', '/cars')
  await liveCall('listCarStations', 'GET', '/cars/stations')
  const rental = search.data.offers.find((o: Json) => o.provider.id === 'sandbox-rent')
  const details = await call('getCarOfferDetails', 'POST', api('/cars/offer-details'), {
    body: { offerToken: rental.offerToken },
  })
  const prebook = await call('prebookCar', 'POST', api('/cars/prebook'), {
    body: { offerToken: details.data.offer.offerToken },
  })
  const booking = await call('createCarBooking', 'POST', api('/cars/bookings'), {
    body: {
      prebookedOfferToken: prebook.data.prebookedOfferToken,
      driver: DRIVER,
      additionalFields: { flightNumber: 'LH1234' },
    },
  })
  const bookingId = { bookingId: booking.data.bookingId }
  await call('getCarBooking', 'GET', api('/cars/bookings/{bookingId}'), { params: bookingId })
  const start = booking.data.rentalPeriod.start as string
  await call('changeCarBooking', 'PATCH', api('/cars/bookings/{bookingId}'), {
    params: bookingId,
    body: {
      rentalPeriod: { start, end: new Date(Date.parse(start) + 4 * 86_400_000).toISOString() },
      notes: 'Arriving by train; pickup around 10:30.',
    },
  })
  await call('listBookings', 'GET', api('/bookings'), { query: { page: 0, limit: 20 } })
  await call('cancelCarBooking', 'POST', api('/cars/bookings/{bookingId}/cancel'), {
    params: bookingId,
    body: { reason: 'Plans changed' },
  })
  // Car sharing with app access, for the vehicle action (the rental's flow is the example of the other steps).
  const sharing = await call(null, 'POST', api('/cars'), { body: { ...(live.searchCars.body as object), limit: 100 } })
  const shared = sharing.data.offers.find((o: Json) => o.provider.id === 'sandbox-share')
  const sharePrebook = await call(null, 'POST', api('/cars/prebook'), {
    body: { offerToken: shared.offerToken, accessMethod: 'APP' },
  })
  const shareBooking = await call(null, 'POST', api('/cars/bookings'), {
    body: { prebookedOfferToken: sharePrebook.data.prebookedOfferToken, driver: DRIVER, accessMethod: 'APP' },
  })
  await call('performCarVehicleAction', 'POST', api('/cars/bookings/{bookingId}/vehicle-action'), {
    params: { bookingId: shareBooking.data.bookingId },
    body: { action: 'UNLOCK' },
  })

  // Micromobility: search, look-ups, a ride, a reservation cancelled.
  const micro = await liveCall('searchMicromobilityVehicles', 'POST', '/micromobility')
  await liveCall('listMicromobilityZones', 'GET', '/micromobility/zones')
  const scooters = micro.data.results.filter((v: Json) => v.provider.id === 'sandbox-scoot' && v.vehicleToken)
  const [scooter, other] = scooters
  await call('getMicromobilityVehicleByQrCode', 'GET', api('/micromobility/vehicles/by-qr/{qrCode}'), {
    params: { qrCode: `sandbox:${scooter.vehicleId}` },
  })
  const fresh = await call('getMicromobilityVehicle', 'GET', api('/micromobility/vehicles/{vehicleId}'), {
    params: { vehicleId: scooter.vehicleId },
  })
  const trip = await call('startTrip', 'POST', api('/micromobility/trips'), {
    body: {
      action: 'START',
      vehicleToken: fresh.data.vehicleToken,
      scannedQrCode: `sandbox:${scooter.vehicleId}`,
      userLocation: { latitude: scooter.location.latitude, longitude: scooter.location.longitude, accuracyMeters: 8 },
    },
  })
  const tripId = { tripId: trip.data.tripId }
  await call('performTripVehicleAction', 'POST', api('/micromobility/trips/{tripId}/vehicle-action'), {
    params: tripId,
    body: { action: 'LOCK' },
  })
  await call('getTrip', 'GET', api('/micromobility/trips/{tripId}'), { params: tripId })
  await call('endTrip', 'POST', api('/micromobility/trips/{tripId}/end'), {
    params: tripId,
    body: { endLocation: { latitude: 52.5219, longitude: 13.4132 } },
  })
  const reservation = await call(null, 'POST', api('/micromobility/trips'), {
    body: { action: 'RESERVE', vehicleToken: other.vehicleToken },
  })
  await call('cancelTrip', 'POST', api('/micromobility/trips/{tripId}/cancel'), {
    params: { tripId: reservation.data.tripId },
  })

  // Public transport: stops, departures, journeys, tickets; a subscription.
  await liveCall('searchStops', 'GET', '/public-transport/stops')
  await liveCall('listDepartures', 'GET', '/public-transport/stops/{stopId}/departures')
  const journeys = await liveCall('planJourneys', 'POST', '/public-transport/journeys')
  const offer = journeys.data.journeys.find((j: Json) => j.ticketOffers.length > 0).ticketOffers[0]
  const tickets = await call('prebookTickets', 'POST', api('/public-transport/prebook'), {
    body: { offerToken: offer.offerToken },
  })
  const ticketBooking = await call('createTicketBooking', 'POST', api('/public-transport/bookings'), {
    body: {
      prebookedOfferToken: tickets.data.prebookedOfferToken,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com' },
    },
  })
  const ticketId = { bookingId: ticketBooking.data.bookingId }
  // Tickets are issued a few seconds after the booking (409 TICKET_NOT_READY with Retry-After until then).
  for (let attempt = 1; ; attempt++) {
    const ready = await call('listBookingTickets', 'GET', api('/public-transport/bookings/{bookingId}/tickets'), {
      params: ticketId,
    }).catch((error: Error) =>
      attempt < 10 && /TICKET_NOT_READY/.test(error.message) ? undefined : Promise.reject(error),
    )
    if (ready) break
    await new Promise((resolve) => setTimeout(resolve, 2000))
  }
  await call('getTicketBooking', 'GET', api('/public-transport/bookings/{bookingId}'), { params: ticketId })
  await call('cancelTicketBooking', 'POST', api('/public-transport/bookings/{bookingId}/cancel'), { params: ticketId })
  const products = await liveCall('listSubscriptionProducts', 'GET', '/public-transport/subscriptions/products')
  const product = products.data.products.find((p: Json) => p.available && !p.requiresPin) ?? products.data.products[0]
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
  const subscription = await call('createSubscription', 'POST', api('/public-transport/subscriptions'), {
    body: {
      productId: product.productId,
      holder: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada.lovelace@example.com',
        dateOfBirth: '1990-12-10',
        identification: { type: 'ID_CARD', number: 'L01X00T47' },
      },
      startDate: nextMonth,
    },
  })
  const subscriptionId = { subscriptionId: subscription.data.subscriptionId }
  await call('listSubscriptions', 'GET', api('/public-transport/subscriptions'), { query: { page: 0, limit: 20 } })
  await call('getSubscription', 'GET', api('/public-transport/subscriptions/{subscriptionId}'), {
    params: subscriptionId,
  })
  await call('cancelSubscription', 'POST', api('/public-transport/subscriptions/{subscriptionId}/cancel'), {
    params: subscriptionId,
  })

  await liveCall('searchMultimodal', 'POST', '/multimodal')

  // Live transit and alerts (the transit-alert scenario closes a stop, so the list has one to show).
  await liveCall('listTransitVehicles', 'GET', '/public-transport/vehicles')
  await liveCall('listTransitAlerts', 'GET', '/public-transport/alerts')
  await liveCall('listTrips', 'GET', '/micromobility/trips')

  // GBFS out: the manifest, one system's discovery file and one of its feeds.
  await call('getGbfsManifest', 'GET', api('/gbfs/manifest.json'))
  const gbfsSystem = { providerId: 'sandbox-scoot' }
  await call('getGbfsDiscovery', 'GET', api('/gbfs/{providerId}/gbfs.json'), { params: gbfsSystem })
  await call('getGbfsFeed', 'GET', api('/gbfs/{providerId}/{feed}.json'), {
    params: { ...gbfsSystem, feed: 'system_information' },
  })

  // Webhooks: register, read, change, test, deliveries, rotate, delete.
  const hookBody = {
    url: 'https://hooks.rideshare.example/mobility',
    events: ['car.booking.confirmed', 'micromobility.trip.completed'],
    description: 'Booking and trip updates for the backend',
  }
  const hook = await call('createWebhook', 'POST', api('/webhooks'), { body: hookBody })
  const webhookId = { webhookId: hook.data.webhook.id }
  await call('listWebhooks', 'GET', api('/webhooks'), { query: { page: 0, limit: 20 } })
  await call('getWebhook', 'GET', api('/webhooks/{webhookId}'), { params: webhookId })
  await call('updateWebhook', 'PATCH', api('/webhooks/{webhookId}'), {
    params: webhookId,
    body: { description: 'Bookings and trips (backend, staging)' },
  })
  await call('sendTestWebhook', 'POST', api('/webhooks/{webhookId}/test'), { params: webhookId })
  await call('listWebhookDeliveries', 'GET', api('/webhooks/{webhookId}/deliveries'), { params: webhookId })
  await call('rotateWebhookSecret', 'POST', api('/webhooks/{webhookId}/rotate-secret'), { params: webhookId })
  await call('deleteWebhook', 'DELETE', api('/webhooks/{webhookId}'), { params: webhookId })

  // The operator's API.
  const admin = (id: string, method: string, path: string, example: OperationExample = {}) =>
    call(id, method, `${ADMIN_PREFIX}${path}`, example, ADMIN_TOKEN)
  const tenant = await admin('createTenant', 'POST', '/tenants', {
    body: {
      name: 'Rideshare GmbH',
      organization: 'Rideshare GmbH, Berlin',
      defaultLanguage: 'de',
      providers: ['sandbox-rent', 'sandbox-scoot', 'sandbox-transit'],
      allowedOrigins: ['https://app.rideshare.example'],
    },
  })
  const tenantId = { tenantId: tenant.data.tenant.id }
  await admin('listTenants', 'GET', '/tenants', { query: { page: 0, limit: 20 } })
  await admin('getTenant', 'GET', '/tenants/{tenantId}', { params: tenantId })
  await admin('updateTenant', 'PATCH', '/tenants/{tenantId}', {
    params: tenantId,
    body: { reservationWindowSeconds: 900, emailOptOut: true },
  })
  const key = await admin('createApiKey', 'POST', '/tenants/{tenantId}/keys', {
    params: tenantId,
    body: {
      type: 'secret',
      environment: 'test',
      name: 'Backend (staging)',
      rateLimit: { limit: 600, windowSeconds: 60 },
    },
  })
  await admin('listApiKeys', 'GET', '/tenants/{tenantId}/keys', { params: tenantId })
  const adminHook = await admin('adminCreateWebhook', 'POST', '/tenants/{tenantId}/webhooks', {
    params: tenantId,
    body: { environment: 'test', url: 'https://hooks.rideshare.example/mobility', description: 'Every event' },
  })
  const adminHookId = { ...tenantId, webhookId: adminHook.data.webhook.id }
  await admin('adminListWebhooks', 'GET', '/tenants/{tenantId}/webhooks', { params: tenantId })
  await admin('adminGetWebhook', 'GET', '/tenants/{tenantId}/webhooks/{webhookId}', { params: adminHookId })
  await admin('adminUpdateWebhook', 'PATCH', '/tenants/{tenantId}/webhooks/{webhookId}', {
    params: adminHookId,
    body: { description: 'Every event (operator test)' },
  })
  await admin('adminSendTestWebhook', 'POST', '/tenants/{tenantId}/webhooks/{webhookId}/test', {
    params: adminHookId,
  })
  await admin('adminListWebhookDeliveries', 'GET', '/tenants/{tenantId}/webhooks/{webhookId}/deliveries', {
    params: adminHookId,
  })
  await admin('adminRotateWebhookSecret', 'POST', '/tenants/{tenantId}/webhooks/{webhookId}/rotate-secret', {
    params: adminHookId,
  })
  await admin('adminDeleteWebhook', 'DELETE', '/tenants/{tenantId}/webhooks/{webhookId}', { params: adminHookId })
  await admin('revokeApiKey', 'DELETE', '/keys/{keyId}', { params: { keyId: key.data.key.id } })

  await call('getHealth', 'GET', '/health')
  await call('getReadiness', 'GET', '/ready')

  // Any other read the flows above do not cover (a route added since): a GET without path parameters, sent with the
  // query of requests.ts if it has one. Operations that need an id or a token get a flow of their own above.
  const doc = JSON.parse((await app.inject({ url: `${API_PREFIX}/openapi.json` })).body)
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const id = item.get?.operationId as string | undefined
    if (!id || captured[id] || path.includes('{') || SKIP.has(id)) continue
    const key = item.get.security?.some((s: Json) => 'adminToken' in s) ? ADMIN_TOKEN : testKey
    await call(id, 'GET', path, live[id], key).catch((error: Error) => {
      process.stderr.write(`${id}: not recorded (${error.message.slice(0, 200)})\n`)
    })
  }
} finally {
  await app.close()
  await runtime.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/** The first MAX_ITEMS items, and the first of each `kind` after them (multimodal results mix kinds). */
function cut(list: unknown[]): unknown[] {
  const kinds = new Set(list.slice(0, MAX_ITEMS).map((v) => (v as { kind?: unknown }).kind))
  const more = list.slice(MAX_ITEMS).filter((v) => {
    const kind = (v as { kind?: unknown }).kind
    if (kind === undefined || kinds.has(kind)) return false
    kinds.add(kind)
    return true
  })
  return [...list.slice(0, MAX_ITEMS), ...more]
}

/** Lists cut (not coordinates: a polygon needs its points), secrets replaced by an obvious stand-in. */
function tidy(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    const kept = key === 'coordinates' || value.every((v) => typeof v !== 'object') ? value : cut(value)
    return kept.map((v) => tidy(v, key))
  }
  if (typeof value === 'string') {
    return value.replace(/\b(svc_(?:pk_)?(?:live|test)_)[A-Za-z0-9_-]{12,}/g, '$1EXAMPLE0000000000000000000000')
  }
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidy(v, k)]))
}

const operations = Object.fromEntries(
  Object.entries(captured)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([id, example]) => [id, tidy(example)]),
)
writeFileSync(OUT, `${JSON.stringify({ capturedAt: now.toISOString(), operations }, null, 2)}\n`)
process.stdout.write(`${Object.keys(operations).length} operations recorded in ${OUT.pathname}\n`)
