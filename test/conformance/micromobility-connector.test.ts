import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MicroVehicle, PricingPlan, Zone, ZoneRules } from '../../src/api/micromobility/schemas.ts'
import { DeepLinks } from '../../src/api/shared/schemas.ts'
import { SANDBOX_PROFILES, SANDBOX_SCENARIOS } from '../../src/connectors/sandbox/index.ts'
import {
  isMicromobilityConnector,
  type MicromobilityConnector,
  type ProviderMicroVehicle,
  type ProviderZone,
  type Scenario,
} from '../../src/connectors/types.ts'
import { distanceMeters } from '../../src/platform/geo.ts'
import {
  buildConnector,
  type ConnectorSetup,
  type KvFactory,
  registryOf,
  rejectsWith,
  validator,
} from '../helpers/connectors.ts'
import { testRedis } from '../helpers/redis.ts'

// ---------------------------------------------------------------------------------------------------------------
// Set-up

const T0 = Date.parse('2031-05-05T08:00:00.000Z')
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const BERLIN = { latitude: 52.52, longitude: 13.405 }
const ALEXANDERPLATZ = { latitude: 52.5219, longitude: 13.4132 }
const HAUPTBAHNHOF = { latitude: 52.5251, longitude: 13.3694 }
const FLEET_SIZE = { 'sandbox-scoot': 400, 'sandbox-bike': 250 }
const RIDER = { email: 'ada@example.com', name: 'Ada Lovelace' }

const check = {
  vehicle: validator(MicroVehicle, 'MicromobilityVehicle'),
  plan: validator(PricingPlan, 'PricingPlan'),
  deepLinks: validator(DeepLinks, 'DeepLinks'),
  zone: validator(Zone, 'Zone'),
  rules: validator(ZoneRules, 'ZoneRules'),
}

type MicroId = 'sandbox-scoot' | 'sandbox-bike'

interface Setup extends ConnectorSetup<MicromobilityConnector> {
  providerId: MicroId
}

/** Builds a sandbox provider through the registry, as the service does; `shared` makes a second instance. */
function build(
  id: MicroId,
  options: Record<string, unknown> = {},
  shared?: Pick<Setup, 'clock' | 'kv'>,
  makeKv?: KvFactory,
): Setup {
  const kind = { is: isMicromobilityConnector, name: 'micromobility' }
  return { providerId: id, ...buildConnector(id, kind, { options, shared, makeKv, start: T0 }) }
}

/** A second instance of the same provider: same store, same clock. */
const twin = (s: Setup) => build(s.providerId, {}, { kv: s.kv, clock: s.clock })

const scenario = (name: string, target?: string): Scenario[] => [{ name, ...(target ? { target } : {}) }]

const notAvailable = { reason: 'VEHICLE_NOT_AVAILABLE' }
const rejected = { reason: 'VEHICLE_REJECTED' }

/** The vehicle as the API shows it (spec 2.4), to validate against the schema. */
const asApiVehicle = (providerId: string, v: ProviderMicroVehicle) => ({
  vehicleId: v.vehicleId,
  vehicle: { type: v.type, propulsionType: v.propulsionType, name: v.name },
  location: { latitude: v.latitude, longitude: v.longitude, lastUpdated: v.lastUpdated },
  isAvailable: v.isAvailable,
  ...(v.batteryPercent === undefined ? {} : { batteryPercent: v.batteryPercent }),
  provider: { id: providerId, name: providerId },
  ...(v.pricingPlan ? { pricingPlan: v.pricingPlan } : {}),
  ...(v.deepLinks ? { deepLinks: v.deepLinks } : {}),
})

// GeoJSON, checked independently of the implementation.
type Pos = [number, number]
function checkRing(ring: unknown, exterior: boolean, where: string): Pos[] {
  assert.ok(Array.isArray(ring) && ring.length >= 4, `${where}: a ring has at least four positions`)
  for (const p of ring) {
    assert.ok(Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'number' && Number.isFinite(x)))
    assert.ok(Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90, `${where}: [longitude, latitude]`)
    // Berlin: longitude first.
    assert.ok(p[0] > 13 && p[0] < 14 && p[1] > 52 && p[1] < 53, `${where}: ${p} is in Berlin`)
  }
  assert.deepEqual(ring[0], ring[ring.length - 1], `${where}: the ring is closed`)
  let area = 0
  for (let i = 0; i < ring.length - 1; i++) area += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  assert.ok(exterior ? area > 0 : area < 0, `${where}: right-hand rule (exterior counterclockwise)`)
  return ring as Pos[]
}

function polygonsOf(zone: ProviderZone): Pos[][][] {
  const { type, coordinates } = zone.geometry
  const polygons = (type === 'Polygon' ? [coordinates] : coordinates) as unknown[][]
  assert.ok(polygons.length > 0)
  return polygons.map((rings, i) => {
    assert.ok(Array.isArray(rings) && rings.length > 0, `${zone.id}: polygon ${i} has rings`)
    return rings.map((ring, j) => checkRing(ring, j === 0, `${zone.id} polygon ${i} ring ${j}`))
  })
}

function inside(zone: ProviderZone, p: { latitude: number; longitude: number }) {
  const inRing = (ring: Pos[]) => {
    let result = false
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]
      const [xj, yj] = ring[j]
      if (yi > p.latitude !== yj > p.latitude && p.longitude < ((xj - xi) * (p.latitude - yi)) / (yj - yi) + xi) {
        result = !result
      }
    }
    return result
  }
  return polygonsOf(zone).some(([outer, ...holes]) => inRing(outer) && !holes.some(inRing))
}

/** Rejects once `promise` has not settled within `ms`; answers whether it settled. */
async function settlesWithin(promise: Promise<unknown>, ms: number) {
  let settled = false
  promise.then(
    () => {
      settled = true
    },
    () => {
      settled = true
    },
  )
  await new Promise((resolve) => setTimeout(resolve, ms))
  return settled
}

// ---------------------------------------------------------------------------------------------------------------
// The shared suite

/** What every sandbox micromobility connector must do, whatever its profile. */
export function microConnectorSuite(
  name: string,
  make: (options?: Record<string, unknown>) => Setup,
  settings: { skip?: string } = {},
) {
  describe(`MicromobilityConnector conformance: ${name}`, { skip: settings.skip }, () => {
    it('declares the capabilities of its profile; trips exactly when it has TRIPS', () => {
      const s = make()
      const profile = s.providerId === 'sandbox-scoot' ? 'scoot' : 'bike'
      const operations: string[] = s.connector.capabilities.operations
      assert.deepEqual(s.connector.capabilities, SANDBOX_PROFILES[profile])
      assert.equal(s.connector.trips !== undefined, operations.includes('TRIPS'))
    })

    it('fleet: valid shapes, around Berlin, unique ids, priced, reported now; a stable version', async () => {
      const s = make()
      const snapshot = await s.connector.fleet(s.ctx())
      assert.equal(typeof snapshot.version, 'string')
      assert.ok(snapshot.version.length > 0)
      assert.equal(snapshot.vehicles.length, FLEET_SIZE[s.providerId])
      const ids = new Set<string>()
      for (const v of snapshot.vehicles) {
        check.vehicle(asApiVehicle(s.providerId, v), v.vehicleId)
        assert.ok(!ids.has(v.vehicleId), `${v.vehicleId} once`)
        ids.add(v.vehicleId)
        assert.match(v.vehicleId, /^(scoot|bike)-\d{4}$/)
        assert.ok(distanceMeters(v, BERLIN) <= 6_100, `${v.vehicleId} within 6 km of the centre`)
        assert.equal(v.lastUpdated, s.clock().toISOString())
        assert.ok(v.pricingPlan, 'every vehicle has a pricing plan')
        check.plan(v.pricingPlan)
        assert.equal(v.pricingPlan.currency, 'EUR')
        assert.ok(v.pricingPlan.unlockFee.amount > 0 && v.pricingPlan.perMinuteRate.amount > 0)
        if (v.batteryPercent !== undefined) {
          assert.ok(Number.isInteger(v.batteryPercent) && v.batteryPercent >= 0 && v.batteryPercent <= 100)
        }
        if (v.deepLinks) check.deepLinks(v.deepLinks)
      }
      const unavailable = snapshot.vehicles.filter((v) => !v.isAvailable).length
      assert.ok(unavailable >= 1, 'a few vehicles are in maintenance')
      assert.ok(unavailable < snapshot.vehicles.length / 10, `${unavailable} unavailable`)
      const again = await s.connector.fleet(s.ctx())
      assert.equal(again.version, snapshot.version, 'nothing changed, same version')
      assert.deepEqual(again, snapshot)
      s.clock.advance(MINUTE)
      const later = await s.connector.fleet(s.ctx())
      assert.equal(later.version, snapshot.version)
      // Nothing changed, so vehicles still report when their state was last known to change.
      assert.deepEqual(later, snapshot)
    })

    it('is deterministic across builds; seed and fleetSize options', async () => {
      const a = await make().connector.fleet(make().ctx())
      const s = make()
      const b = await s.connector.fleet(s.ctx())
      assert.deepEqual(b, a)
      const small = make({ fleetSize: 12 })
      const first = await small.connector.fleet(small.ctx())
      assert.equal(first.vehicles.length, 12)
      assert.deepEqual(first.vehicles, a.vehicles.slice(0, 12), 'a smaller fleet keeps the first vehicles')
      assert.notEqual(first.version, a.version)
      const other = make({ seed: 'another-seed' })
      const seeded = await other.connector.fleet(other.ctx())
      assert.equal(seeded.vehicles.length, a.vehicles.length)
      assert.notDeepEqual(
        seeded.vehicles.map((v) => [v.latitude, v.longitude]),
        a.vehicles.map((v) => [v.latitude, v.longitude]),
      )
      assert.notEqual(seeded.version, a.version)
      const numeric = make({ seed: 42 })
      assert.deepEqual(
        await numeric.connector.fleet(numeric.ctx()),
        await make({ seed: 42 }).connector.fleet(numeric.ctx()),
      )
    })

    it('zones: valid GeoJSON with rules; every vehicle parked inside the service area, none where parking is banned', async () => {
      const s = make()
      const zones = await s.connector.zones(s.ctx())
      const provider = { id: s.providerId, name: s.providerId }
      for (const zone of zones) {
        check.zone({ ...zone, provider }, zone.id)
        assert.ok(zone.rules.length > 0)
        for (const r of zone.rules) check.rules(r)
        polygonsOf(zone)
      }
      assert.equal(new Set(zones.map((z) => z.id)).size, zones.length, 'unique zone ids')
      const kind = (k: ProviderZone['kind']) => {
        const zone = zones.find((z) => z.kind === k)
        assert.ok(zone, `a ${k} zone`)
        return zone
      }
      const area = kind('SERVICE_AREA')
      assert.ok(area.rules.every((r) => r.rideStartAllowed && r.rideEndAllowed && r.rideThroughAllowed))
      const noParking = kind('NO_PARKING')
      assert.ok(noParking.rules.every((r) => !r.rideEndAllowed && r.rideThroughAllowed))
      assert.ok(inside(noParking, { latitude: 52.5163, longitude: 13.379 }), 'Pariser Platz')
      const slow = kind('SLOW')
      assert.ok(slow.rules.every((r) => r.maximumSpeedKph === 6))
      assert.ok(inside(slow, ALEXANDERPLATZ))
      const noRiding = kind('NO_RIDING')
      assert.ok(noRiding.rules.every((r) => !r.rideStartAllowed && !r.rideEndAllowed && !r.rideThroughAllowed))
      assert.ok(inside(area, BERLIN) && inside(area, HAUPTBAHNHOF) && inside(area, ALEXANDERPLATZ))
      assert.ok(!inside(area, { latitude: 52.3667, longitude: 13.5033 }), 'BER airport is outside')

      const { vehicles } = await s.connector.fleet(s.ctx())
      for (const v of vehicles) {
        assert.ok(inside(area, v), `${v.vehicleId} inside the service area`)
        assert.ok(!inside(noParking, v) && !inside(noRiding, v), `${v.vehicleId} parked where parking is allowed`)
      }
      const german = await s.connector.zones(s.ctx({ language: 'de-DE' }))
      assert.deepEqual(
        german.map((z) => z.geometry),
        zones.map((z) => z.geometry),
      )
      assert.notDeepEqual(
        german.map((z) => z.name),
        zones.map((z) => z.name),
        'names in German',
      )
    })

    it('scenario provider-error: every call fails; a scenario for another provider changes nothing', async () => {
      const s = make()
      const failing = s.ctx({ scenarios: scenario('provider-error', s.providerId) })
      await rejectsWith(s.connector.fleet(failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
      await rejectsWith(s.connector.zones(failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
      await rejectsWith(s.connector.fleet(s.ctx({ scenarios: scenario('provider-error') })), 'PROVIDER_ERROR')
      const trips = s.connector.trips
      if (trips) {
        await rejectsWith(trips.reserve('scoot-0001', RIDER, failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
        await rejectsWith(trips.start('scoot-0001', undefined, RIDER, failing), 'PROVIDER_ERROR')
        await rejectsWith(trips.command('SC-0000000000', 'HONK', failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
        await rejectsWith(trips.end('SC-0000000000', undefined, failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
        await rejectsWith(trips.release('SC-0000000000', failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
      }
      const elsewhere = s.ctx({ scenarios: [...scenario('provider-error', 'sandbox-rent'), ...scenario('x', 'y')] })
      assert.equal((await s.connector.fleet(elsewhere)).vehicles.length, FLEET_SIZE[s.providerId])
      assert.ok((await s.connector.zones(elsewhere)).length >= 4)
    })

    it('scenario provider-timeout: the call never answers until the caller gives up, then rejects', async () => {
      const s = make()
      const controller = new AbortController()
      const ctx = s.ctx({ scenarios: scenario('provider-timeout', s.providerId), signal: controller.signal })
      const fleet = s.connector.fleet(ctx)
      const zones = s.connector.zones(ctx)
      assert.equal(await settlesWithin(fleet, 40), false, 'still waiting')
      controller.abort()
      await rejectsWith(fleet, 'TIMEOUT')
      await rejectsWith(zones, 'TIMEOUT')
      const aborted = new AbortController()
      aborted.abort()
      await rejectsWith(s.connector.fleet(s.ctx({ signal: aborted.signal })), 'TIMEOUT')
    })

    it('options latencyMs and failureRate as for cars; wrong options are reported', async () => {
      const slow = make({ latencyMs: 40 })
      const started = performance.now()
      await slow.connector.zones(slow.ctx())
      assert.ok(performance.now() - started >= 35, 'latency applies')
      const failing = make({ failureRate: 1 })
      await rejectsWith(failing.connector.fleet(failing.ctx()), 'PROVIDER_ERROR', { reason: 'SIMULATED_FAILURE' })
      const s = make()
      for (const options of [
        { fleetSize: 0 },
        { fleetSize: 2.5 },
        { fleetSize: '10' },
        { fleetSize: 100_000 },
        { seed: '' },
        { seed: { x: 1 } },
        { latencyMs: -1 },
        { failureRate: 2 },
      ]) {
        const { registry, problems } = registryOf(s.providerId, options, s.kv, s.clock)
        assert.equal(problems.length, 1, JSON.stringify(options))
        assert.equal(registry.get(s.providerId)?.status, 'UNAVAILABLE')
      }
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Trips (sandbox-scoot), on a store two instances share

/** Available vehicles of a fleet, charged enough for a ride. */
async function rideable(s: Setup, min = 30) {
  const { vehicles } = await s.connector.fleet(s.ctx())
  return vehicles.filter((v) => v.isAvailable && (v.batteryPercent ?? 0) >= min)
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6
const ids = (vehicles: ProviderMicroVehicle[]) => new Set(vehicles.map((v) => v.vehicleId))

export function scootTripSuite(name: string, make: () => Setup, settings: { skip?: string } = {}) {
  describe(`sandbox-scoot trips: ${name}`, { skip: settings.skip }, () => {
    it('reserve hides the vehicle on every instance; start, LOCK/UNLOCK/HONK, end moves it; available again', async () => {
      const a = make()
      const b = twin(a)
      const trips = a.connector.trips!
      const tripsB = b.connector.trips!
      const before = await b.connector.fleet(b.ctx())
      const [vehicle, other] = await rideable(b)

      const { reference } = await trips.reserve(vehicle.vehicleId, RIDER, a.ctx())
      assert.match(reference, /^SC-[0-9A-Z]{10}$/)
      const reserved = await b.connector.fleet(b.ctx())
      assert.notEqual(reserved.version, before.version, 'the version changed')
      assert.ok(!ids(reserved.vehicles).has(vehicle.vehicleId), 'gone from the fleet of the other instance')
      assert.equal(reserved.vehicles.length, before.vehicles.length - 1)
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId))
      await rejectsWith(tripsB.reserve(vehicle.vehicleId, RIDER, b.ctx()), 'PROVIDER_ERROR', notAvailable)
      await rejectsWith(tripsB.start(vehicle.vehicleId, undefined, RIDER, b.ctx()), 'PROVIDER_ERROR', notAvailable)
      await rejectsWith(tripsB.start(other.vehicleId, reference, RIDER, b.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_MISMATCH',
      })
      await trips.command(reference, 'HONK', a.ctx())
      await rejectsWith(trips.command(reference, 'UNLOCK', a.ctx()), 'PROVIDER_ERROR', rejected)
      await rejectsWith(trips.end(reference, undefined, a.ctx()), 'PROVIDER_ERROR', { reason: 'RIDE_NOT_STARTED' })

      a.clock.advance(3 * MINUTE)
      const started = await tripsB.start(vehicle.vehicleId, reference, RIDER, b.ctx())
      assert.deepEqual(started, {
        reference,
        location: { latitude: vehicle.latitude, longitude: vehicle.longitude },
      })
      assert.deepEqual(await tripsB.start(vehicle.vehicleId, reference, RIDER, b.ctx()), started, 'start again')
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId), 'in use: still hidden')
      for (const action of ['LOCK', 'UNLOCK', 'HONK', 'LOCK', 'UNLOCK'] as const) {
        assert.equal(await (action === 'HONK' ? trips : tripsB).command(reference, action, a.ctx()), undefined)
      }

      a.clock.advance(12 * MINUTE)
      const target = { latitude: round6(vehicle.latitude + 0.004), longitude: round6(vehicle.longitude - 0.003) }
      const versionBefore = (await a.connector.fleet(a.ctx())).version
      const ended = await trips.end(reference, target, a.ctx())
      assert.deepEqual(ended, { location: target })
      const after = await b.connector.fleet(b.ctx())
      assert.notEqual(after.version, versionBefore)
      assert.equal(after.vehicles.length, before.vehicles.length)
      const moved = after.vehicles.find((v) => v.vehicleId === vehicle.vehicleId)
      assert.ok(moved, 'available again')
      assert.equal(moved.isAvailable, true)
      assert.deepEqual([moved.latitude, moved.longitude], [target.latitude, target.longitude])
      assert.ok(moved.batteryPercent! < vehicle.batteryPercent!, 'the ride used some charge')
      assert.ok(moved.batteryPercent! > vehicle.batteryPercent! - 15, 'only a little')
      assert.equal(moved.qrCode, vehicle.qrCode)
      assert.deepEqual((await a.connector.fleet(a.ctx())).vehicles, after.vehicles, 'both instances agree')

      for (const action of ['LOCK', 'UNLOCK', 'HONK'] as const) {
        await rejectsWith(trips.command(reference, action, a.ctx()), 'PROVIDER_ERROR', rejected)
      }
      assert.deepEqual(await tripsB.end(reference, undefined, b.ctx()), ended, 'ending again answers the same')
      await trips.release(reference, a.ctx())
      await rejectsWith(trips.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
      })

      const next = await tripsB.reserve(vehicle.vehicleId, RIDER, b.ctx())
      assert.notEqual(next.reference, reference)
      const nextStart = await trips.start(vehicle.vehicleId, next.reference, RIDER, a.ctx())
      assert.deepEqual(nextStart.location, target, 'the next ride starts where the last one ended')
    })

    it('two instances reserving the same vehicle at once: exactly one gets it', async () => {
      const a = make()
      const b = twin(a)
      const candidates = (await rideable(a, 10)).slice(0, 12)
      for (const [i, vehicle] of candidates.entries()) {
        const first = i % 3 === 0 ? b : a
        const second = first === a ? b : a
        const results = await Promise.allSettled([
          first.connector.trips!.reserve(vehicle.vehicleId, RIDER, first.ctx()),
          i % 2 === 0
            ? second.connector.trips!.reserve(vehicle.vehicleId, RIDER, second.ctx())
            : second.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, second.ctx()),
        ])
        const won = results.filter((r) => r.status === 'fulfilled')
        assert.equal(won.length, 1, `${vehicle.vehicleId}: ${JSON.stringify(results)}`)
        const lost = results.find((r) => r.status === 'rejected')!
        await rejectsWith(Promise.reject(lost.reason), 'PROVIDER_ERROR', notAvailable)
      }
      const { vehicles } = await b.connector.fleet(b.ctx())
      for (const vehicle of candidates) assert.ok(!ids(vehicles).has(vehicle.vehicleId))
      assert.equal(vehicles.length, FLEET_SIZE['sandbox-scoot'] - candidates.length)

      // Many trips at once on both instances: no change to the fleet gets lost.
      const many = (await rideable(a, 10)).slice(0, 30)
      const references = await Promise.all(
        many.map((v, i) => (i % 2 ? a : b).connector.trips!.reserve(v.vehicleId, RIDER, (i % 2 ? a : b).ctx())),
      )
      assert.equal((await a.connector.fleet(a.ctx())).vehicles.length, vehicles.length - many.length)
      await Promise.all(
        references.map(({ reference }, i) => (i % 3 ? a : b).connector.trips!.release(reference, a.ctx())),
      )
      const released = await b.connector.fleet(b.ctx())
      assert.equal(released.vehicles.length, vehicles.length)
      assert.deepEqual(released.vehicles, vehicles, 'released vehicles are back as they were')
    })

    it('release frees a reserved vehicle; a ride cannot be released; ending without a location leaves it there', async () => {
      const a = make()
      const b = twin(a)
      const [vehicle] = await rideable(a)
      const { reference } = await a.connector.trips!.reserve(vehicle.vehicleId, {}, a.ctx())
      const held = await b.connector.fleet(b.ctx())
      await b.connector.trips!.release(reference, b.ctx())
      const freed = await a.connector.fleet(a.ctx())
      assert.notEqual(freed.version, held.version)
      assert.deepEqual(
        freed.vehicles.find((v) => v.vehicleId === vehicle.vehicleId),
        vehicle,
        'back where it was, as it was',
      )
      await a.connector.trips!.release(reference, a.ctx())
      await rejectsWith(a.connector.trips!.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
      })
      await rejectsWith(a.connector.trips!.command(reference, 'HONK', a.ctx()), 'PROVIDER_ERROR', rejected)
      await rejectsWith(a.connector.trips!.end(reference, undefined, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
      })

      const ride = await b.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, b.ctx())
      assert.notEqual(ride.reference, reference)
      assert.deepEqual(ride.location, { latitude: vehicle.latitude, longitude: vehicle.longitude })
      await rejectsWith(a.connector.trips!.release(ride.reference, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RIDE_IN_PROGRESS',
      })
      a.clock.advance(5 * MINUTE)
      assert.deepEqual(await a.connector.trips!.end(ride.reference, undefined, a.ctx()), { location: ride.location })
      const stayed = (await b.connector.fleet(b.ctx())).vehicles.find((v) => v.vehicleId === vehicle.vehicleId)
      assert.deepEqual([stayed?.latitude, stayed?.longitude], [vehicle.latitude, vehicle.longitude])
      assert.ok(stayed!.batteryPercent! < vehicle.batteryPercent!)
    })

    it('unknown vehicles and references; vehicles in maintenance or with a flat battery', async () => {
      const s = make()
      const trips = s.connector.trips!
      await rejectsWith(trips.reserve('scoot-9999', RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.reserve('bike-0001', RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.start('scoot-9999', undefined, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.start('scoot-0001', 'SC-ZZZZZZZZZZ', RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.command('SC-ZZZZZZZZZZ', 'HONK', s.ctx()), 'PROVIDER_ERROR', rejected)
      await rejectsWith(trips.command('nonsense', 'LOCK', s.ctx()), 'PROVIDER_ERROR', rejected)
      await rejectsWith(trips.end('SC-ZZZZZZZZZZ', undefined, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.release('nonsense', s.ctx()), 'NOT_FOUND')

      const { vehicles } = await s.connector.fleet(s.ctx())
      const workshop = vehicles.find((v) => !v.isAvailable)
      assert.ok(workshop)
      await rejectsWith(trips.reserve(workshop.vehicleId, RIDER, s.ctx()), 'PROVIDER_ERROR', notAvailable)
      await rejectsWith(trips.start(workshop.vehicleId, undefined, RIDER, s.ctx()), 'PROVIDER_ERROR', notAvailable)

      // A long ride on a weak battery leaves it flat: listed, but not available any more.
      const weak = vehicles.find((v) => v.isAvailable && v.batteryPercent! < 20)
      assert.ok(weak, 'some vehicles are low on charge')
      const ride = await trips.start(weak.vehicleId, undefined, RIDER, s.ctx())
      s.clock.advance(70 * MINUTE)
      await trips.end(ride.reference, { latitude: weak.latitude + 0.045, longitude: weak.longitude }, s.ctx())
      const flat = (await s.connector.fleet(s.ctx())).vehicles.find((v) => v.vehicleId === weak.vehicleId)
      assert.ok(flat && flat.batteryPercent! < 5 && !flat.isAvailable, JSON.stringify(flat))
      await rejectsWith(trips.reserve(weak.vehicleId, RIDER, s.ctx()), 'PROVIDER_ERROR', notAvailable)
      await rejectsWith(trips.end(ride.reference, { latitude: 100, longitude: 0 }, s.ctx()), 'INVALID_LOCATION')
    })

    it('scenario vehicle-rejects: every command fails; the trip itself goes on', async () => {
      const s = make()
      const trips = s.connector.trips!
      const [vehicle] = await rideable(s)
      const { reference } = await trips.start(vehicle.vehicleId, undefined, RIDER, s.ctx())
      const rejecting = s.ctx({ scenarios: scenario('vehicle-rejects', 'sandbox-scoot') })
      for (const action of ['LOCK', 'UNLOCK', 'HONK'] as const) {
        await rejectsWith(trips.command(reference, action, rejecting), 'PROVIDER_ERROR', rejected)
        await rejectsWith(
          trips.command(reference, action, s.ctx({ scenarios: scenario('vehicle-rejects') })),
          'PROVIDER_ERROR',
          rejected,
        )
        await trips.command(reference, action, s.ctx({ scenarios: scenario('vehicle-rejects', 'sandbox-bike') }))
      }
      assert.ok(SANDBOX_SCENARIOS.some((x) => x.name === 'vehicle-rejects' && x.description.length > 10))
      await trips.end(reference, undefined, rejecting)
    })

    it('a reservation nobody starts or releases lapses after the provider hold time', async () => {
      const a = make()
      const b = twin(a)
      const [vehicle] = await rideable(a)
      const { reference } = await a.connector.trips!.reserve(vehicle.vehicleId, RIDER, a.ctx())
      const held = await b.connector.fleet(b.ctx())
      assert.ok(!ids(held.vehicles).has(vehicle.vehicleId))
      a.clock.advance(121 * MINUTE)
      const lapsed = await b.connector.fleet(b.ctx())
      assert.notEqual(lapsed.version, held.version)
      assert.ok(ids(lapsed.vehicles).has(vehicle.vehicleId), 'back in the fleet')
      const taken = await b.connector.trips!.reserve(vehicle.vehicleId, RIDER, b.ctx())
      await rejectsWith(a.connector.trips!.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
      })
      await rejectsWith(a.connector.trips!.command(reference, 'HONK', a.ctx()), 'PROVIDER_ERROR', rejected)
      await a.connector.trips!.command(taken.reference, 'HONK', a.ctx())
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId), 'held by the new trip')
    })

    it('live and test never share vehicle state', async () => {
      const s = make()
      const [vehicle] = await rideable(s)
      await s.connector.trips!.reserve(vehicle.vehicleId, RIDER, s.ctx({ environment: 'test' }))
      const live = await s.connector.fleet(s.ctx({ environment: 'live' }))
      assert.ok(ids(live.vehicles).has(vehicle.vehicleId))
      const ride = await s.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, s.ctx({ environment: 'live' }))
      await rejectsWith(s.connector.trips!.command(ride.reference, 'HONK', s.ctx()), 'PROVIDER_ERROR', rejected)
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Both providers, on the in-memory store and on Redis (the state several instances share)

const shared = await testRedis('micro')
const redis = shared.skip ?? shared.redis!
const onRedis: KvFactory = shared.kv
const redisSkip = typeof redis === 'string' ? redis : undefined

for (const id of ['sandbox-scoot', 'sandbox-bike'] as const) {
  microConnectorSuite(id, (options) => build(id, options))
  microConnectorSuite(`${id} on Redis`, (options) => build(id, options, undefined, onRedis), { skip: redisSkip })
}
scootTripSuite('in memory', () => build('sandbox-scoot'))
scootTripSuite('on Redis', () => build('sandbox-scoot', {}, undefined, onRedis), { skip: redisSkip })

describe('sandbox-scoot specifics', () => {
  it('e-scooters with QR codes, the standard and the night plan, clustered at Alexanderplatz and Hauptbahnhof', async () => {
    const s = build('sandbox-scoot')
    const { vehicles } = await s.connector.fleet(s.ctx())
    for (const v of vehicles) {
      assert.equal(v.type, 'SCOOTER')
      assert.equal(v.propulsionType, 'ELECTRIC')
      assert.match(v.name, /^Sandbox Scoot S\d$/)
      assert.equal(v.qrCode, `sandbox:${v.vehicleId}`)
      assert.ok(v.batteryPercent! >= 5 && v.batteryPercent! <= 100)
      assert.equal(v.deepLinks, undefined)
    }
    assert.equal(vehicles[0].vehicleId, 'scoot-0001')
    assert.equal(vehicles.at(-1)?.vehicleId, 'scoot-0400')
    assert.deepEqual(vehicles.find((v) => v.pricingPlan?.planId === 'scoot-standard')?.pricingPlan, {
      planId: 'scoot-standard',
      name: 'Standard',
      currency: 'EUR',
      unlockFee: { amount: 100, currency: 'EUR' },
      perMinuteRate: { amount: 25, currency: 'EUR' },
    })
    const night = vehicles.filter((v) => v.pricingPlan?.planId === 'scoot-night').length
    assert.ok(night > 10 && night < vehicles.length / 2, `${night} on the night plan`)
    const near = (p: typeof BERLIN) => vehicles.filter((v) => distanceMeters(v, p) <= 500).length
    assert.ok(near(ALEXANDERPLATZ) >= 60, `${near(ALEXANDERPLATZ)} at Alexanderplatz`)
    assert.ok(near(HAUPTBAHNHOF) >= 40, `${near(HAUPTBAHNHOF)} at Hauptbahnhof`)
    assert.ok(
      vehicles.some((v) => distanceMeters(v, BERLIN) > 4_000),
      'and spread over the city',
    )
  })
})

describe('sandbox-bike specifics', () => {
  it('search only: no trips, deep links and a sandbox QR code for every bike', async () => {
    const s = build('sandbox-bike')
    assert.equal(s.connector.trips, undefined)
    assert.ok(!s.connector.capabilities.operations.includes('TRIPS'))
    const { vehicles } = await s.connector.fleet(s.ctx())
    for (const v of vehicles) {
      assert.equal(v.qrCode, `sandbox:${v.vehicleId}`)
      assert.deepEqual(v.deepLinks, {
        android: `https://bike.sandbox.example/app/vehicle/${v.vehicleId}`,
        ios: `https://bike.sandbox.example/app/vehicle/${v.vehicleId}`,
        web: `https://bike.sandbox.example/vehicle/${v.vehicleId}`,
      })
    }
  })

  it('bikes, e-bikes and cargo bikes; charge only with assist; some parked at stations, the others free-floating', async () => {
    const s = build('sandbox-bike')
    const { vehicles } = await s.connector.fleet(s.ctx())
    const count = (f: (v: ProviderMicroVehicle) => boolean) => vehicles.filter(f).length
    assert.ok(count((v) => v.type === 'BICYCLE' && v.propulsionType === 'HUMAN') > vehicles.length / 3)
    assert.ok(count((v) => v.type === 'BICYCLE' && v.propulsionType === 'ELECTRIC_ASSIST') > 20)
    const cargo = count((v) => v.type === 'CARGO_BICYCLE')
    assert.ok(cargo >= 3 && cargo < vehicles.length / 5, `${cargo} cargo bikes`)
    assert.ok(vehicles.every((v) => ['BICYCLE', 'CARGO_BICYCLE'].includes(v.type)))
    assert.ok(vehicles.every((v) => (v.batteryPercent !== undefined) === (v.propulsionType === 'ELECTRIC_ASSIST')))
    assert.ok(vehicles.every((v) => v.pricingPlan && v.pricingPlan.unlockFee.amount > 0))

    const zones = await s.connector.zones(s.ctx())
    const parking = zones.find((z) => z.kind === 'PARKING')
    assert.ok(parking, 'station parking')
    assert.ok(parking.rules.every((r) => r.stationParking === true && r.rideEndAllowed))
    const atStations = count((v) => inside(parking, v))
    assert.ok(atStations >= vehicles.length / 4, `${atStations} at stations`)
    assert.ok(vehicles.length - atStations >= vehicles.length / 3, 'the others free-floating')
    assert.ok(inside(parking, HAUPTBAHNHOF))
  })

  it('the fleet version is the same on every instance and call', async () => {
    const s = build('sandbox-bike')
    const first = await s.connector.fleet(s.ctx())
    s.clock.advance(HOUR)
    assert.equal((await twin(s).connector.fleet(s.ctx())).version, first.version)
    assert.equal((await s.connector.fleet(s.ctx({ environment: 'live' }))).version, first.version)
  })
})
