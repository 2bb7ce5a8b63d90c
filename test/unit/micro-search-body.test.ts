import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fastJson from 'fast-json-stringify'
import { microSearchBody } from '../../src/api/micromobility/search-body.ts'
import type { ProviderMicroVehicle } from '../../src/connectors/types/micromobility.ts'
import { envelope } from '../../src/contract/common.ts'
import { MicroSearchResult } from '../../src/contract/micromobility.ts'
import type { SearchPage } from '../../src/domain/micromobility/vehicles.ts'

/** What the route's serializer writes for the same answer (vehicles presented as vehicles.ts `present` builds them). */
const routeSerializer = fastJson(envelope(MicroSearchResult) as object)
const plan = Object.freeze({
  planId: 'p',
  name: 'Plan "night"',
  currency: 'EUR',
  unlockFee: Object.freeze({ amount: 100, currency: 'EUR' }),
  perMinuteRate: Object.freeze({ amount: 19, currency: 'EUR' }),
})
const scoot = Object.freeze({
  vehicleId: 'scoot-1',
  type: 'SCOOTER',
  propulsionType: 'ELECTRIC',
  name: 'Scoot ü',
  latitude: 52.52,
  longitude: 13.405,
  lastUpdated: '2026-01-01T00:00:00.000Z',
  isAvailable: true,
  batteryPercent: 80,
  pricingPlan: plan,
}) as ProviderMicroVehicle
const bike = Object.freeze({
  vehicleId: 'bike-1',
  type: 'BICYCLE',
  propulsionType: 'HUMAN',
  name: 'Bike',
  latitude: 52.521,
  longitude: 13.4,
  lastUpdated: '2026-01-01T00:00:00.000Z',
  isAvailable: false,
  deepLinks: Object.freeze({ web: 'https://example.com/b/1' }),
}) as ProviderMicroVehicle
const mutable: ProviderMicroVehicle = { ...scoot, vehicleId: 'scoot-2', batteryPercent: undefined }

const providers = {
  scoot: { entry: { id: 'scoot', name: 'Scoot' } },
  bike: { entry: { id: 'bike', name: 'Bike \\ Co' } },
} as unknown as Record<string, SearchPage['hits'][number]['p']>

function page(): SearchPage {
  return {
    hits: [
      { p: providers.scoot, v: scoot, d: 12.4, vehicleToken: 'tok-A' },
      { p: providers.bike, v: bike, d: 40.5, vehicleToken: undefined },
      { p: providers.scoot, v: mutable, d: 99.9, vehicleToken: 'tok-B' },
    ],
    tokenValidUntil: '2026-01-01T00:10:00.000Z',
    pagination: { hasMore: true, nextCursor: 'cur' },
    providers: [
      { id: 'scoot', name: 'Scoot', status: 'OK', vehicles: 2 },
      { id: 'bike', name: 'Bike \\ Co', status: 'OK', vehicles: 1 },
    ],
  }
}

function expected(p: SearchPage, meta: { requestId: string; timestamp: string }): string {
  const results = p.hits.map(({ p: provider, v, d, vehicleToken }) => ({
    vehicleId: v.vehicleId,
    vehicle: { type: v.type, propulsionType: v.propulsionType, name: v.name },
    location: { latitude: v.latitude, longitude: v.longitude, lastUpdated: v.lastUpdated },
    isAvailable: v.isAvailable,
    ...(v.batteryPercent !== undefined ? { batteryPercent: v.batteryPercent } : {}),
    provider: { id: provider.entry.id, name: provider.entry.name },
    ...(v.pricingPlan ? { pricingPlan: v.pricingPlan } : {}),
    ...(vehicleToken ? { vehicleToken, tokenValidUntil: p.tokenValidUntil } : {}),
    distanceFromSearch: Math.round(d),
    ...(v.deepLinks ? { deepLinks: v.deepLinks } : {}),
  }))
  return routeSerializer({ success: true, data: { results, pagination: p.pagination, providers: p.providers }, meta })
}

describe('micromobility search answer bytes', () => {
  const meta = { requestId: 'req_1', timestamp: '2026-01-01T00:00:00.000Z' }

  it('are what the route serializer writes, fresh and from kept parts', () => {
    assert.equal(microSearchBody(page(), meta).toString(), expected(page(), meta))
    assert.equal(microSearchBody(page(), meta).toString(), expected(page(), meta))
    const empty: SearchPage = { ...page(), hits: [], pagination: { hasMore: false } }
    assert.equal(microSearchBody(empty, meta).toString(), expected(empty, meta))
  })

  it('keep no bytes of a mutable vehicle', () => {
    microSearchBody(page(), meta)
    mutable.name = 'Renamed'
    mutable.batteryPercent = 5
    const after = microSearchBody(page(), meta).toString()
    assert.equal(after, expected(page(), meta))
    assert.match(after, /Renamed/)
  })
})
