import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { parseGbfsOptions } from '../../src/connectors/gbfs/index.ts'
import type { ProviderMicroVehicle, ProviderZone } from '../../src/connectors/types/micromobility.ts'
import {
  geofencingData,
  publishableLinks,
  vehicleStatusData,
  vehicleTypesOf,
} from '../../src/domain/micromobility/gbfs-out-feeds.ts'
import { GBFS_VEHICLE_ID_PURPOSE, vehicleIdRotation } from '../../src/domain/micromobility/gbfs-out-ids.ts'
import { createTokenCipher, generateTokenKeys, parseTokenKeys } from '../../src/platform/tokens.ts'

const KEYS = generateTokenKeys('k1')
const secret = createTokenCipher(parseTokenKeys(KEYS)).deriveKey(GBFS_VEHICLE_ID_PURPOSE)

const vehicle = (over: Partial<ProviderMicroVehicle> = {}): ProviderMicroVehicle => ({
  vehicleId: 'scoot-0001',
  type: 'SCOOTER',
  propulsionType: 'ELECTRIC',
  name: 'S1',
  latitude: 52.52,
  longitude: 13.405,
  lastUpdated: '2025-01-01T00:00:00.000Z',
  isAvailable: true,
  batteryPercent: 80,
  ...over,
})

const latitude = fc.double({ min: -89, max: 89, noNaN: true })
const longitude = fc.double({ min: -179, max: 179, noNaN: true })
const charge = fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined })
const vehicleId = fc.string({ minLength: 1, maxLength: 40 })

describe('GBFS out: rotated vehicle ids', () => {
  it('are the same on every instance that shares TOKEN_KEYS, and change with the keys', () => {
    const again = createTokenCipher(parseTokenKeys(KEYS)).deriveKey(GBFS_VEHICLE_ID_PURPOSE)
    const other = createTokenCipher(parseTokenKeys(generateTokenKeys('k2'))).deriveKey(GBFS_VEHICLE_ID_PURPOSE)
    const v = vehicle()
    assert.equal(vehicleIdRotation(again, 'live', 'p')(v), vehicleIdRotation(secret, 'live', 'p')(v))
    assert.notEqual(vehicleIdRotation(other, 'live', 'p')(v), vehicleIdRotation(secret, 'live', 'p')(v))
  })

  it('stay while a vehicle stands still; change when a trip moves or drains it; never show the provider id', () => {
    const rotate = vehicleIdRotation(secret, 'live', 'sandbox-scoot')
    fc.assert(
      fc.property(
        vehicleId,
        latitude,
        longitude,
        charge,
        latitude,
        longitude,
        charge,
        (id, lat, lon, b, lat2, lon2, b2) => {
          const before = vehicle({ vehicleId: id, latitude: lat, longitude: lon, batteryPercent: b })
          const parked = rotate(before)
          const touched: ProviderMicroVehicle = { ...before, lastUpdated: 'later', isAvailable: false }
          assert.equal(rotate(touched), parked, 'nothing a trip changes')
          assert.match(parked, /^[A-Za-z0-9_-]{27}$/)
          if (id.length >= 4) assert.ok(!parked.includes(id))
          const moved = Math.abs(lat - lat2) >= 1e-6 || Math.abs(lon - lon2) >= 1e-6
          const drained = (b === undefined) !== (b2 === undefined) || (b !== undefined && b2 !== undefined && b !== b2)
          if (moved || drained) {
            assert.notEqual(rotate({ ...before, latitude: lat2, longitude: lon2, batteryPercent: b2 }), parked)
          }
        },
      ),
    )
  })

  it('differ between environments and providers for one vehicle', () => {
    const v = vehicle()
    const ids = new Set([
      vehicleIdRotation(secret, 'live', 'a')(v),
      vehicleIdRotation(secret, 'test', 'a')(v),
      vehicleIdRotation(secret, 'live', 'b')(v),
    ])
    assert.equal(ids.size, 3)
  })
})

describe('GBFS out: files', () => {
  it('leaves out rental links that name the provider vehicle id, keeps the others', () => {
    assert.equal(
      publishableLinks(
        vehicle({ deepLinks: { web: 'https://x.example/v/scoot-0001', ios: 'https://x.example/V/SCOOT-0001' } }),
      ),
      undefined,
    )
    assert.deepEqual(
      publishableLinks(
        vehicle({
          vehicleId: 'a b',
          deepLinks: { web: 'https://x.example/app', android: 'https://x.example/v/a%20b' },
        }),
      ),
      { web: 'https://x.example/app' },
    )
  })

  it('vehicle_status: disabled when not rentable, charge as a fraction and a range, station only when published', () => {
    const v = vehicle({ isAvailable: false, batteryPercent: 57.5, stationId: 'st1' })
    const types = vehicleTypesOf([v])
    const [published] = vehicleStatusData([v], types, new Set(), () => 'rotated').vehicles
    assert.equal(published.is_disabled, true)
    assert.equal(published.current_fuel_percent, 0.575)
    assert.equal(published.current_range_meters, 23_000)
    assert.equal('station_id' in published, false)
    const [docked] = vehicleStatusData([v], types, new Set(['st1']), () => 'rotated').vehicles
    assert.equal(docked.station_id, 'st1')
  })

  it('geofencing: service areas last (the first listed zone wins), rules scoped to the fleet’s type ids', () => {
    const ring = [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 0],
    ]
    const zone = (id: string, kind: ProviderZone['kind'], vehicleTypes?: string[]): ProviderZone => ({
      id,
      name: id,
      kind,
      geometry: { type: 'Polygon', coordinates: [ring] },
      rules: [
        { rideStartAllowed: kind !== 'NO_PARKING', rideEndAllowed: true, rideThroughAllowed: true, vehicleTypes },
      ],
    })
    const types = vehicleTypesOf([vehicle(), vehicle({ type: 'BICYCLE', propulsionType: 'HUMAN', name: 'B' })])
    const data = geofencingData(
      [zone('area', 'SERVICE_AREA'), zone('np', 'NO_PARKING', ['BICYCLE']), zone('slow', 'SLOW', ['CAR'])],
      types,
      'en',
    )
    const features = data.geofencing_zones.features
    assert.deepEqual(
      features.map((f) => f.properties.name?.[0].text),
      ['np', 'slow', 'area'],
    )
    assert.deepEqual(features[0].geometry, { type: 'MultiPolygon', coordinates: [[ring]] })
    const bike = [...types.values()].find((t) => t.type === 'BICYCLE')
    assert.deepEqual(features[0].properties.rules[0].vehicle_type_ids, [bike?.id])
    assert.equal('vehicle_type_ids' in features[1].properties.rules[0], false, 'no car in the fleet: unscoped')
    assert.equal(data.global_rules.length, 1)
    assert.deepEqual(geofencingData([zone('np', 'NO_PARKING')], types, 'en').global_rules, [])
  })
})

describe('the GBFS connector reading another service: options.headers', () => {
  it('takes header names and one-line values, refusing others with the reason', () => {
    const url = 'https://mobility.example.com/mobility-api/v2/gbfs/manifest.json'
    const headers = { authorization: 'Bearer svc_live_abc', 'X-Api-Key': 'k\t1' }
    assert.deepEqual(parseGbfsOptions({ url, headers }).headers, headers)
    for (const [bad, reason] of [
      [{ authorization: 'Bearer a\r\nX-Evil: 1' }, /one line/],
      [{ 'bad name': 'x' }, /not a header name/],
      [{ authorization: 1 }, /object of strings/],
      [['authorization'], /object of strings/],
    ] as const) {
      assert.throws(() => parseGbfsOptions({ url, headers: bad }), reason)
    }
  })
})
