import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import type { GtfsConnector } from '../../src/connectors/gtfs/index.ts'
import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'
import { FEED_DIR } from '../../src/connectors/sandbox/transit/make-feed.ts'
import { TILE_BUFFER, tileBounds } from '../../src/domain/multimodal/tiles.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

// GET /public-transport/vehicles and the `transit-vehicles` tile layer, over the simulated sandbox-transit and a
// GTFS provider (the sandbox's Berlin timetable) with a VehiclePositions feed written here.

const ALEX = { latitude: 52.5219, longitude: 13.4132 }
const SECOND = 1000

/** The next Tuesday, 09:00 UTC (10:00 or 11:00 in Berlin): the sandbox's trams and buses are out. */
function nextTuesdayMorning(): number {
  const d = new Date()
  d.setUTCHours(9, 0, 0, 0)
  d.setUTCDate(d.getUTCDate() + ((2 - d.getUTCDay() + 7) % 7 || 7))
  return d.getTime()
}

/** Vehicles of the GTFS provider: two near Alexanderplatz, one 12 km away. No timestamps: read time counts. */
function positionsFeed(): Uint8Array {
  const message = transit_realtime.FeedMessage.fromObject({
    header: { gtfsRealtimeVersion: '2.0', incrementality: 'FULL_DATASET' },
    entity: [
      {
        id: '1',
        vehicle: {
          trip: { tripId: '100-0-WD' },
          vehicle: { id: 'bus-1', label: '4711' },
          position: { latitude: 52.5225, longitude: 13.4115, bearing: 90, speed: 8 },
          stopId: '900100003_BUS',
          currentStatus: 'INCOMING_AT',
          occupancyStatus: 'FEW_SEATS_AVAILABLE',
        },
      },
      { id: '2', vehicle: { vehicle: { id: 'bus-2' }, position: { latitude: 52.5215, longitude: 13.4135 } } },
      { id: '3', vehicle: { vehicle: { id: 'bus-far' }, position: { latitude: 52.45, longitude: 13.3 } } },
    ],
  })
  return transit_realtime.FeedMessage.encode(message).finish()
}

const dir = mkdtempSync(join(tmpdir(), 'transit-vehicles-'))
const feedFile = join(dir, 'vehicle-positions.pb')
writeFileSync(feedFile, positionsFeed())
const BOTH = ['live', 'test']
const gtfs = (id: string, options: Record<string, unknown> = {}) => ({
  id,
  name: `GTFS ${id}`,
  connector: 'gtfs',
  environments: BOTH,
  options: { url: pathToFileURL(FEED_DIR).href, ...options },
})
const providersFile = join(dir, 'providers.json')
writeFileSync(
  providersFile,
  JSON.stringify({
    providers: [
      { id: 'sandbox-transit', name: 'Sandbox Transit', connector: 'sandbox', environments: BOTH },
      { id: 'sandbox-rent', name: 'Sandbox Rent', connector: 'sandbox', environments: BOTH },
      gtfs('gtfs-vp', { vehiclePositionsUrl: pathToFileURL(feedFile).href }),
      gtfs('gtfs-vp-down', { vehiclePositionsUrl: pathToFileURL(join(dir, 'missing.pb')).href }),
      gtfs('gtfs-static'),
      {
        id: 'transit-flaky',
        name: 'Transit that always fails',
        connector: 'sandbox',
        environments: BOTH,
        options: { profile: 'transit', failureRate: 1 },
      },
    ],
  }),
)

const query = (params: Record<string, string | number>) =>
  `/public-transport/vehicles?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`
const near = (extra: Record<string, string | number> = {}) => query({ ...ALEX, ...extra })

describe('GET /public-transport/vehicles', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness({ env: { PROVIDERS_FILE: providersFile } })
    h.clock.set(nextTuesdayMorning())
    // The feed was read at start, days before the clock's new time: read it again (every instance), as the next
    // refresh would. Twice: the first may be a read that began before the clock moved.
    for (const runtime of h.runtimes) {
      const connector = runtime.registry.get('gtfs-vp')?.connector as GtfsConnector
      await connector.refreshVehiclePositions()
      await connector.refreshVehiclePositions()
    }
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
  })
  after(async () => {
    await h.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('lists the vehicles within the radius, nearest first, with line, trip, occupancy and the time of the position', async () => {
    const res = await h.api('GET', near({ radiusMeters: 1500, limit: 100 }), t.secret)
    assert.equal(res.status, 200, res.text)
    const { vehicles, pagination, providers } = res.body.data
    // The failing provider is asked again on the next page (spec 8).
    assert.equal(pagination.hasMore, true)
    const distances = vehicles.map((v: any) => v.distanceFromSearch)
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    )
    assert.ok(distances.every((d: number) => d <= 1500))
    assert.deepEqual(
      vehicles.filter((v: any) => v.provider.id === 'gtfs-vp').map((v: any) => v.vehicleId),
      ['gtfs-vp:bus-2', 'gtfs-vp:bus-1'],
    )
    const bus = vehicles.find((v: any) => v.vehicleId === 'gtfs-vp:bus-1')
    assert.deepEqual(bus, {
      vehicleId: 'gtfs-vp:bus-1',
      provider: { id: 'gtfs-vp', name: 'GTFS gtfs-vp' },
      location: { latitude: 52.5225, longitude: 13.4115, bearing: 90, speed: 8 },
      line: {
        id: '100',
        name: '100',
        mode: 'BUS',
        color: '#A5027D',
        textColor: '#FFFFFF',
        agency: 'Sandbox Transit Berlin',
      },
      tripId: '100-0-WD',
      label: '4711',
      headsign: bus.headsign,
      stop: { stopId: 'gtfs-vp:900100003_BUS', name: 'S+U Alexanderplatz' },
      currentStatus: 'INCOMING_AT',
      occupancy: 'FEW_SEATS_AVAILABLE',
      lastUpdated: bus.lastUpdated,
      distanceFromSearch: bus.distanceFromSearch,
    })
    assert.ok(Date.parse(bus.lastUpdated) <= h.clock().getTime())
    const plain = vehicles.find((v: any) => v.vehicleId === 'gtfs-vp:bus-2')
    assert.equal(plain.line, undefined, 'no trip, no line')
    assert.equal(plain.location.bearing, undefined)

    const sandbox = vehicles.filter((v: any) => v.provider.id === 'sandbox-transit')
    assert.ok(sandbox.length > 0, 'the simulated trams and buses near Alexanderplatz')
    for (const v of sandbox) {
      assert.match(v.vehicleId, /^sandbox-transit:/)
      assert.ok(v.line.name && v.line.mode && v.tripId && v.occupancy && v.stop.stopId.startsWith('sandbox-transit:'))
      assert.equal(v.lastUpdated, h.clock().toISOString())
    }
    const outcome = Object.fromEntries(providers.map((p: any) => [p.id, p]))
    assert.deepEqual(Object.keys(outcome).sort(), ['gtfs-vp', 'gtfs-vp-down', 'sandbox-transit', 'transit-flaky'])
    assert.equal(outcome['gtfs-vp'].status, 'OK')
    assert.equal(outcome['gtfs-vp'].vehicles, 2)
    // A feed that cannot be read is no failure of the request: no vehicles.
    assert.deepEqual([outcome['gtfs-vp-down'].status, outcome['gtfs-vp-down'].vehicles], ['OK', 0])
    // One failing provider leaves out its own vehicles only.
    assert.equal(outcome['transit-flaky'].status, 'FAILED')
    assert.equal(outcome['transit-flaky'].error.code, 'PROVIDER_ERROR')
  })

  it('applies the radius (default 1000) and the provider filter', async () => {
    const small = await h.api('GET', near({ radiusMeters: 100, limit: 100 }), t.secret)
    assert.equal(small.status, 200, small.text)
    assert.ok(small.body.data.vehicles.every((v: any) => v.distanceFromSearch <= 100))
    assert.ok(small.body.data.vehicles.some((v: any) => v.vehicleId === 'gtfs-vp:bus-2'))
    assert.ok(!small.body.data.vehicles.some((v: any) => v.vehicleId === 'gtfs-vp:bus-1'), 'bus-1 is 133 m away')
    const byDefault = await h.api('GET', near({ limit: 100 }), t.secret)
    assert.ok(byDefault.body.data.vehicles.every((v: any) => v.distanceFromSearch <= 1000))
    const wide = await h.api('GET', near({ radiusMeters: 5000, limit: 100, provider: 'gtfs-vp' }), t.secret)
    assert.deepEqual(
      wide.body.data.vehicles.map((v: any) => v.vehicleId),
      ['gtfs-vp:bus-2', 'gtfs-vp:bus-1'],
      'bus-far is 12 km away',
    )
    assert.deepEqual(
      wide.body.data.providers.map((p: any) => p.id),
      ['gtfs-vp'],
    )
    for (const provider of ['nope', 'sandbox-rent', 'gtfs-static']) {
      const res = await h.api('GET', near({ provider }), t.secret)
      assert.equal(res.status, 404, provider)
      assert.equal(res.body.error.code, 'NOT_FOUND')
      assert.equal(res.body.error.details.provider, provider)
    }
    // Only one provider asked, and it failed: no answer to give.
    const flaky = await h.api('GET', near({ provider: 'transit-flaky' }), t.secret)
    assert.equal(flaky.status, 500)
    assert.equal(flaky.body.error.code, 'PROVIDER_ERROR')
  })

  it('pages with a cursor: every vehicle once, in order, across pages (and instances)', async () => {
    const all = await h.api('GET', near({ radiusMeters: 3000, limit: 100 }), t.secret)
    const expected = all.body.data.vehicles.map((v: any) => v.vehicleId)
    assert.ok(expected.length > 12, `${expected.length} vehicles`)
    const seen: string[] = []
    let cursor: string | undefined
    for (let page = 0; page < 20; page++) {
      const res = await h.api('GET', near({ radiusMeters: 3000, limit: 5, ...(cursor ? { cursor } : {}) }), t.secret)
      assert.equal(res.status, 200, res.text)
      seen.push(...res.body.data.vehicles.map((v: any) => v.vehicleId))
      const { pagination } = res.body.data
      if (!pagination.hasMore) {
        assert.equal(pagination.nextCursor, undefined)
        break
      }
      cursor = pagination.nextCursor
    }
    assert.deepEqual(seen, expected)
    const bad = await h.api('GET', near({ cursor: 'not-a-cursor' }), t.secret)
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error.code, 'INVALID_CURSOR')
  })

  it('shows the sandbox vehicles moving as the clock runs', async () => {
    const at = async () =>
      new Map<string, any>(
        (
          await h.api('GET', near({ radiusMeters: 2000, limit: 100, provider: 'sandbox-transit' }), t.secret)
        ).body.data.vehicles.map((v: any) => [v.vehicleId, v.location]),
      )
    const first = await at()
    h.clock.advance(20 * SECOND)
    const later = await at()
    const moved = [...later].filter(([id, loc]) => {
      const was = first.get(id)
      return was && (was.latitude !== loc.latitude || was.longitude !== loc.longitude)
    })
    assert.ok(moved.length > 0, 'some vehicles moved in 20 s')
  })

  it('answers 400 naming the field for bad input', async () => {
    const cases: [Record<string, string | number>, string, string][] = [
      [{ longitude: ALEX.longitude }, 'INVALID_LOCATION', 'latitude'],
      [{ latitude: ALEX.latitude }, 'INVALID_LOCATION', 'longitude'],
      [{ latitude: 91, longitude: ALEX.longitude }, 'INVALID_LOCATION', 'latitude'],
      [{ ...ALEX, longitude: 'east' }, 'INVALID_LOCATION', 'longitude'],
      [{ ...ALEX, radiusMeters: 5001 }, 'INVALID_REQUEST', 'radiusMeters'],
      [{ ...ALEX, radiusMeters: 0 }, 'INVALID_REQUEST', 'radiusMeters'],
      [{ ...ALEX, limit: 0 }, 'INVALID_REQUEST', 'limit'],
      [{ ...ALEX, limit: 101 }, 'INVALID_REQUEST', 'limit'],
      [{ ...ALEX, provider: 'x'.repeat(101) }, 'INVALID_REQUEST', 'provider'],
      [{ ...ALEX, radius: 100 }, 'INVALID_REQUEST', 'radius'],
    ]
    for (const [params, code, field] of cases) {
      const res = await h.api('GET', query(params), t.secret)
      assert.equal(res.status, 400, JSON.stringify(params))
      assert.equal(res.body.success, false)
      assert.equal(res.body.error.code, code, JSON.stringify(params))
      assert.ok(res.body.error.details[field], `${JSON.stringify(params)}: ${JSON.stringify(res.body.error.details)}`)
    }
  })

  it('needs public-transport:offer:read; publishable keys from allowed origins get CORS headers', async () => {
    assert.equal((await h.api('GET', near(), undefined)).status, 401)
    const narrow = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      permissions: ['account:read'],
    })
    const refused = await h.api('GET', near(), narrow.secret)
    assert.equal(refused.status, 403)
    assert.equal(refused.body.error.code, 'FORBIDDEN')
    const allowed = await h.api('GET', near(), t.publishable, undefined, { origin: 'https://app.example' })
    assert.equal(allowed.status, 200, allowed.text)
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example')
    assert.ok(allowed.body.data.vehicles.length > 0)
    const elsewhere = await h.api('GET', near(), t.publishable, undefined, { origin: 'https://evil.example' })
    assert.equal(elsewhere.status, 403)
    // Test keys see the test environment's providers; scenarios reach the vehicles too.
    const timeout = await h.api('GET', near(), t.test, undefined, {
      'x-sandbox-scenario': 'provider-timeout:sandbox-transit',
    })
    assert.equal(timeout.status, 200, timeout.text)
    const sandbox = timeout.body.data.providers.find((p: any) => p.id === 'sandbox-transit')
    assert.equal(sandbox.status, 'TIMEOUT')
    assert.ok(timeout.body.data.vehicles.every((v: any) => v.provider.id !== 'sandbox-transit'))
  })

  it('draws the same vehicles in the `transit-vehicles` tile layer, not below z 10', async () => {
    const tileOf = (z: number) => {
      const n = 2 ** z
      const x = Math.floor(((ALEX.longitude + 180) / 360) * n)
      const rad = (ALEX.latitude * Math.PI) / 180
      const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n)
      return { z, x, y }
    }
    const get = async ({ z, x, y }: { z: number; x: number; y: number }) => {
      const res = await h.apps[0].inject({
        method: 'GET',
        url: `/mobility-api/v2/multimodal/tiles/${z}/${x}/${y}.mvt`,
        headers: { authorization: `Bearer ${t.secret}` },
      })
      assert.equal(res.statusCode, 200, res.body)
      const tile = new VectorTile(new PbfReader(res.rawPayload))
      const layer = tile.layers['transit-vehicles']
      return {
        tile: { z, x, y },
        features: layer ? Array.from({ length: layer.length }, (_, i) => layer.feature(i)) : [],
      }
    }
    const { tile, features } = await get(tileOf(15))
    const bus = features.find((f) => f.properties.vehicleId === 'gtfs-vp:bus-1')
    assert.ok(bus, 'the GTFS bus is in the tile')
    assert.equal(bus.type, 1)
    assert.deepEqual(
      {
        kind: bus.properties.kind,
        id: bus.properties.id,
        provider: bus.properties.provider,
        line: bus.properties.line,
        mode: bus.properties.mode,
        color: bus.properties.color,
        bearing: bus.properties.bearing,
        tripId: bus.properties.tripId,
        occupancy: bus.properties.occupancy,
      },
      {
        kind: 'TRANSIT_VEHICLE',
        id: 'gtfs-vp:bus-1',
        provider: 'gtfs-vp',
        line: '100',
        mode: 'BUS',
        color: '#A5027D',
        bearing: 90,
        tripId: '100-0-WD',
        occupancy: 'FEW_SEATS_AVAILABLE',
      },
    )
    const [lon, lat] = (bus.toGeoJSON(tile.x, tile.y, tile.z).geometry as any).coordinates
    assert.ok(Math.abs(lon - 13.4115) < 1e-4 && Math.abs(lat - 52.5225) < 1e-4, `${lon},${lat}`)
    assert.ok(
      features.some((f) => f.properties.provider === 'sandbox-transit' && f.properties.line && f.properties.color),
      'the simulated vehicles too',
    )
    // The layer holds exactly the listed vehicles inside the tile (and its buffer).
    const listed = await h.api('GET', near({ radiusMeters: 3000, limit: 100 }), t.secret)
    const b = tileBounds(tile.z, tile.x, tile.y, TILE_BUFFER)
    const inside = listed.body.data.vehicles
      .filter((v: any) => {
        const { latitude, longitude } = v.location
        return latitude >= b.south && latitude <= b.north && longitude >= b.west && longitude <= b.east
      })
      .map((v: any) => v.vehicleId)
    assert.deepEqual(features.map((f) => f.properties.vehicleId).sort(), inside.sort())
    assert.equal((await get(tileOf(9))).features.length, 0, 'not below z 10')
  })

  it('is documented: operationId, tag, parameters and the answer with an example', async () => {
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
    const op = body.paths['/mobility-api/v2/public-transport/vehicles']?.get
    assert.ok(op)
    assert.equal(op.operationId, 'listTransitVehicles')
    assert.deepEqual(op.tags, ['Public Transport'])
    const names = op.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name)
    for (const name of ['latitude', 'longitude', 'radiusMeters', 'provider', 'limit', 'cursor'])
      assert.ok(names.includes(name), name)
    assert.match(op.description, /INVALID_LOCATION/)
    const schema = JSON.stringify(op.responses['200'])
    assert.match(schema, /vehicleId/)
    assert.match(schema, /examples/)
  })
})
