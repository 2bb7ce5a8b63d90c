import { type Bounds, destinationBounds } from './raptor-bounds.ts'
import { collect } from './raptor-journeys.ts'
import { HOW_NONE, HOW_SOURCE, HOW_TRANSIT, HOW_WALK, INF, type Workspace, workspaceOf } from './raptor-state.ts'
import { boarding, departureColumnsOf, departuresOf, earlierTripMayLeave, earliestTrip } from './raptor-trips.ts'
import { NO_DROP_OFF, NO_PICKUP, type Timetable } from './timetable.ts'

/**
 * RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing"): round k finds the earliest arrival at every
 * stop with k trips, scanning each pattern once from its first stop improved in round k-1, then walking footpaths.
 * The rounds give the Pareto set by (arrival, transfers) directly. Times are seconds from the query day's origin;
 * trips of neighbouring service days join with their day's offset (DST-correct, from the feed clock).
 *
 * Pruning: an arrival counts only if it beats the best arrival at that stop in any round (local pruning) and the best
 * arrival at the destination found so far (target pruning, also of boarding: a trip's times never go back, the
 * loader drops trips whose do), even with a lower bound of the time still needed to get there added, and only if the
 * destination can be reached with the trips left (raptor-bounds.ts; an arrival whose bound only equals the best is
 * kept: of equal arrivals, the journeys read back need not be the one found first). A trip is boarded only at stops improved in the round before (from an older arrival this pattern was
 * scanned already), and an earlier trip is looked for only where one can leave between the traveller's earliest time
 * and the ridden trip's departure; a pattern's scan ends past its last such stop once no trip is ridden or the ridden
 * one is pruned. The labels live in a workspace reused between queries (raptor-state.ts).
 */

export interface RaptorDay {
  day: number
  /** Seconds from the query day's origin to this day's origin (±86400, or ±82800/90000 across a DST change). */
  offset: number
  active: Uint8Array
  cancelled?: Set<number>
  skipped?: Map<number, Uint8Array>
}

export interface RaptorQuery {
  days: RaptorDay[]
  /** Stops where the traveller can be, and from when (seconds, walking to them included). */
  sources: { stop: number; time: number }[]
  /** Stops the journey may end at, with the walk from there to the destination (seconds). */
  targets: Map<number, number>
  maxRounds: number
  /** Ignore arrivals after this (seconds). */
  horizon: number
  /** Walk from the source stops to stops nearby before the first trip (stop origins; points already walk). */
  walkFromSources: boolean
}

export type RaptorLeg =
  | { kind: 'transit'; pattern: number; slot: number; day: number; board: number; alight: number }
  | { kind: 'walk'; from: number; to: number; seconds: number; meters: number }

export interface RaptorJourney {
  source: number
  target: number
  /** Transit and walking legs between the source and the target stop. */
  legs: RaptorLeg[]
  /** Arrival at the destination (egress included), seconds. */
  arrival: number
  trips: number
}

/** The search's state besides the workspace: the best arrival at the destination (egress included). */
interface Search {
  bound: number
}

const reach = (ws: Workspace, search: Search, s: number, t: number) => {
  const egress = ws.egress[s]
  if (egress >= 0 && t + egress < search.bound) search.bound = t + egress
}

export function raptor(tt: Timetable, q: RaptorQuery): RaptorJourney[] {
  const ws = workspaceOf(tt)
  const K = q.maxRounds
  ws.round(K)
  const { best, tArr, marked, markedIn, egress, patternStart, patternEnd, touched } = ws
  const bounds = destinationBounds(tt, q.targets, K)
  const lb = bounds.time
  const need = bounds.trips
  const { tripsAfter, offset: patternOffset } = bounds
  const columns = departureColumnsOf(tt)
  best.fill(INF)
  for (let k = 0; k <= K; k++) {
    ws.arr[k].fill(INF)
    ws.how[k].fill(HOW_NONE)
  }
  for (const [s, walk] of q.targets) egress[s] = walk
  const search: Search = { bound: INF }
  try {
    // Round 0: the sources, and walking from them.
    ws.marks.length = 0
    ws.improved.length = 0
    const arr0 = ws.arr[0]
    for (const { stop, time } of q.sources) {
      if (time < arr0[stop]) {
        arr0[stop] = time
        if (time < best[stop]) best[stop] = time
        ws.how[0][stop] = HOW_SOURCE
        if (!marked[stop]) {
          marked[stop] = 1
          ws.marks.push(stop)
        }
        reach(ws, search, stop, time)
      }
    }
    if (q.walkFromSources) {
      const sources = ws.marks.length
      for (let j = 0; j < sources; j++) {
        const u = ws.marks.items[j]
        relaxFootpaths(tt, ws, search, bounds, 0, u, arr0[u], ws.marks)
      }
    }

    const { patterns, spStart, spPattern, spPos, stopMinChange } = tt
    const days = q.days
    const horizon = q.horizon
    for (let k = 1; k <= K && ws.marks.length > 0; k++) {
      const arr = ws.arr[k]
      const prev = ws.arr[k - 1]
      // Trips left after this round's: an arrival where the destination needs more is of no use.
      const room = K - k
      const how = ws.how[k]
      const prevHow = ws.how[k - 1]
      const tPattern = ws.tPattern[k]
      const tSlot = ws.tSlot[k]
      const tDay = ws.tDay[k]
      const tBoard = ws.tBoard[k]
      const tAlight = ws.tAlight[k]
      arr.set(prev)
      how.set(prevHow)
      // Patterns through the stops improved last round, from the earliest such position.
      const marks = ws.marks
      if (ws.stamp === INF) {
        ws.stamp = 0
        markedIn.fill(0)
      }
      const stamp = ++ws.stamp
      for (let j = 0; j < marks.length; j++) {
        const s = marks.items[j]
        marked[s] = 0
        markedIn[s] = stamp
        for (let e = spStart[s]; e < spStart[s + 1]; e++) {
          const p = spPattern[e]
          if (patternStart[p] === INF) touched.push(p)
          if (spPos[e] < patternStart[p]) patternStart[p] = spPos[e]
          if (spPos[e] > patternEnd[p]) patternEnd[p] = spPos[e]
        }
      }
      const improved = ws.improved
      for (let j = 0; j < touched.length; j++) {
        const pi = touched.items[j]
        const p = patterns[pi]
        const start = patternStart[pi]
        patternStart[pi] = INF
        const end = patternEnd[pi]
        patternEnd[pi] = -1
        const { stops, flags, times, trips } = p
        const len = stops.length
        // Past `start`, the destination needs more trips than are left: nothing to ride to.
        const after = patternOffset[pi]
        if (start + 1 >= len || tripsAfter[after + start + 1] > room) continue
        let slot = -1
        let di = 0
        let boardPos = -1
        let offset = 0
        for (let i = start; i < len; i++) {
          const s = stops[i]
          if (slot >= 0) {
            const t = times[(slot * len + i) * 2] + offset
            const bounded = t + lb[s] > search.bound
            // Past the last stop to board at, nothing is left to do once the ridden trip is pruned (or none is ridden),
            // or when no later stop leaves the destination within the trips left.
            if (i > end && (bounded || tripsAfter[after + i] > room)) break
            if (
              !bounded &&
              need[s] <= room &&
              t < best[s] &&
              t < search.bound &&
              t <= horizon &&
              !(flags[i] & NO_DROP_OFF)
            ) {
              const skipped = days[di].skipped?.get(trips[slot])
              if (!skipped || skipped[i] === 0) {
                arr[s] = t
                best[s] = t
                tArr[s] = t
                how[s] = HOW_TRANSIT
                tPattern[s] = pi
                tSlot[s] = slot
                tDay[s] = di
                tBoard[s] = boardPos
                tAlight[s] = i
                if (!marked[s]) {
                  marked[s] = 1
                  improved.push(s)
                }
                reach(ws, search, s, t)
              }
            }
          }
          // Only where the arrival changed last round: from an older one this pattern was scanned before, with no
          // better trip to find now (local pruning rejects what it would give).
          if (markedIn[s] !== stamp || flags[i] & NO_PICKUP || i + 1 === len || tripsAfter[after + i + 1] > room) {
            if (slot < 0 && i >= end) break
            continue
          }
          const ready = prev[s]
          const earliest = ready + (prevHow[s] === HOW_TRANSIT ? stopMinChange[s] : 0)
          const current = slot >= 0 ? times[(slot * len + i) * 2 + 1] + offset : INF
          // Any trip boarded here arrives after `earliest`, so no earlier than the destination's best: nothing to gain.
          if (earliest > current || earliest >= search.bound || earliest + lb[s] > search.bound) continue
          const dep = departuresOf(tt, columns, pi)
          if (!earlierTripMayLeave(dep.deps, trips.length, i, earliest, current, slot, di, days)) continue
          if (earliestTrip(trips, dep, i, earliest, current, slot, di, days)) {
            slot = boarding.slot
            di = boarding.day
            offset = days[di].offset
            boardPos = i
          }
        }
      }
      touched.length = 0
      // Walk from the stops reached by a trip this round (not from those reached on foot).
      const rode = improved.length
      for (let j = 0; j < rode; j++) {
        const u = improved.items[j]
        relaxFootpaths(tt, ws, search, bounds, k, u, tArr[u], improved)
      }
      ws.swap()
    }
    for (let j = 0; j < ws.marks.length; j++) marked[ws.marks.items[j]] = 0
    return collect(tt, ws, q)
  } finally {
    for (const s of q.targets.keys()) egress[s] = -1
  }
}

/** Walks from a stop reached at `from` (by a trip, or a source in round 0); lists the stops improved. */
function relaxFootpaths(
  tt: Timetable,
  ws: Workspace,
  search: Search,
  bounds: Bounds,
  k: number,
  u: number,
  from: number,
  list: Workspace['improved'],
): void {
  const { fpStart, fpTo, fpSeconds } = tt
  const { best, marked } = ws
  const lb = bounds.time
  const need = bounds.trips
  const room = bounds.rounds - k
  for (let f = fpStart[u]; f < fpStart[u + 1]; f++) {
    const v = fpTo[f]
    const t = from + fpSeconds[f]
    if (t < best[v] && t < search.bound && t + lb[v] <= search.bound && need[v] <= room) {
      ws.arr[k][v] = t
      best[v] = t
      ws.how[k][v] = HOW_WALK
      ws.walkFrom[k][v] = u
      ws.walkFp[k][v] = f
      if (!marked[v]) {
        marked[v] = 1
        list.push(v)
      }
      reach(ws, search, v, t)
    }
  }
}
