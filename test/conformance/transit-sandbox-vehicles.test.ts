import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import type { Timetable } from '../../src/connectors/gtfs/engine/timetable.ts'
import { createGtfsConnector } from '../../src/connectors/gtfs/index.ts'
import { FEED_DIR } from '../../src/connectors/sandbox/transit/make-feed.ts'
import {
  isPublicTransportConnector,
  isTransitVehicleConnector,
  type TransitVehicle,
  type TransitVehicleConnector,
} from '../../src/connectors/types/public-transport.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { buildConnector, type ConnectorSetup, inMemory, rejectsWith } from '../helpers/connectors.ts'

// The sandbox transit provider's vehicles run on its timetable: checked against the same timetable, read here.

const ID = 'sandbox-transit'
/** Tuesday 3 June 2031, 10:00 in Berlin. */
const T0 = Date.parse('2031-06-03T08:00:00.000Z')
const SECOND = 1000
const MINUTE = 60 * SECOND

const build = (start = T0, options?: Record<string, unknown>) =>
  buildConnector(ID, { is: isTransitVehicleConnector, name: 'transit vehicle' }, { start, makeKv: inMemory, options })
const vehiclesOf = async (s: ConnectorSetup<TransitVehicleConnector>) => (await s.connector.vehicles(s.ctx())).vehicles

let tt: Timetable
const timetable = createGtfsConnector(
  {
    id: 'feed',
    name: 'feed',
    connector: 'gtfs',
    environments: ['test'],
    options: { url: pathToFileURL(FEED_DIR).href },
  },
  { kv: memoryKv(), clock: () => new Date(T0) },
)
before(async () => {
  await timetable.start?.()
  tt = await timetable.timetable()
})
after(() => timetable.stop?.())

/** Meters from a point to the segment a-b (flat earth: the segments are a few km at most). */
function offSegment(p: TransitVehicle, a: number, b: number): number {
  const k = Math.cos((p.latitude * Math.PI) / 180)
  const ax = tt.stopLon[a] * k
  const ay = tt.stopLat[a]
  const bx = tt.stopLon[b] * k
  const by = tt.stopLat[b]
  const px = p.longitude * k
  const py = p.latitude
  const l2 = (bx - ax) ** 2 + (by - ay) ** 2
  const f = l2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / l2))
  return Math.hypot(px - (ax + f * (bx - ax)), py - (ay + f * (by - ay))) * 111_195
}

/** The smallest distance from the vehicle to its trip's path (stop to stop), meters, and the trip's stops. */
function onRoute(v: TransitVehicle): { meters: number; stops: string[] } {
  const trip = tt.tripsById.get(v.tripId ?? '')?.[0]
  assert.ok(trip !== undefined, `trip ${v.tripId} is in the timetable`)
  const a = tt.tripSt[trip]
  const stops = Array.from({ length: tt.tripLen[trip] }, (_, i) => tt.stStop[a + i])
  let meters = Number.POSITIVE_INFINITY
  for (let i = 0; i + 1 < stops.length; i++) meters = Math.min(meters, offSegment(v, stops[i], stops[i + 1]))
  return { meters, stops: stops.map((s) => tt.stopIds[s]) }
}

describe('sandbox-transit: vehicles on the timetable', () => {
  it('has the capability VEHICLE_POSITIONS; without it (disabledOperations) it has no vehicles', () => {
    const s = build()
    assert.ok(s.connector.capabilities.operations.includes('VEHICLE_POSITIONS'))
    const off = buildConnector(
      ID,
      { is: isPublicTransportConnector, name: 'public-transport' },
      { start: T0, options: { disabledOperations: ['VEHICLE_POSITIONS'] } },
    )
    assert.equal(off.connector.vehicles, undefined)
  })

  it('shows buses, trams, metro and trains in the morning, each on its route with its line, stop and heading', async () => {
    const s = build()
    const list = await vehiclesOf(s)
    assert.ok(list.length > 50, `${list.length} vehicles at 10:00`)
    assert.deepEqual(new Set(list.map((v) => v.line?.mode)), new Set(['BUS', 'TRAM', 'SUBWAY', 'RAIL']))
    assert.equal(new Set(list.map((v) => v.id)).size, list.length, 'one vehicle per trip run')
    for (const v of list) {
      const { meters, stops } = onRoute(v)
      assert.ok(meters < 1, `${v.id} is ${meters.toFixed(1)} m off its route`)
      assert.ok(v.stop && stops.includes(v.stop.id), `${v.id} heads for a stop of its trip`)
      assert.ok(v.line?.name && v.line.color, v.id)
      assert.ok(v.bearing !== undefined && v.bearing >= 0 && v.bearing < 360, v.id)
      assert.ok(v.speed !== undefined && v.speed >= 0 && v.speed < 60, `${v.id} at ${v.speed} m/s`)
      assert.equal(v.lastUpdated.getTime(), T0)
      assert.ok(v.occupancy)
      assert.ok(v.currentStatus === 'STOPPED_AT' ? v.speed === 0 : v.currentStatus === 'IN_TRANSIT_TO', v.id)
    }
  })

  it('moves between two clock times and stays on the route; the same moment gives the same places', async () => {
    const s = build()
    const before = new Map((await vehiclesOf(s)).map((v) => [v.id, v]))
    s.clock.advance(30 * SECOND)
    const later = await vehiclesOf(s)
    let moved = 0
    for (const v of later) {
      const was = before.get(v.id)
      if (!was) continue
      if (was.latitude !== v.latitude || was.longitude !== v.longitude) moved++
      assert.ok(onRoute(v).meters < 1, v.id)
    }
    assert.ok(moved > 20, `${moved} vehicles moved in 30 s`)
    // Another instance of the service at the same moment sees every vehicle at the same place.
    const twin = build(T0 + 30 * SECOND)
    assert.deepEqual(await vehiclesOf(twin), later)
  })

  it('is at the stop when its departure is due, and there is none at night', async () => {
    const board = build()
    const [departure] = await board.connector.departures('900100003', new Date(T0 + 5 * MINUTE), 1, board.ctx())
    const s = build(departure.scheduled.getTime())
    const stop = tt.stopIndex.get(departure.stopId) as number
    const there = (await vehiclesOf(s)).filter(
      (v) => v.tripId === departure.tripId && v.latitude === tt.stopLat[stop] && v.longitude === tt.stopLon[stop],
    )
    assert.equal(there.length, 1, `${departure.tripId} at ${departure.stopId} at ${departure.scheduled.toISOString()}`)
    assert.equal(there[0].currentStatus, 'STOPPED_AT')
    assert.equal(there[0].stop?.id, departure.stopId)
    assert.equal(there[0].line?.name, departure.line.name)
    // 03:30 in Berlin: the night is quiet.
    assert.deepEqual(await vehiclesOf(build(Date.parse('2031-06-03T01:30:00Z'))), [])
  })

  it('fails as the scenarios ask', async () => {
    const s = build()
    await rejectsWith(
      s.connector.vehicles(s.ctx({ scenarios: [{ name: 'provider-error', target: ID }] })),
      'PROVIDER_ERROR',
      { reason: 'SCENARIO', operation: 'VEHICLE_POSITIONS' },
    )
  })
})
