import assert from 'node:assert/strict'
import { join } from 'node:path'
import { before, describe, it } from 'node:test'
import { createGtfsConnector, type GtfsConnector, parseGtfsOptions } from '../../src/connectors/gtfs/index.ts'
import { buildRegistry, CONNECTORS } from '../../src/connectors/registry.ts'
import type { TransitVehicle } from '../../src/connectors/types/public-transport.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import {
  at,
  byId,
  ctx,
  type Entity,
  encodeFeed,
  entry,
  fileUrl,
  NOW,
  RT,
  SECOND,
  seconds,
  vehicleFeedSetup,
  vp,
} from '../helpers/gtfs-rt.ts'

// The GTFS connector's VehiclePositions: the bindings' sample feeds (fixtures/gtfs-realtime) and a generated feed
// with every variant of a VehiclePosition, read beside sample-feed-1. Broken feeds: gtfs-vehicles-broken.test.ts.

const { server, started } = vehicleFeedSetup()

/** Protobuf by hand, for what the bindings refuse to encode (a position without latitude). */
const varint = (n: number) => {
  const out: number[] = []
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80)
    n >>>= 7
  }
  out.push(n)
  return out
}
const field = (n: number, bytes: Uint8Array | number[]) => [...varint(n * 8 + 2), ...varint(bytes.length), ...bytes]
const text = (s: string) => [...Buffer.from(s)]
const float = (n: number, value: number) => {
  const b = Buffer.alloc(4)
  b.writeFloatLE(value)
  return [...varint(n * 8 + 5), ...b]
}
/** FeedEntity { id, vehicle { position { longitude } } }: a Position without its required latitude. */
const entityWithoutLatitude = (id: string) => field(2, [...field(1, text(id)), ...field(4, field(2, float(2, -116.8)))])

/** Every VehiclePosition variant, each one checked below. */
const VARIANTS: Entity[] = [
  // Everything given: trip, descriptor with label, bearing, speed, stop, status, occupancy, timestamp.
  vp('e-full', {
    trip: { tripId: 'AB1', startDate: '20070605' },
    vehicle: { id: 'bus-1', label: '101' },
    ...at(36.874, -116.8, { bearing: 300.5, speed: 12.5 }),
    currentStopSequence: 2,
    currentStatus: 'IN_TRANSIT_TO',
    occupancyStatus: 'MANY_SEATS_AVAILABLE',
    timestamp: seconds(NOW - 30 * SECOND),
  }),
  // Position only, no trip: no line, the feed's timestamp.
  vp('e-notrip', { vehicle: { id: 'bus-2' }, ...at(36.9, -116.76) }),
  // A trip known by its route only.
  vp('e-route', { trip: { routeId: 'CITY' }, vehicle: { id: 'bus-3' }, ...at(36.91, -116.765), stopId: 'NADAV' }),
  // No vehicle descriptor: the entity id names the vehicle.
  vp('e-nodescriptor', { trip: { tripId: 'CITY1' }, ...at(36.915, -116.76), currentStatus: 'STOPPED_AT' }),
  // A vehicle descriptor only: nothing to put on a map.
  vp('e-descriptor-only', { vehicle: { id: 'bus-5' } }),
  // The same entity id twice, for two vehicles: both kept, the repetition reported.
  vp('e-dup', { vehicle: { id: 'bus-6a' }, ...at(36.9, -116.77) }),
  vp('e-dup', { vehicle: { id: 'bus-6b' }, ...at(36.9, -116.78) }),
  // One vehicle in two entities: the newer position wins.
  vp('e-twice-old', { vehicle: { id: 'bus-7' }, ...at(36.8, -116.7), timestamp: seconds(NOW - 90 * SECOND) }),
  vp('e-twice-new', { vehicle: { id: 'bus-7' }, ...at(36.81, -116.71), timestamp: seconds(NOW - 10 * SECOND) }),
  // Positions that are no place on Earth.
  vp('e-lat91', { vehicle: { id: 'bus-8' }, ...at(91, -116.7) }),
  vp('e-null-island', { vehicle: { id: 'bus-9' }, ...at(0, 0) }),
  vp('e-nan', { vehicle: { id: 'bus-10' }, ...at(Number.NaN, -116.7) }),
  // Impossible bearing and speed: the vehicle stays without them.
  vp('e-bad-heading', { vehicle: { id: 'bus-11' }, ...at(36.88, -116.81, { bearing: 400, speed: -3 }) }),
  // An hour in the future: taken as read now. An hour old: skipped.
  vp('e-future', { vehicle: { id: 'bus-12' }, ...at(36.87, -116.79), timestamp: seconds(NOW + 3600 * SECOND) }),
  vp('e-past', { vehicle: { id: 'bus-13' }, ...at(36.87, -116.79), timestamp: seconds(NOW - 3600 * SECOND) }),
  // Ids the timetable does not know: kept, without what they would give.
  vp('e-unknown-stop', { trip: { tripId: 'AB1' }, vehicle: { id: 'bus-14' }, ...at(36.87, -116.8), stopId: 'NOWHERE' }),
  vp('e-unknown-trip', { trip: { tripId: 'GHOST' }, vehicle: { id: 'bus-15' }, ...at(36.87, -116.8) }),
  vp('e-unknown-occupancy', { vehicle: { id: 'bus-16' }, ...at(36.87, -116.8), occupancyStatus: 42 }),
  // Not vehicles of this feed: deleted, and a trip update.
  { id: 'e-deleted', isDeleted: true, vehicle: { vehicle: { id: 'bus-17' }, ...at(36.87, -116.8) } },
  { id: 'e-tripupdate', tripUpdate: { trip: { tripId: 'AB1' } } },
]

function variantsFeed(): Buffer {
  const good = encodeFeed(VARIANTS)
  // An entity that cannot be decoded, appended as one more `entity` field of the message.
  return Buffer.concat([good, Buffer.from(entityWithoutLatitude('e-undecodable'))])
}

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs vehicle positions: options and capability', () => {
  it('validates vehiclePositionsUrl; the capability and the method exist only with it', async () => {
    const options = parseGtfsOptions({ url: 'file:/x', vehiclePositionsUrl: 'https://rt.example/vp.pb' })
    assert.equal(options.vehiclePositionsUrl?.href, 'https://rt.example/vp.pb')
    assert.equal(options.realtimeRefreshSeconds, 30)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', vehiclePositionsUrl: 'nope' }), /vehiclePositionsUrl/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', vehiclePositionsUrl: 'ftp://x/vp' }), /vehiclePositionsUrl/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', vehiclePositionsUrl: 42 }), /vehiclePositionsUrl/)
    const plain = createGtfsConnector(entry({}), { kv: memoryKv(), clock: () => new Date(NOW) })
    assert.equal(plain.vehicles, undefined)
    assert.ok(!plain.capabilities.operations.includes('VEHICLE_POSITIONS'))
    const { connector } = await started({ vehiclePositionsUrl: fileUrl(join(RT, 'vehicle_position.pb')) })
    assert.ok(connector.capabilities.operations.includes('VEHICLE_POSITIONS'))
  })

  it('a provider whose feed cannot be reached is ACTIVE, answers no vehicles, and says why', async () => {
    const warned: string[] = []
    const registry = buildRegistry(
      [entry({ vehiclePositionsUrl: `${server.base}/nothing-here.pb` }, 'gtfs-vp-down')],
      { kv: memoryKv(), clock: () => new Date(NOW), logger: { warn: (line) => warned.push(line) } },
      () => {},
      CONNECTORS,
    )
    const provider = registry.get('gtfs-vp-down')
    const connector = provider?.connector as GtfsConnector
    const until = Date.now() + 5000
    while (!connector.stats().vehiclePositions?.lastError && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50))
    assert.equal(provider?.status, 'ACTIVE')
    assert.deepEqual((await connector.vehicles?.(ctx(new Date(NOW))))?.vehicles, [])
    assert.match(connector.stats().vehiclePositions?.lastError ?? '', /HTTP 404/)
    assert.ok(
      warned.some((line) => /^gtfs gtfs-vp-down: vehicle positions .*HTTP 404/.test(line)),
      warned.join('\n'),
    )
    await registry.stop()
  })
})

describe('gtfs vehicle positions: the bindings’ sample feeds', () => {
  it('reads vehicle_position.pb: the position, the vehicle and its trip; a trip not in the timetable has no line', async () => {
    const { connector, vehicles } = await started({ vehiclePositionsUrl: fileUrl(join(RT, 'vehicle_position.pb')) })
    const list = await vehicles()
    assert.deepEqual(list, [{ id: '1', latitude: 47, longitude: -122, tripId: 't0', lastUpdated: new Date(NOW) }])
    assert.match(connector.problems().join('\n'), /trip "t0" is not in the timetable/)
    const stats = connector.stats().vehiclePositions
    assert.equal(stats?.vehicles, 1)
    assert.equal(stats?.entities, 1)
    assert.equal(stats?.skipped, 0)
    assert.equal(stats?.lastSuccessAt, new Date(NOW).toISOString())
  })

  it('reads occupancy when it is given, and leaves it out when it is not (the proto default is not a value)', async () => {
    const without = await started({
      vehiclePositionsUrl: fileUrl(join(RT, 'vehicle-position-pre-occupancy-defaults-no-occupancy.pb')),
    })
    const [plain] = await without.vehicles()
    assert.equal(plain.occupancy, undefined)
    assert.deepEqual([plain.id, plain.latitude, plain.longitude, plain.tripId], ['1', 50, -60, 'A'])
    const withOccupancy = await started({
      vehiclePositionsUrl: fileUrl(join(RT, 'vehicle-position-pre-occupancy-defaults-with-occupancy-status.pb')),
    })
    const [full] = await withOccupancy.vehicles()
    assert.equal(full.occupancy, 'FEW_SEATS_AVAILABLE')
  })
})

describe('gtfs vehicle positions: every VehiclePosition variant', () => {
  let connector: GtfsConnector
  let list: Map<string, TransitVehicle>
  let problems: string
  before(async () => {
    server.answers.set('/variants.pb', { status: 200, body: variantsFeed() })
    const setup = await started({ vehiclePositionsUrl: `${server.base}/variants.pb` })
    connector = setup.connector
    list = byId(await setup.vehicles())
    problems = connector.problems().join('\n')
  })

  it('joins a full position to the timetable: line, headsign, stop from the stop sequence, every field', () => {
    assert.deepEqual(list.get('bus-1'), {
      id: 'bus-1',
      label: '101',
      latitude: 36.874,
      longitude: -116.8,
      bearing: 300.5,
      speed: 12.5,
      tripId: 'AB1',
      line: { routeId: 'AB', name: '10', mode: 'BUS', agency: 'Demo Transit Authority' },
      headsign: 'to Bullfrog',
      stop: { id: 'BULLFROG', name: 'Bullfrog (Demo)' },
      currentStatus: 'IN_TRANSIT_TO',
      occupancy: 'MANY_SEATS_AVAILABLE',
      lastUpdated: new Date(NOW - 30 * SECOND),
    })
  })

  it('keeps positions without trip, with a route only, without descriptor; the feed time when the vehicle has none', () => {
    assert.deepEqual(list.get('bus-2'), { id: 'bus-2', latitude: 36.9, longitude: -116.76, lastUpdated: new Date(NOW) })
    const route = list.get('bus-3')
    assert.deepEqual(route?.line, { routeId: 'CITY', name: '40', mode: 'BUS', agency: 'Demo Transit Authority' })
    assert.equal(route?.tripId, undefined)
    assert.deepEqual(route?.stop, { id: 'NADAV', name: 'North Ave / D Ave N (Demo)' })
    assert.equal(route?.currentStatus, undefined, 'no status sent, none invented')
    const anonymous = list.get('e-nodescriptor')
    assert.equal(anonymous?.line?.name, '40')
    assert.equal(anonymous?.tripId, 'CITY1')
    assert.equal(anonymous?.currentStatus, undefined, 'a status means nothing without a stop')
  })

  it('skips what cannot be placed, and reports each', () => {
    for (const id of ['bus-5', 'bus-8', 'bus-9', 'bus-10', 'bus-13', 'bus-17']) assert.ok(!list.has(id), id)
    assert.match(problems, /entity "e-descriptor-only": no position; skipped/)
    assert.match(problems, /entity "e-lat91": position 91, -116\.\d+ is not a place on Earth; skipped/)
    assert.match(problems, /entity "e-null-island": position 0, 0 is not a place on Earth; skipped/)
    assert.match(problems, /entity "e-nan": position NaN, .* is not a place on Earth; skipped/)
    assert.match(problems, /entity #\d+ cannot be decoded \(missing required 'latitude'\); skipped/)
    assert.match(problems, /entity "e-past": the position of 2007-06-05T14:05:00\.000Z is older than 300 s; skipped/)
  })

  it('repeated entity ids keep both vehicles; one vehicle in two entities keeps its newest position', () => {
    assert.equal(list.get('bus-6a')?.longitude, -116.77)
    assert.equal(list.get('bus-6b')?.longitude, -116.78)
    assert.match(problems, /entity "e-dup": the entity id is repeated/)
    assert.deepEqual(
      [list.get('bus-7')?.latitude, list.get('bus-7')?.lastUpdated.getTime()],
      [36.81, NOW - 10 * SECOND],
    )
    assert.match(problems, /vehicle "bus-7" is in more than one entity; the newest kept/)
  })

  it('leaves out impossible bearings and speeds, future timestamps become the time of reading', () => {
    const bad = list.get('bus-11')
    assert.ok(bad)
    assert.equal(bad.bearing, undefined)
    assert.equal(bad.speed, undefined)
    assert.match(problems, /entity "e-bad-heading": bearing 400 is not 0 to 360 degrees; left out/)
    assert.match(problems, /entity "e-bad-heading": speed -3 m\/s is not possible; left out/)
    assert.equal(list.get('bus-12')?.lastUpdated.getTime(), NOW)
    assert.match(problems, /entity "e-future": timestamp .* is in the future; the time of reading is used/)
  })

  it('keeps ids the timetable does not know without what they would give, and reports them', () => {
    const stop = list.get('bus-14')
    assert.equal(stop?.stop, undefined)
    assert.equal(stop?.line?.name, '10')
    assert.match(problems, /vehicle "bus-14": stop "NOWHERE" is not in the timetable/)
    const trip = list.get('bus-15')
    assert.equal(trip?.tripId, 'GHOST')
    assert.equal(trip?.line, undefined)
    assert.match(problems, /vehicle "bus-15": trip "GHOST" is not in the timetable/)
    assert.equal(list.get('bus-16')?.occupancy, undefined)
    assert.match(problems, /entity "e-unknown-occupancy": occupancy status 42 is not known; left out/)
  })

  it('counts the entities and the skipped ones; deleted entities and trip updates are not vehicles', () => {
    const stats = connector.stats().vehiclePositions
    // 18 VehiclePosition entities (the deleted one and the trip update not counted) and the undecodable one.
    assert.equal(stats?.entities, 19)
    // No position, three places not on Earth, one too old, the undecodable one, and bus-7's older entity.
    assert.equal(stats?.skipped, 7)
    assert.equal(stats?.vehicles, list.size)
    assert.equal(list.size, 12)
    assert.equal(stats?.feedTimestamp, new Date(NOW).toISOString())
  })
})
