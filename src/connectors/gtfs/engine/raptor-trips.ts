import type { RaptorDay, RaptorJourney, RaptorLeg, RaptorQuery } from './raptor.ts'
import { INF } from './raptor-state.ts'
import type { Pattern, Timetable } from './timetable.ts'

/**
 * Trips of a pattern: which one to board (the earliest that leaves in time, over the query's service days) and, once
 * a journey is found, which later ones still make each connection. A pattern's trips never overtake each other, so
 * at any position their departures ascend with the slot and a binary search finds the first one in time.
 */

export const depAt = (p: Pattern, slot: number, pos: number) => p.times[(slot * p.stops.length + pos) * 2 + 1]
export const arrAt = (p: Pattern, slot: number, pos: number) => p.times[(slot * p.stops.length + pos) * 2]

export function usable(tt: Timetable, d: RaptorDay, trip: number, pos: number, pos2 = pos): boolean {
  if (!d.active[tt.tripService[trip]]) return false
  if (d.cancelled?.has(trip)) return false
  const skipped = d.skipped?.get(trip)
  return !skipped || (skipped[pos] === 0 && skipped[pos2] === 0)
}

/**
 * Per pattern, its departures by position, `deps[pos * trips + slot]`, and the service of each slot: the trip search
 * of one position then reads a few adjacent cache lines, not one line per trip of the row-major `times`. Made for a
 * pattern the first time a search boards it (4 bytes per stop time, plus 4 per trip).
 */
export interface Departures {
  deps: Int32Array
  service: Int32Array
}

const departureColumns = new WeakMap<Timetable, (Departures | undefined)[]>()

export function departureColumnsOf(tt: Timetable): (Departures | undefined)[] {
  let columns = departureColumns.get(tt)
  if (!columns) {
    columns = new Array(tt.patterns.length)
    departureColumns.set(tt, columns)
  }
  return columns
}

export function departuresOf(tt: Timetable, columns: (Departures | undefined)[], pi: number): Departures {
  const known = columns[pi]
  if (known) return known
  const p = tt.patterns[pi]
  const n = p.trips.length
  const len = p.stops.length
  const deps = new Int32Array(n * len)
  const service = new Int32Array(n)
  for (let slot = 0; slot < n; slot++) {
    service[slot] = tt.tripService[p.trips[slot]]
    for (let pos = 0; pos < len; pos++) deps[pos * n + slot] = p.times[(slot * len + pos) * 2 + 1]
  }
  const made = { deps, service }
  columns[pi] = made
  return made
}

/** Whether day `d` has a trip leaving position `pos` in [from, before) at all (usable or not); `n` trips. */
function dayHasTripIn(deps: Int32Array, n: number, pos: number, d: RaptorDay, from: number, before: number): boolean {
  if (n === 0) return false
  return deps[pos * n + n - 1] + d.offset >= from && deps[pos * n] + d.offset < before
}

/**
 * Whether a trip leaves position `pos` in [earliest, current), where `current` is the departure of the trip the
 * scan rides (slot `slot` on day index `di`; slot -1 and current INF when it rides none). When not, no earlier trip
 * can be boarded here and the search is skipped: this is exact, not a heuristic (on the ridden trip's day, the
 * trip before it leaves before `earliest` or no trip of that day does).
 */
export function earlierTripMayLeave(
  deps: Int32Array,
  n: number,
  pos: number,
  earliest: number,
  current: number,
  slot: number,
  di: number,
  days: RaptorDay[],
): boolean {
  for (let d = 0; d < days.length; d++) {
    if (slot >= 0 && d === di) {
      if (slot > 0 && deps[pos * n + slot - 1] + days[d].offset >= earliest) return true
    } else if (dayHasTripIn(deps, n, pos, days[d], earliest, current)) {
      return true
    }
  }
  return false
}

/** The boarding earliestTrip found (one object, reused: read it before the next call). */
export const boarding = { slot: -1, day: -1, dep: INF }

/**
 * The earliest usable trip of a pattern (`trips`, its departures `dep`) leaving position `pos` at or after `time`,
 * over all days, when it leaves before `before`; on equal departures the earlier day. Returns false when there is
 * none (then `boarding` is stale). `before` is the departure of the ridden trip (`rideSlot` on day index `rideDay`),
 * so on that day only the slots before it are searched.
 */
export function earliestTrip(
  trips: Int32Array,
  dep: Departures,
  pos: number,
  time: number,
  before: number,
  rideSlot: number,
  rideDay: number,
  days: RaptorDay[],
): boolean {
  let found = false
  let foundDep = INF
  const n = trips.length
  const { deps, service } = dep
  const base = pos * n
  for (let di = 0; di < days.length; di++) {
    const d = days[di]
    // A day whose trips all leave before `time`, or none before `before` (or the best so far), cannot give the answer.
    if (!dayHasTripIn(deps, n, pos, d, time, found && foundDep < before ? foundDep : before)) continue
    const threshold = time - d.offset
    let lo = 0
    let hi = rideSlot >= 0 && di === rideDay ? rideSlot : n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (deps[base + mid] < threshold) lo = mid + 1
      else hi = mid
    }
    for (let slot = lo; slot < n; slot++) {
      const at = deps[base + slot] + d.offset
      if (found && at >= foundDep) break
      if (!d.active[service[slot]] || d.cancelled?.has(trips[slot])) continue
      const skipped = d.skipped?.get(trips[slot])
      if (!skipped || skipped[pos] === 0) {
        found = true
        foundDep = at
        boarding.slot = slot
        boarding.day = di
        boarding.dep = at
        break
      }
    }
  }
  return found && foundDep < before
}

/**
 * Leave as late as possible for the same arrival: from the last trip back, each trip is replaced by the latest trip
 * of its pattern that still makes the connection (RAPTOR boards the earliest one, which may mean waiting).
 */
export function tighten(tt: Timetable, q: RaptorQuery, journey: RaptorJourney, sourceTime: number): void {
  const legs = journey.legs
  const timeOf = (leg: Extract<RaptorLeg, { kind: 'transit' }>, pos: number, kind: 'arr' | 'dep') => {
    const p = tt.patterns[leg.pattern]
    return (kind === 'arr' ? arrAt(p, leg.slot, pos) : depAt(p, leg.slot, pos)) + q.days[leg.day].offset
  }
  // Earliest time at each transit leg's boarding stop under the current (earliest) choices.
  const ready: number[] = []
  let time = sourceTime
  let afterTrip = false
  for (const leg of legs) {
    if (leg.kind === 'walk') {
      time += leg.seconds
      afterTrip = false
    } else {
      const p = tt.patterns[leg.pattern]
      ready.push(afterTrip ? time + tt.stopMinChange[p.stops[leg.board]] : time)
      time = timeOf(leg, leg.alight, 'arr')
      afterTrip = true
    }
  }
  let deadline = INF
  let transitIndex = ready.length
  for (let j = legs.length - 1; j >= 0; j--) {
    const leg = legs[j]
    if (leg.kind === 'walk') {
      if (deadline !== INF) deadline -= leg.seconds
      continue
    }
    transitIndex--
    const p = tt.patterns[leg.pattern]
    if (deadline === INF) deadline = timeOf(leg, leg.alight, 'arr')
    const nextLeg = legs[j + 1]
    if (nextLeg?.kind === 'transit') deadline -= tt.stopMinChange[p.stops[leg.alight]]
    let chosen: { slot: number; day: number; dep: number } | undefined
    for (let di = 0; di < q.days.length; di++) {
      const d = q.days[di]
      const limit = deadline - d.offset
      let lo = 0
      let hi = p.trips.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (arrAt(p, mid, leg.alight) <= limit) lo = mid + 1
        else hi = mid
      }
      for (let slot = lo - 1; slot >= 0; slot--) {
        const dep = depAt(p, slot, leg.board) + d.offset
        if (dep < ready[transitIndex] || (chosen && dep <= chosen.dep)) break
        if (usable(tt, d, p.trips[slot], leg.board, leg.alight)) {
          chosen = { slot, day: di, dep }
          break
        }
      }
    }
    if (chosen) {
      leg.slot = chosen.slot
      leg.day = chosen.day
    }
    deadline = timeOf(leg, leg.board, 'dep')
  }
}
