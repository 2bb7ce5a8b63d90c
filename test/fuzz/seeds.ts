import fc from 'fast-check'
import { ALEX, BERLIN, DRIVER } from './corpus.ts'
import type { Base, Env, Operation } from './operations.ts'
import { type Hint, validOf } from './schema.ts'
import { At, Ref, type Template } from './template.ts'

/**
 * Valid requests to start from: built from each operation's schema, with the fields a schema cannot fill (tokens,
 * ids, cursors, dates the service accepts, places where the sandbox has something) taken from the corpus.
 */

const HOUR = 3600_000
const DAY = 24 * HOUR

export const ref = (slot: string) => fc.nat().map((n) => new Ref(slot, n) as Template)
const within = (min: number, max: number) => fc.integer({ min: min * 1e4, max: max * 1e4 }).map((n) => n / 1e4)
const MICRO_PROVIDERS = ['sandbox-scoot', 'sandbox-bike', 'gbfs-sample-oslo', 'gbfs-sample-paris']
export const PROVIDER_IDS = [
  'sandbox-rent',
  'sandbox-share',
  'sandbox-scoot',
  'sandbox-bike',
  'sandbox-transit',
  'gbfs-sample-oslo',
  'gbfs-sample-paris',
]

/** Valid values that make a request find something (Berlin, the sandbox providers, corpus ids). */
const hintFor =
  (env: Env): Hint =>
  (name, schema) => {
    if (name === 'latitude') return within(52.45, 52.58)
    if (name === 'longitude') return within(13.3, 13.5)
    if (name === 'radiusMeters' || name === 'radius') return fc.integer({ min: 200, max: schema.maximum ?? 5000 })
    if (name === 'provider') return fc.constantFrom(...PROVIDER_IDS)
    if (name === 'providers' && schema.type !== 'string')
      return fc.uniqueArray(fc.constantFrom(...PROVIDER_IDS), { minLength: 1, maxLength: 3 })
    if (name === 'stopId') return ref(`stopId:${env}`)
    if (name === 'placeId') return ref(`placeId:${env}`)
    if (name === 'productId') return ref(`productId:${env}`)
    if (name === 'cursor') return ref(`cursor:${env}`)
    if (name === 'firstName') return fc.constantFrom('Ada', 'Jörg', 'Zoë')
    if (name === 'lastName') return fc.constantFrom('Lovelace', "O'Brien", 'Müller-Lüdenscheidt')
    if (name === 'bbox') return fc.constantFrom('13.3,52.45,13.5,52.58', '13.40,52.51,13.42,52.53')
    if (name === 'query' || name === 'q') return fc.constantFrom('Alexanderplatz', 'Hauptbahnhof', 'zoo', 'S+U')
    if (name === 'allowedOrigins') return fc.constant(['https://victim.example'])
    return undefined
  }

const location = (env: Env) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant<Template>({ type: 'coordinates', coordinates: BERLIN, radiusMeters: 20_000 }) },
    {
      weight: 1,
      arbitrary: fc.record<Record<string, Template>>({
        type: fc.constant('coordinates'),
        coordinates: fc.record({ latitude: within(52.3, 52.7), longitude: within(13.1, 13.7) }) as any,
        walkingTimeMinutes: fc.integer({ min: 1, max: 60 }),
      }),
    },
    { weight: 1, arbitrary: fc.constant<Template>({ type: 'address', address: 'Alexanderplatz, Berlin' }) },
    { weight: 1, arbitrary: ref(`placeId:${env}`).map((placeId) => ({ type: 'place', placeId }) as Template) },
  )

const rentalPeriod = fc
  .tuple(fc.integer({ min: 2, max: 400 }), fc.integer({ min: 1, max: 14 * 24 }))
  .map(([inHours, hours]) => ({ start: new At(inHours * HOUR), end: new At((inHours + hours) * HOUR) }) as Template)

/** A tile around Berlin at zoom z. */
const tile = fc.integer({ min: 8, max: 18 }).map((z) => {
  const n = 2 ** z
  const x = Math.floor(((BERLIN.longitude + 180) / 360) * n)
  const lat = (BERLIN.latitude * Math.PI) / 180
  const y = Math.floor(((1 - Math.log(Math.tan(lat) + 1 / Math.cos(lat)) / Math.PI) / 2) * n)
  return { z, x, y }
})

type Overrides = Record<string, fc.Arbitrary<Template>>

/**
 * Valid requests for the operations where the schema alone cannot make one: tokens and ids come from the corpus,
 * dates from the clock. Keys are operation ids without the API prefix; `body` overrides single fields of a body
 * generated from the schema, `required` forces optional fields in.
 */
const SEEDS: Record<
  string,
  (env: Env) => {
    body?: Overrides
    /** The whole body, where fields exclude each other (the schema alone would combine them). */
    wholeBody?: fc.Arbitrary<Template>
    required?: string[]
    path?: Overrides
    query?: Overrides
    noBody?: boolean
  }
> = {
  'POST /cars': (env) => ({
    body: {
      pickup: location(env),
      dropoff: location(env),
      dates: rentalPeriod,
      cursor: ref(`carCursor:${env}`),
      driverAge: fc.integer({ min: 18, max: 99 }),
      // One filter at a time: the schema's full combinations match no car, and the search would stop early.
      filters: fc.constantFrom<Template>(
        { category: ['COMPACT', 'SUV'] },
        { minSeats: 4 },
        { transmission: ['AUTOMATIC'] },
        { fuelType: ['ELECTRIC', 'PETROL'] },
        { unlimitedMileage: true },
        { maxPricePerDay: 20_000 },
        { maxTotalPrice: 200_000 },
        { requiredFeatures: ['AIR_CONDITIONING'] },
        {},
      ),
    },
  }),
  'GET /cars/stations': (env) => ({ query: { cursor: ref(`stationCursor:${env}`) } }),
  'POST /cars/offer-details': (env) => ({ body: { offerToken: ref(`carOffer:${env}`) } }),
  'POST /cars/prebook': (env) => ({
    body: { offerToken: ref(`carOffer:${env}`), upsells: fc.constantFrom<Template>([], ['GPS'], ['CHILD_SEAT']) },
  }),
  'POST /cars/bookings': (env) => ({
    body: {
      prebookedOfferToken: ref(`carPrebooked:${env}`),
      driver: fc.record<Record<string, Template>>(
        {
          firstName: fc.constant(DRIVER.firstName),
          lastName: fc.constant(DRIVER.lastName),
          email: fc.constant(DRIVER.email),
          phone: fc.constant('+49 30 1234567'),
          dateOfBirth: fc.constant('1990-12-10'),
          licenseNumber: fc.constant('B072RRE2I55'),
        },
        { requiredKeys: ['firstName', 'lastName', 'email'] },
      ),
      additionalFields: fc.constant({ flightNumber: 'LH1234' }),
    },
    required: ['additionalFields'],
  }),
  'GET /cars/bookings/{bookingId}': (env) => ({ path: { bookingId: ref(`carBooking:${env}`) } }),
  'PATCH /cars/bookings/{bookingId}': (env) => ({
    path: { bookingId: ref(`carBooking:${env}`) },
    body: { rentalPeriod },
  }),
  'POST /cars/bookings/{bookingId}/cancel': (env) => ({ path: { bookingId: ref(`carBooking:${env}`) } }),
  'POST /cars/bookings/{bookingId}/vehicle-action': (env) => ({
    path: { bookingId: ref(`carBookingShare:${env}`) },
  }),
  'POST /micromobility': (env) => ({
    body: {
      location: fc.constant<Template>(ALEX),
      cursor: ref(`microCursor:${env}`),
      providers: fc.subarray(MICRO_PROVIDERS, { minLength: 1 }) as fc.Arbitrary<Template>,
    },
  }),
  'GET /micromobility/vehicles/by-qr/{qrCode}': (env) => ({ path: { qrCode: ref(`qr:${env}`) } }),
  'GET /micromobility/vehicles/{vehicleId}': (env) => ({
    path: { vehicleId: ref(`vehicleId:${env}`) },
    query: { vehicleToken: ref(`vehicleToken:${env}`) },
  }),
  'POST /micromobility/trips': (env) => {
    const rider = fc.record<Record<string, Template>>(
      {
        userEmail: fc.constant('rider@example.com'),
        userName: fc.constant('Rider'),
        userLocation: fc.constant({ latitude: ALEX.latitude, longitude: ALEX.longitude, accuracyMeters: 10 }),
      },
      { requiredKeys: [] },
    )
    return {
      wholeBody: fc.oneof(
        fc
          .tuple(ref(`vehicleToken:${env}`), rider)
          .map(([vehicleToken, r]) => ({ action: 'RESERVE', vehicleToken, ...r }) as Template),
        fc
          .tuple(ref(`vehicleToken:${env}`), rider)
          .map(([vehicleToken, r]) => ({ action: 'START', vehicleToken, ...r }) as Template),
        fc
          .tuple(ref(`tripReserved:${env}`), fc.option(ref(`qr:${env}`), { nil: undefined }), rider)
          .map(
            ([tripId, qr, r]) => ({ action: 'START', tripId, ...(qr ? { scannedQrCode: qr } : {}), ...r }) as Template,
          ),
      ),
    }
  },
  'GET /micromobility/trips/{tripId}': (env) => ({ path: { tripId: ref(`trip:${env}`) } }),
  'POST /micromobility/trips/{tripId}/vehicle-action': (env) => ({ path: { tripId: ref(`tripActive:${env}`) } }),
  'POST /micromobility/trips/{tripId}/end': (env) => ({
    path: { tripId: ref(`tripActive:${env}`) },
    body: { endLocation: fc.constant<Template>(ALEX) },
  }),
  'POST /micromobility/trips/{tripId}/cancel': (env) => ({ path: { tripId: ref(`tripReserved:${env}`) } }),
  'GET /public-transport/stops': (env) => ({
    query: { cursor: ref(`stopsCursor:${env}`), provider: fc.constant('sandbox-transit') },
  }),
  'GET /micromobility/zones': () => ({ query: { provider: fc.constantFrom(...MICRO_PROVIDERS) } }),
  'GET /public-transport/stops/{stopId}/departures': (env) => ({ path: { stopId: ref(`stopId:${env}`) } }),
  'POST /public-transport/journeys': (env) => {
    const place = fc.oneof(
      ref(`stopId:${env}`).map((stopId) => ({ type: 'stop', stopId }) as Template),
      fc.constant<Template>({ type: 'coordinates', coordinates: ALEX }),
      fc.constant<Template>({ type: 'address', address: 'Hauptbahnhof, Berlin' }),
    )
    const when = fc.integer({ min: -2, max: 72 }).map((h) => new At(h * HOUR) as Template)
    return {
      wholeBody: fc
        .record({
          origin: place,
          destination: place,
          when,
          arrive: fc.boolean(),
          limit: fc.integer({ min: 1, max: 5 }),
        })
        .map(
          ({ origin, destination, when, arrive, limit }) =>
            ({ origin, destination, [arrive ? 'arriveBy' : 'departAt']: when, limit }) as Template,
        ),
    }
  },
  'POST /public-transport/prebook': (env) => ({
    wholeBody: fc.oneof(
      ref(`ptOffer:${env}`).map((offerToken) => ({ offerToken }) as Template),
      fc
        .uniqueArray(fc.nat(), { minLength: 1, maxLength: 2 })
        .map((picks) => ({ offerTokens: picks.map((n) => new Ref(`ptOffer:${env}`, n)) }) as Template),
    ),
  }),
  'POST /public-transport/bookings': (env) => ({
    body: {
      prebookedOfferToken: ref(`ptPrebooked:${env}`),
      traveller: fc.constant<Template>(DRIVER),
    },
  }),
  'GET /public-transport/bookings/{bookingId}': (env) => ({ path: { bookingId: ref(`ptBooking:${env}`) } }),
  'POST /public-transport/bookings/{bookingId}/cancel': (env) => ({ path: { bookingId: ref(`ptBooking:${env}`) } }),
  'GET /public-transport/bookings/{bookingId}/tickets': (env) => ({ path: { bookingId: ref(`ptBooking:${env}`) } }),
  'POST /public-transport/subscriptions': (env) => ({
    body: {
      productId: fc.oneof(ref(`productId:${env}`), fc.constant<Template>('deutschlandticket')),
      traveller: fc.constant<Template>({
        ...DRIVER,
        dateOfBirth: '1990-12-10',
        identification: { type: 'ID_CARD', number: 'L01X00T47' },
      }),
      startDate: fc.integer({ min: 0, max: 60 }).map((d) => new At(d * DAY, 'month-start') as Template),
    },
  }),
  'GET /public-transport/subscriptions/{subscriptionId}': (env) => ({
    path: { subscriptionId: ref(`subscription:${env}`) },
  }),
  'POST /public-transport/subscriptions/{subscriptionId}/cancel': (env) => ({
    path: { subscriptionId: ref(`subscription:${env}`) },
  }),
  'POST /multimodal': () => ({ body: { location: fc.constant<Template>(ALEX) } }),
  'GET /admin/v1/tenants/{tenantId}': () => ({ path: { tenantId: ref('tenantAny') } }),
  // Changes go to tenants of their own, so the fuzzer never switches off its own tenants or keys.
  'PATCH /admin/v1/tenants/{tenantId}': () => ({ path: { tenantId: ref('victimTenant') } }),
  'POST /admin/v1/tenants/{tenantId}/keys': () => ({ path: { tenantId: ref('victimTenant') } }),
  'GET /admin/v1/tenants/{tenantId}/keys': () => ({ path: { tenantId: ref('tenantAny') } }),
  'DELETE /admin/v1/keys/{keyId}': () => ({ path: { keyId: ref('victimKey') } }),
}

const API_PREFIX = '/mobility-api/v2'
const shortId = (op: Operation) => op.id.replace(` ${API_PREFIX}/`, ' /')

/** The valid request `op` starts from. */
export function baseOf(op: Operation, env: Env): fc.Arbitrary<Base> {
  const seed = SEEDS[shortId(op)]?.(env) ?? {}
  const hint = hintFor(env)
  const pathArbs: Record<string, fc.Arbitrary<Template>> = {}
  const queryArbs: Record<string, fc.Arbitrary<Template>> = {}
  for (const p of op.params) {
    if (p.in === 'path') {
      pathArbs[p.name] =
        seed.path?.[p.name] ?? (op.path.endsWith('.mvt') ? fc.constant(0) : validOf(p.schema, p.name, hint))
    }
    if (p.in === 'query') queryArbs[p.name] = seed.query?.[p.name] ?? validOf(p.schema, p.name, hint)
  }
  const path: fc.Arbitrary<Record<string, Template>> = op.path.endsWith('.mvt')
    ? tile.map(({ z, x, y }) => ({ z, x, y }))
    : fc.record(pathArbs)
  // Query parameters: the required ones, and each optional one half of the time.
  const requiredQuery = op.params.filter((p) => p.in === 'query' && p.required).map((p) => p.name)
  const query = fc
    .record(queryArbs, { requiredKeys: requiredQuery })
    .map((q) => Object.entries(q) as [string, Template][])
  let body: fc.Arbitrary<Template | undefined> = fc.constant(undefined)
  if (seed.wholeBody) body = seed.wholeBody
  else if (op.body && !seed.noBody) {
    const schema = op.body
    const props = schema.properties ?? {}
    const overrides = seed.body ?? {}
    const record: Record<string, fc.Arbitrary<Template>> = {}
    for (const [k, v] of Object.entries(props)) record[k] = overrides[k] ?? validOf(v, k, hint)
    const requiredKeys = [...new Set([...(schema.required ?? []), ...(seed.required ?? [])])]
    body = Object.keys(props).length
      ? fc.record(record, { requiredKeys }).map((b) => {
          // A PATCH needs at least one field.
          if ((schema.minProperties ?? 0) > Object.keys(b).length) return { ...b, notes: 'fuzz' } as Template
          return b as Template
        })
      : validOf(schema, '', hint)
  }
  return fc.record({ pathParams: path, query, body }).map((b) => b as Base)
}
