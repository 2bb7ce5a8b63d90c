import { around } from 'geokdbush'
import { ApiError } from '../../contract/errors.ts'
import { distanceMeters } from '../../platform/geo.ts'
import type { JourneyEnd, JourneyQuery, TransitJourney, TransitLeg } from '../types/public-transport.ts'
import { stopFamily } from './departures.ts'
import { type RaptorDay, type RaptorJourney, type RaptorQuery, raptor } from './engine/raptor.ts'
import { tighten } from './engine/raptor-trips.ts'
import { NO_PICKUP, type Timetable, WALK_METERS_PER_SECOND } from './engine/timetable.ts'
import { headsignOf, mapLine, modeOf } from './map.ts'
import type { RealtimeView } from './realtime.ts'

/**
 * Journey planning over RAPTOR: ends are stops (a station stands for its platforms) or points (walk to the stops
 * within maxWalkToStopMeters). One search gives the Pareto set by (arrival, transfers); later departures come from
 * searching again just after the first one leaves. `arriveBy` searches a window before the wanted arrival and keeps
 * the latest departures that make it.
 */

export interface PlannerOptions {
  maxWalkToStopMeters: number
  maxRounds: number
}

interface End {
  /** Stop → walking seconds between the end and the stop. */
  stops: Map<number, number>
  meters: Map<number, number>
  point?: { name: string; latitude: number; longitude: number }
  isStop: boolean
}

function resolveEnd(tt: Timetable, end: JourneyEnd, maxWalk: number, role: 'origin' | 'destination'): End {
  if ('stopId' in end) {
    const stop = tt.stopIndex.get(end.stopId)
    if (stop === undefined) {
      throw new ApiError('NOT_FOUND', `Unknown ${role} stop ${end.stopId}`, { stopId: end.stopId })
    }
    const stops = new Map<number, number>()
    for (const s of stopFamily(tt, stop)) if (tt.spStart[s + 1] > tt.spStart[s]) stops.set(s, 0)
    // An entrance or a generic node stands for its station.
    const parent = tt.stopParent[stop]
    if (stops.size === 0 && parent >= 0) {
      for (const s of stopFamily(tt, parent)) if (tt.spStart[s + 1] > tt.spStart[s]) stops.set(s, 0)
    }
    return { stops, meters: new Map(), isStop: true }
  }
  const stops = new Map<number, number>()
  const meters = new Map<number, number>()
  const here = { latitude: end.latitude, longitude: end.longitude }
  const found = around(tt.routableIndex, end.longitude, end.latitude, 200, maxWalk / 1000)
  for (const k of found) {
    if (k >= tt.routableStops.length) continue
    const s = tt.routableStops[k]
    const d = distanceMeters(here, { latitude: tt.stopLat[s], longitude: tt.stopLon[s] })
    if (d > maxWalk) continue
    stops.set(s, Math.ceil(d / WALK_METERS_PER_SECOND))
    meters.set(s, Math.round(d))
  }
  return {
    stops,
    meters,
    point: { name: end.name ?? (role === 'origin' ? 'Origin' : 'Destination'), ...here },
    isStop: false,
  }
}

interface Search {
  base: number
  days: RaptorDay[]
}

function searchDays(tt: Timetable, rt: RealtimeView | undefined, at: number): Search {
  const today = tt.clock.dayOf(at)
  const base = tt.clock.base(today)
  const days: RaptorDay[] = []
  for (let day = today - Math.floor(tt.maxTime / 86_400); day <= today + 1; day++) {
    const realtime = rt?.day(day)
    days.push({
      day,
      offset: Math.round((tt.clock.base(day) - base) / 1000),
      active: tt.calendar.active(day),
      ...(realtime && realtime.cancelled.size > 0 ? { cancelled: realtime.cancelled } : {}),
      ...(realtime && realtime.skipped.size > 0 ? { skipped: realtime.skipped } : {}),
    })
  }
  return { base, days }
}

const place = (tt: Timetable, s: number) => ({
  stopId: tt.stopIds[s],
  name: tt.stopNames[s],
  latitude: tt.stopLat[s],
  longitude: tt.stopLon[s],
})

function toJourney(
  tt: Timetable,
  search: Search,
  q: RaptorQuery,
  found: RaptorJourney,
  origin: End,
  destination: End,
): TransitJourney {
  const at = (seconds: number) => new Date(search.base + seconds * 1000)
  const legs: TransitLeg[] = []
  const firstTransit = found.legs.findIndex((l) => l.kind === 'transit')
  // Walking before the first trip is timed back from its departure: the traveller leaves as late as possible.
  let time = 0
  {
    const leg = found.legs[firstTransit]
    if (leg.kind === 'transit') {
      const p = tt.patterns[leg.pattern]
      time = p.times[(leg.slot * p.stops.length + leg.board) * 2 + 1] + q.days[leg.day].offset
    }
    for (let i = firstTransit - 1; i >= 0; i--) {
      const walk = found.legs[i]
      if (walk.kind === 'walk') time -= walk.seconds
    }
    time -= origin.stops.get(found.source) ?? 0
  }
  if (origin.point && (origin.stops.get(found.source) ?? 0) > 0) {
    const seconds = origin.stops.get(found.source) ?? 0
    legs.push({
      mode: 'WALK',
      from: { ...origin.point },
      to: place(tt, found.source),
      departure: at(time),
      arrival: at(time + seconds),
      distanceMeters: origin.meters.get(found.source) ?? 0,
    })
    time += seconds
  }
  for (const leg of found.legs) {
    if (leg.kind === 'walk') {
      legs.push({
        mode: 'WALK',
        from: place(tt, leg.from),
        to: place(tt, leg.to),
        departure: at(time),
        arrival: at(time + leg.seconds),
        distanceMeters: leg.meters,
      })
      time += leg.seconds
      continue
    }
    const p = tt.patterns[leg.pattern]
    const offset = q.days[leg.day].offset
    const trip = p.trips[leg.slot]
    const timeAt = (pos: number, k: 0 | 1) => p.times[(leg.slot * p.stops.length + pos) * 2 + k] + offset
    const intermediate = []
    for (let i = leg.board + 1; i < leg.alight; i++) {
      intermediate.push({
        stopId: tt.stopIds[p.stops[i]],
        name: tt.stopNames[p.stops[i]],
        arrival: at(timeAt(i, 0)),
        departure: at(timeAt(i, 1)),
      })
    }
    legs.push({
      mode: modeOf(tt.routeType[p.route]),
      from: place(tt, p.stops[leg.board]),
      to: place(tt, p.stops[leg.alight]),
      departure: at(timeAt(leg.board, 1)),
      arrival: at(timeAt(leg.alight, 0)),
      line: mapLine(tt, p.route),
      headsign: headsignOf(tt, trip, leg.board),
      tripId: tt.tripIds[trip],
      intermediateStops: intermediate,
    })
    time = timeAt(leg.alight, 0)
  }
  const egress = destination.stops.get(found.target) ?? 0
  if (destination.point && egress > 0) {
    legs.push({
      mode: 'WALK',
      from: place(tt, found.target),
      to: { ...destination.point },
      departure: at(time),
      arrival: at(time + egress),
      distanceMeters: destination.meters.get(found.target) ?? 0,
    })
  }
  // A footpath right before the walk to the destination (or after the walk from the origin) is one walk.
  for (let i = legs.length - 1; i > 0; i--) {
    const a = legs[i - 1]
    const b = legs[i]
    if (a.mode !== 'WALK' || b.mode !== 'WALK') continue
    legs.splice(i - 1, 2, {
      mode: 'WALK',
      from: a.from,
      to: b.to,
      departure: a.departure,
      arrival: b.arrival,
      distanceMeters: (a.distanceMeters ?? 0) + (b.distanceMeters ?? 0),
    })
  }
  return {
    legs,
    departure: legs[0].departure,
    arrival: legs[legs.length - 1].arrival,
    transfers: legs.filter((l) => l.mode !== 'WALK').length - 1,
  }
}

/** Journeys on the same trips (on the same days) are the same journey, whatever stop they board at. */
interface Found {
  key: string
  journey: TransitJourney
  /** The last moment the traveller could leave to catch the journey's first trip at any origin stop, ms. */
  lastChance: number
}

/** One search from `at`: the Pareto set by (arrival, transfers), each leaving as late as it can. */
function searchFrom(
  tt: Timetable,
  rt: RealtimeView | undefined,
  origin: End,
  destination: End,
  at: number,
  options: PlannerOptions,
): Found[] {
  const search = searchDays(tt, rt, at)
  const start = Math.floor((at - search.base) / 1000)
  const q: RaptorQuery = {
    days: search.days,
    sources: [...origin.stops].map(([stop, walk]) => ({ stop, time: start + walk })),
    targets: destination.stops,
    maxRounds: options.maxRounds,
    horizon: start + 86_400,
    walkFromSources: origin.isStop,
  }
  return raptor(tt, q).map((found) => {
    tighten(tt, q, found, start + (origin.stops.get(found.source) ?? 0))
    const key = found.legs
      .map((l) => (l.kind === 'transit' ? `${tt.patterns[l.pattern].trips[l.slot]}:${q.days[l.day].day}` : ''))
      .filter(Boolean)
      .join('|')
    const journey = toJourney(tt, search, q, found, origin, destination)
    let lastChance = journey.departure.getTime()
    const first = found.legs.find((l) => l.kind === 'transit')
    if (first?.kind === 'transit') {
      const p = tt.patterns[first.pattern]
      for (let pos = 0; pos < p.stops.length; pos++) {
        const walk = origin.stops.get(p.stops[pos])
        if (walk === undefined || p.flags[pos] & NO_PICKUP) continue
        const dep = p.times[(first.slot * p.stops.length + pos) * 2 + 1] + q.days[first.day].offset
        lastChance = Math.max(lastChance, search.base + (dep - walk) * 1000)
      }
    }
    return { key, journey, lastChance }
  })
}

function walkOnly(origin: End, destination: End, at: number, maxWalk: number, arriveBy: boolean) {
  if (!origin.point || !destination.point) return undefined
  const meters = distanceMeters(origin.point, destination.point)
  if (meters > maxWalk) return undefined
  const seconds = Math.ceil(meters / WALK_METERS_PER_SECOND)
  const departure = new Date(arriveBy ? at - seconds * 1000 : at)
  const arrival = new Date(departure.getTime() + seconds * 1000)
  const leg: TransitLeg = {
    mode: 'WALK',
    from: { ...origin.point },
    to: { ...destination.point },
    departure,
    arrival,
    distanceMeters: Math.round(meters),
  }
  return { legs: [leg], departure, arrival, transfers: 0 }
}

const duration = (j: TransitJourney) => j.arrival.getTime() - j.departure.getTime()

/**
 * Drops journeys another one beats (leaving no earlier, arriving no later, with no more transfers), and journeys far
 * longer than the quickest (a later departure that only arrives the next morning is no answer).
 */
function nonDominated(list: TransitJourney[]): TransitJourney[] {
  const beats = (b: TransitJourney, a: TransitJourney) =>
    b.departure >= a.departure && b.arrival <= a.arrival && b.transfers <= a.transfers
  const quickest = Math.min(...list.map(duration))
  const longest = Math.max(3 * quickest, quickest + 3 * 3_600_000)
  return list.filter(
    (a, i) => duration(a) <= longest && !list.some((b, j) => j !== i && beats(b, a) && (!beats(a, b) || j < i)),
  )
}

export function planJourneys(
  tt: Timetable,
  rt: RealtimeView | undefined,
  query: JourneyQuery,
  now: Date,
  options: PlannerOptions,
  signal?: AbortSignal,
): TransitJourney[] {
  const origin = resolveEnd(tt, query.origin, options.maxWalkToStopMeters, 'origin')
  const destination = resolveEnd(tt, query.destination, options.maxWalkToStopMeters, 'destination')
  const limit = Math.max(1, query.limit)
  const byKey = new Map<string, TransitJourney>()
  /** Keeps new journeys; of two on the same trips, the one leaving later (same arrival, less waiting). */
  const keep = (found: Found[]) => {
    for (const { key, journey } of found) {
      const known = byKey.get(key)
      if (!known || journey.departure > known.departure) byKey.set(key, journey)
    }
  }
  const ready = origin.stops.size > 0 && destination.stops.size > 0

  if (query.arriveBy) {
    const deadline = query.arriveBy.getTime()
    const walk = walkOnly(origin, destination, deadline, options.maxWalkToStopMeters, true)
    if (walk) keep([{ key: 'walk', journey: walk, lastChance: 0 }])
    // Windows of growing size before the deadline; within one, later departures until they arrive too late.
    for (const hours of [1, 3, 8, 24]) {
      if (!ready || nonDominated([...byKey.values()]).length >= limit) break
      let at = deadline - hours * 3_600_000
      for (let run = 0; run < 3 * limit + 10 && !signal?.aborted; run++) {
        const found = searchFrom(tt, rt, origin, destination, at, options)
        if (found.length === 0) break
        keep(found.filter((f) => f.journey.arrival.getTime() <= deadline))
        if (found.every((f) => f.journey.arrival.getTime() > deadline)) break
        at = Math.min(...found.map((f) => f.lastChance)) + 1000
      }
    }
    return nonDominated([...byKey.values()])
      .sort((a, b) => b.departure.getTime() - a.departure.getTime() || a.arrival.getTime() - b.arrival.getTime())
      .slice(0, limit)
  }

  let at = (query.departAt ?? now).getTime()
  const walk = walkOnly(origin, destination, at, options.maxWalkToStopMeters, false)
  if (walk) keep([{ key: 'walk', journey: walk, lastChance: 0 }])
  for (let run = 0; ready && run < 2 * limit + 3 && !signal?.aborted; run++) {
    if (nonDominated([...byKey.values()]).length >= limit) break
    const found = searchFrom(tt, rt, origin, destination, at, options)
    if (found.length === 0) break
    keep(found)
    // Just after the earliest of them leaves, so the next search finds the next departure.
    at = Math.min(...found.map((f) => f.lastChance)) + 1000
  }
  return nonDominated([...byKey.values()])
    .slice(0, limit)
    .sort(
      (a, b) =>
        a.departure.getTime() - b.departure.getTime() ||
        a.arrival.getTime() - b.arrival.getTime() ||
        a.transfers - b.transfers,
    )
}
