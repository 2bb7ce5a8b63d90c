import fc from 'fast-check'
import { ALEX, ALLOWED_ORIGIN, BERLIN, DRIVER, type KeyKind } from './corpus.ts'
import { At, clone, type Path, parentOf, paths, pathText, Raw, Ref, type Template } from './template.ts'
import {
  badFor,
  deepNesting,
  garbageToken,
  type Hint,
  longString,
  NASTY_KEYS,
  nastyId,
  nastyNumericText,
  nastyString,
  type Schema,
  schemaAt,
  tainted,
  twistedRef,
  validOf,
  wrongType,
} from './values.ts'

const HOUR = 3600_000
const DAY = 24 * HOUR

// ---------------------------------------------------------------------------------------------------------------
// The operations of the OpenAPI document

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  schema: Schema
  required?: boolean
}

export interface Operation {
  /** `METHOD /path/{param}` as in the document. */
  id: string
  method: string
  path: string
  params: Parameter[]
  body?: Schema
  /** The operator's token (adminToken) rather than an API key. */
  admin: boolean
  /** Needs any credential at all. */
  secured: boolean
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = []
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!METHODS.includes(method)) continue
      const security: any[] = op.security ?? doc.security ?? []
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p: any) => ['path', 'query', 'header'].includes(p.in)),
        body: op.requestBody?.content?.['application/json']?.schema,
        admin: security.some((s) => 'adminToken' in s),
        secured: security.length > 0,
      })
    }
  }
  return ops
}

// ---------------------------------------------------------------------------------------------------------------
// A generated request

export type Body =
  | { kind: 'json'; value: Template }
  /** Bytes as they go on the wire (latin1 string, one char per byte). */
  | { kind: 'bytes'; bytes: string; label: string }

export type Env = 'live' | 'test'

export interface Generated {
  index: number
  op: Operation
  env: Env
  method: string
  /** Path parameter values; Raw ones go into the URL without encoding. */
  pathParams: Record<string, Template>
  /** Appended to the path as is (a wrong suffix, a trailing slash). */
  pathSuffix: string
  /** Name, value; a Raw value is put in the query string as is. */
  query: [string, Template][]
  /** Authorization: a key of the corpus, a raw header value, or none. */
  auth: { kind: KeyKind } | { raw: Template } | { none: true }
  headers: Record<string, Template>
  body?: Body
  /** What was done to the valid base request, for the report. */
  mutations: string[]
}

export interface Base {
  pathParams: Record<string, Template>
  query: [string, Template][]
  body?: Template
}

const ref = (slot: string) => fc.nat().map((n) => new Ref(slot, n) as Template)
const within = (min: number, max: number) => fc.integer({ min: min * 1e4, max: max * 1e4 }).map((n) => n / 1e4)
const MICRO_PROVIDERS = ['sandbox-scoot', 'sandbox-bike', 'gbfs-sample-oslo', 'gbfs-sample-paris']
const PROVIDER_IDS = [
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
      customer: fc.constant<Template>(DRIVER),
    },
  }),
  'GET /public-transport/bookings/{bookingId}': (env) => ({ path: { bookingId: ref(`ptBooking:${env}`) } }),
  'POST /public-transport/bookings/{bookingId}/cancel': (env) => ({ path: { bookingId: ref(`ptBooking:${env}`) } }),
  'GET /public-transport/bookings/{bookingId}/tickets': (env) => ({ path: { bookingId: ref(`ptBooking:${env}`) } }),
  'POST /public-transport/subscriptions': (env) => ({
    body: {
      productId: fc.oneof(ref(`productId:${env}`), fc.constant<Template>('deutschlandticket')),
      holder: fc.constant<Template>({
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
function baseOf(op: Operation, env: Env): fc.Arbitrary<Base> {
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

// ---------------------------------------------------------------------------------------------------------------
// Mutations

/** Token and id slots whose values are swapped in for one another ("well-formed but foreign"). */
const FOREIGN_SLOTS = [
  'carOffer:live',
  'carOffer:test',
  'carOffer:foreign',
  'carPrebooked:live',
  'carPrebooked:test',
  'carBooking:live',
  'carBooking:test',
  'carBooking:foreign',
  'carCursor:live',
  'carCursor:foreign',
  'stationCursor:live',
  'stopsCursor:live',
  'microCursor:live',
  'zr1',
  'vehicleToken:live',
  'vehicleToken:test',
  'vehicleToken:foreign',
  'trip:live',
  'trip:test',
  'trip:foreign',
  'ptOffer:live',
  'ptPrebooked:live',
  'ptBooking:live',
  'subscription:live',
  'placeId:live',
  'qr:live',
  'key:live',
]

const pick = <T>(list: T[], n: number) => list[n % list.length]

function bodyMutation(op: Operation, base: Template): fc.Arbitrary<{ body: Body; what: string }> {
  const schema = op.body ?? {}
  const all: Path[] = paths(base)
  // Optional properties the valid base left out are places to put bad values too.
  const absent: Path[] = []
  const walk = (s: Schema | undefined, v: any, at: Path) => {
    if (!s?.properties || v === null || typeof v !== 'object' || Array.isArray(v)) return
    for (const [k, sub] of Object.entries(s.properties)) {
      if (!(k in v)) absent.push([...at, k])
      else walk(sub, v[k], [...at, k])
    }
  }
  walk(schema, base, [])
  const json = (value: Template) => ({ kind: 'json', value }) as Body
  const replaceAt = (path: Path) =>
    badFor(schemaAt(schema, path, base), String(path[path.length - 1])).map((bad) => {
      const copy = clone(base)
      const at = parentOf(copy, path)
      if (at) at.parent[at.key] = bad
      return { body: json(copy), what: `body.${pathText(path)} ← ${describe(bad)}` }
    })
  const options: fc.Arbitrary<{ body: Body; what: string }>[] = []
  if (all.length + absent.length > 0) {
    const targets = [...all, ...absent]
    // Replacing one field is the mutation that reaches deepest: it gets the most weight.
    for (let i = 0; i < 4; i++) options.push(fc.nat().chain((n) => replaceAt(pick(targets, n))))
  }
  if (all.length > 0) {
    options.push(
      fc.nat().map((n) => {
        const path = pick(all, n)
        const copy = clone(base)
        const at = parentOf(copy, path)
        if (at) {
          if (Array.isArray(at.parent)) at.parent.splice(Number(at.key), 1)
          else delete at.parent[at.key]
        }
        return { body: json(copy), what: `body.${pathText(path)} removed` }
      }),
    )
    const refs = all.filter((p) => {
      const at = parentOf(base, p)
      return at && at.parent[at.key] instanceof Ref
    })
    if (refs.length > 0) {
      options.push(
        fc
          .tuple(
            fc.nat(),
            fc.oneof(
              fc.constantFrom(...FOREIGN_SLOTS).chain((s) => ref(s)),
              twistedRefFor(base, refs),
            ),
          )
          .map(([n, other]) => {
            const path = pick(refs, n)
            const copy = clone(base)
            const at = parentOf(copy, path)
            if (at) at.parent[at.key] = other
            return { body: json(copy), what: `body.${pathText(path)} ← ${describe(other)}` }
          }),
      )
    }
  }
  // An unknown or poisonous key somewhere in the body.
  const objects: Path[] = [[], ...all.filter((p) => isObject(valueAt(base, p)))]
  options.push(
    fc
      .tuple(fc.nat(), fc.constantFrom(...NASTY_KEYS, 'extra', 'filters', 'tenantId', 'environment'), wrongType)
      .map(([n, key, value]) => {
        const path = pick(objects, n)
        const copy = clone(base)
        const target = path.length ? valueAt(copy, path) : copy
        if (isObject(target))
          Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
        return { body: json(copy), what: `body.${pathText([...path, key])} added` }
      }),
  )
  options.push(wholeBody(base))
  return fc.oneof(...options)
}

function twistedRefFor(base: Template, refs: Path[]): fc.Arbitrary<Template> {
  const slots = refs.map((p) => {
    const at = parentOf(base, p)
    return (at!.parent[at!.key] as Ref).slot
  })
  return fc.constantFrom(...slots).chain((slot) => twistedRef(slot))
}

const isObject = (v: unknown): v is Record<string, Template> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Ref || v instanceof At || v instanceof Raw)

function valueAt(root: Template, path: Path): Template | undefined {
  let node: any = root
  for (const k of path) node = node?.[k]
  return node
}

const bytes = (label: string, b: Buffer) => ({ kind: 'bytes', bytes: b.toString('latin1'), label }) as Body

/** The whole body replaced: other JSON, broken JSON, other encodings, nothing, too much. */
function wholeBody(base: Template): fc.Arbitrary<{ body: Body; what: string }> {
  const valid = JSON.stringify(base, (_k, v) => (v instanceof Ref || v instanceof At || v instanceof Raw ? 'x' : v))
  const raw = (label: string, text: string) => ({
    body: bytes(label, Buffer.from(text, 'utf8')),
    what: `body ${label}`,
  })
  return fc.oneof(
    fc
      .jsonValue({ maxDepth: 4 })
      .map((v) => ({ body: { kind: 'json', value: v as Template } as Body, what: 'body: random JSON' })),
    fc
      .constantFrom(
        '',
        ' ',
        'null',
        'true',
        '0',
        '"x"',
        '[]',
        '{',
        '{"a":',
        '{"a":1,}',
        "{'a':1}",
        '{"a":1}{"b":2}',
        'NaN',
        '\ufeff{}',
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"a":1,"a":2}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"a":"\\x41"}',
        '{"a":01}',
        '{"a":.5}',
        '{"a":+1}',
        '{"a":Infinity}',
        '/* */{}',
        '{}\u0000',
        `${valid}garbage`,
        `${valid},`,
        `[${valid}]`,
        valid.replace(/"/g, "'"),
        valid.slice(0, Math.max(1, valid.length - 3)),
      )
      .map((t) => raw(`text ${JSON.stringify(t.length > 80 ? `${t.slice(0, 80)}…` : t)}`, t)),
    fc
      .uint8Array({ maxLength: 300 })
      .map((b) => ({ body: bytes('random bytes', Buffer.from(b)), what: 'body: random bytes' })),
    deepNesting.map((n) => ({ body: { kind: 'json', value: n } as Body, what: `body: ${describe(n)}` })),
    longString.map((s) => ({ body: { kind: 'json', value: s } as Body, what: `body: ${describe(s)}` })),
    fc
      .constant(null)
      .map(() => ({ body: bytes('UTF-16', Buffer.from(valid, 'utf16le')), what: 'body: the valid body in UTF-16' })),
    fc.constant(null).map(() => ({
      body: bytes(
        'invalid UTF-8',
        Buffer.concat([
          Buffer.from(valid.slice(0, -1)),
          Buffer.from(',"x":"'),
          Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
          Buffer.from('"}'),
        ]),
      ),
      what: 'body: invalid UTF-8 in a string',
    })),
    fc.constant(null).map(() => ({
      body: bytes('too large', Buffer.from(`{"x":"${'x'.repeat(1_100_000)}"}`)),
      what: 'body: over the body limit',
    })),
  )
}

export function describe(v: Template | undefined): string {
  if (v instanceof Ref || v instanceof At || v instanceof Raw) return String(v.toJSON())
  if (typeof v === 'string')
    return v.length > 40 ? `${JSON.stringify(v.slice(0, 40))}… (${v.length} chars)` : JSON.stringify(v)
  const json = JSON.stringify(v) ?? String(v)
  return json.length > 60 ? `${json.slice(0, 60)}… (${json.length} chars)` : json
}

function queryMutation(
  op: Operation,
  query: [string, Template][],
): fc.Arbitrary<{ query: [string, Template][]; what: string }> {
  const known = op.params.filter((p) => p.in === 'query')
  const badText = (p?: Parameter) =>
    fc.oneof(
      nastyNumericText as fc.Arbitrary<Template>,
      p ? badFor(p.schema, p.name) : wrongType,
      nastyString as fc.Arbitrary<Template>,
      longString as fc.Arbitrary<Template>,
      garbageToken,
      fc
        .constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%80', '%ED%A0%80', '+', '&', '=')
        .map((s) => new Raw(s) as Template),
    )
  const options: fc.Arbitrary<{ query: [string, Template][]; what: string }>[] = []
  if (known.length) {
    options.push(
      fc.nat().chain((n) => {
        const p = pick(known, n)
        return badText(p).map((v) => ({
          query: [...query.filter(([k]) => k !== p.name), [p.name, v] as [string, Template]],
          what: `query ${p.name} ← ${describe(v)}`,
        }))
      }),
      fc.tuple(fc.nat(), badText()).map(([n, v]) => {
        const p = pick(known, n)
        return {
          query: [...query, [p.name, v] as [string, Template]],
          what: `query ${p.name} repeated with ${describe(v)}`,
        }
      }),
      fc.tuple(fc.nat(), fc.constantFrom(...FOREIGN_SLOTS)).map(([n, slot]) => {
        const p = pick(known, n)
        return {
          query: [...query.filter(([k]) => k !== p.name), [p.name, new Ref(slot, n)] as [string, Template]],
          what: `query ${p.name} ← <${slot}>`,
        }
      }),
    )
  }
  if (query.length) {
    options.push(
      fc.nat().map((n) => {
        const [name] = pick(query, n)
        return { query: query.filter(([k]) => k !== name), what: `query ${name} removed` }
      }),
    )
  }
  options.push(
    fc
      .tuple(
        fc.constantFrom(...NASTY_KEYS, 'page[0]', 'limit[]', '__proto__[x]', 'constructor[prototype][x]', 'x'),
        badText(),
      )
      .map(([name, v]) => ({
        query: [...query, [name, v] as [string, Template]],
        what: `query ${describe(name)} added`,
      })),
  )
  return fc.oneof(...options)
}

function pathMutation(op: Operation, params: Record<string, Template>) {
  const names = Object.keys(params)
  const bad = (name: string) => {
    const p = op.params.find((x) => x.in === 'path' && x.name === name)
    const current = params[name]
    return fc.oneof(
      nastyId.map((v) => (typeof v === 'string' && v.includes('%') ? new Raw(v) : v)),
      p ? badFor(p.schema, name) : wrongType,
      fc.constantFrom(...FOREIGN_SLOTS).chain((s) => ref(s)),
      current instanceof Ref ? twistedRef(current.slot) : garbageToken,
      typeof current === 'string' ? tainted(current) : nastyString,
    ) as fc.Arbitrary<Template>
  }
  return fc.nat().chain((n) => {
    const name = pick(names, n)
    return bad(name).map((v) => ({ pathParams: { ...params, [name]: v }, what: `path ${name} ← ${describe(v)}` }))
  })
}

const SCENARIO_NAMES = [
  'provider-error',
  'provider-timeout',
  'provider-slow',
  'price-increase',
  'sold-out',
  'booking-fails',
  'booking-pending',
  'cancel-refused',
  'ticket-delay',
  'vehicle-rejects',
]

const scenarioHeader: fc.Arbitrary<Template> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(...SCENARIO_NAMES), fc.option(fc.constantFrom(...PROVIDER_IDS)))
      .map(([n, p]) => (p ? `${n}:${p}` : n)),
  },
  {
    weight: 2,
    arbitrary: fc
      .uniqueArray(fc.tuple(fc.constantFrom(...SCENARIO_NAMES), fc.constantFrom(...PROVIDER_IDS)), {
        minLength: 2,
        maxLength: 4,
      })
      .map((list) => list.map(([n, p]) => `${n}:${p}`).join(',')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'nope',
      'provider-error:',
      ':sandbox-rent',
      'provider-error:sandbox-rent:x',
      'provider-error:nope',
      ',,,',
      ' ',
      'PROVIDER-ERROR',
      'provider-error;sandbox-rent',
      Array.from({ length: 25 }, () => 'provider-slow').join(','),
      'provider-error:'.repeat(300),
      'provider-error:sandbox-rent\u00e9',
    ),
  },
  { weight: 1, arbitrary: nastyString as fc.Arbitrary<Template> },
)

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;;',
  'application/jsonx',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'text/json',
  '*/*',
  '',
  ';',
  'application/json, text/plain',
]

const authMutation: fc.Arbitrary<{ auth: Generated['auth']; what: string }> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .constantFrom<KeyKind>(
        'live',
        'test',
        'pk',
        'pkTest',
        'foreign',
        'foreignTest',
        'retentionNone',
        'revoked',
        'limited',
        'admin',
      )
      .map((kind) => ({ auth: { kind }, what: `key: ${kind}` })),
  },
  { weight: 1, arbitrary: fc.constant({ auth: { none: true } as const, what: 'no Authorization' }) },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc.constantFrom<Template>(
          '',
          'Bearer',
          'Bearer ',
          'Basic dXNlcjpwYXNz',
          'Token abc',
          'Bearer null',
          `Bearer ${'x'.repeat(8000)}`,
          'Bearer svc_live_',
          'Bearer svc_pk_live_',
          'Bearer \u00e9\u00e8',
        ),
        fc
          .tuple(
            fc.constantFrom('svc_live_', 'svc_pk_live_', 'svc_test_', 'svc_pk_test_', 'sk_live_', ''),
            fc.string({
              unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
              minLength: 0,
              maxLength: 48,
            }),
          )
          .map(([prefix, rest]) => `Bearer ${prefix}${rest}`),
        fc.constantFrom(
          ...(
            [
              ['bearer ', ''],
              ['BEARER  ', '  '],
              ['Bearer ', ' extra'],
              ['Bearer ', ',Bearer x'],
              ['Bearer\t', ''],
              ['Basic ', ''],
              ['', ''],
            ] as const
          ).map(
            ([before, after]) =>
              new Ref(
                'key:live',
                0,
                (k) => `${before}${k}${after}`,
                `key:live wrapped ${JSON.stringify([before, after])}`,
              ),
          ),
        ),
        twistedRef('key:live').map(
          (r) => new Ref((r as Ref).slot, 0, (k) => `Bearer ${(r as Ref).transform!(k)}`, `Bearer ${(r as Ref).label}`),
        ),
      )
      .map((raw) => ({ auth: { raw }, what: `Authorization ${describe(raw)}` })),
  },
)

const KINDS = fc.uniqueArray(
  fc.constantFrom(
    'body',
    'body',
    'body',
    'query',
    'path',
    'path',
    'auth',
    'contentType',
    'scenario',
    'headers',
    'method',
    'none',
    'none',
  ),
  { minLength: 1, maxLength: 3 },
)

/** Mutations that do not depend on the base request, built once. */
const FIXED = {
  auth: authMutation,
  contentType: fc.constantFrom(...CONTENT_TYPES),
  scenario: fc.tuple(scenarioHeader, fc.constantFrom<KeyKind>('test', 'test', 'test', 'pkTest')),
  headers: fc.record(
    {
      'accept-language': fc.oneof(
        fc.constantFrom('de', 'fr-CH, fr;q=0.9', '*', 'xx', 'de;q=2', 'en;q=abc', ',,,', 'a'.repeat(5000)),
        nastyString,
      ),
      'x-request-id': fc.oneof(fc.constantFrom('short', 'a'.repeat(129), 'req_00000001', '../../etc'), nastyString),
      origin: fc.constantFrom(
        'https://evil.example',
        'null',
        'HTTPS://APP.EXAMPLE',
        'https://app.example.evil.example',
      ),
      'if-none-match': fc.constantFrom('*', 'W/"x"', '"'),
      'idempotency-key': fc.oneof(fc.constantFrom('', 'k'.repeat(300), 'same-key'), nastyString),
    },
    { requiredKeys: [] },
  ),
  method: fc.tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
    fc.constantFrom('/', '//', '/extra', '.json', '%20', ';x', '/..', '/%2e%2e', '/%00', '~'),
  ),
}

/** One generated request: a valid base of `op`, then one to three kinds of mutation (or none). */
export function requestArbitrary(op: Operation): fc.Arbitrary<Omit<Generated, 'index'>> {
  const envArb = fc.constantFrom<Env>('live', 'live', 'test')
  const bases = { live: fc.tuple(baseOf(op, 'live'), KINDS), test: fc.tuple(baseOf(op, 'test'), KINDS) }
  return envArb.chain((env) =>
    bases[env].chain(([base, kindList]) => {
      const kinds = new Set(kindList)
      // Only the chosen mutations are generated (building the others costs as much as sending the request).
      const parts: Record<string, fc.Arbitrary<any>> = {}
      if (kinds.has('body') && (base.body !== undefined || op.method !== 'GET'))
        parts.body = base.body !== undefined ? bodyMutation(op, base.body) : wholeBody({})
      if (kinds.has('query')) parts.query = queryMutation(op, base.query)
      if (kinds.has('path') && Object.keys(base.pathParams).length) parts.path = pathMutation(op, base.pathParams)
      for (const k of ['auth', 'contentType', 'headers', 'method'] as const) if (kinds.has(k)) parts[k] = FIXED[k]
      if (kinds.has('scenario') && !op.admin) parts.scenario = FIXED.scenario
      return fc.record(parts).map((m: Record<string, any>): Omit<Generated, 'index'> => {
        const g: Omit<Generated, 'index'> = {
          op,
          env,
          method: op.method,
          pathParams: base.pathParams,
          pathSuffix: '',
          query: base.query,
          auth: op.admin ? { kind: 'admin' } : op.secured ? { kind: env } : { none: true },
          headers: {},
          body: base.body !== undefined ? { kind: 'json', value: base.body } : undefined,
          mutations: [],
        }
        if (m.body) {
          g.body = m.body.body
          g.mutations.push(m.body.what)
        }
        if (m.query) {
          g.query = m.query.query
          g.mutations.push(m.query.what)
        }
        if (m.path) {
          g.pathParams = m.path.pathParams
          g.mutations.push(m.path.what)
        }
        if (m.auth) {
          g.auth = m.auth.auth
          g.mutations.push(m.auth.what)
        }
        if (m.scenario) {
          const [header, key] = m.scenario as [Template, KeyKind]
          g.auth = { kind: key }
          g.headers['x-sandbox-scenario'] = header
          g.mutations.push(`key: ${key}, X-Sandbox-Scenario: ${describe(header)}`)
        }
        if (m.contentType !== undefined) {
          g.headers['content-type'] = m.contentType
          g.mutations.push(`Content-Type: ${JSON.stringify(m.contentType)}`)
        }
        if (m.headers && Object.keys(m.headers).length) {
          Object.assign(g.headers, m.headers)
          g.mutations.push(`headers: ${Object.keys(m.headers).join(', ')}`)
        }
        if (m.method) {
          const [method, suffix] = m.method as [string, string]
          if (method === op.method) g.pathSuffix = suffix
          g.method = method
          g.mutations.push(method === op.method ? `path suffix ${JSON.stringify(suffix)}` : `method ${method}`)
        }
        // Publishable keys come from browsers, mostly from the allowed origin.
        const kind = 'kind' in g.auth ? g.auth.kind : undefined
        if ((kind === 'pk' || kind === 'pkTest') && g.headers.origin === undefined) g.headers.origin = ALLOWED_ORIGIN
        if (g.mutations.length === 0) g.mutations.push('none (valid request)')
        return g
      })
    }),
  )
}

/** A 32-bit mix of the run's seed and a request's index (splitmix32), so request i is the same in every run. */
export function seedOf(seed: number, index: number): number {
  let z = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
  return (z ^ (z >>> 16)) >>> 0
}

export class Generator {
  private readonly arbs = new Map<string, fc.Arbitrary<Omit<Generated, 'index'>>>()
  readonly ops: Operation[]
  readonly seed: number
  constructor(ops: Operation[], seed: number) {
    this.ops = ops
    this.seed = seed
  }

  at(index: number): Generated {
    const s = seedOf(this.seed, index)
    const op = this.ops[s % this.ops.length]
    let arb = this.arbs.get(op.id)
    if (!arb) {
      arb = requestArbitrary(op)
      this.arbs.set(op.id, arb)
    }
    const [g] = fc.sample(arb, { seed: s | 0, numRuns: 1 })
    return { ...g, index }
  }
}
