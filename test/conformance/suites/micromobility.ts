import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CallContext, Capabilities, ProviderEntry, Scenario } from '../../../src/connectors/types/common.ts'
import type {
  MicromobilityConnector,
  ProviderMicroVehicle,
  ProviderZone,
} from '../../../src/connectors/types/micromobility.ts'
import { MicroVehicle, PricingPlan, Zone, ZoneRules } from '../../../src/contract/micromobility.ts'
import { DeepLinks } from '../../../src/contract/shared.ts'
import { distanceMeters } from '../../../src/platform/geo.ts'
import { type ConnectorSetup, registryOf, rejectsWith, validator } from '../../helpers/connectors.ts'

/**
 * The micromobility suite: what every micromobility connector must do, whatever its protocol (the sandbox, GBFS,
 * TOMP). A test file runs it with a profile of its implementation; what one protocol does differently is tested in
 * "specifics" blocks of that file. `berlinWorldSuite` adds what the simulated Berlin of the sandbox and of the TOMP
 * test operator (test/helpers/tomp-operator.ts) shows: the same places, zones, prices and workshop.
 */

export const T0 = Date.parse('2031-05-05T08:00:00.000Z')
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const BERLIN = { latitude: 52.52, longitude: 13.405 }
export const ALEXANDERPLATZ = { latitude: 52.5219, longitude: 13.4132 }
export const HAUPTBAHNHOF = { latitude: 52.5251, longitude: 13.3694 }

const check = {
  vehicle: validator(MicroVehicle, 'MicromobilityVehicle'),
  plan: validator(PricingPlan, 'PricingPlan'),
  deepLinks: validator(DeepLinks, 'DeepLinks'),
  zone: validator(Zone, 'Zone'),
  rules: validator(ZoneRules, 'ZoneRules'),
}

export interface MicroSetup extends ConnectorSetup<MicromobilityConnector> {
  providerId: string
  /** What the registry builds it from (a default provider's id, or an entry of its own). */
  entry: string | ProviderEntry
  /** A second instance of the same provider (the same store, clock and upstream), as another service instance. */
  twin(): Promise<MicroSetup>
}

/** A provider made to fail: calls of `s` made with `ctxs` fail with PROVIDER_ERROR (of `reason`) until `restore()`. */
export interface Breakdown {
  s: MicroSetup
  ctxs: CallContext[]
  reason?: string
  restore(): void | Promise<void>
}

/**
 * A provider that does not answer: calls of `s` with `ctx` wait until its signal aborts, and only that ends them. A
 * connector's own timeout must be far longer than the test (the longest its options allow): on a loaded machine the
 * test's short wait can end seconds late, after a timeout of a second or two has answered the call already.
 */
export interface Hang {
  s: MicroSetup
  ctx: CallContext
  restore(): void
}

/** What the micromobility suite needs to know of one implementation: how to build it, make it fail, what it serves. */
export interface MicroProfile {
  name: string
  /** A fresh provider on a store and a test clock of its own, loaded, with `options` over its own. */
  make(options?: Record<string, unknown>): Promise<MicroSetup>
  capabilities: Capabilities
  fleetSize: number
  vehicleId: RegExp
  /** Every vehicle is within `radiusMeters` of `center`; every zone position inside `bounds` [west, south, east, north]. */
  area: {
    center: { latitude: number; longitude: number }
    radiusMeters: number
    bounds: [number, number, number, number]
  }
  /** Every call fails as a provider error would. */
  failing(): Promise<Breakdown>
  /** Calls never answer. */
  hanging(signal: AbortSignal): Promise<Hang>
  /** Options the provider must refuse to be built with (one problem each). */
  badOptions: Record<string, unknown>[]
}

export const scenario = (name: string, target?: string): Scenario[] => [{ name, ...(target ? { target } : {}) }]

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
// GeoJSON, checked independently of the implementation.
type Pos = [number, number]
type Bounds = MicroProfile['area']['bounds']
const BERLIN_BOUNDS: Bounds = [13, 52, 14, 53]

function checkRing(ring: unknown, where: string, bounds: Bounds): Pos[] {
  assert.ok(Array.isArray(ring) && ring.length >= 4, `${where}: a ring has at least four positions`)
  const [west, south, east, north] = bounds
  for (const p of ring) {
    assert.ok(Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === 'number' && Number.isFinite(x)))
    assert.ok(Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90, `${where}: [longitude, latitude]`)
    // Longitude first.
    assert.ok(p[0] > west && p[0] < east && p[1] > south && p[1] < north, `${where}: ${p} is in ${bounds}`)
  }
  assert.deepEqual(ring[0], ring[ring.length - 1], `${where}: the ring is closed`)
  return ring as Pos[]
}

/** GeoJSON's right-hand rule (RFC 7946 3.1.6): exterior rings counterclockwise, holes clockwise. */
function checkWinding(ring: Pos[], exterior: boolean, where: string) {
  let area = 0
  for (let i = 0; i < ring.length - 1; i++) area += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  assert.ok(exterior ? area > 0 : area < 0, `${where}: right-hand rule (exterior counterclockwise)`)
}

export function polygonsOf(zone: ProviderZone, bounds: Bounds = BERLIN_BOUNDS): Pos[][][] {
  const { type, coordinates } = zone.geometry
  const polygons = (type === 'Polygon' ? [coordinates] : coordinates) as unknown[][]
  assert.ok(polygons.length > 0)
  return polygons.map((rings, i) => {
    assert.ok(Array.isArray(rings) && rings.length > 0, `${zone.id}: polygon ${i} has rings`)
    return rings.map((ring, j) => checkRing(ring, `${zone.id} polygon ${i} ring ${j}`, bounds))
  })
}

export function inside(zone: ProviderZone, p: { latitude: number; longitude: number }) {
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
export async function settlesWithin(promise: Promise<unknown>, ms: number) {
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
// The suite

export function micromobilitySuite(profile: MicroProfile, settings: { skip?: string } = {}) {
  const { make, area } = profile
  describe(`MicromobilityConnector conformance: ${profile.name}`, { skip: settings.skip }, () => {
    it('declares the capabilities of the provider; trips exactly when it has TRIPS', async () => {
      const s = await make()
      // A real operator's capabilities come from what it publishes, so they are read once the fleet is.
      await s.connector.fleet(s.ctx())
      const operations: string[] = s.connector.capabilities.operations
      assert.deepEqual(s.connector.capabilities, profile.capabilities)
      assert.equal(s.connector.trips !== undefined, operations.includes('TRIPS'))
    })

    it('fleet: valid shapes, in its area, unique ids, reported no later than now; a stable version', async () => {
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
        assert.ok(distanceMeters(v, area.center) <= area.radiusMeters, `${v.vehicleId} within its area`)
        assert.ok(
          Date.parse(v.lastUpdated) <= s.clock().getTime(),
          `${v.vehicleId}: ${v.lastUpdated} not in the future`,
        )
        if (v.pricingPlan) check.plan(v.pricingPlan)
        if (v.batteryPercent !== undefined) {
          assert.ok(Number.isInteger(v.batteryPercent) && v.batteryPercent >= 0 && v.batteryPercent <= 100)
        }
        if (v.deepLinks) check.deepLinks(v.deepLinks)
      }
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

    it('zones: valid GeoJSON in its area, with valid rules and unique ids', async () => {
      const s = await make()
      const zones = await s.connector.zones(s.ctx())
      assert.ok(zones.length > 0)
      const provider = { id: s.providerId, name: s.providerId }
      for (const zone of zones) {
        check.zone({ ...zone, provider }, zone.id)
        assert.ok(zone.rules.length > 0)
        for (const r of zone.rules) check.rules(r)
        polygonsOf(zone, area.bounds)
      }
      assert.equal(new Set(zones.map((z) => z.id)).size, zones.length, 'unique zone ids')
      assert.deepEqual(await s.connector.zones(s.ctx()), zones, 'the same again')
    })

    it('a provider in trouble: every call fails with PROVIDER_ERROR; once it recovers, nothing is left of it', async () => {
      const failing = await profile.failing()
      const { s } = failing
      const reason = failing.reason === undefined ? {} : { reason: failing.reason }
      for (const ctx of failing.ctxs) {
        await rejectsWith(s.connector.fleet(ctx), 'PROVIDER_ERROR', reason)
        await rejectsWith(s.connector.zones(ctx), 'PROVIDER_ERROR', reason)
      }
      await failing.restore()
      // Scenarios aimed at other providers change nothing.
      const elsewhere = s.ctx({ scenarios: [...scenario('provider-error', 'sandbox-rent'), ...scenario('x', 'y')] })
      assert.equal((await s.connector.fleet(elsewhere)).vehicles.length, profile.fleetSize)
      assert.deepEqual(await s.connector.zones(elsewhere), await s.connector.zones(s.ctx()))
      assert.ok((await s.connector.zones(elsewhere)).length > 0)
    })

    it('a provider that does not answer: the call waits until the caller gives up, then rejects with TIMEOUT', async () => {
      const controller = new AbortController()
      const hanging = await profile.hanging(controller.signal)
      const { s } = hanging
      const fleet = s.connector.fleet(hanging.ctx)
      const zones = s.connector.zones(hanging.ctx)
      assert.equal(await settlesWithin(fleet, 40), false, 'still waiting')
      controller.abort()
      // Ended by the caller giving up, not by a timeout of the connector's own.
      await rejectsWith(fleet, 'TIMEOUT', { reason: 'ABORTED' })
      await rejectsWith(zones, 'TIMEOUT', { reason: 'ABORTED' })
      hanging.restore()
    })

    it('a call whose caller has already given up rejects with TIMEOUT', async () => {
      const s = await make()
      const aborted = new AbortController()
      aborted.abort()
      await rejectsWith(s.connector.fleet(s.ctx({ signal: aborted.signal })), 'TIMEOUT')
      await rejectsWith(s.connector.zones(s.ctx({ signal: aborted.signal })), 'TIMEOUT')
    })

    it('wrong options are reported: the provider is UNAVAILABLE', async () => {
      const s = await make()
      for (const options of profile.badOptions) {
        const { registry, problems } = registryOf(s.entry, options, s.kv, s.clock)
        assert.equal(problems.length, 1, JSON.stringify(options))
        assert.equal(registry.get(s.providerId)?.status, 'UNAVAILABLE')
      }
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------
// The simulated Berlin

/** What the sandbox providers and the TOMP test operator show of Berlin: prices, workshop, zones, German names. */
export function berlinWorldSuite(profile: MicroProfile, settings: { skip?: string } = {}) {
  const { make } = profile
  describe(`the simulated Berlin: ${profile.name}`, { skip: settings.skip }, () => {
    it('every vehicle priced in EUR and reported now; a few in the workshop', async () => {
      const s = await make()
      const { vehicles } = await s.connector.fleet(s.ctx())
      for (const v of vehicles) {
        assert.equal(v.lastUpdated, s.clock().toISOString())
        assert.ok(v.pricingPlan, 'every vehicle has a pricing plan')
        assert.equal(v.pricingPlan.currency, 'EUR')
        assert.ok(v.pricingPlan.unlockFee.amount > 0 && v.pricingPlan.perMinuteRate.amount > 0)
      }
      const unavailable = vehicles.filter((v) => !v.isAvailable).length
      assert.ok(unavailable >= 1, 'a few vehicles are in maintenance')
      assert.ok(unavailable < vehicles.length / 10, `${unavailable} unavailable`)
    })

    it('zones: every vehicle parked inside the service area, none where parking is banned; names in German', async () => {
      const s = await make()
      const zones = await s.connector.zones(s.ctx())
      const provider = { id: s.providerId, name: s.providerId }
      for (const zone of zones) {
        check.zone({ ...zone, provider }, zone.id)
        assert.ok(zone.rules.length > 0)
        for (const r of zone.rules) check.rules(r)
        for (const [i, rings] of polygonsOf(zone).entries()) {
          for (const [j, ring] of rings.entries()) checkWinding(ring, j === 0, `${zone.id} polygon ${i} ring ${j}`)
        }
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
  })
}
