import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { CallContext } from '../../src/connectors/types/common.ts'
import type { MicromobilityConnector, ProviderMicroVehicle } from '../../src/connectors/types/micromobility.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'
import { listenAll } from '../helpers/listen.ts'
import { startTompOperator, type TompOperator } from '../helpers/tomp-operator.ts'
import { eventually } from '../helpers/webhook-receiver.ts'

/**
 * The service's GBFS output read back by the service: a second service whose GBFS providers are the first one's
 * systems (one through its gbfs.json, one through manifest.json and systemId, one a TOMP operator's fleet), the key
 * passed in `options.headers`, finds the same vehicles: as many, at the same places, of the same types, as available,
 * as charged and as priced; and the same stations.
 */

const ctx = (environment: 'live' | 'test' = 'live'): CallContext => ({
  signal: AbortSignal.timeout(10_000),
  now: new Date(),
  language: 'en',
  tenantId: 't',
  environment,
  scenarios: [],
})

/** What a GBFS consumer can know of a vehicle, in a comparable order. */
const seen = (vehicles: ProviderMicroVehicle[]) =>
  vehicles
    .map((v) => ({
      at: [v.latitude, v.longitude],
      type: v.type,
      propulsionType: v.propulsionType,
      name: v.name,
      isAvailable: v.isAvailable,
      batteryPercent: v.batteryPercent,
      plan: v.pricingPlan && [v.pricingPlan.planId, v.pricingPlan.unlockFee, v.pricingPlan.perMinuteRate.amount],
    }))
    .sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.name.localeCompare(b.name))

describe('GBFS out read back by a GBFS consumer (a second service)', { skip: skipReason }, () => {
  let first: Harness
  let second: Harness
  let t: TenantFixture
  let operator: TompOperator
  before(async () => {
    operator = await startTompOperator({ clock: () => (first ? first.clock() : new Date()), apiKey: 'k' })
    const dir = mkdtempSync(join(tmpdir(), 'gbfs-rt-'))
    const both = ['live', 'test']
    writeFileSync(
      join(dir, 'first.json'),
      JSON.stringify({
        providers: [
          { id: 'sandbox-scoot', name: 'Sandbox Scoot', connector: 'sandbox', environments: both },
          { id: 'sandbox-bike', name: 'Sandbox Bike', connector: 'sandbox', environments: both },
          {
            id: 'freebike',
            name: 'FreeBike',
            connector: 'tomp',
            environments: both,
            options: { url: operator.url, apiKey: 'k' },
          },
        ],
      }),
    )
    first = await startHarness({ env: { PROVIDERS_FILE: join(dir, 'first.json') } })
    t = await createTenant(first)
    const [base] = await listenAll(first)
    // The mirrors read every feed of three systems on two instances, again at each ttl: far more than the default
    // 100 requests a minute of one key, so they get a key of their own with room (a 429 would drop a feed).
    const mirrorKey = await createKey(first, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 100_000, windowSeconds: 60 },
    })
    const headers = { authorization: `Bearer ${mirrorKey.secret}` }
    const gbfs = (id: string, options: Record<string, unknown>) => ({
      id,
      name: id,
      connector: 'gbfs',
      environments: ['live'],
      // A feed that failed at the first read (the first service's store busy while this one starts in the same
      // process) is read again within seconds rather than the default 15.
      options: { ...options, headers, minTtlSeconds: 1 },
    })
    writeFileSync(
      join(dir, 'second.json'),
      JSON.stringify({
        providers: [
          gbfs('mirror-scoot', { url: `${base}/mobility-api/v2/gbfs/sandbox-scoot/gbfs.json` }),
          gbfs('mirror-bike', { url: `${base}/mobility-api/v2/gbfs/manifest.json`, systemId: 'sandbox-bike' }),
          gbfs('mirror-freebike', { url: `${base}/mobility-api/v2/gbfs/freebike/gbfs.json` }),
        ],
      }),
    )
    second = await startHarness({ env: { PROVIDERS_FILE: join(dir, 'second.json') } })
    // Every instance of the second service has read every feed of the first (stations and pricing plans included).
    await eventually(async () => {
      for (const runtime of second.runtimes) {
        const bike = runtime.registry.get('mirror-bike')?.connector as MicromobilityConnector
        const fleet = await bike.fleet(ctx())
        if ((await bike.stations?.(ctx()))?.length === 0 || !fleet.vehicles.every((v) => v.pricingPlan)) return false
      }
      return true
    }, 30_000)
  })
  after(async () => {
    await second?.close()
    await first?.close()
    await operator.close()
  })

  const connector = (h: Harness, id: string) => h.runtimes[0].registry.get(id)?.connector as MicromobilityConnector

  for (const [original, mirror] of [
    ['sandbox-scoot', 'mirror-scoot'],
    ['sandbox-bike', 'mirror-bike'],
    ['freebike', 'mirror-freebike'],
  ]) {
    it(`${mirror} finds the vehicles of ${original}: count, places, types, availability, charge, prices`, async () => {
      assert.equal(second.runtimes[0].registry.get(mirror)?.status, 'ACTIVE')
      const theirs = await connector(first, original).fleet(ctx())
      const ours = await connector(second, mirror).fleet(ctx())
      assert.ok(theirs.vehicles.length > 100)
      assert.equal(ours.vehicles.length, theirs.vehicles.length)
      assert.deepEqual(seen(ours.vehicles), seen(theirs.vehicles))
      // Nothing of the provider's own ids travelled.
      const originalIds = new Set(theirs.vehicles.map((v) => v.vehicleId))
      assert.ok(ours.vehicles.every((v) => !originalIds.has(v.vehicleId)))
    })
  }

  it('the stations and zones come along; the second service publishes them again, valid', async () => {
    const theirs = await connector(first, 'sandbox-bike').stations?.(ctx())
    const ours = await connector(second, 'mirror-bike').stations?.(ctx())
    assert.deepEqual(
      ours?.map((s) => [s.stationId, s.name, s.latitude, s.longitude, s.isVirtual]),
      theirs?.map((s) => [s.stationId, s.name, s.latitude, s.longitude, s.isVirtual]),
    )
    const docked = (await connector(second, 'mirror-bike').fleet(ctx())).vehicles.filter((v) => v.stationId)
    const original = (await connector(first, 'sandbox-bike').fleet(ctx())).vehicles.filter((v) => v.stationId)
    assert.equal(docked.length, original.length)
    const zones = await connector(second, 'mirror-scoot').zones(ctx())
    const originalZones = await connector(first, 'sandbox-scoot').zones(ctx())
    assert.deepEqual(zones.map((z) => z.name).sort(), originalZones.map((z) => z.name).sort())
    const t2 = await createTenant(second)
    const res = await second.api('GET', '/gbfs/mirror-bike/station_status.json', t2.secret)
    assert.equal(res.status, 200, res.text)
  })
})
