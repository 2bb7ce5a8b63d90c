import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { Registry } from '../../src/connectors/registry.ts'
import type { CallContext, Provider } from '../../src/connectors/types/common.ts'
import type {
  MicromobilityConnector,
  ProviderMicroVehicle,
  ProviderZone,
} from '../../src/connectors/types/micromobility.ts'
import { ApiError } from '../../src/contract/errors.ts'
import { createGbfsOut } from '../../src/domain/micromobility/gbfs-out.ts'
import type { Caller, CallProvider } from '../../src/domain/providers/calls.ts'
import type { TenantRow } from '../../src/store/schema.ts'
import { testClock } from '../helpers/clock.ts'

/** GBFS out's reads of a provider: kept for the ttl, shared, answered from the last read while the provider fails. */

const vehicle = (n: number): ProviderMicroVehicle => ({
  vehicleId: `v${n}`,
  type: 'BICYCLE',
  propulsionType: 'HUMAN',
  name: 'Bike',
  latitude: 52.5 + n / 1000,
  longitude: 13.4,
  lastUpdated: '2025-01-01T00:00:00.000Z',
  isAvailable: true,
})
const ZONE: ProviderZone = {
  id: 'z',
  name: 'Zone',
  kind: 'NO_PARKING',
  geometry: {
    type: 'Polygon',
    coordinates: [
      [
        [13, 52],
        [14, 52],
        [14, 53],
        [13, 52],
      ],
    ],
  },
  rules: [{ rideStartAllowed: false, rideEndAllowed: false, rideThroughAllowed: true }],
}

function setup(providerCount = 1) {
  const clock = testClock(Date.parse('2025-06-01T10:00:00Z'))
  const calls = { fleet: 0, zones: 0 }
  const failing = { fleet: false, zones: false }
  let gate: Promise<void> = Promise.resolve()
  const connector: MicromobilityConnector = {
    capabilities: {
      modalities: ['BIKE'],
      operations: ['SEARCH', 'ZONES'],
      stationBased: false,
      freeFloating: true,
      requiresStoredBooking: false,
    },
    async fleet() {
      calls.fleet++
      await gate
      if (failing.fleet) throw new ApiError('PROVIDER_ERROR', 'down')
      return { version: String(calls.fleet), vehicles: [vehicle(1), vehicle(2)] }
    },
    async zones() {
      calls.zones++
      if (failing.zones) throw new ApiError('TIMEOUT', 'slow')
      return [ZONE]
    },
  }
  const providers: Provider[] = Array.from({ length: providerCount }, (_, i) => ({
    entry: { id: `p${i}`, name: `P${i}`, connector: 'fake', environments: ['live'] },
    connector,
    status: 'ACTIVE',
  }))
  const registry: Registry = {
    all: () => providers,
    get: (id) => providers.find((p) => p.entry.id === id),
    ids: () => providers.map((p) => p.entry.id),
    stop: async () => {},
  }
  // The provider called directly, without the resilience layer (its deadline and breaker are tested elsewhere).
  const direct = (
    caller: Caller,
    p: Provider & { connector: MicromobilityConnector },
    _operation: string,
    _budgetMs: number,
    fn: (c: MicromobilityConnector, ctx: CallContext) => Promise<unknown>,
  ) => fn(p.connector, { signal: AbortSignal.timeout(1000), now: caller.now } as CallContext)
  const callProvider = direct as unknown as CallProvider
  const gbfs = createGbfsOut({
    registry,
    callProvider,
    secret: Buffer.alloc(32, 1),
    clock,
    timeoutMs: 1000,
    contactEmail: 'ops@example.com',
    maxEntries: 2,
  })
  const caller = (): Caller => ({
    tenant: { id: 't', providers: null, dataRetention: 'STANDARD', updatedAt: clock() } as unknown as TenantRow,
    environment: 'live',
    language: 'en',
    now: clock(),
    scenarios: [],
  })
  const hold = () => {
    let release = () => {}
    gate = new Promise((resolve) => {
      release = resolve
    })
    return () => release()
  }
  return { gbfs, clock, calls, failing, caller, hold }
}

const BASE = 'http://h/mobility-api/v2/gbfs'

describe('GBFS out: reads of a provider', () => {
  it('are kept for the ttl (counted down), then read again', async () => {
    const { gbfs, clock, calls, caller } = setup()
    const first = await gbfs.feed(caller(), 'p0', 'vehicle_status', BASE)
    assert.equal(first.ttl, 15)
    clock.advance(6000)
    assert.equal((await gbfs.feed(caller(), 'p0', 'geofencing_zones', BASE)).ttl, 9)
    assert.equal(calls.fleet, 1)
    clock.advance(9000)
    const again = await gbfs.feed(caller(), 'p0', 'vehicle_status', BASE)
    assert.equal(calls.fleet, 2)
    assert.equal(again.ttl, 15)
    assert.equal(again.last_updated, '2025-06-01T10:00:15Z')
  })

  it('are shared by the callers that ask at once', async () => {
    const { gbfs, calls, caller, hold } = setup()
    const release = hold()
    const answers = Promise.all([1, 2, 3].map(() => gbfs.discovery(caller(), 'p0', BASE)))
    release()
    const [a, b, c] = await answers
    assert.equal(calls.fleet, 1)
    assert.deepEqual(a, b)
    assert.deepEqual(b, c)
  })

  it('while the provider fails: the last read, ttl 0, for at most 5 minutes; then the error', async () => {
    const { gbfs, clock, failing, caller } = setup()
    const good = await gbfs.feed(caller(), 'p0', 'vehicle_status', BASE)
    failing.fleet = true
    clock.advance(60_000)
    const stale = await gbfs.feed(caller(), 'p0', 'vehicle_status', BASE)
    assert.equal(stale.ttl, 0)
    assert.deepEqual(stale.data, good.data)
    assert.equal(stale.last_updated, good.last_updated)
    clock.advance(240_000)
    await assert.rejects(
      gbfs.feed(caller(), 'p0', 'vehicle_status', BASE),
      (e: ApiError) => e.code === 'PROVIDER_ERROR',
    )
  })

  it('zones that cannot be read now: the ones read before; none before, geofencing_zones is not listed', async () => {
    const { gbfs, clock, failing, caller } = setup()
    failing.zones = true
    const without = await gbfs.discovery(caller(), 'p0', BASE)
    assert.ok(!(without.data as any).feeds.some((f: any) => f.name === 'geofencing_zones'))
    failing.zones = false
    clock.advance(16_000)
    assert.ok((await gbfs.discovery(caller(), 'p0', BASE)).data)
    failing.zones = true
    clock.advance(16_000)
    const kept = await gbfs.feed(caller(), 'p0', 'geofencing_zones', BASE)
    assert.equal(kept.ttl, 15, 'a fresh read of the fleet')
    assert.equal((kept.data as any).geofencing_zones.features.length, 1)
  })

  it('keep a bounded number of entries (provider, environment, language)', async () => {
    const { gbfs, calls, caller } = setup(3)
    for (const id of ['p0', 'p1', 'p2']) await gbfs.feed(caller(), id, 'vehicle_types', BASE)
    assert.equal(calls.fleet, 3)
    await gbfs.feed(caller(), 'p2', 'vehicle_types', BASE)
    assert.equal(calls.fleet, 3, 'p2 is kept')
    await gbfs.feed(caller(), 'p0', 'vehicle_types', BASE)
    assert.equal(calls.fleet, 4, 'p0 was dropped to keep at most two')
  })
})
