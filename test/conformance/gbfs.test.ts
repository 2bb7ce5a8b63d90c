import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { TSchema } from 'typebox'
import { createGbfsConnector, type GbfsConnector, parseGbfsOptions } from '../../src/connectors/gbfs/index.ts'
import { buildRegistry, CONNECTORS } from '../../src/connectors/registry.ts'
import type { CallContext, ProviderEntry } from '../../src/connectors/types/common.ts'
import {
  isMicromobilityConnector,
  type ProviderMicroVehicle,
  type ProviderZone,
} from '../../src/connectors/types/micromobility.ts'
import { MicroVehicle, PricingPlan, Zone } from '../../src/contract/micromobility.ts'
import { DeepLinks, Price } from '../../src/contract/shared.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { buildConnector } from '../helpers/connectors.ts'
import { type MicroProfile, type MicroSetup, micromobilitySuite } from './suites/micromobility.ts'

// ---------------------------------------------------------------------------------------------------------------
// Set-up: the official fixtures (copied into the connector's folder) served over HTTP, feed URLs rewritten.

const FIXTURES = fileURLToPath(new URL('../../src/connectors/gbfs/fixtures/', import.meta.url))
type Version = 'v2.3' | 'v3.0'
const readFixture = (version: Version, file: string) => JSON.parse(readFileSync(join(FIXTURES, version, file), 'utf8'))
const clone = <T>(value: T): T => structuredClone(value)

const PROVIDER = { id: 'gbfs-test', name: 'GBFS Test' }
const deps = { kv: memoryKv(), clock: () => new Date() }
const ctx = (): CallContext => ({
  signal: AbortSignal.timeout(5000),
  now: new Date(),
  language: 'en',
  tenantId: 't',
  environment: 'test',
  scenarios: [],
})
const entry = (options: Record<string, unknown>): ProviderEntry => ({
  ...PROVIDER,
  connector: 'gbfs',
  environments: ['test'],
  options,
})

interface Answer {
  status: number
  body: string
  type: string
}

/** Serves fixture sets under prefixes; any answer can be replaced; counts requests per path. */
class FeedServer {
  readonly routes = new Map<string, Answer>()
  readonly hits = new Map<string, number>()
  /** The `x-api-key` header of the last request per path. */
  readonly apiKeys = new Map<string, string | undefined>()
  private server?: Server
  base = ''

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1)
      this.apiKeys.set(path, req.headers['x-api-key'] as string | undefined)
      const answer = this.routes.get(path) ?? { status: 404, body: 'not found', type: 'text/plain' }
      // Status 0: the server never answers (the connection stays open until the client gives up).
      if (answer.status === 0) return
      res.writeHead(answer.status, { 'content-type': answer.type })
      res.end(answer.body)
    })
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    this.server?.closeAllConnections()
    return new Promise((resolve) => this.server?.close(() => resolve()))
  }

  json(path: string, value: unknown): void {
    this.routes.set(path, { status: 200, body: JSON.stringify(value), type: 'application/json' })
  }

  raw(path: string, status: number, body: string, type = 'text/html'): void {
    this.routes.set(path, { status, body, type })
  }

  /** Every file of a fixture set under `prefix`, with gbfs.json (and manifest.json) pointing back here. */
  mount(prefix: string, version: Version): string {
    for (const file of readdirSync(join(FIXTURES, version))) {
      const json = readFixture(version, file)
      if (file === 'gbfs.json') {
        const feeds = version === 'v2.3' ? json.data.en.feeds : json.data.feeds
        for (const feed of feeds) feed.url = `${this.base}${prefix}/${feed.name}.json`
      }
      if (file === 'manifest.json') {
        const latest = json.data.datasets[0].versions.find((v: { version: string }) => v.version === '3.0')
        latest.url = `${this.base}${prefix}/gbfs.json`
      }
      this.json(`${prefix}/${file}`, json)
    }
    return `${this.base}${prefix}/gbfs.json`
  }

  /** Requests for `path` are never answered. */
  hang(path: string): void {
    this.routes.set(path, { status: 0, body: '', type: 'text/plain' })
  }

  count(path: string): number {
    return this.hits.get(path) ?? 0
  }

  /** The files under `prefix` that were asked for. */
  consumed(prefix: string): string[] {
    return [...this.hits.keys()]
      .filter((p) => p.startsWith(`${prefix}/`))
      .map((p) => p.slice(prefix.length + 1))
      .sort()
  }

  served(path: string): unknown {
    return JSON.parse(this.routes.get(path)?.body ?? 'null')
  }
}

// Schemas: ours (TypeBox) and the official GBFS ones (draft-07), with formats checked.
const ajv = new Ajv({ allErrors: true })
addFormats.default(ajv)
const compiled = new Map<TSchema, ValidateFunction>()
function assertSchema(schema: TSchema, value: unknown, name: string): void {
  let validate = compiled.get(schema)
  if (!validate) {
    validate = ajv.compile(schema)
    compiled.set(schema, validate)
  }
  assert.ok(validate(value), `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 500)}`)
}

const gbfsAjv = {
  'v2.3': new Ajv({ allErrors: true, strict: false }),
  'v3.0': new Ajv({ allErrors: true, strict: false }),
}
addFormats.default(gbfsAjv['v2.3'])
addFormats.default(gbfsAjv['v3.0'])
function assertOfficial(version: Version, feed: string, value: unknown): void {
  const validator = gbfsAjv[version]
  if (!validator.getSchema(feed)) {
    validator.addSchema(JSON.parse(readFileSync(join(FIXTURES, 'schemas', version, `${feed}.json`), 'utf8')), feed)
  }
  const validate = validator.getSchema(feed)
  assert.ok(validate, `no official schema for ${version} ${feed}`)
  assert.ok(validate(value), `${version} ${feed} against the official schema: ${validator.errorsText(validate.errors)}`)
}

/** GeoJSON MultiPolygon: polygons of closed rings of at least 4 [lon, lat] positions in range. */
const MultiPolygon = {
  type: 'object',
  required: ['type', 'coordinates'],
  properties: {
    type: { const: 'MultiPolygon' },
    coordinates: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'array',
          minItems: 4,
          items: {
            type: 'array',
            minItems: 2,
            items: [
              { type: 'number', minimum: -180, maximum: 180 },
              { type: 'number', minimum: -90, maximum: 90 },
            ],
            additionalItems: false,
          },
        },
      },
    },
  },
} as unknown as TSchema
const ringsClosed = (zone: ProviderZone) =>
  (zone.geometry.coordinates as number[][][][]).every((polygon) =>
    polygon.every((ring) => ring[0][0] === ring.at(-1)?.[0] && ring[0][1] === ring.at(-1)?.[1]),
  )

/** The vehicle as the API shows it (as the micromobility domain presents it). */
const presented = (v: ProviderMicroVehicle) => ({
  vehicleId: v.vehicleId,
  vehicle: { type: v.type, propulsionType: v.propulsionType, name: v.name },
  location: { latitude: v.latitude, longitude: v.longitude, lastUpdated: v.lastUpdated },
  isAvailable: v.isAvailable,
  ...(v.batteryPercent !== undefined ? { batteryPercent: v.batteryPercent } : {}),
  provider: PROVIDER,
  ...(v.pricingPlan ? { pricingPlan: v.pricingPlan } : {}),
  ...(v.deepLinks ? { deepLinks: v.deepLinks } : {}),
})

function assertShapes(vehicles: ProviderMicroVehicle[], zones: ProviderZone[]): void {
  for (const v of vehicles) {
    assertSchema(MicroVehicle, presented(v), `vehicle ${v.vehicleId}`)
    assert.ok(v.latitude >= -90 && v.latitude <= 90 && v.longitude >= -180 && v.longitude <= 180)
    if (v.pricingPlan) {
      assertSchema(PricingPlan, v.pricingPlan, 'pricing plan')
      assertSchema(Price, v.pricingPlan.unlockFee, 'unlock fee')
    }
    if (v.deepLinks) assertSchema(DeepLinks, v.deepLinks, 'deep links')
  }
  for (const z of zones) {
    assertSchema(Zone, { ...z, provider: PROVIDER }, `zone ${z.id}`)
    assertSchema(MultiPolygon, z.geometry, `zone ${z.id} geometry`)
    assert.ok(ringsClosed(z), `zone ${z.id}: rings are closed`)
  }
  assert.equal(new Set(zones.map((z) => z.id)).size, zones.length, 'zone ids are unique')
}

const server = new FeedServer()
const connectors: GbfsConnector[] = []
function connect(options: Record<string, unknown>): GbfsConnector {
  const connector = createGbfsConnector(entry(options), deps)
  connectors.push(connector)
  return connector
}

before(() => server.listen())
after(async () => {
  await Promise.all(connectors.map((c) => c.stop?.()))
  await server.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 4000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The micromobility suite, over the official fixtures of each version

const T0 = Date.parse('2031-05-05T08:00:00.000Z')
/** The longest timeout the options allow: a hanging provider's calls end when the caller gives up, not before. */
const HANG_TIMEOUT_MS = 120_000
const micromobility = { is: isMicromobilityConnector, name: 'micromobility' }
let mounts = 0

/**
 * A GBFS provider over a fixture set of its own (a prefix of the feed server), built through the registry as the
 * service does, on a test clock. Failing and hanging providers are new ones whose discovery file answers HTTP 500
 * or never answers: once loaded, a GBFS provider serves its last good copy whatever the feeds do (tested below).
 */
function gbfsProfile(
  version: Version,
  facts: Pick<MicroProfile, 'capabilities' | 'fleetSize' | 'vehicleId' | 'area'>,
): MicroProfile {
  const build = (prefix: string, options: Record<string, unknown> = {}): MicroSetup => {
    const providerEntry = entry({ url: `${server.base}${prefix}/gbfs.json`, minTtlSeconds: 60, timeoutMs: 1000 })
    const setup = buildConnector(providerEntry, micromobility, { options, start: T0 })
    connectors.push(setup.connector as GbfsConnector)
    const twin = async () => build(prefix, options)
    return { providerId: PROVIDER.id, entry: providerEntry, ...setup, twin }
  }
  const mounted = () => {
    const prefix = `/suite-${version}-${++mounts}`
    server.mount(prefix, version)
    return prefix
  }
  return {
    name: `gbfs ${version} (official fixtures)`,
    async make(options) {
      const s = build(mounted(), options)
      await s.connector.start?.()
      return s
    },
    ...facts,
    async failing() {
      const prefix = mounted()
      server.raw(`${prefix}/gbfs.json`, 500, 'upstream trouble')
      const s = build(prefix, { minTtlSeconds: 0.1 })
      return {
        s,
        ctxs: [s.ctx()],
        async restore() {
          server.mount(prefix, version)
          // A failed discovery is tried again after minTtlSeconds.
          await sleep(120)
        },
      }
    },
    async hanging(signal) {
      const prefix = mounted()
      server.hang(`${prefix}/gbfs.json`)
      // Only the caller's giving up ends a call (the profile's own 1 s timeout could end it first on a loaded machine).
      const s = build(prefix, { timeoutMs: HANG_TIMEOUT_MS })
      return { s, ctx: s.ctx({ signal }), restore: () => server.mount(prefix, version) }
    },
    badOptions: [
      { url: 'ftp://example.com/gbfs.json' },
      { url: 'not a url' },
      { minTtlSeconds: 0 },
      { localFeeds: 'yes' },
      { language: 42 },
      { minTTL: 5 },
    ],
  }
}

micromobilitySuite(
  gbfsProfile('v2.3', {
    capabilities: {
      modalities: ['SCOOTER', 'BIKE'],
      operations: ['SEARCH', 'ZONES'],
      stationBased: true,
      freeFloating: true,
      requiresStoredBooking: false,
    },
    fleetSize: 1,
    vehicleId: /^TST:Scooter:\d+$/,
    // Oslo, and a zone north-east of it.
    area: { center: { latitude: 59.9139, longitude: 10.7522 }, radiusMeters: 5_000, bounds: [10, 59, 12, 61] },
  }),
)
micromobilitySuite(
  gbfsProfile('v3.0', {
    capabilities: {
      modalities: ['BIKE'],
      operations: ['SEARCH', 'ZONES'],
      stationBased: true,
      freeFloating: true,
      requiresStoredBooking: false,
    },
    fleetSize: 7,
    vehicleId: /^[0-9a-f]{64}$/,
    // Paris.
    area: { center: { latitude: 48.8566, longitude: 2.3522 }, radiusMeters: 10_000, bounds: [2, 48.5, 3, 49.2] },
  }),
)

// ---------------------------------------------------------------------------------------------------------------

describe('gbfs connector: options and registry', () => {
  it('is registered and validates its options when built', () => {
    assert.equal(CONNECTORS.gbfs !== undefined, true)
    assert.throws(() => parseGbfsOptions({}), /options\.url is required/)
    assert.throws(() => parseGbfsOptions({ url: 'ftp://example.com/gbfs.json' }), /http:, https: or file:/)
    assert.throws(() => parseGbfsOptions({ url: 'not a url' }), /not a URL/)
    assert.throws(() => parseGbfsOptions({ url: 'https://x.example/gbfs.json', minTtlSeconds: 0 }), /minTtlSeconds/)
    assert.throws(() => parseGbfsOptions({ url: 'https://x.example/gbfs.json', localFeeds: 'yes' }), /localFeeds/)
    assert.throws(() => parseGbfsOptions({ url: 'https://x.example/gbfs.json', language: 42 }), /language/)
    assert.throws(() => parseGbfsOptions({ url: 'https://x.example/gbfs.json', minTTL: 5 }), /minTTL not known/)
    const parsed = parseGbfsOptions({ url: 'file:src/connectors/gbfs/fixtures/v3.0/gbfs.json' })
    assert.equal(parsed.url.protocol, 'file:')
    assert.ok(parsed.url.pathname.endsWith('/src/connectors/gbfs/fixtures/v3.0/gbfs.json'))
    assert.equal(parsed.minTtlSeconds, 15)
    assert.equal(parsed.localFeeds, false)
  })

  it('has capabilities before the first load, and is a micromobility connector', () => {
    const connector = createGbfsConnector(entry({ url: 'https://gbfs.invalid/gbfs.json' }), deps)
    assert.ok(isMicromobilityConnector(connector))
    assert.deepEqual(connector.capabilities, {
      modalities: ['BIKE'],
      operations: ['SEARCH', 'ZONES'],
      stationBased: false,
      freeFloating: true,
      requiresStoredBooking: false,
    })
  })

  it('a provider whose discovery fails is UNAVAILABLE; a bad entry never stops the others', async () => {
    const problems: [string, string][] = []
    const registry = buildRegistry(
      [
        { ...entry({ url: `${server.base}/nowhere/gbfs.json`, timeoutMs: 2000 }), id: 'gbfs-missing' },
        { ...entry({}), id: 'gbfs-no-url' },
      ],
      deps,
      (id, message) => problems.push([id, message]),
    )
    await eventually('the failed start', async () =>
      registry.get('gbfs-missing')?.status === 'UNAVAILABLE' ? true : undefined,
    )
    assert.match(registry.get('gbfs-missing')?.error ?? '', /discovery failed.*HTTP 404/)
    assert.equal(registry.get('gbfs-no-url')?.status, 'UNAVAILABLE')
    assert.deepEqual(problems.map(([id]) => id).sort(), ['gbfs-missing', 'gbfs-no-url'])
    await registry.stop()
  })
})

describe('gbfs connector: the official v2.3 fixtures over HTTP', () => {
  let connector: GbfsConnector
  let url: string
  before(async () => {
    url = server.mount('/v23', 'v2.3')
    connector = connect({ url, minTtlSeconds: 60 })
    await connector.start?.()
  })

  it('maps the free-floating scooter with its type, plan, deep links and state', async () => {
    const { vehicles, version } = await connector.fleet(ctx())
    assert.ok(version.length > 0)
    assert.equal(vehicles.length, 1)
    const [scooter] = vehicles
    assert.deepEqual(scooter, {
      vehicleId: 'TST:Scooter:1234',
      type: 'SCOOTER',
      propulsionType: 'ELECTRIC',
      name: 'E-scooter',
      latitude: 59.91465759277344,
      longitude: 10.760470390319824,
      // No last_reported: the feed's last_updated (POSIX seconds in 2.x).
      lastUpdated: new Date(1606857968 * 1000).toISOString(),
      // is_disabled: true
      isAvailable: false,
      pricingPlan: {
        planId: 'TST:PricingPlan:Basic',
        name: 'Basic',
        currency: 'NOK',
        unlockFee: { amount: 0, currency: 'NOK' },
        // 3.5 NOK per minute = 350 øre
        perMinuteRate: { amount: 350, currency: 'NOK' },
      },
      deepLinks: {
        android: 'test://rentme/TST:Scooter:1234',
        ios: 'test://rentme/TST:Scooter:1234',
        web: 'https://test.com/rentme/TST:Scooter:1234',
      },
    })
  })

  it('maps the geofencing zone with its 2.x rules', async () => {
    const zones = await connector.zones(ctx())
    assert.equal(zones.length, 1)
    const [zone] = zones
    assert.equal(zone.name, 'Nes')
    // ride_through_allowed: false
    assert.equal(zone.kind, 'NO_RIDING')
    assert.deepEqual(zone.rules, [
      {
        rideStartAllowed: true,
        rideEndAllowed: true,
        rideThroughAllowed: false,
        maximumSpeedKph: 20,
        vehicleTypes: ['BICYCLE'],
      },
    ])
    assert.equal(zone.geometry.type, 'MultiPolygon')
    assertShapes(await connector.fleet(ctx()).then((f) => f.vehicles), zones)
  })

  it('derives the capabilities from the feeds', () => {
    assert.deepEqual(connector.capabilities.modalities.sort(), ['BIKE', 'SCOOTER'])
    assert.equal(connector.capabilities.stationBased, true)
    assert.equal(connector.capabilities.freeFloating, true)
    assert.deepEqual(connector.capabilities.operations, ['SEARCH', 'ZONES'])
  })

  it('reads only the feeds it uses, each valid against the official 2.3 schema', () => {
    const consumed = server.consumed('/v23')
    assert.deepEqual(consumed, [
      'free_bike_status.json',
      'gbfs.json',
      'geofencing_zones.json',
      'station_information.json',
      'station_status.json',
      'system_information.json',
      'system_pricing_plans.json',
      'vehicle_types.json',
    ])
    for (const file of consumed) assertOfficial('v2.3', file.replace('.json', ''), server.served(`/v23/${file}`))
  })
})

describe('gbfs connector: the official v3.0 fixtures over HTTP', () => {
  let connector: GbfsConnector
  before(async () => {
    connector = connect({ url: server.mount('/v30', 'v3.0'), language: 'en', minTtlSeconds: 60 })
    await connector.start?.()
  })

  it('maps every vehicle with localized names, plan in minor units and deep links', async () => {
    const { vehicles } = await connector.fleet(ctx())
    const fixture = readFixture('v3.0', 'vehicle_status.json').data.vehicles
    assert.equal(vehicles.length, fixture.length)
    for (const v of vehicles) {
      const source = fixture.find((f: { vehicle_id: string }) => f.vehicle_id === v.vehicleId)
      assert.ok(source, v.vehicleId)
      assert.equal(v.latitude, source.lat)
      assert.equal(v.longitude, source.lon)
      assert.equal(v.type, 'BICYCLE')
      assert.equal(v.propulsionType, 'ELECTRIC_ASSIST')
      assert.equal(v.name, 'Electric Bicycle')
      assert.equal(v.isAvailable, true)
      assert.equal(v.lastUpdated, '2019-07-04T13:33:03.969Z')
      assert.deepEqual(v.pricingPlan, {
        planId: '87c7ed6e-aecf-4900-9a85-2a78efbba65b',
        name: 'bike-standard-pricing-paris',
        currency: 'EUR',
        unlockFee: { amount: 100, currency: 'EUR' },
        perMinuteRate: { amount: 28, currency: 'EUR' },
      })
      assert.deepEqual(v.deepLinks, {
        android: 'https://berlin.example.page.link/Vbaff',
        ios: 'https://berlin.example.page.link/Vbaff',
      })
    }
  })

  it('maps every geofencing zone with its 3.0 rules and kind', async () => {
    const zones = await connector.zones(ctx())
    const features = readFixture('v3.0', 'geofencing_zones.json').data.geofencing_zones.features
    assert.equal(zones.length, features.length)
    assertShapes((await connector.fleet(ctx())).vehicles, zones)
    const byName = (name: string) => zones.find((z) => z.name === name)
    assert.equal(byName('BA Nov 23')?.kind, 'SERVICE_AREA')
    assert.equal(byName('Polygon 140')?.kind, 'NO_RIDING')
    assert.deepEqual(byName('Polygon 140')?.rules[0], {
      rideStartAllowed: false,
      rideEndAllowed: false,
      rideThroughAllowed: false,
      maximumSpeedKph: 2,
      vehicleTypes: ['BICYCLE'],
    })
    assert.equal(byName("Jardin de l'Imperatrice Eugenie")?.kind, 'SLOW')
    assert.equal(byName("Jardin de l'Imperatrice Eugenie")?.rules[0].maximumSpeedKph, 10)
    // start and end forbidden, riding through allowed
    assert.equal(byName('PARIS-outer-constrained#1')?.kind, 'NO_PARKING')
    // `escooter_paris` is named by the rules but not published in vehicle_types
    assert.ok(connector.problems().some((p) => p.includes('escooter_paris')))
    // The sample is from 2019: served, and said to be stale.
    assert.ok(
      connector
        .problems()
        .some((p) => p.includes('vehicle_status: last_updated 2019-07-04T13:33:03.969Z is more than an hour old')),
    )
  })

  it('derives the capabilities: bikes, virtual stations, free floating', () => {
    assert.deepEqual(connector.capabilities.modalities, ['BIKE'])
    assert.equal(connector.capabilities.stationBased, true)
    assert.equal(connector.capabilities.freeFloating, true)
  })

  it('reads only the feeds it uses, each valid against the official 3.0 schema', () => {
    const consumed = server.consumed('/v30')
    assert.deepEqual(consumed, [
      'gbfs.json',
      'geofencing_zones.json',
      'station_information.json',
      'station_status.json',
      'system_information.json',
      'system_pricing_plans.json',
      'vehicle_status.json',
      'vehicle_types.json',
    ])
    for (const file of consumed) assertOfficial('v3.0', file.replace('.json', ''), server.served(`/v30/${file}`))
  })

  it('discovers through a 3.0 manifest.json (first dataset, latest version)', async () => {
    const url = server.mount('/manifest', 'v3.0').replace('gbfs.json', 'manifest.json')
    const viaManifest = connect({ url, minTtlSeconds: 60 })
    await viaManifest.start?.()
    assert.equal((await viaManifest.fleet(ctx())).vehicles.length, 7)
    assert.ok(server.consumed('/manifest').includes('manifest.json'))
    assertOfficial('v3.0', 'manifest', server.served('/manifest/manifest.json'))
    const unknownSystem = connect({ url, systemId: 'nope', minTtlSeconds: 60 })
    await assert.rejects(unknownSystem.start?.() ?? Promise.resolve(), /lists no dataset "nope"/)
  })
})

describe('gbfs connector: battery, docked vehicles, deep links', () => {
  it('reads current_fuel_percent as percent and places docked vehicles at their station', async () => {
    server.mount('/battery', 'v3.0')
    const feed = readFixture('v3.0', 'vehicle_status.json')
    feed.data.vehicles[0].current_fuel_percent = 0.83
    feed.data.vehicles[1].current_fuel_percent = 0
    feed.data.vehicles[1].is_reserved = true
    const station = readFixture('v3.0', 'station_information.json').data.stations[2]
    feed.data.vehicles.push(
      {
        vehicle_id: 'docked-1',
        station_id: station.station_id,
        is_reserved: false,
        is_disabled: false,
        vehicle_type_id: 'ebicycle_paris',
        last_reported: '2019-07-04T13:30:00Z',
        current_fuel_percent: 0.5,
        rental_uris: { web: 'https://example.com/rent/docked-1' },
      },
      { vehicle_id: 'docked-nowhere', station_id: 'no-such-station', is_reserved: false, is_disabled: false },
    )
    server.json('/battery/vehicle_status.json', feed)
    assertOfficial('v3.0', 'vehicle_status', feed)

    const connector = connect({ url: `${server.base}/battery/gbfs.json`, minTtlSeconds: 60 })
    await connector.start?.()
    const { vehicles } = await connector.fleet(ctx())
    assertShapes(vehicles, [])
    const byId = new Map(vehicles.map((v) => [v.vehicleId, v]))
    assert.equal(byId.get(feed.data.vehicles[0].vehicle_id)?.batteryPercent, 83)
    assert.equal(byId.get(feed.data.vehicles[1].vehicle_id)?.batteryPercent, 0)
    assert.equal(byId.get(feed.data.vehicles[1].vehicle_id)?.isAvailable, false)
    assert.equal(byId.get(feed.data.vehicles[2].vehicle_id)?.batteryPercent, undefined)
    const docked = byId.get('docked-1')
    assert.deepEqual(
      { latitude: docked?.latitude, longitude: docked?.longitude, battery: docked?.batteryPercent },
      { latitude: station.lat, longitude: station.lon, battery: 50 },
    )
    assert.equal(docked?.lastUpdated, '2019-07-04T13:30:00.000Z')
    assert.deepEqual(docked?.deepLinks, { web: 'https://example.com/rent/docked-1' })
    assert.equal(byId.has('docked-nowhere'), false)
    assert.ok(connector.problems().some((p) => p.includes('no-such-station')))
  })
})

describe('gbfs connector: languages and headers', () => {
  it('uses the configured language block of a 2.x gbfs.json and sends headers only to its origin', async () => {
    server.mount('/lang', 'v2.3')
    const gbfs = readFixture('v2.3', 'gbfs.json')
    const fr = clone(gbfs.data.en)
    for (const feed of fr.feeds) feed.url = `${server.base}/lang/${feed.name}.json`
    for (const feed of gbfs.data.en.feeds) feed.url = `${server.base}/nowhere/${feed.name}.json`
    // The same feeds, under another origin (localhost instead of 127.0.0.1) for one of them.
    fr.feeds.find((f: { name: string }) => f.name === 'vehicle_types').url =
      `${server.base.replace('127.0.0.1', 'localhost')}/lang/vehicle_types.json`
    gbfs.data = { en: gbfs.data.en, fr }
    server.json('/lang/gbfs.json', gbfs)
    const connector = connect({
      url: `${server.base}/lang/gbfs.json`,
      language: 'fr',
      minTtlSeconds: 60,
      headers: { 'x-api-key': 'secret' },
    })
    await connector.start?.()
    assert.equal((await connector.fleet(ctx())).vehicles.length, 1)
    assert.equal(server.count('/nowhere/free_bike_status.json'), 0)
    assert.equal(server.apiKeys.get('/lang/gbfs.json'), 'secret')
    assert.equal(server.apiKeys.get('/lang/free_bike_status.json'), 'secret')
    assert.equal(server.count('/lang/vehicle_types.json'), 1)
    assert.equal(server.apiKeys.get('/lang/vehicle_types.json'), undefined)
  })

  it('picks the configured language of 3.0 localized strings, else the first', async () => {
    server.mount('/names', 'v3.0')
    const types = readFixture('v3.0', 'vehicle_types.json')
    types.data.vehicle_types[0].name = [
      { text: 'Electric Bicycle', language: 'en' },
      { text: 'Vélo électrique', language: 'fr' },
    ]
    server.json('/names/vehicle_types.json', types)
    const french = connect({ url: `${server.base}/names/gbfs.json`, language: 'fr-CH', minTtlSeconds: 60 })
    const german = connect({ url: `${server.base}/names/gbfs.json`, language: 'de', minTtlSeconds: 60 })
    await Promise.all([french.start?.(), german.start?.()])
    assert.equal((await french.fleet(ctx())).vehicles[0].name, 'Vélo électrique')
    assert.equal((await german.fleet(ctx())).vehicles[0].name, 'Electric Bicycle')
  })
})

describe('gbfs connector: refresh by ttl', () => {
  it('serves from memory, refreshes after the ttl, keeps the last good copy when a refresh fails', async () => {
    server.mount('/ttl', 'v3.0')
    const feed = readFixture('v3.0', 'vehicle_status.json')
    feed.ttl = 0
    server.json('/ttl/vehicle_status.json', feed)
    const connector = connect({ url: `${server.base}/ttl/gbfs.json`, minTtlSeconds: 0.3 })
    await connector.start?.()
    const first = await connector.fleet(ctx())
    assert.equal(first.vehicles.length, 7)

    // The same data read again keeps the version (and the snapshot).
    const reads = server.count('/ttl/vehicle_status.json')
    await eventually('a second read', async () => (server.count('/ttl/vehicle_status.json') > reads ? true : undefined))
    assert.equal((await connector.fleet(ctx())).version, first.version)

    // New data is served after the ttl, with a new version.
    const changed = clone(feed)
    changed.last_updated = new Date().toISOString()
    changed.data.vehicles = changed.data.vehicles.slice(1)
    changed.data.vehicles[0].lat = 48.85
    server.json('/ttl/vehicle_status.json', changed)
    const second = await eventually('the new data', async () => {
      const snapshot = await connector.fleet(ctx())
      return snapshot.vehicles.length === 6 ? snapshot : undefined
    })
    assert.notEqual(second.version, first.version)
    assert.equal(second.vehicles[0].latitude, 48.85)

    // A refresh that fails keeps what was read last.
    for (const [status, body] of [
      [500, 'upstream trouble'],
      [200, '<html>maintenance</html>'],
    ] as const) {
      const before = server.count('/ttl/vehicle_status.json')
      server.raw('/ttl/vehicle_status.json', status, body)
      await eventually('a failed read', async () =>
        server.count('/ttl/vehicle_status.json') > before ? true : undefined,
      )
      await sleep(50)
      const kept = await connector.fleet(ctx())
      assert.equal(kept.version, second.version)
      assert.equal(kept.vehicles.length, 6)
    }
    const problems = connector.problems()
    assert.ok(
      problems.some((p) => /vehicle_status: cannot be read: .*HTTP 500.*last good copy is kept/.test(p)),
      problems.join('\n'),
    )
    assert.ok(
      problems.some((p) => /vehicle_status: cannot be read: .*not JSON/.test(p)),
      problems.join('\n'),
    )

    // Feeds with ttl 60 were read once; the refreshed one several times but not more often than minTtlSeconds.
    assert.equal(server.count('/ttl/vehicle_types.json'), 1)
    assert.equal(server.count('/ttl/geofencing_zones.json'), 1)
    assert.ok(server.count('/ttl/vehicle_status.json') >= 4)

    // stop() ends the refreshes.
    await connector.stop?.()
    const stoppedAt = server.count('/ttl/vehicle_status.json')
    await sleep(700)
    assert.equal(server.count('/ttl/vehicle_status.json'), stoppedAt)
  })
})

describe('gbfs connector: file: with localFeeds over the bundled fixtures', () => {
  for (const [version, file, count] of [
    ['v2.3', 'gbfs.json', 1],
    ['v3.0', 'gbfs.json', 7],
    ['v3.0', 'manifest.json', 7],
  ] as const) {
    it(`${version} ${file}`, async () => {
      const connector = connect({ url: pathToFileURL(join(FIXTURES, version, file)).href, localFeeds: true })
      await connector.start?.()
      const { vehicles } = await connector.fleet(ctx())
      const zones = await connector.zones(ctx())
      assert.equal(vehicles.length, count)
      assert.ok(zones.length > 0)
      assertShapes(vehicles, zones)
      for (const feedUrl of Object.values(connector.feedUrls())) {
        assert.ok(feedUrl.startsWith(pathToFileURL(join(FIXTURES, version)).href), feedUrl)
      }
    })
  }

  it('a remote discovery file never leads to a local file', async () => {
    server.mount('/local', 'v2.3')
    const gbfs = readFixture('v2.3', 'gbfs.json')
    for (const feed of gbfs.data.en.feeds) feed.url = `${server.base}/local/${feed.name}.json`
    gbfs.data.en.feeds.find((f: { name: string }) => f.name === 'vehicle_types').url = pathToFileURL(
      join(FIXTURES, 'v2.3', 'vehicle_types.json'),
    ).href
    server.json('/local/gbfs.json', gbfs)
    const connector = connect({ url: `${server.base}/local/gbfs.json`, minTtlSeconds: 60 })
    await connector.start?.()
    assert.equal(connector.feedUrls().vehicle_types, undefined)
    assert.ok(connector.problems().some((p) => p.includes('file: URLs are not followed')))
  })
})

describe('gbfs connector: broken feeds', () => {
  it('skips the bad parts, serves the rest and records the problems', async () => {
    const prefix = '/broken'
    server.mount(prefix, 'v2.3')
    // A 2.x free_bike_status mixed with 3.0 fields, and bad records.
    const bikes = readFixture('v2.3', 'free_bike_status.json')
    const good = { ...bikes.data.bikes[0], bike_id: 'good', is_disabled: false }
    bikes.data.bikes = [
      good,
      { ...good, bike_id: 'null-lat', lat: null },
      { ...good, bike_id: 'lat-999', lat: 999 },
      { ...good, bike_id: 'null-island', lat: 0, lon: 0 },
      {
        ...good,
        bike_id: undefined,
        vehicle_id: 'v3-fields',
        last_reported: '2024-05-01T10:00:00Z',
        current_fuel_percent: 0.42,
      },
      { bike_id: 'docked', station_id: 'TST:Station:2', is_reserved: false, is_disabled: false },
      { lat: 59.9, lon: 10.7, is_reserved: false, is_disabled: false },
      'not a vehicle',
      {
        ...good,
        bike_id: 'bad-links',
        rental_uris: { android: 'javascript:alert(1)', web: 'ftp://x', ios: 'app://ok' },
      },
      { ...good, bike_id: 'good' },
    ]
    server.json(`${prefix}/free_bike_status.json`, bikes)
    // A zone with a null geometry, one with an impossible position, one good.
    const zones = readFixture('v2.3', 'geofencing_zones.json')
    const zone = zones.data.geofencing_zones.features[0]
    const far = clone(zone)
    far.properties.name = 'Far away'
    far.geometry.coordinates[0][0][3] = [11.5, 999]
    zones.data.geofencing_zones.features = [
      { type: 'Feature', properties: { name: 'Nothing', rules: [] }, geometry: null },
      far,
      zone,
      { type: 'Feature', properties: { name: 'Point' }, geometry: { type: 'Point', coordinates: [10, 59] } },
    ]
    server.json(`${prefix}/geofencing_zones.json`, zones)
    // Optional files missing or broken; one pricing plan unusable.
    server.raw(`${prefix}/vehicle_types.json`, 404, 'not found')
    server.raw(`${prefix}/station_status.json`, 200, '<html>Bad gateway</html>', 'application/json')
    const plans = readFixture('v2.3', 'system_pricing_plans.json')
    plans.data.plans.push({
      plan_id: 'bad',
      name: 'Bad',
      currency: 'EURO',
      price: 1,
      is_taxable: false,
      description: '',
    })
    server.json(`${prefix}/system_pricing_plans.json`, plans)

    const warned: string[] = []
    const connector = connect({
      url: `${server.base}${prefix}/gbfs.json`,
      minTtlSeconds: 60,
      logger: { warn: (message: string) => warned.push(message) },
    })
    await connector.start?.()
    const { vehicles } = await connector.fleet(ctx())
    const served = await connector.zones(ctx())
    assertShapes(vehicles, served)

    assert.deepEqual(vehicles.map((v) => v.vehicleId).sort(), ['bad-links', 'docked', 'good', 'v3-fields'])
    const byId = new Map(vehicles.map((v) => [v.vehicleId, v]))
    // vehicle_types is missing: the declared type is unknown; a vehicle without one is a bicycle (GBFS default).
    assert.equal(byId.get('good')?.type, 'OTHER')
    assert.equal(byId.get('docked')?.type, 'BICYCLE')
    assert.deepEqual([byId.get('docked')?.latitude, byId.get('docked')?.longitude], [11.34, 44.67])
    assert.equal(byId.get('v3-fields')?.lastUpdated, '2024-05-01T10:00:00.000Z')
    assert.equal(byId.get('v3-fields')?.batteryPercent, 42)
    assert.equal(byId.get('good')?.pricingPlan?.perMinuteRate.amount, 350)
    assert.deepEqual(byId.get('bad-links')?.deepLinks, { ios: 'app://ok' })
    assert.deepEqual(connector.capabilities.modalities, ['BIKE'])

    assert.deepEqual(
      served.map((z) => z.name),
      ['Nes'],
    )

    const problems = connector.problems().join('\n')
    for (const expected of [
      /vehicle_types: not available: .*HTTP 404/,
      /station_status: cannot be read: .*not JSON/,
      /vehicle null-lat: invalid coordinates \(lat null/,
      /vehicle lat-999: invalid coordinates \(lat 999/,
      /vehicle null-island: coordinates 0,0/,
      /vehicle #6 has no bike_id/,
      /vehicle #7 is not an object/,
      /vehicle good appears twice/,
      /rental_uris.android "javascript:alert\(1\)" is not a usable URI/,
      /3.0 field vehicle_id/,
      /zone #0 "Nothing": no geometry; skipped/,
      /zone #1 "Far away": invalid position \[11.5,999\]; skipped/,
      /zone #3 "Point": geometry of type "Point"/,
      /pricing plan bad: currency "EURO" is not ISO 4217/,
    ]) {
      assert.match(problems, expected)
    }
    assert.ok(warned.length > 0 && warned.every((w) => w.startsWith('gbfs gbfs-test: ')))
  })

  it('a discovery file that is not GBFS fails the start; a missing vehicle feed does not', async () => {
    server.json('/junk/gbfs.json', { hello: 'world' })
    const junk = connect({ url: `${server.base}/junk/gbfs.json` })
    await assert.rejects(junk.start?.() ?? Promise.resolve(), /discovery failed: .*no "data" object/)
    await assert.rejects(junk.fleet(ctx()), (error: Error & { code?: string }) => error.code === 'PROVIDER_ERROR')

    server.json('/empty/gbfs.json', { last_updated: 1, ttl: 60, version: '3.0', data: { feeds: [] } })
    const empty = connect({ url: `${server.base}/empty/gbfs.json` })
    await empty.start?.()
    assert.deepEqual((await empty.fleet(ctx())).vehicles, [])
    assert.deepEqual(await empty.zones(ctx()), [])
    assert.ok(empty.problems().some((p) => p.includes('neither vehicle_status nor free_bike_status')))
  })
})

describe('gbfs connector: callers that give up', () => {
  it('a caller that gave up before the first load gets TIMEOUT; the load failing afterwards harms nothing', async () => {
    server.raw('/gave-up/gbfs.json', 500, 'upstream trouble')
    const connector = connect({ url: `${server.base}/gave-up/gbfs.json`, minTtlSeconds: 60 })
    const aborted = new AbortController()
    aborted.abort()
    const call = connector.fleet({ ...ctx(), signal: aborted.signal })
    await assert.rejects(call, (error: Error & { code?: string; details?: Record<string, unknown> }) => {
      assert.equal(error.code, 'TIMEOUT', String(error))
      assert.equal(error.details?.reason, 'ABORTED')
      return true
    })
    // The load it started fails on its own; nobody waits for it, and no rejection is left unhandled.
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await eventually('the failed load', async () =>
        connector.problems().some((p) => p.includes('discovery failed')) ? true : undefined,
      )
      await sleep(20)
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
    assert.deepEqual(unhandled, [])
    await assert.rejects(connector.fleet(ctx()), (error: Error & { code?: string }) => error.code === 'PROVIDER_ERROR')
  })
})
