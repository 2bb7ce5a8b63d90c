import { describe, it } from 'node:test'
import fc from 'fast-check'
import { decodeVehiclePositions, type RawVehicle } from '../../src/connectors/gtfs/vehicle-positions.ts'
import { encodeFeed, MINUTE, NOW, SECOND, seconds } from '../helpers/gtfs-rt.ts'

// Properties of the GTFS-Realtime VehiclePositions decoder, whatever the bytes or the entities.

describe('gtfs vehicle positions: properties of the decoder', () => {
  const options = { readAt: NOW, maxAgeMs: 5 * MINUTE, maxVehicles: 1000, report: () => {} }
  const valid = (v: RawVehicle) =>
    Math.abs(v.latitude) <= 90 &&
    Math.abs(v.longitude) <= 180 &&
    !(v.latitude === 0 && v.longitude === 0) &&
    (v.bearing === undefined || (v.bearing >= 0 && v.bearing < 360)) &&
    (v.speed === undefined || (v.speed >= 0 && v.speed <= 200)) &&
    v.lastUpdated <= NOW + 120 * SECOND &&
    v.lastUpdated >= NOW - 5 * MINUTE

  it('any bytes: a snapshot of valid positions, or the one error "not a GTFS-Realtime FeedMessage"', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          const snapshot = decodeVehiclePositions(bytes, options)
          return snapshot.vehicles.every(valid)
        } catch (error) {
          return /^not a GTFS-Realtime FeedMessage/.test((error as Error).message)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('any VehiclePosition entities: every kept position is valid, ids unique, each entity kept or counted as skipped', () => {
    const float = fc.oneof(
      fc.double({ min: -400, max: 400, noNaN: true }),
      fc.constantFrom(0, Number.NaN, Number.POSITIVE_INFINITY, 360, -0.0001),
    )
    const entity = fc.record(
      {
        id: fc.constantFrom('a', 'b', 'c', 'd'),
        vehicle: fc.record(
          {
            vehicle: fc.record({ id: fc.constantFrom('v1', 'v2', 'v3', '') }, { requiredKeys: [] }),
            trip: fc.record(
              { tripId: fc.constantFrom('AB1', 'GHOST'), routeId: fc.constantFrom('AB', 'X') },
              { requiredKeys: [] },
            ),
            position: fc.record(
              { latitude: float, longitude: float, bearing: float, speed: float },
              { requiredKeys: ['latitude', 'longitude'] },
            ),
            timestamp: fc.integer({ min: seconds(NOW) - 3600, max: seconds(NOW) + 3600 }),
            occupancyStatus: fc.integer({ min: 0, max: 12 }),
            currentStatus: fc.integer({ min: 0, max: 4 }),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['id', 'vehicle'] },
    )
    fc.assert(
      fc.property(fc.array(entity, { maxLength: 12 }), (entities) => {
        const snapshot = decodeVehiclePositions(encodeFeed(entities), options)
        const ids = snapshot.vehicles.map((v) => v.id)
        return (
          snapshot.vehicles.every(valid) &&
          new Set(ids).size === ids.length &&
          snapshot.entities === entities.length &&
          snapshot.vehicles.length + snapshot.skipped === entities.length
        )
      }),
      { numRuns: 500 },
    )
  })
})
