import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { SANDBOX_PROFILES } from '../../src/connectors/sandbox/index.ts'
import type { CallContext, Capabilities, ProviderEntry, Scenario } from '../../src/connectors/types/common.ts'
import {
  isMicromobilityConnector,
  type MicromobilityConnector,
  type ProviderMicroVehicle,
  type ProviderZone,
} from '../../src/connectors/types/micromobility.ts'
import {
  MicroVehicle,
  PricingPlan,
  TRIP_ACTIONS,
  type TripAction,
  Zone,
  ZoneRules,
} from '../../src/contract/micromobility.ts'
import { SANDBOX_SCENARIOS } from '../../src/contract/sandbox.ts'
import { DeepLinks } from '../../src/contract/shared.ts'
import { distanceMeters } from '../../src/platform/geo.ts'
import { testClock } from '../helpers/clock.ts'
import {
  buildConnector,
  type ConnectorSetup,
  inMemory,
  type KvFactory,
  registryOf,
  rejectsWith,
  validator,
} from '../helpers/connectors.ts'
import { testRedis } from '../helpers/redis.ts'
import { startTompOperator, type TompOperator } from '../helpers/tomp-operator.ts'

// ---------------------------------------------------------------------------------------------------------------
// Set-up

const T0 = Date.parse('2031-05-05T08:00:00.000Z')
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const BERLIN = { latitude: 52.52, longitude: 13.405 }
const ALEXANDERPLATZ = { latitude: 52.5219, longitude: 13.4132 }
const HAUPTBAHNHOF = { latitude: 52.5251, longitude: 13.3694 }
const RIDER = { email: 'ada@example.com', name: 'Ada Lovelace' }

const check = {
  vehicle: validator(MicroVehicle, 'MicromobilityVehicle'),
  plan: validator(PricingPlan, 'PricingPlan'),
  deepLinks: validator(DeepLinks, 'DeepLinks'),
  zone: validator(Zone, 'Zone'),
  rules: validator(ZoneRules, 'ZoneRules'),
}

interface Setup extends ConnectorSetup<MicromobilityConnector> {
  providerId: string
  /** What the registry builds it from (a default provider's id, or an entry of its own). */
  entry: string | ProviderEntry
  /** A second instance of the same provider (the same store, clock and operator), as another service instance. */
  twin(): Promise<Setup>
}

/** A provider made to fail: calls made with `ctx` fail with PROVIDER_ERROR of `reason` until `restore()`. */
interface Breakdown {
  ctxs: CallContext[]
  reason: string
  restore(): void
}

/**
 * What the shared suites need to know of one implementation: how to build it, and the facts that differ between
 * providers (fleet, identifiers, commands a vehicle obeys, how a held vehicle shows, how to make it fail).
 */
interface Profile {
  name: string
  make(options?: Record<string, unknown>): Promise<Setup>
  capabilities: Capabilities
  fleetSize: number
  vehicleId: RegExp
  reference: RegExp
  /** Vehicles of no trip of this provider, and a reference that is well-formed but unknown (for that vehicle). */
  unknownVehicles: string[]
  unknownReference: { vehicleId: string; reference: string }
  /** Vehicle commands the provider carries out; the others answer PROVIDER_ERROR COMMAND_NOT_SUPPORTED. */
  commands: TripAction[]
  /** A reserved vehicle leaves the fleet (sandbox), or stays listed as not available (TOMP `isReserved`). */
  reserved: 'hidden' | 'unavailable'
  /** Every call fails as a provider error would / never answers / the vehicle rejects every command. */
  failing(s: Setup): Breakdown
  hanging(s: Setup, signal: AbortSignal): { ctx: CallContext; restore(): void }
  rejecting(s: Setup): { ctx: CallContext; restore(): void }
  /** Options the provider must refuse to be built with. */
  badOptions: Record<string, unknown>[]
  /** Simulated providers have seed, fleetSize, latencyMs and failureRate options. */
  simulated: boolean
  /** The sandbox keeps live and test apart; a real operator is the same whichever environment calls it. */
  environments: 'separate' | 'shared'
}

const scenario = (name: string, target?: string): Scenario[] => [{ name, ...(target ? { target } : {}) }]

/** The loser of a race for a vehicle (or one in the workshop, or flat): the offer is sold out, a 404, never a 5xx. */
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

// ---------------------------------------------------------------------------------------------------------------
// The implementations: the sandbox providers (on the in-memory store or Redis) and a TOMP operator

const micromobility = { is: isMicromobilityConnector, name: 'micromobility' }

function sandboxProfile(id: 'sandbox-scoot' | 'sandbox-bike', makeKv?: KvFactory): Profile {
  const build = (options: Record<string, unknown>, shared?: Pick<Setup, 'clock' | 'kv'>): Setup => {
    const setup = buildConnector(id, micromobility, { options, shared, makeKv, start: T0 })
    return { providerId: id, entry: id, ...setup, twin: async () => build({}, { kv: setup.kv, clock: setup.clock }) }
  }
  const scoot = id === 'sandbox-scoot'
  return {
    name: `${id}${makeKv ? ' on Redis' : ''}`,
    make: async (options = {}) => build(options),
    capabilities: SANDBOX_PROFILES[scoot ? 'scoot' : 'bike'],
    fleetSize: scoot ? 400 : 250,
    vehicleId: scoot ? /^scoot-\d{4}$/ : /^bike-\d{4}$/,
    reference: /^SC-[0-9A-Z]{10}$/,
    unknownVehicles: ['scoot-9999', 'bike-0001'],
    unknownReference: { vehicleId: 'scoot-0001', reference: 'SC-ZZZZZZZZZZ' },
    commands: ['LOCK', 'UNLOCK', 'HONK'],
    reserved: 'hidden',
    failing: (s) => ({
      ctxs: [s.ctx({ scenarios: scenario('provider-error', id) }), s.ctx({ scenarios: scenario('provider-error') })],
      reason: 'SCENARIO',
      restore: () => {},
    }),
    hanging: (s, signal) => ({
      ctx: s.ctx({ scenarios: scenario('provider-timeout', id), signal }),
      restore: () => {},
    }),
    rejecting: (s) => ({ ctx: s.ctx({ scenarios: scenario('vehicle-rejects', id) }), restore: () => {} }),
    badOptions: [
      { fleetSize: 0 },
      { fleetSize: 2.5 },
      { fleetSize: '10' },
      { fleetSize: 100_000 },
      { seed: '' },
      { seed: { x: 1 } },
      { latencyMs: -1 },
      { failureRate: 2 },
    ],
    simulated: true,
    environments: 'separate',
  }
}

const TOMP_ID = 'tomp-freebike'
/** Past the TOMP connector's default refresh (30 s) and maxStaleSeconds (300 s). */
const PAST_STALE_MS = 301_000
const operators = new Map<Setup['clock'], TompOperator>()
after(() => Promise.all([...operators.values()].map((o) => o.close())))

/**
 * A TOMP connector with trips against a test operator of its own (test/helpers/tomp-operator.ts) on the setup's
 * clock, with the default refresh: what a second instance sees of the first's bookings comes through the store they
 * share, as in a deployment. Making the operator fail or hang also moves the clock past the refresh and the time a
 * failed read may be answered from the last copy (maxStaleSeconds), so the next call reads.
 */
function tompProfile(): Profile {
  const entry = (url: string): ProviderEntry => ({
    id: TOMP_ID,
    name: 'FreeBike (TOMP)',
    connector: 'tomp',
    environments: ['live', 'test'],
    options: { url, trips: true, timeoutMs: 2000 },
  })
  const build = (operator: TompOperator, options: Record<string, unknown>, shared: Pick<Setup, 'clock' | 'kv'>) => {
    const setup: Setup = {
      providerId: TOMP_ID,
      entry: entry(operator.url),
      ...buildConnector(entry(operator.url), micromobility, { options, shared, start: T0 }),
      twin: async () => build(operator, options, shared),
    }
    return setup
  }
  const operatorOf = (s: Setup) => operators.get(s.clock)!
  return {
    name: 'tomp (test operator)',
    async make(options = {}) {
      const clock = testClock(T0)
      const operator = await startTompOperator({ clock })
      operators.set(clock, operator)
      const setup = build(operator, options, { clock, kv: inMemory(clock) })
      await setup.connector.start?.()
      return setup
    },
    capabilities: {
      modalities: ['SCOOTER', 'BIKE', 'MOPED'],
      operations: ['SEARCH', 'ZONES', 'TRIPS', 'VEHICLE_ACTIONS'],
      stationBased: false,
      freeFloating: true,
      requiresStoredBooking: false,
    },
    fleetSize: 300,
    vehicleId: /^FB-\d{4}$/,
    reference: /^BK-[0-9A-F]{10}\|BK-[0-9A-F]{10}-L1\|FB-\d{4}$/,
    unknownVehicles: ['FB-9999', 'scoot-0001'],
    unknownReference: { vehicleId: 'FB-0001', reference: 'BK-0000000000|BK-0000000000-L1|FB-0001' },
    commands: ['LOCK', 'UNLOCK'],
    reserved: 'unavailable',
    failing(s) {
      operatorOf(s).mode = 'error'
      s.clock.advance(PAST_STALE_MS)
      const restore = () => {
        operatorOf(s).mode = undefined
      }
      return { ctxs: [s.ctx()], reason: 'OPERATOR_ERROR', restore }
    },
    hanging(s, signal) {
      operatorOf(s).mode = 'hang'
      s.clock.advance(PAST_STALE_MS)
      const restore = () => {
        operatorOf(s).mode = undefined
      }
      return { ctx: s.ctx({ signal }), restore }
    },
    rejecting(s) {
      operatorOf(s).jammed = true
      const restore = () => {
        operatorOf(s).jammed = false
      }
      return { ctx: s.ctx(), restore }
    },
    badOptions: [
      { url: 'ftp://operator.example/' },
      { url: '' },
      { apiVersion: '2.0' },
      { apiKey: 'key', token: 'token' },
      { trips: 'yes' },
      { refreshSeconds: -1 },
      { planning: 'maybe' },
      { maasId: '' },
      { fleetSize: 10 },
    ],
    simulated: false,
    environments: 'shared',
  }
}

// ---------------------------------------------------------------------------------------------------------------
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

/** What every micromobility connector must do, whatever its protocol. */
export function microConnectorSuite(profile: Profile, settings: { skip?: string } = {}) {
  const { make } = profile
  describe(`MicromobilityConnector conformance: ${profile.name}`, { skip: settings.skip }, () => {
    it('declares the capabilities of the provider; trips exactly when it has TRIPS', async () => {
      const s = await make()
      // A real operator's capabilities come from what it publishes, so they are read once the fleet is.
      await s.connector.fleet(s.ctx())
      const operations: string[] = s.connector.capabilities.operations
      assert.deepEqual(s.connector.capabilities, profile.capabilities)
      assert.equal(s.connector.trips !== undefined, operations.includes('TRIPS'))
    })

    it('fleet: valid shapes, around Berlin, unique ids, priced, reported now; a stable version', async () => {
      const s = await make()
      const snapshot = await s.connector.fleet(s.ctx())
      assert.equal(typeof snapshot.version, 'string')
      assert.ok(snapshot.version.length > 0)
      assert.equal(snapshot.vehicles.length, profile.fleetSize)
      const ids = new Set<string>()
      for (const v of snapshot.vehicles) {
        check.vehicle(asApiVehicle(s.providerId, v), v.vehicleId)
        assert.ok(!ids.has(v.vehicleId), `${v.vehicleId} once`)
        ids.add(v.vehicleId)
        assert.match(v.vehicleId, profile.vehicleId)
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

    it('the same provider built twice reports the same fleet', async () => {
      const a = await make()
      const b = await make()
      assert.deepEqual(await b.connector.fleet(b.ctx()), await a.connector.fleet(a.ctx()))
    })

    it('simulated providers: deterministic by seed, fleetSize keeps the first vehicles', {
      skip: !profile.simulated && 'a real operator publishes its own fleet',
    }, async () => {
      const s = await make()
      const a = await s.connector.fleet(s.ctx())
      const small = await make({ fleetSize: 12 })
      const first = await small.connector.fleet(small.ctx())
      assert.equal(first.vehicles.length, 12)
      assert.deepEqual(first.vehicles, a.vehicles.slice(0, 12), 'a smaller fleet keeps the first vehicles')
      assert.notEqual(first.version, a.version)
      const other = await make({ seed: 'another-seed' })
      const seeded = await other.connector.fleet(other.ctx())
      assert.equal(seeded.vehicles.length, a.vehicles.length)
      assert.notDeepEqual(
        seeded.vehicles.map((v) => [v.latitude, v.longitude]),
        a.vehicles.map((v) => [v.latitude, v.longitude]),
      )
      assert.notEqual(seeded.version, a.version)
      const numeric = await make({ seed: 42 })
      assert.deepEqual(
        await numeric.connector.fleet(numeric.ctx()),
        await (await make({ seed: 42 })).connector.fleet(numeric.ctx()),
      )
    })

    it('zones: valid GeoJSON with rules; every vehicle parked inside the service area, none where parking is banned', async () => {
      const s = await make()
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

    it('a provider in trouble: every call fails with PROVIDER_ERROR; once it recovers, nothing is left of it', async () => {
      const s = await make()
      const failing = profile.failing(s)
      const reason = { reason: failing.reason }
      for (const ctx of failing.ctxs) {
        await rejectsWith(s.connector.fleet(ctx), 'PROVIDER_ERROR', reason)
        await rejectsWith(s.connector.zones(ctx), 'PROVIDER_ERROR', reason)
      }
      const trips = s.connector.trips
      if (trips) {
        const [ctx] = failing.ctxs
        const { vehicleId, reference } = profile.unknownReference
        const [command] = profile.commands
        await rejectsWith(trips.reserve(vehicleId, RIDER, ctx), 'PROVIDER_ERROR', reason)
        await rejectsWith(trips.start(vehicleId, undefined, RIDER, ctx), 'PROVIDER_ERROR', reason)
        await rejectsWith(trips.command(reference, command, ctx), 'PROVIDER_ERROR', reason)
        await rejectsWith(trips.end(reference, undefined, ctx), 'PROVIDER_ERROR', reason)
        await rejectsWith(trips.release(reference, ctx), 'PROVIDER_ERROR', reason)
      }
      failing.restore()
      // Scenarios aimed at other providers change nothing.
      const elsewhere = s.ctx({ scenarios: [...scenario('provider-error', 'sandbox-rent'), ...scenario('x', 'y')] })
      assert.equal((await s.connector.fleet(elsewhere)).vehicles.length, profile.fleetSize)
      assert.ok((await s.connector.zones(elsewhere)).length >= 4)
    })

    it('a provider that does not answer: the call waits until the caller gives up, then rejects with TIMEOUT', async () => {
      const s = await make()
      const controller = new AbortController()
      const hanging = profile.hanging(s, controller.signal)
      const fleet = s.connector.fleet(hanging.ctx)
      const zones = s.connector.zones(hanging.ctx)
      assert.equal(await settlesWithin(fleet, 40), false, 'still waiting')
      controller.abort()
      await rejectsWith(fleet, 'TIMEOUT')
      await rejectsWith(zones, 'TIMEOUT')
      hanging.restore()
      const aborted = new AbortController()
      aborted.abort()
      await rejectsWith(s.connector.fleet(s.ctx({ signal: aborted.signal })), 'TIMEOUT')
    })

    it('wrong options are reported: the provider is UNAVAILABLE', async () => {
      const s = await make()
      for (const options of profile.badOptions) {
        const { registry, problems } = registryOf(s.entry, options, s.kv, s.clock)
        assert.equal(problems.length, 1, JSON.stringify(options))
        assert.equal(registry.get(s.providerId)?.status, 'UNAVAILABLE')
      }
    })

    it('simulated providers: options latencyMs and failureRate as for cars', {
      skip: !profile.simulated && 'a real operator has its own latency and failures',
    }, async () => {
      const slow = await make({ latencyMs: 40 })
      const started = performance.now()
      await slow.connector.zones(slow.ctx())
      assert.ok(performance.now() - started >= 35, 'latency applies')
      const failing = await make({ failureRate: 1 })
      await rejectsWith(failing.connector.fleet(failing.ctx()), 'PROVIDER_ERROR', { reason: 'SIMULATED_FAILURE' })
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Trips, with a second instance of the provider beside the first

/** Available vehicles of a fleet, charged enough for a ride. */
async function rideable(s: Setup, min = 30) {
  const { vehicles } = await s.connector.fleet(s.ctx())
  return vehicles.filter((v) => v.isAvailable && (v.batteryPercent ?? 0) >= min)
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6
const ids = (vehicles: ProviderMicroVehicle[]) => new Set(vehicles.map((v) => v.vehicleId))
const availableCount = (vehicles: ProviderMicroVehicle[]) => vehicles.filter((v) => v.isAvailable).length

/** Every command on a trip that cannot take one fails: the vehicle rejects it, or the provider has no such command. */
async function commandsFail(profile: Profile, s: Setup, reference: string, ctx = s.ctx()) {
  for (const action of TRIP_ACTIONS) {
    const reason = profile.commands.includes(action) ? rejected : { reason: 'COMMAND_NOT_SUPPORTED', retryable: false }
    await rejectsWith(s.connector.trips!.command(reference, action, ctx), 'PROVIDER_ERROR', reason)
  }
}

export function tripSuite(profile: Profile, settings: { skip?: string } = {}) {
  const { make } = profile
  /** A vehicle a trip holds: gone from the fleet, or listed as not available (as the provider shows reservations). */
  const assertReserved = (vehicles: ProviderMicroVehicle[], vehicleId: string, message?: string) => {
    if (profile.reserved === 'hidden') assert.ok(!ids(vehicles).has(vehicleId), message ?? `${vehicleId} hidden`)
    else assert.equal(vehicles.find((v) => v.vehicleId === vehicleId)?.isAvailable, false, message ?? vehicleId)
  }

  describe(`MicromobilityConnector trips: ${profile.name}`, { skip: settings.skip }, () => {
    it('reserve holds the vehicle on every instance; start, LOCK/UNLOCK, end moves it; available again', async () => {
      const a = await make()
      const b = await a.twin()
      const trips = a.connector.trips!
      const tripsB = b.connector.trips!
      const before = await b.connector.fleet(b.ctx())
      const [vehicle, other] = await rideable(b)

      const { reference } = await trips.reserve(vehicle.vehicleId, RIDER, a.ctx())
      assert.match(reference, profile.reference)
      const reserved = await b.connector.fleet(b.ctx())
      assert.notEqual(reserved.version, before.version, 'the version changed')
      assertReserved(reserved.vehicles, vehicle.vehicleId, 'held on the other instance')
      assert.equal(availableCount(reserved.vehicles), availableCount(before.vehicles) - 1)
      if (profile.reserved === 'hidden') assert.equal(reserved.vehicles.length, before.vehicles.length - 1)
      assertReserved((await a.connector.fleet(a.ctx())).vehicles, vehicle.vehicleId)
      await rejectsWith(tripsB.reserve(vehicle.vehicleId, RIDER, b.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(tripsB.start(vehicle.vehicleId, undefined, RIDER, b.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(tripsB.start(other.vehicleId, reference, RIDER, b.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_MISMATCH',
        retryable: false,
      })
      if (profile.commands.includes('HONK')) await trips.command(reference, 'HONK', a.ctx())
      await rejectsWith(trips.command(reference, 'UNLOCK', a.ctx()), 'PROVIDER_ERROR', rejected)
      await rejectsWith(trips.end(reference, undefined, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RIDE_NOT_STARTED',
        retryable: false,
      })

      a.clock.advance(3 * MINUTE)
      const started = await tripsB.start(vehicle.vehicleId, reference, RIDER, b.ctx())
      assert.deepEqual(started, {
        reference,
        location: { latitude: vehicle.latitude, longitude: vehicle.longitude },
      })
      assert.deepEqual(await tripsB.start(vehicle.vehicleId, reference, RIDER, b.ctx()), started, 'start again')
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId), 'in use: hidden')
      for (const action of ['LOCK', 'UNLOCK', 'HONK', 'LOCK', 'UNLOCK'] as const) {
        if (!profile.commands.includes(action)) continue
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

      await commandsFail(profile, a, reference)
      assert.deepEqual(await tripsB.end(reference, undefined, b.ctx()), ended, 'ending again answers the same')
      await trips.release(reference, a.ctx())
      await rejectsWith(trips.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })

      const next = await tripsB.reserve(vehicle.vehicleId, RIDER, b.ctx())
      assert.notEqual(next.reference, reference)
      const nextStart = await trips.start(vehicle.vehicleId, next.reference, RIDER, a.ctx())
      assert.deepEqual(nextStart.location, target, 'the next ride starts where the last one ended')
    })

    it('two instances reserving the same vehicle at once: exactly one gets it', async () => {
      const a = await make()
      const b = await a.twin()
      const before = await b.connector.fleet(b.ctx())
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
        await rejectsWith(Promise.reject(lost.reason), 'OFFER_EXPIRED', notAvailable)
      }
      const { vehicles } = await b.connector.fleet(b.ctx())
      // Reserved or riding, none of them can be taken.
      for (const vehicle of candidates) {
        assert.ok(!vehicles.some((v) => v.vehicleId === vehicle.vehicleId && v.isAvailable), vehicle.vehicleId)
      }
      assert.equal(availableCount(vehicles), availableCount(before.vehicles) - candidates.length)
      if (profile.reserved === 'hidden') assert.equal(vehicles.length, profile.fleetSize - candidates.length)

      // Many trips at once on both instances: no change to the fleet gets lost.
      const many = (await rideable(a, 10)).slice(0, 30)
      const references = await Promise.all(
        many.map((v, i) => (i % 2 ? a : b).connector.trips!.reserve(v.vehicleId, RIDER, (i % 2 ? a : b).ctx())),
      )
      const held = (await a.connector.fleet(a.ctx())).vehicles
      assert.equal(availableCount(held), availableCount(vehicles) - many.length)
      for (const vehicle of many) assertReserved(held, vehicle.vehicleId)
      await Promise.all(
        references.map(({ reference }, i) => (i % 3 ? a : b).connector.trips!.release(reference, a.ctx())),
      )
      const released = await b.connector.fleet(b.ctx())
      assert.equal(released.vehicles.length, vehicles.length)
      assert.deepEqual(released.vehicles, vehicles, 'released vehicles are back as they were')
    })

    it('release frees a reserved vehicle; a ride cannot be released; ending without a location leaves it there', async () => {
      const a = await make()
      const b = await a.twin()
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
        retryable: false,
      })
      await commandsFail(profile, a, reference)
      await rejectsWith(a.connector.trips!.end(reference, undefined, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })

      const ride = await b.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, b.ctx())
      assert.notEqual(ride.reference, reference)
      assert.deepEqual(ride.location, { latitude: vehicle.latitude, longitude: vehicle.longitude })
      await rejectsWith(a.connector.trips!.release(ride.reference, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RIDE_IN_PROGRESS',
        retryable: false,
      })
      a.clock.advance(5 * MINUTE)
      assert.deepEqual(await a.connector.trips!.end(ride.reference, undefined, a.ctx()), { location: ride.location })
      const stayed = (await b.connector.fleet(b.ctx())).vehicles.find((v) => v.vehicleId === vehicle.vehicleId)
      assert.deepEqual([stayed?.latitude, stayed?.longitude], [vehicle.latitude, vehicle.longitude])
      assert.ok(stayed!.batteryPercent! < vehicle.batteryPercent!)
    })

    it('unknown vehicles and references; vehicles in maintenance or with a flat battery', async () => {
      const s = await make()
      const trips = s.connector.trips!
      const [unknown, foreign] = profile.unknownVehicles
      const { vehicleId, reference } = profile.unknownReference
      await rejectsWith(trips.reserve(unknown, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.reserve(foreign, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.start(unknown, undefined, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.start(vehicleId, reference, RIDER, s.ctx()), 'NOT_FOUND')
      await commandsFail(profile, s, reference)
      await commandsFail(profile, s, 'nonsense')
      await rejectsWith(trips.end(reference, undefined, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.release('nonsense', s.ctx()), 'NOT_FOUND')

      const { vehicles } = await s.connector.fleet(s.ctx())
      const workshop = vehicles.find((v) => !v.isAvailable)
      assert.ok(workshop)
      await rejectsWith(trips.reserve(workshop.vehicleId, RIDER, s.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(trips.start(workshop.vehicleId, undefined, RIDER, s.ctx()), 'OFFER_EXPIRED', notAvailable)

      // A long ride on a weak battery leaves it flat: listed, but not available any more.
      const weak = vehicles.find((v) => v.isAvailable && v.batteryPercent! < 20)
      assert.ok(weak, 'some vehicles are low on charge')
      const ride = await trips.start(weak.vehicleId, undefined, RIDER, s.ctx())
      s.clock.advance(70 * MINUTE)
      await trips.end(ride.reference, { latitude: weak.latitude + 0.045, longitude: weak.longitude }, s.ctx())
      const flat = (await s.connector.fleet(s.ctx())).vehicles.find((v) => v.vehicleId === weak.vehicleId)
      assert.ok(flat && flat.batteryPercent! < 5 && !flat.isAvailable, JSON.stringify(flat))
      await rejectsWith(trips.reserve(weak.vehicleId, RIDER, s.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(trips.end(ride.reference, { latitude: 100, longitude: 0 }, s.ctx()), 'INVALID_LOCATION')
    })

    it('a vehicle that rejects every command: each fails with VEHICLE_REJECTED; the trip itself goes on', async () => {
      const s = await make()
      const trips = s.connector.trips!
      const [vehicle] = await rideable(s)
      const { reference } = await trips.start(vehicle.vehicleId, undefined, RIDER, s.ctx())
      const rejecting = profile.rejecting(s)
      for (const action of profile.commands) {
        await rejectsWith(trips.command(reference, action, rejecting.ctx), 'PROVIDER_ERROR', rejected)
      }
      await trips.end(reference, undefined, rejecting.ctx)
      rejecting.restore()
    })

    it('a reservation nobody starts or releases lapses after the provider hold time', async () => {
      const a = await make()
      const b = await a.twin()
      const [vehicle] = await rideable(a)
      const { reference } = await a.connector.trips!.reserve(vehicle.vehicleId, RIDER, a.ctx())
      const held = await b.connector.fleet(b.ctx())
      assertReserved(held.vehicles, vehicle.vehicleId)
      a.clock.advance(121 * MINUTE)
      const lapsed = await b.connector.fleet(b.ctx())
      assert.notEqual(lapsed.version, held.version)
      assert.equal(lapsed.vehicles.find((v) => v.vehicleId === vehicle.vehicleId)?.isAvailable, true, 'free again')
      const taken = await b.connector.trips!.reserve(vehicle.vehicleId, RIDER, b.ctx())
      await rejectsWith(a.connector.trips!.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })
      await commandsFail(profile, a, reference)
      await a.connector.trips!.start(vehicle.vehicleId, taken.reference, RIDER, a.ctx())
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId), 'ridden on the new trip')
    })

    it('live and test: apart at the sandbox; one operator for both at a real provider', async () => {
      const s = await make()
      const [vehicle] = await rideable(s)
      await s.connector.trips!.reserve(vehicle.vehicleId, RIDER, s.ctx({ environment: 'test' }))
      const live = await s.connector.fleet(s.ctx({ environment: 'live' }))
      if (profile.environments === 'shared') {
        // The README says to configure a real operator's test system as a provider of its own for `test`.
        assertReserved(live.vehicles, vehicle.vehicleId, 'the operator holds it for every environment')
        return
      }
      assert.ok(ids(live.vehicles).has(vehicle.vehicleId))
      const ride = await s.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, s.ctx({ environment: 'live' }))
      await commandsFail(profile, s, ride.reference)
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Every implementation: the sandbox providers on the in-memory store and on Redis (the state several instances
// share), and a TOMP operator

const shared = await testRedis('micro')
const redis = shared.skip ?? shared.redis!
const onRedis: KvFactory = shared.kv
const redisSkip = typeof redis === 'string' ? redis : undefined

for (const id of ['sandbox-scoot', 'sandbox-bike'] as const) {
  microConnectorSuite(sandboxProfile(id))
  microConnectorSuite(sandboxProfile(id, onRedis), { skip: redisSkip })
}
tripSuite(sandboxProfile('sandbox-scoot'))
tripSuite(sandboxProfile('sandbox-scoot', onRedis), { skip: redisSkip })
microConnectorSuite(tompProfile())
tripSuite(tompProfile())

describe('sandbox-scoot specifics', () => {
  it('e-scooters with QR codes, the standard and the night plan, clustered at Alexanderplatz and Hauptbahnhof', async () => {
    const s = await sandboxProfile('sandbox-scoot').make()
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
  it('scenario vehicle-rejects: aimed at it or at every provider, commands fail; aimed at another, they work', async () => {
    const s = await sandboxProfile('sandbox-scoot').make()
    const trips = s.connector.trips!
    const [vehicle] = (await s.connector.fleet(s.ctx())).vehicles.filter((v) => v.isAvailable)
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
})

describe('sandbox-bike specifics', () => {
  it('search only: no trips, deep links and a sandbox QR code for every bike', async () => {
    const s = await sandboxProfile('sandbox-bike').make()
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
    const s = await sandboxProfile('sandbox-bike').make()
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
    const s = await sandboxProfile('sandbox-bike').make()
    const first = await s.connector.fleet(s.ctx())
    s.clock.advance(HOUR)
    assert.equal((await (await s.twin()).connector.fleet(s.ctx())).version, first.version)
    assert.equal((await s.connector.fleet(s.ctx({ environment: 'live' }))).version, first.version)
  })
})
