import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { GBFS_TTL_SECONDS } from '../../src/domain/micromobility/gbfs-out.ts'
import { assertOfficialGbfs } from '../helpers/gbfs-schemas.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'
import { startTompOperator, type TompOperator } from '../helpers/tomp-operator.ts'

/**
 * GBFS 3.0 out through the public API: manifest.json, gbfs.json and every file it lists, for the sandbox providers,
 * GBFS providers (MobilityData's 3.0 and 2.3 samples) and a TOMP operator, each file checked against the official
 * GBFS 3.0 schemas; vehicle ids rotated after a trip; keys, origins and the errors.
 */

const FIXTURES = new URL('../../src/connectors/gbfs/fixtures/', import.meta.url)
const ALEX = { latitude: 52.5219, longitude: 13.4132 }
const ORIGIN = 'https://map.example'
const MICRO_IDS = ['sandbox-scoot', 'sandbox-bike', 'gbfs-paris', 'gbfs-oslo', 'freebike']

function providersFile(operatorUrl: string): string {
  const both = ['live', 'test']
  const file = join(mkdtempSync(join(tmpdir(), 'gbfs-out-')), 'providers.json')
  const providers = [
    { id: 'sandbox-scoot', name: 'Sandbox Scoot', connector: 'sandbox', environments: both, countries: ['DE'] },
    {
      id: 'sandbox-bike',
      name: 'Sandbox Bike',
      connector: 'sandbox',
      environments: both,
      countries: ['DE'],
      websiteUrl: 'https://bike.sandbox.example',
      contact: { email: 'ride@bike.sandbox.example', phone: '+49 30 1234562' },
    },
    { id: 'sandbox-rent', name: 'Sandbox Rent', connector: 'sandbox', environments: both },
    {
      id: 'gbfs-paris',
      name: 'GBFS 3.0 sample',
      connector: 'gbfs',
      environments: both,
      countries: ['FR'],
      options: { url: new URL('v3.0/gbfs.json', FIXTURES).href, localFeeds: true },
    },
    {
      id: 'gbfs-oslo',
      name: 'GBFS 2.3 sample',
      connector: 'gbfs',
      environments: both,
      countries: ['NO'],
      options: { url: new URL('v2.3/gbfs.json', FIXTURES).href, localFeeds: true },
    },
    {
      id: 'freebike',
      name: 'FreeBike Berlin',
      connector: 'tomp',
      environments: both,
      countries: ['DE'],
      options: { url: operatorUrl, apiKey: 'freebike-key', maasId: 'mas-test' },
    },
  ]
  writeFileSync(file, JSON.stringify({ providers }))
  return file
}

const path = (url: string) => {
  const u = new URL(url)
  return `${u.pathname}${u.search}`
}

describe('GBFS 3.0 out', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  let operator: TompOperator
  before(async () => {
    operator = await startTompOperator({ clock: () => (h ? h.clock() : new Date()), apiKey: 'freebike-key' })
    h = await startHarness({ env: { PROVIDERS_FILE: providersFile(operator.url) } })
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })
  after(async () => {
    await h.close()
    await operator.close()
  })

  const gbfs = (rest: string, key = t.secret, headers: Record<string, string> = {}) =>
    h.request({ url: `/mobility-api/v2/gbfs/${rest}`, key, headers })

  /** Every file of a provider's gbfs.json, each checked against its official schema. */
  async function readSystem(providerId: string, key = t.secret) {
    const discovery = await gbfs(`${providerId}/gbfs.json`, key)
    assert.equal(discovery.status, 200, discovery.text)
    assertOfficialGbfs('gbfs', discovery.body, `${providerId}: `)
    const files: Record<string, any> = {}
    for (const feed of discovery.body.data.feeds) {
      assert.equal(new URL(feed.url).pathname, `/mobility-api/v2/gbfs/${providerId}/${feed.name}.json`)
      const res = await h.request({ url: path(feed.url), key })
      assert.equal(res.status, 200, `${providerId} ${feed.name}: ${res.text}`)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      assertOfficialGbfs(feed.name, res.body, `${providerId}: `)
      files[feed.name] = res.body
    }
    return { discovery: discovery.body, files, names: discovery.body.data.feeds.map((f: any) => f.name) }
  }

  it('manifest.json lists one system per micromobility provider of the tenant, with absolute gbfs.json URLs', async () => {
    const res = await gbfs('manifest.json')
    assert.equal(res.status, 200, res.text)
    assertOfficialGbfs('manifest', res.body)
    assert.equal(res.body.version, '3.0')
    assert.equal(res.body.ttl, 0)
    assert.match(res.body.last_updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const datasets = res.body.data.datasets
    assert.deepEqual(datasets.map((d: any) => d.system_id).sort(), [...MICRO_IDS].sort(), 'no car provider')
    for (const d of datasets) {
      assert.deepEqual(d.versions, [
        { version: '3.0', url: `http://localhost:80/mobility-api/v2/gbfs/${d.system_id}/gbfs.json` },
      ])
    }
    assert.equal(res.headers['cache-control'], 'private, no-cache')
    assert.match(String(res.headers.vary), /Authorization/)
    // Without TRUST_PROXY, what a client says in X-Forwarded-* does not change the URLs.
    const spoofed = await gbfs('manifest.json', t.secret, {
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    })
    assert.match(spoofed.body.data.datasets[0].versions[0].url, /^http:\/\/localhost:80\//)
  })

  it('sandbox-scoot: every file valid; vehicles as search has them, ids rotated, prices and zones', async () => {
    const { names, files } = await readSystem('sandbox-scoot')
    assert.deepEqual(names, [
      'system_information',
      'vehicle_types',
      'vehicle_status',
      'geofencing_zones',
      'system_pricing_plans',
    ])
    const info = files.system_information.data
    assert.equal(info.system_id, 'sandbox-scoot')
    assert.equal(info.timezone, 'Europe/Berlin')
    assert.equal(info.manifest_url, 'http://localhost:80/mobility-api/v2/gbfs/manifest.json')
    const vehicles = files.vehicle_status.data.vehicles
    assert.equal(vehicles.length, 400)
    const near = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 300,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    const published = new Set(vehicles.map((v: any) => `${v.lat},${v.lon},${!v.is_disabled}`))
    for (const v of near.body.data.results) {
      assert.ok(published.has(`${v.location.latitude},${v.location.longitude},${v.isAvailable}`), v.vehicleId)
    }
    const ids = new Set(vehicles.map((v: any) => v.vehicle_id))
    assert.equal(ids.size, vehicles.length, 'ids are unique')
    for (const v of vehicles) {
      assert.doesNotMatch(v.vehicle_id, /scoot/, 'the provider id does not show')
      assert.ok(v.current_fuel_percent >= 0 && v.current_fuel_percent <= 1)
      assert.equal(v.rental_uris, undefined, 'no links that name the vehicle')
    }
    const types = files.vehicle_types.data.vehicle_types
    assert.ok(types.every((t: any) => t.form_factor === 'scooter_standing' && t.propulsion_type === 'electric'))
    assert.ok(vehicles.every((v: any) => types.some((t: any) => t.vehicle_type_id === v.vehicle_type_id)))
    const plans = files.system_pricing_plans.data.plans
    assert.deepEqual(plans.map((p: any) => [p.plan_id, p.price, p.per_min_pricing]).sort(), [
      ['scoot-night', 0.5, [{ start: 0, rate: 0.19, interval: 1 }]],
      ['scoot-standard', 1, [{ start: 0, rate: 0.25, interval: 1 }]],
    ])
    const zones = files.geofencing_zones.data
    const kinds = zones.geofencing_zones.features.map((f: any) => f.properties.name[0].text)
    assert.equal(kinds.at(-1), 'Berlin city centre service area', 'the service area last: restrictions inside win')
    assert.deepEqual(zones.global_rules, [
      { ride_start_allowed: false, ride_end_allowed: false, ride_through_allowed: true },
    ])
  })

  it('sandbox-bike: virtual stations with their bikes; links that name a bike are left out', async () => {
    const { names, files } = await readSystem('sandbox-bike')
    assert.ok(names.includes('station_information') && names.includes('station_status'))
    const stations = files.station_information.data.stations
    assert.equal(stations.length, 6)
    assert.ok(stations.every((s: any) => s.is_virtual_station === true && s.station_area.type === 'MultiPolygon'))
    const vehicles = files.vehicle_status.data.vehicles
    assert.equal(vehicles.length, 250)
    const docked = vehicles.filter((v: any) => v.station_id)
    assert.ok(docked.length > 50 && docked.length < 200)
    const status = files.station_status.data.stations
    const total = status.reduce((n: number, s: any) => n + s.num_vehicles_available + s.num_vehicles_disabled, 0)
    assert.equal(total, docked.length, 'every docked bike is counted at its station')
    assert.ok(
      vehicles.every((v: any) => v.rental_uris === undefined),
      'the sandbox links name the bike',
    )
    const info = files.system_information.data
    assert.equal(info.url, 'https://bike.sandbox.example')
    assert.equal(info.email, 'ride@bike.sandbox.example')
    assert.equal(info.phone_number, '+49301234562')
    const human = files.vehicle_types.data.vehicle_types.find((t: any) => t.propulsion_type === 'human')
    assert.equal(human.max_range_meters, undefined, 'no range for a bicycle without a motor')
  })

  it('a GBFS 3.0 provider: stations, zones and plans read from its feeds, published again', async () => {
    const { names, files } = await readSystem('gbfs-paris')
    for (const name of ['station_information', 'station_status', 'geofencing_zones', 'system_pricing_plans']) {
      assert.ok(names.includes(name), name)
    }
    const connector = h.runtimes[0].registry.get('gbfs-paris')!.connector as any
    const fleet = await connector.fleet({ signal: AbortSignal.timeout(5000) })
    assert.equal(files.vehicle_status.data.vehicles.length, fleet.vehicles.length)
    const links = files.vehicle_status.data.vehicles.filter((v: any) => v.rental_uris)
    assert.ok(links.length > 0, 'links without the vehicle id are kept')
    assert.equal(files.system_information.data.timezone, 'Europe/Paris')
  })

  it('a GBFS 2.3 provider and a TOMP operator: valid 3.0 files', async () => {
    const oslo = await readSystem('gbfs-oslo')
    assert.ok(oslo.files.vehicle_status.data.vehicles.length > 0)
    const tomp = await readSystem('freebike')
    const vehicles = tomp.files.vehicle_status.data.vehicles
    const connector = h.runtimes[0].registry.get('freebike')!.connector as any
    const fleet = await connector.fleet({ signal: AbortSignal.timeout(5000), language: 'en' })
    assert.equal(vehicles.length, fleet.vehicles.length)
    assert.ok(tomp.names.includes('geofencing_zones'))
    const forms = new Set(tomp.files.vehicle_types.data.vehicle_types.map((t: any) => t.form_factor))
    assert.deepEqual([...forms].sort(), ['bicycle', 'cargo_bicycle', 'moped', 'scooter_standing'])
  })

  it('ttl counts down to the next read; last_updated is when the provider was read', async () => {
    const first = await gbfs('sandbox-scoot/vehicle_status.json')
    h.clock.advance(GBFS_TTL_SECONDS * 1000 + 1000)
    const fresh = await gbfs('sandbox-scoot/vehicle_status.json')
    assert.equal(fresh.body.ttl, GBFS_TTL_SECONDS)
    assert.equal(fresh.body.last_updated, new Date(h.clock().getTime()).toISOString().replace(/\.\d{3}Z$/, 'Z'))
    assert.equal(fresh.headers['cache-control'], `private, max-age=${GBFS_TTL_SECONDS}`)
    assert.ok(first.body.last_updated < fresh.body.last_updated)
    if (h.shape === 'embedded') {
      h.clock.advance(10_000)
      const later = await gbfs('sandbox-scoot/vehicle_status.json')
      assert.equal(later.body.ttl, GBFS_TTL_SECONDS - 10)
      assert.equal(later.body.last_updated, fresh.body.last_updated, 'the same read')
    }
  })

  it('vehicle_id rotates after a trip (and only then), the same on every instance; another environment has other ids', async () => {
    h.clock.advance(GBFS_TTL_SECONDS * 1000 + 1000)
    const byPosition = (vehicles: any[]) => new Map(vehicles.map((v) => [`${v.lat},${v.lon}`, v.vehicle_id]))
    const before = (await gbfs('sandbox-scoot/vehicle_status.json', t.secret, {})).body.data.vehicles
    for (let i = 0; i < h.apps.length; i++) {
      const other = await h.request({
        url: '/mobility-api/v2/gbfs/sandbox-scoot/vehicle_status.json',
        key: t.secret,
        instance: i,
      })
      assert.deepEqual(other.body.data.vehicles, before, `instance ${i} publishes the same ids`)
    }
    const testIds = (await gbfs('sandbox-scoot/vehicle_status.json', t.test)).body.data.vehicles.map(
      (v: any) => v.vehicle_id,
    )
    assert.equal(testIds.filter((id: string) => before.some((v: any) => v.vehicle_id === id)).length, 0)

    const search = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 1000,
      providers: ['sandbox-scoot'],
      limit: 50,
    })
    const chosen = search.body.data.results.find((v: any) => v.isAvailable && v.vehicleToken)
    const start = `${chosen.location.latitude},${chosen.location.longitude}`
    const oldId = byPosition(before).get(start)
    assert.ok(oldId, 'the vehicle is in the feed where search shows it')
    const trip = await h.api('POST', '/micromobility/trips', t.secret, {
      action: 'START',
      vehicleToken: chosen.vehicleToken,
    })
    assert.equal(trip.status, 201, trip.text)
    h.clock.advance(GBFS_TTL_SECONDS * 1000 + 1000)
    const riding = (await gbfs('sandbox-scoot/vehicle_status.json')).body.data.vehicles
    assert.equal(riding.length, before.length - 1, 'a vehicle in a ride is not published')
    const end = { latitude: 52.5251, longitude: 13.4102 }
    const ended = await h.api('POST', `/micromobility/trips/${trip.body.data.tripId}/end`, t.secret, {
      endLocation: end,
    })
    assert.equal(ended.status, 200, ended.text)
    h.clock.advance(GBFS_TTL_SECONDS * 1000 + 1000)
    const after = (await gbfs('sandbox-scoot/vehicle_status.json')).body.data.vehicles
    assert.equal(after.length, before.length)
    const newId = byPosition(after).get(`${end.latitude},${end.longitude}`)
    assert.ok(newId && newId !== oldId, 'a new id where the trip ended')
    assert.ok(!after.some((v: any) => v.vehicle_id === oldId), 'the old id is gone')
    const kept = before.filter((v: any) => v.vehicle_id !== oldId).map((v: any) => v.vehicle_id)
    assert.deepEqual(
      after.map((v: any) => v.vehicle_id).filter((id: string) => id !== newId),
      kept,
      'the vehicles that stood still keep their ids',
    )
  })

  it('publishable keys from an allowed origin read the feeds with CORS headers; other origins are refused', async () => {
    const ok = await gbfs('sandbox-bike/gbfs.json', t.publishable, { origin: ORIGIN })
    assert.equal(ok.status, 200, ok.text)
    assert.equal(ok.headers['access-control-allow-origin'], ORIGIN)
    const bad = await gbfs('sandbox-bike/gbfs.json', t.publishable, { origin: 'https://evil.example' })
    assert.equal(bad.status, 403)
    assert.equal(bad.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
    const none = await h.request({ url: '/mobility-api/v2/gbfs/manifest.json' })
    assert.equal(none.status, 401)
    assert.equal(none.body.error.code, 'AUTHENTICATION_REQUIRED')
  })

  it('404 in the envelope for what is not a system or file here; 400 for a Host that is not one', async () => {
    const limited = await createTenant(h, { providers: ['sandbox-bike', 'sandbox-rent'] })
    const manifest = await gbfs('manifest.json', limited.secret)
    assert.deepEqual(
      manifest.body.data.datasets.map((d: any) => d.system_id),
      ['sandbox-bike'],
    )
    for (const [rest, key] of [
      ['nowhere/gbfs.json', t.secret],
      ['sandbox-rent/gbfs.json', t.secret],
      ['sandbox-scoot/gbfs.json', limited.secret],
      ['sandbox-scoot/vehicle_status.json', limited.secret],
    ] as const) {
      const res = await gbfs(rest, key)
      assert.equal(res.status, 404, rest)
      assert.equal(res.body.success, false)
      assert.equal(res.body.error.code, 'NOT_FOUND')
      assert.equal(res.body.error.details.resource, 'gbfsSystem')
    }
    const unpublished = await gbfs('sandbox-scoot/station_information.json')
    assert.equal(unpublished.status, 404)
    assert.equal(unpublished.body.error.details.reason, 'FEED_NOT_PUBLISHED')
    const unknown = await gbfs('sandbox-scoot/free_bike_status.json')
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.error.details.resource, 'gbfsFeed')
    const host = await gbfs('sandbox-scoot/gbfs.json', t.secret, { host: 'evil.example/x?' })
    assert.equal(host.status, 400)
    assert.equal(host.body.error.code, 'INVALID_REQUEST')
  })

  it('a provider that fails answers its error (test scenarios are never answered from a kept read)', async () => {
    const res = await gbfs('sandbox-scoot/vehicle_status.json', t.test, {
      'x-sandbox-scenario': 'provider-error:sandbox-scoot',
    })
    assert.equal(res.status, 500)
    assert.equal(res.body.error.code, 'PROVIDER_ERROR')
    const timeout = await gbfs('sandbox-scoot/gbfs.json', t.test, {
      'x-sandbox-scenario': 'provider-timeout:sandbox-scoot',
    })
    assert.equal(timeout.status, 504)
    assert.equal(timeout.body.error.code, 'TIMEOUT')
  })

  it('the API document has the three operations under the GBFS tag, with a curl example', async () => {
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
    const ops = [
      body.paths['/mobility-api/v2/gbfs/manifest.json'].get,
      body.paths['/mobility-api/v2/gbfs/{providerId}/gbfs.json'].get,
      body.paths['/mobility-api/v2/gbfs/{providerId}/{feed}.json'].get,
    ]
    assert.deepEqual(
      ops.map((o) => o.operationId),
      ['getGbfsManifest', 'getGbfsDiscovery', 'getGbfsFeed'],
    )
    for (const o of ops) {
      assert.deepEqual(o.tags, ['GBFS'])
      assert.match(o.description, /curl -H "Authorization: Bearer/)
      assert.ok(o.responses['200'] && o.responses['4XX'])
    }
  })
})

describe('GBFS out behind a proxy (TRUST_PROXY)', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness({ env: { TRUST_PROXY: 'true' } })
    t = await createTenant(h)
  })
  after(() => h.close())

  it('builds the absolute URLs from X-Forwarded-Host and -Proto, which a consumer then follows', async () => {
    const headers = { 'x-forwarded-host': 'mobility.example.com', 'x-forwarded-proto': 'https' }
    const manifest = await h.request({ url: '/mobility-api/v2/gbfs/manifest.json', key: t.secret, headers })
    assert.equal(manifest.status, 200, manifest.text)
    const bike = manifest.body.data.datasets.find((d: any) => d.system_id === 'sandbox-bike')
    assert.equal(bike.versions[0].url, 'https://mobility.example.com/mobility-api/v2/gbfs/sandbox-bike/gbfs.json')
    const discovery = await h.request({ url: path(bike.versions[0].url), key: t.secret, headers })
    for (const feed of discovery.body.data.feeds) {
      assert.ok(feed.url.startsWith('https://mobility.example.com/mobility-api/v2/gbfs/sandbox-bike/'), feed.url)
    }
    const info = await h.request({ url: path(discovery.body.data.feeds[0].url), key: t.secret, headers })
    assert.equal(info.body.data.manifest_url, 'https://mobility.example.com/mobility-api/v2/gbfs/manifest.json')
  })
})
