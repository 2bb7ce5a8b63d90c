import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import type { Registry } from '../../src/connectors/registry.ts'
import type { Provider } from '../../src/connectors/types/common.ts'
import type { PublicTransportConnector, TransitStop } from '../../src/connectors/types/public-transport.ts'
import { ApiError } from '../../src/contract/errors.ts'
import { createMultimodal } from '../../src/domain/multimodal/index.ts'
import type { Caller, CallProvider } from '../../src/domain/providers/calls.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/** The XYZ tile that holds a point at zoom z. */
function tileOf(latitude: number, longitude: number, z: number) {
  const n = 2 ** z
  const x = Math.floor(((longitude + 180) / 360) * n)
  const rad = (latitude * Math.PI) / 180
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n)
  return { z, x, y }
}

/** GET a tile as raw bytes (the harness reads bodies as text). */
async function getTile(
  h: Harness,
  path: string,
  key: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer; json?: any }> {
  const res = await h.apps[0].inject({
    method: 'GET',
    url: `/mobility-api/v2${path}`,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  })
  const bytes = res.rawPayload
  let json: unknown
  if (String(res.headers['content-type'] ?? '').startsWith('application/json')) json = JSON.parse(res.body)
  return { status: res.statusCode, headers: res.headers, bytes, json }
}

const decode = (bytes: Buffer) => new VectorTile(new PbfReader(bytes))
const featuresOf = (tile: VectorTile, layer: string) => {
  const l = tile.layers[layer]
  return l ? Array.from({ length: l.length }, (_, i) => l.feature(i)) : []
}

describe('POST /multimodal', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
  })
  after(() => h.close())

  const search = (body: Record<string, unknown>, key = t.secret, headers?: Record<string, string>) =>
    h.api('POST', '/multimodal', key, { location: ALEX, ...body }, headers)

  it('combines the sources: one outcome per source, items with a kind', async () => {
    const res = await search({ radiusMeters: 1500 })
    assert.equal(res.status, 200, res.text)
    const { results, sources } = res.body.data
    // Keyed by source name, as `include` names them.
    assert.deepEqual(Object.keys(sources), ['PUBLIC_TRANSPORT', 'MICROMOBILITY', 'CARSHARING'])
    for (const [source, s] of Object.entries<any>(sources)) {
      assert.ok(['OK', 'FAILED', 'TIMEOUT'].includes(s.status))
      assert.equal(s.results, results.filter((r: any) => kindOf(source) === r.kind).length)
      assert.ok(Array.isArray(s.providers))
    }
    const micro = sources.MICROMOBILITY
    assert.equal(micro.status, 'OK')
    assert.equal(micro.error, undefined)
    assert.ok(micro.providers.some((p: any) => p.id === 'sandbox-scoot' && p.status === 'OK'))

    const vehicles = results.filter((r: any) => r.kind === 'VEHICLE')
    assert.ok(vehicles.length > 0 && vehicles.length <= 20, 'limit 20 per source by default')
    const distances = vehicles.map((v: any) => v.distanceFromSearch)
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    )
    // As POST /micromobility answers them: a token for trip-capable providers.
    const scoot = vehicles.find((v: any) => v.provider.id === 'sandbox-scoot' && v.isAvailable)
    assert.ok(scoot?.vehicleToken && scoot.vehicle.type && scoot.location.latitude)

    const stations = results.filter((r: any) => r.kind === 'CARSHARING_STATION')
    assert.ok(stations.length > 0, 'sandbox-share has stations near Alexanderplatz')
    for (const s of stations) {
      assert.equal(s.provider.id, 'sandbox-share', 'car-sharing providers only, no rental')
      assert.match(s.placeId, /^p_[a-z0-9]+$/)
      assert.ok(s.distanceFromSearch <= 1500)
      assert.ok(s.name && s.coordinates.latitude)
    }

    for (const d of results.filter((r: any) => r.kind === 'DEPARTURE')) {
      assert.ok(d.line && d.headsign && d.scheduledTime && d.stop.stopId && d.provider.id)
    }
  })

  it('asks only the included sources, and applies limit per source', async () => {
    const res = await search({ include: ['MICROMOBILITY'], limit: 3, radiusMeters: 3000 })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(Object.keys(res.body.data.sources), ['MICROMOBILITY'])
    assert.equal(res.body.data.results.length, 3)
    assert.ok(res.body.data.results.every((r: any) => r.kind === 'VEHICLE'))
  })

  it('validates radius, limit, include and the location', async () => {
    assert.equal((await search({ radiusMeters: 5001 })).body.error.code, 'INVALID_REQUEST')
    assert.equal((await search({ limit: 101 })).body.error.code, 'INVALID_REQUEST')
    assert.equal((await search({ include: ['TAXI'] })).body.error.code, 'INVALID_REQUEST')
    assert.equal((await search({ include: [] })).body.error.code, 'INVALID_REQUEST')
    const loc = await h.api('POST', '/multimodal', t.secret, { location: { latitude: 95, longitude: 13 } })
    assert.equal(loc.status, 400)
    assert.equal(loc.body.error.code, 'INVALID_LOCATION')
    assert.equal((await h.api('POST', '/multimodal', t.secret, {})).body.error.details.location, 'is required')
  })

  it('needs a key with multimodal:read; publishable keys from allowed origins get CORS headers', async () => {
    assert.equal((await h.api('POST', '/multimodal', undefined, { location: ALEX })).status, 401)
    const res = await search({ include: ['MICROMOBILITY'] }, t.publishable, { origin: 'https://app.example' })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example')
    const other = await search({ include: ['MICROMOBILITY'] }, t.publishable, { origin: 'https://evil.example' })
    assert.equal(other.status, 403)
    assert.equal(other.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
  })
})

describe('POST /multimodal with failing providers', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('a failing provider fails its source, which still gives what the others found', async () => {
    const t = await createTenant(h)
    const res = await h.api(
      'POST',
      '/multimodal',
      t.test,
      { location: ALEX, radiusMeters: 1500 },
      { 'x-sandbox-scenario': 'provider-error:sandbox-scoot' },
    )
    assert.equal(res.status, 200, res.text)
    const micro = res.body.data.sources.MICROMOBILITY
    assert.equal(micro.status, 'FAILED')
    assert.equal(micro.error.code, 'PROVIDER_ERROR')
    assert.equal(res.body.data.sources.CARSHARING.status, 'OK')
    const scoot = micro.providers.find((p: any) => p.id === 'sandbox-scoot')
    assert.equal(scoot.status, 'FAILED')
    assert.ok(scoot.error.code && scoot.error.message)
    const vehicles = res.body.data.results.filter((r: any) => r.kind === 'VEHICLE')
    assert.ok(vehicles.length > 0, 'bikes still answer')
    assert.ok(vehicles.every((v: any) => v.provider.id !== 'sandbox-scoot'))
    assert.equal(micro.results, vehicles.length)
  })

  it('a source whose every provider fails is FAILED with its error; the request and other sources succeed', async () => {
    // Only sandbox providers: the scenario header reaches them all.
    const t = await createTenant(h, { providers: ['sandbox-share', 'sandbox-bike', 'sandbox-transit'] })
    const res = await h.api(
      'POST',
      '/multimodal',
      t.test,
      { location: ALEX, radiusMeters: 1500 },
      { 'x-sandbox-scenario': 'provider-error:sandbox-bike' },
    )
    assert.equal(res.status, 200, res.text)
    const bySource = res.body.data.sources
    assert.equal(bySource.MICROMOBILITY.status, 'FAILED')
    assert.equal(bySource.MICROMOBILITY.results, 0)
    assert.equal(bySource.MICROMOBILITY.error.code, 'PROVIDER_ERROR')
    assert.ok(bySource.MICROMOBILITY.error.message)
    // The provider that failed is listed, as in a source where only some failed.
    assert.deepEqual(
      bySource.MICROMOBILITY.providers.map((p: any) => [p.id, p.status, p.error.code]),
      [['sandbox-bike', 'FAILED', 'PROVIDER_ERROR']],
    )
    assert.equal(bySource.CARSHARING.status, 'OK')
    assert.ok(bySource.CARSHARING.results > 0)
    assert.ok(res.body.data.results.every((r: any) => r.kind !== 'VEHICLE'))
  })

  it('with every provider enabled: failing the providers that have vehicles here fails the source, and so does an untargeted scenario', async () => {
    // The default tenant also has the GBFS sample feeds (Oslo, Paris): they answer, with nothing near Berlin.
    const t = await createTenant(h)
    const ask = (scenario: string) =>
      h.api('POST', '/multimodal', t.test, { location: ALEX, radiusMeters: 1500 }, { 'x-sandbox-scenario': scenario })
    const aimed = await ask('provider-error:sandbox-scoot,provider-error:sandbox-bike')
    assert.equal(aimed.status, 200, aimed.text)
    const micro = aimed.body.data.sources.MICROMOBILITY
    assert.equal(micro.status, 'FAILED', JSON.stringify(micro))
    assert.equal(micro.error.code, 'PROVIDER_ERROR')
    assert.ok(
      micro.providers.some((p: any) => p.status === 'OK'),
      'the feeds that answered are still listed',
    )
    const everyone = await ask('provider-timeout')
    assert.equal(everyone.status, 200, everyone.text)
    for (const source of Object.values<any>(everyone.body.data.sources))
      assert.equal(source.status, 'TIMEOUT', JSON.stringify(source))
  })

  it('a provider that misses its deadline makes the source TIMEOUT', async () => {
    const t = await createTenant(h, { providers: ['sandbox-share', 'sandbox-scoot'] })
    const res = await h.api(
      'POST',
      '/multimodal',
      t.test,
      { location: ALEX, include: ['MICROMOBILITY', 'CARSHARING'] },
      { 'x-sandbox-scenario': 'provider-timeout:sandbox-share' },
    )
    assert.equal(res.status, 200, res.text)
    const bySource = res.body.data.sources
    assert.equal(bySource.CARSHARING.status, 'TIMEOUT')
    assert.equal(bySource.CARSHARING.error.code, 'TIMEOUT')
    assert.equal(bySource.MICROMOBILITY.status, 'OK')
  })
})

describe('GET /multimodal/tiles/{z}/{x}/{y}.mvt', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
  })
  after(() => h.close())

  const alex15 = tileOf(ALEX.latitude, ALEX.longitude, 15)
  const path = ({ z, x, y }: { z: number; x: number; y: number }) => `/multimodal/tiles/${z}/${x}/${y}.mvt`

  it('answers a vector tile with vehicles near Alexanderplatz at z 15, and the known layers', async () => {
    const res = await getTile(h, path(alex15), t.secret)
    assert.equal(res.status, 200, res.bytes.toString())
    assert.equal(res.headers['content-type'], 'application/vnd.mapbox-vector-tile')
    assert.match(String(res.headers['cache-control']), /max-age=15/)
    assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]+"$/)
    const tile = decode(res.bytes)
    // Empty layers are encoded too, but the decoder lists only layers with features.
    assert.ok(
      Object.keys(tile.layers).every((l) =>
        ['lines', 'transit-vehicles', 'vehicles', 'stations', 'stops', 'zones'].includes(l),
      ),
    )
    const vehicles = featuresOf(tile, 'vehicles')
    assert.ok(vehicles.length > 0, 'vehicles in the tile')
    const scoot = vehicles.find((f) => f.properties.provider === 'sandbox-scoot')
    assert.ok(scoot, 'a sandbox scooter')
    assert.equal(scoot.type, 1)
    assert.equal(scoot.properties.kind, 'VEHICLE')
    assert.equal(scoot.properties.vehicleType, 'SCOOTER')
    assert.equal(typeof scoot.properties.battery, 'number')
    assert.equal(typeof scoot.properties.id, 'string')
    // Every vehicle lies in the tile or its small buffer.
    for (const v of vehicles) {
      const gj = v.toGeoJSON(alex15.x, alex15.y, alex15.z)
      const [lon, lat] = (gj.geometry as any).coordinates
      assert.ok(Math.abs(lon - ALEX.longitude) < 0.02 && Math.abs(lat - ALEX.latitude) < 0.02, `${lon},${lat}`)
    }
    const zones = featuresOf(tile, 'zones')
    assert.ok(zones.length > 0, 'the service area covers Alexanderplatz')
    assert.ok(zones.every((z) => z.type === 3 && z.properties.kind === 'ZONE' && z.properties.zoneKind))
  })

  it('shows car stations where there are some', async () => {
    // sandbox-share stations lie within a few km of Alexanderplatz: a z 12 tile around it has some.
    const res = await getTile(h, path(tileOf(ALEX.latitude, ALEX.longitude, 12)), t.secret)
    assert.equal(res.status, 200)
    const stations = featuresOf(decode(res.bytes), 'stations')
    assert.ok(stations.length > 0)
    assert.ok(
      stations.some((s) => s.properties.modality === 'CAR_SHARING' && s.properties.provider === 'sandbox-share'),
    )
    assert.ok(stations.every((s) => s.properties.name && s.properties.kind))
  })

  it('keeps low zooms light: no stations or stops below their zoom', async () => {
    const res = await getTile(h, path(tileOf(ALEX.latitude, ALEX.longitude, 5)), t.secret)
    assert.equal(res.status, 200)
    const tile = decode(res.bytes)
    assert.equal(featuresOf(tile, 'stations').length, 0)
    assert.equal(featuresOf(tile, 'stops').length, 0)
    assert.equal(featuresOf(tile, 'vehicles').length, 0)
    const world = await getTile(h, path({ z: 0, x: 0, y: 0 }), t.secret)
    assert.equal(world.status, 200)
    assert.equal(featuresOf(decode(world.bytes), 'vehicles').length, 0)
  })

  it('refuses impossible tile coordinates with 400 INVALID_REQUEST in the envelope', async () => {
    for (const p of ['/multimodal/tiles/23/0/0.mvt', '/multimodal/tiles/2/4/0.mvt', '/multimodal/tiles/2/0/4.mvt']) {
      const res = await getTile(h, p, t.secret)
      assert.equal(res.status, 400, p)
      assert.equal(res.json.success, false)
      assert.equal(res.json.error.code, 'INVALID_REQUEST', p)
    }
    const x = await getTile(h, '/multimodal/tiles/3/8/1.mvt', t.secret)
    assert.match(x.json.error.details.x, /between 0 and 7/)
    assert.equal((await getTile(h, '/multimodal/tiles/-1/0/0.mvt', t.secret)).status, 400)
    assert.equal((await getTile(h, '/multimodal/tiles/a/0/0.mvt', t.secret)).status, 400)
    // One address per tile: no hex, sign, spaces or leading zeros.
    for (const p of ['0x1/0/0', '+1/0/0', '%201/0/0', '14/08802/5373', '1/0/1e0']) {
      const res = await getTile(h, `/multimodal/tiles/${p}.mvt`, t.secret)
      assert.equal(res.status, 400, p)
      assert.equal(res.json.error.code, 'INVALID_REQUEST', p)
    }
  })

  it('answers 304 to a matching If-None-Match, and the tile again to another', async () => {
    const first = await getTile(h, path(alex15), t.secret)
    const etag = String(first.headers.etag)
    const again = await getTile(h, path(alex15), t.secret, { 'if-none-match': etag })
    assert.equal(again.status, 304)
    assert.equal(again.bytes.length, 0)
    assert.equal(again.headers.etag, etag)
    assert.match(String(again.headers['cache-control']), /max-age=15/)
    const listed = await getTile(h, path(alex15), t.secret, { 'if-none-match': `"nope", W/${etag}` })
    assert.equal(listed.status, 304)
    const other = await getTile(h, path(alex15), t.secret, { 'if-none-match': '"something-else"' })
    assert.equal(other.status, 200)
    assert.ok(other.bytes.length > 0)
  })

  it('needs a key; publishable keys from allowed origins get CORS headers, other origins 403', async () => {
    assert.equal((await getTile(h, path(alex15), undefined)).status, 401)
    const allowed = await getTile(h, path(alex15), t.publishable, { origin: 'https://app.example' })
    assert.equal(allowed.status, 200)
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example')
    assert.match(String(allowed.headers.vary), /Origin/)
    assert.match(String(allowed.headers.vary), /Authorization/)
    const names = String(allowed.headers.vary).split(', ')
    assert.equal(new Set(names).size, names.length, `each name once: ${allowed.headers.vary}`)
    const other = await getTile(h, path(alex15), t.publishable, { origin: 'https://evil.example' })
    assert.equal(other.status, 403)
    assert.equal(other.json.error.code, 'FORBIDDEN')
    assert.equal(other.json.error.details.reason, 'ORIGIN_NOT_ALLOWED')
    assert.equal(other.headers['access-control-allow-origin'], undefined)
    const none = await getTile(h, path(alex15), t.publishable)
    assert.equal(none.status, 403)
  })

  it('is documented in the API document as a binary answer', async () => {
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
    const op = body.paths['/mobility-api/v2/multimodal/tiles/{z}/{x}/{y}.mvt']?.get
    assert.ok(op, Object.keys(body.paths).join(', '))
    assert.ok(op.responses['200'].content['application/vnd.mapbox-vector-tile'])
    assert.ok(op.responses['304'])
    assert.ok(body.paths['/mobility-api/v2/multimodal'].post)
  })
})

const kindOf = (source: string) =>
  ({ PUBLIC_TRANSPORT: 'DEPARTURE', MICROMOBILITY: 'VEHICLE', CARSHARING: 'CARSHARING_STATION' })[source]

describe('multimodal departures from a public-transport connector', () => {
  // The public-transport source through the PublicTransportConnector contract alone, with a stand-in connector.
  const now = new Date('2030-05-01T10:00:00Z')
  const stop = (id: string, metres: number, parentStation?: string): TransitStop & { distanceMeters: number } => ({
    id,
    name: `Stop ${id}`,
    latitude: ALEX.latitude,
    longitude: ALEX.longitude,
    modes: ['TRAM'],
    distanceMeters: metres,
    ...(parentStation ? { parentStation } : {}),
  })
  const departuresAt = (stopId: string, minutes: number[]) =>
    minutes.map((m) => ({
      tripId: `${stopId}-trip-${m}`,
      line: { routeId: 'm2', name: 'M2', mode: 'TRAM' as const },
      headsign: 'Heinersdorf',
      stopId,
      stopName: `Stop ${stopId}`,
      scheduled: new Date(now.getTime() + m * 60_000),
      cancelled: false,
      realtime: false,
    }))
  const connector = (fail = false): PublicTransportConnector => ({
    capabilities: {
      modalities: ['PUBLIC_TRANSPORT'],
      operations: ['STOPS', 'DEPARTURES'],
      stationBased: true,
      freeFloating: false,
      requiresStoredBooking: false,
    },
    stopsNear: async () => {
      if (fail) throw new ApiError('PROVIDER_ERROR')
      return [stop('station', 120), stop('platform-1', 100, 'station'), stop('far', 400)]
    },
    departures: async (stopId) => departuresAt(stopId, stopId === 'station' ? [7, 2, 12] : [5]),
    searchStops: async () => [],
    stopById: async () => undefined,
    journeys: async () => [],
  })
  const provider = (id: string, fail = false): Provider => ({
    entry: { id, name: id.toUpperCase(), connector: 'fake', environments: ['live'] },
    connector: connector(fail),
    status: 'ACTIVE',
  })
  const registryOf = (providers: Provider[]): Registry => ({
    all: () => providers,
    get: (id) => providers.find((p) => p.entry.id === id),
    ids: () => providers.map((p) => p.entry.id),
    stop: async () => {},
  })
  const callProvider = ((caller: Caller, p: any, _op: string, _budget: number, fn: any) =>
    fn(p.connector, { now: caller.now, language: 'en', scenarios: [] })) as unknown as CallProvider
  const caller = {
    tenant: { id: 'ten_1', providers: null, dataRetention: 'STANDARD' },
    environment: 'live',
    language: 'en',
    now,
    scenarios: [],
  } as unknown as Caller
  const vehicles = {
    search: async () => ({ results: [], pagination: { hasMore: false as const }, providers: [] }),
  }

  it('lists the next departures of the nearest stops in time order, a station once with its platforms', async () => {
    const multimodal = createMultimodal({ registry: registryOf([provider('transit')]), callProvider, vehicles })
    const res = await multimodal.search({ location: ALEX, include: ['PUBLIC_TRANSPORT'], limit: 3 }, caller)
    assert.deepEqual(res.sources, {
      PUBLIC_TRANSPORT: {
        status: 'OK',
        results: 3,
        providers: [{ id: 'transit', name: 'TRANSIT', status: 'OK' }],
      },
    })
    const items = res.results as any[]
    assert.deepEqual(
      items.map((d) => [d.kind, d.stop.stopId, d.scheduledTime.slice(11, 16)]),
      [
        ['DEPARTURE', 'transit:station', '10:02'],
        ['DEPARTURE', 'transit:far', '10:05'],
        ['DEPARTURE', 'transit:station', '10:07'],
      ],
    )
    assert.equal(items[0].distanceFromSearch, 120)
    assert.equal(items[0].line.name, 'M2')
    assert.equal(items[0].provider.id, 'transit')
    assert.equal(items[1].stop.name, 'Stop far')
  })

  it('one failing provider fails the source, which keeps what the others found; all failing: nothing', async () => {
    const some = createMultimodal({
      registry: registryOf([provider('a'), provider('b', true)]),
      callProvider,
      vehicles,
    })
    const partial = await some.search({ location: ALEX, include: ['PUBLIC_TRANSPORT'] }, caller)
    assert.equal(partial.sources.PUBLIC_TRANSPORT!.status, 'FAILED')
    assert.equal(partial.sources.PUBLIC_TRANSPORT!.providers.find((p) => p.id === 'b')?.status, 'FAILED')
    assert.equal(partial.sources.PUBLIC_TRANSPORT!.providers.find((p) => p.id === 'a')?.status, 'OK')
    assert.ok(partial.results.length > 0)
    assert.equal(partial.sources.PUBLIC_TRANSPORT!.results, partial.results.length)
    const all = createMultimodal({ registry: registryOf([provider('b', true)]), callProvider, vehicles })
    const failed = await all.search({ location: ALEX, include: ['PUBLIC_TRANSPORT'] }, caller)
    assert.equal(failed.sources.PUBLIC_TRANSPORT!.status, 'FAILED')
    assert.equal(failed.sources.PUBLIC_TRANSPORT!.error?.code, 'PROVIDER_ERROR')
    assert.deepEqual(failed.results, [])
  })

  it('a source past its deadline is TIMEOUT, the others answer', async () => {
    const slow = { search: () => new Promise<never>(() => {}) }
    const multimodal = createMultimodal({
      registry: registryOf([provider('transit')]),
      callProvider,
      vehicles: slow as any,
      sourceTimeoutMs: 50,
    })
    const res = await multimodal.search({ location: ALEX }, caller)
    const bySource = res.sources as Record<string, any>
    assert.equal(bySource.MICROMOBILITY.status, 'TIMEOUT')
    assert.equal(bySource.MICROMOBILITY.error?.code, 'TIMEOUT')
    assert.equal(bySource.PUBLIC_TRANSPORT.status, 'OK')
    assert.ok(res.results.length > 0)
  })

  it('draws stops in the tiles', async () => {
    const multimodal = createMultimodal({ registry: registryOf([provider('transit')]), callProvider, vehicles })
    const { x, y } = tileOf(ALEX.latitude, ALEX.longitude, 15)
    const tile = await multimodal.tiles(15, x, y, caller)
    const stops = featuresOf(decode(tile.bytes), 'stops')
    assert.equal(stops.length, 3)
    assert.ok(stops.every((s) => s.properties.kind === 'STOP' && s.properties.mode === 'TRAM'))
    assert.equal(tile.counts.stops, 3)
  })
})
