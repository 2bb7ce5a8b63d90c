import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CallContext, Capabilities } from '../../../src/connectors/types/common.ts'
import type {
  PublicTransportConnector,
  TransitDeparture,
  TransitJourney,
  TransitStop,
} from '../../../src/connectors/types/public-transport.ts'
import { TRANSIT_MODES } from '../../../src/contract/public-transport.ts'
import { distanceMeters } from '../../../src/platform/geo.ts'
import { type ConnectorSetup, registryOf, rejectsWith } from '../../helpers/connectors.ts'

/**
 * The public-transport suite: what every public-transport connector must do, whatever feeds it (a GTFS feed, the
 * transit sandbox): stops near a point and by name, departures in time order, journeys that hold together, failures
 * as the one error type. A test file runs it with a profile of its implementation: a place, a stop, a trip and a time
 * where its timetable runs. Hand-checked answers of one feed stay in that file.
 */

export type PtSetup = ConnectorSetup<PublicTransportConnector> & {
  providerId: string
  /** What the registry builds it from (a default provider's id, or an entry of its own). */
  entry: Parameters<typeof registryOf>[0]
}

export interface PtProfile {
  name: string
  /** A fresh provider on a store and a test clock of its own, loaded. */
  make(): Promise<PtSetup>
  capabilities: Capabilities
  /** A point with at least `minStops` stops within `radiusMeters`. */
  place: { latitude: number; longitude: number; radiusMeters: number; minStops: number }
  /** A stop with departures after `at`, that a search for `search` finds first. */
  stop: { id: string; search: string }
  /** A trip between two stops that has journeys leaving after `at`, and arriving before `at` + `withinMs`. */
  trip: { from: string; to: string; withinMs: number }
  /** When the timetable runs. */
  at: Date
  /** Every call made with `ctx` on `s` fails as a provider error would (of `reason` when given). */
  failing(): Promise<{ s: PtSetup; ctx: CallContext; reason?: string }>
  /** Calls on `s` with `ctx` never answer: they wait until its signal aborts. */
  hanging(signal: AbortSignal): Promise<{ s: PtSetup; ctx: CallContext }>
  /** Options the provider must refuse to be built with (one problem each). */
  badOptions: Record<string, unknown>[]
}

const MODES: readonly string[] = TRANSIT_MODES

function checkStop(stop: TransitStop, where: string) {
  assert.ok(typeof stop.id === 'string' && stop.id.length > 0, `${where}: an id`)
  assert.ok(typeof stop.name === 'string' && stop.name.length > 0, `${where}: a name`)
  assert.ok(Math.abs(stop.latitude) <= 90 && Math.abs(stop.longitude) <= 180, `${where}: a position`)
  assert.ok(Array.isArray(stop.modes), `${where}: modes`)
  for (const mode of stop.modes) assert.ok(MODES.includes(mode), `${where}: mode ${mode}`)
}

function checkDeparture(d: TransitDeparture, where: string) {
  assert.ok(d.tripId.length > 0 && d.stopId.length > 0 && d.stopName.length > 0, where)
  assert.ok(d.line.routeId.length > 0 && d.line.name.length > 0, `${where}: a line`)
  assert.ok(MODES.includes(d.line.mode), `${where}: mode ${d.line.mode}`)
  assert.ok(d.scheduled instanceof Date && Number.isFinite(d.scheduled.getTime()), `${where}: scheduled`)
  assert.equal(typeof d.cancelled, 'boolean')
  assert.equal(typeof d.realtime, 'boolean')
}

/** Legs in order and joined up; the journey's times and transfers are its legs'. */
function checkJourney(j: TransitJourney, where: string) {
  assert.ok(j.legs.length > 0, `${where}: legs`)
  assert.equal(j.departure.getTime(), j.legs[0].departure.getTime(), `${where}: leaves with its first leg`)
  assert.equal(j.arrival.getTime(), j.legs.at(-1)!.arrival.getTime(), `${where}: arrives with its last leg`)
  for (const [i, leg] of j.legs.entries()) {
    assert.ok(MODES.includes(leg.mode) || leg.mode === 'WALK', `${where} leg ${i}: mode ${leg.mode}`)
    assert.ok(leg.arrival >= leg.departure, `${where} leg ${i}: arrives after it leaves`)
    if (i > 0) {
      const before = j.legs[i - 1]
      assert.ok(leg.departure >= before.arrival, `${where} leg ${i}: leaves after the leg before arrives`)
      const joined =
        (leg.from.stopId !== undefined && leg.from.stopId === before.to.stopId) ||
        distanceMeters(leg.from, before.to) < 1
      assert.ok(joined, `${where} leg ${i}: starts where the leg before ends`)
    }
    if (leg.mode !== 'WALK') {
      assert.ok(leg.line && leg.tripId, `${where} leg ${i}: a ride has its line and trip`)
      let last = leg.departure
      for (const stop of leg.intermediateStops ?? []) {
        assert.ok(stop.arrival >= last && stop.departure >= stop.arrival, `${where} leg ${i}: ${stop.stopId} in order`)
        last = stop.departure
      }
      assert.ok(leg.arrival >= last, `${where} leg ${i}: arrives after its last intermediate stop`)
    }
  }
  const rides = j.legs.filter((l) => l.mode !== 'WALK').length
  assert.equal(j.transfers, Math.max(0, rides - 1), `${where}: transfers`)
}

/** Rejects once `promise` has not settled within `ms`; answers whether it settled. */
async function settlesWithin(promise: Promise<unknown>, ms: number) {
  let settled = false
  const done = () => {
    settled = true
  }
  promise.then(done, done)
  await new Promise((resolve) => setTimeout(resolve, ms))
  return settled
}

export function publicTransportSuite(profile: PtProfile, settings: { skip?: string } = {}) {
  const { make, place, stop, trip, at } = profile
  describe(`PublicTransportConnector conformance: ${profile.name}`, { skip: settings.skip }, () => {
    it('declares its capabilities; ticketing, vehicles and alerts exactly when it has their operations', async () => {
      const s = await make()
      assert.deepEqual(s.connector.capabilities, profile.capabilities)
      const operations: string[] = s.connector.capabilities.operations
      assert.equal(s.connector.ticketing !== undefined, operations.includes('TICKETS'))
      assert.equal(s.connector.vehicles !== undefined, operations.includes('VEHICLE_POSITIONS'))
      assert.equal(s.connector.alerts !== undefined, operations.includes('ALERTS'))
    })

    it('stops near a point: valid, inside the radius, nearest first, at most the limit; none in the middle of nowhere', async () => {
      const s = await make()
      const near = await s.connector.stopsNear(place.latitude, place.longitude, place.radiusMeters, 50, s.ctx())
      assert.ok(near.length >= place.minStops, `${near.length} stops`)
      for (const x of near) {
        checkStop(x, x.id)
        assert.ok(x.distanceMeters <= place.radiusMeters, `${x.id} inside the radius`)
        assert.ok(Math.abs(x.distanceMeters - distanceMeters(x, place)) <= 2, `${x.id}: its distance`)
      }
      assert.ok(
        near.every((x, i) => i === 0 || x.distanceMeters >= near[i - 1].distanceMeters),
        'nearest first',
      )
      assert.equal(new Set(near.map((x) => x.id)).size, near.length, 'each stop once')
      const two = await s.connector.stopsNear(place.latitude, place.longitude, place.radiusMeters, 2, s.ctx())
      assert.deepEqual(two, near.slice(0, 2), 'the limit keeps the nearest')
      assert.deepEqual(await s.connector.stopsNear(0, -160, 5_000, 10, s.ctx()), [])
    })

    it('finds stops by name regardless of case, ranked; finds a stop by id; nothing for nonsense', async () => {
      const s = await make()
      const found = await s.connector.searchStops(stop.search, 5, s.ctx())
      assert.equal(found[0]?.id, stop.id)
      assert.ok(found.length <= 5)
      for (const x of found) {
        checkStop(x, x.id)
        assert.ok(x.score >= 0 && x.score <= 1, `${x.id}: score ${x.score}`)
      }
      assert.ok(
        found.every((x, i) => i === 0 || x.score <= found[i - 1].score),
        'best first',
      )
      assert.deepEqual(await s.connector.searchStops(stop.search.toUpperCase(), 5, s.ctx()), found)
      assert.deepEqual(await s.connector.searchStops('zzzqqqxxx', 5, s.ctx()), [])
      const { score: _, ...byName } = found[0]
      assert.deepEqual(await s.connector.stopById(stop.id, s.ctx()), byName)
      assert.equal(await s.connector.stopById('no-such-stop', s.ctx()), undefined)
    })

    it('departures: valid, at the stop or its platforms, from the time asked, in time order, at most the limit', async () => {
      const s = await make()
      const departures = await s.connector.departures(stop.id, at, 10, s.ctx())
      assert.ok(departures.length > 0 && departures.length <= 10, `${departures.length} departures`)
      for (const [i, d] of departures.entries()) {
        checkDeparture(d, `departure ${i}`)
        const platform = await s.connector.stopById(d.stopId, s.ctx())
        assert.ok(d.stopId === stop.id || platform?.parentStation === stop.id, `${d.stopId} is ${stop.id}`)
        assert.ok((d.estimated ?? d.scheduled) >= at, `${d.scheduled.toISOString()} from ${at.toISOString()}`)
      }
      const times = departures.map((d) => (d.estimated ?? d.scheduled).getTime())
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'in time order',
      )
      const first = await s.connector.departures(stop.id, at, 1, s.ctx())
      assert.deepEqual(first, departures.slice(0, 1))
      await rejectsWith(s.connector.departures('no-such-stop', at, 5, s.ctx()), 'NOT_FOUND')
    })

    it('journeys leaving after a time: joined-up legs, transfers counted, at most the limit', async () => {
      const s = await make()
      const journeys = await s.connector.journeys(
        { origin: { stopId: trip.from }, destination: { stopId: trip.to }, departAt: at, limit: 3 },
        s.ctx(),
      )
      assert.ok(journeys.length > 0 && journeys.length <= 3, `${journeys.length} journeys`)
      for (const [i, j] of journeys.entries()) {
        checkJourney(j, `journey ${i}`)
        assert.ok(j.departure >= at, `journey ${i} leaves after ${at.toISOString()}`)
        assert.ok(j.arrival.getTime() <= at.getTime() + trip.withinMs, `journey ${i} arrives in time`)
      }
      const [first] = journeys
      const rides = first.legs.filter((l) => l.mode !== 'WALK')
      assert.ok(rides.length > 0)
      const boarding = rides[0].from.stopId ?? ''
      const alighting = rides.at(-1)!.to.stopId ?? ''
      const parent = async (id: string) => (await s.connector.stopById(id, s.ctx()))?.parentStation ?? id
      assert.equal(await parent(boarding), trip.from, 'boards at the origin (or a platform of it)')
      assert.equal(await parent(alighting), trip.to, 'alights at the destination (or a platform of it)')
    })

    it('journeys arriving by a time: each arrives in time, the latest first', async () => {
      const s = await make()
      const arriveBy = new Date(at.getTime() + trip.withinMs)
      const journeys = await s.connector.journeys(
        { origin: { stopId: trip.from }, destination: { stopId: trip.to }, arriveBy, limit: 2 },
        s.ctx(),
      )
      assert.ok(journeys.length > 0 && journeys.length <= 2, `${journeys.length} journeys`)
      for (const [i, j] of journeys.entries()) {
        checkJourney(j, `journey ${i}`)
        assert.ok(j.arrival <= arriveBy, `journey ${i} arrives by ${arriveBy.toISOString()}`)
      }
      assert.ok(
        journeys.every((j, i) => i === 0 || j.departure <= journeys[i - 1].departure),
        'the latest first',
      )
    })

    it('a provider in trouble: every call fails with PROVIDER_ERROR', async () => {
      const { s, ctx, reason } = await profile.failing()
      const details = reason === undefined ? {} : { reason }
      await rejectsWith(s.connector.stopsNear(place.latitude, place.longitude, 500, 5, ctx), 'PROVIDER_ERROR', details)
      await rejectsWith(s.connector.searchStops(stop.search, 5, ctx), 'PROVIDER_ERROR', details)
      await rejectsWith(s.connector.stopById(stop.id, ctx), 'PROVIDER_ERROR', details)
      await rejectsWith(s.connector.departures(stop.id, at, 5, ctx), 'PROVIDER_ERROR', details)
      const query = { origin: { stopId: trip.from }, destination: { stopId: trip.to }, departAt: at, limit: 1 }
      await rejectsWith(s.connector.journeys(query, ctx), 'PROVIDER_ERROR', details)
    })

    it('a provider that does not answer: the call waits until the caller gives up, then rejects with TIMEOUT', async () => {
      const controller = new AbortController()
      const { s, ctx } = await profile.hanging(controller.signal)
      const departures = s.connector.departures(stop.id, at, 5, ctx)
      const query = { origin: { stopId: trip.from }, destination: { stopId: trip.to }, departAt: at, limit: 1 }
      const journeys = s.connector.journeys(query, ctx)
      const stops = s.connector.stopsNear(place.latitude, place.longitude, 500, 5, ctx)
      assert.equal(await settlesWithin(departures, 40), false, 'still waiting')
      controller.abort()
      await rejectsWith(departures, 'TIMEOUT')
      await rejectsWith(journeys, 'TIMEOUT')
      await rejectsWith(stops, 'TIMEOUT')
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
