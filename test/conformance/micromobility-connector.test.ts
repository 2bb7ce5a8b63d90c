import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SANDBOX_PROFILES } from '../../src/connectors/sandbox/index.ts'
import { isMicromobilityConnector, type ProviderMicroVehicle } from '../../src/connectors/types/micromobility.ts'
import { SANDBOX_SCENARIOS } from '../../src/contract/sandbox.ts'
import { distanceMeters } from '../../src/platform/geo.ts'
import { buildConnector, type KvFactory, rejectsWith } from '../helpers/connectors.ts'
import { testRedis } from '../helpers/redis.ts'
import {
  ALEXANDERPLATZ,
  BERLIN,
  berlinWorldSuite,
  HAUPTBAHNHOF,
  HOUR,
  inside,
  type MicroSetup,
  micromobilitySuite,
  scenario,
  T0,
} from './suites/micromobility.ts'
import { commandsFail, RIDER, rejected, rideable, type TripProfile, tripSuite } from './suites/trips.ts'

/**
 * The sandbox micromobility providers: the micromobility suite (and for sandbox-scoot the trip suite) on the
 * in-memory store and on Redis (the state several instances share), then what is theirs alone.
 */

const micromobility = { is: isMicromobilityConnector, name: 'micromobility' }

function sandboxProfile(id: 'sandbox-scoot' | 'sandbox-bike', makeKv?: KvFactory): TripProfile {
  const build = (options: Record<string, unknown>, shared?: Pick<MicroSetup, 'clock' | 'kv'>): MicroSetup => {
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
    area: { center: BERLIN, radiusMeters: 6_100, bounds: [13, 52, 14, 53] },
    reference: /^SC-[0-9A-Z]{10}$/,
    unknownVehicles: ['scoot-9999', 'bike-0001'],
    unknownReference: { vehicleId: 'scoot-0001', reference: 'SC-ZZZZZZZZZZ' },
    commands: ['LOCK', 'UNLOCK', 'HONK'],
    reserved: 'hidden',
    failing: async () => {
      const s = build({})
      return {
        s,
        ctxs: [s.ctx({ scenarios: scenario('provider-error', id) }), s.ctx({ scenarios: scenario('provider-error') })],
        reason: 'SCENARIO',
        restore: () => {},
      }
    },
    hanging: async (signal) => {
      const s = build({})
      return { s, ctx: s.ctx({ scenarios: scenario('provider-timeout', id), signal }), restore: () => {} }
    },
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
  }
}

/** What both simulated providers do that a real one would not: seeds, sizes, latency and failures on demand. */
function simulatedSpecifics(profile: TripProfile, settings: { skip?: string } = {}) {
  const { make } = profile
  describe(`sandbox micromobility specifics: ${profile.name}`, { skip: settings.skip }, () => {
    it('deterministic by seed, fleetSize keeps the first vehicles', async () => {
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

    it('options latencyMs and failureRate as for cars', async () => {
      const slow = await make({ latencyMs: 40 })
      const started = performance.now()
      await slow.connector.zones(slow.ctx())
      assert.ok(performance.now() - started >= 35, 'latency applies')
      const failing = await make({ failureRate: 1 })
      await rejectsWith(failing.connector.fleet(failing.ctx()), 'PROVIDER_ERROR', { reason: 'SIMULATED_FAILURE' })
    })
  })
}

/** The sandbox keeps live and test apart (a real operator is the same whichever environment calls it). */
function tripSpecifics(profile: TripProfile, settings: { skip?: string } = {}) {
  describe(`sandbox trip specifics: ${profile.name}`, { skip: settings.skip }, () => {
    it('live and test are apart: a vehicle held in test is free in live', async () => {
      const s = await profile.make()
      const [vehicle] = await rideable(s)
      await s.connector.trips!.reserve(vehicle.vehicleId, RIDER, s.ctx({ environment: 'test' }))
      const live = await s.connector.fleet(s.ctx({ environment: 'live' }))
      assert.ok(live.vehicles.some((v) => v.vehicleId === vehicle.vehicleId))
      const ride = await s.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, s.ctx({ environment: 'live' }))
      await commandsFail(profile, s, ride.reference)
    })
  })
}

const shared = await testRedis('micro')
const redisSkip = shared.skip
const onRedis: KvFactory = shared.kv

for (const id of ['sandbox-scoot', 'sandbox-bike'] as const) {
  for (const [profile, settings] of [
    [sandboxProfile(id), {}],
    [sandboxProfile(id, onRedis), { skip: redisSkip }],
  ] as const) {
    micromobilitySuite(profile, settings)
    berlinWorldSuite(profile, settings)
    simulatedSpecifics(profile, settings)
    if (id === 'sandbox-scoot') {
      tripSuite(profile, settings)
      tripSpecifics(profile, settings)
    }
  }
}

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
