import { NO_DROP_OFF, NO_PICKUP, type Pattern, type Timetable } from './timetable.ts'

/**
 * RAPTOR (Delling, Pajor, Werneck: "Round-Based Public Transit Routing"): round k finds the earliest arrival at every
 * stop with k trips, scanning each pattern once from its first stop improved in round k-1, then walking footpaths.
 * The rounds give the Pareto set by (arrival, transfers) directly. Times are seconds from the query day's origin;
 * trips of neighbouring service days join with their day's offset (DST-correct, from the feed clock).
 */

const INF = 0x7fffffff

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

/** Per-round state, kept per timetable and reused (a query runs synchronously, so one workspace suffices). */
class Workspace {
  readonly arr: Int32Array[] = []
  readonly how: Uint8Array[] = []
  readonly walkFrom: Int32Array[] = []
  readonly walkFp: Int32Array[] = []
  readonly tPattern: Int32Array[] = []
  readonly tSlot: Int32Array[] = []
  readonly tDay: Int32Array[] = []
  readonly tBoard: Int32Array[] = []
  readonly tAlight: Int32Array[] = []
  readonly best: Int32Array
  readonly tArr: Int32Array
  readonly marked: Uint8Array
  readonly n: number

  constructor(n: number) {
    this.n = n
    this.best = new Int32Array(n)
    this.tArr = new Int32Array(n)
    this.marked = new Uint8Array(n)
  }

  round(k: number): void {
    while (this.arr.length <= k) {
      const n = this.n
      this.arr.push(new Int32Array(n))
      this.how.push(new Uint8Array(n))
      this.walkFrom.push(new Int32Array(n))
      this.walkFp.push(new Int32Array(n))
      this.tPattern.push(new Int32Array(n))
      this.tSlot.push(new Int32Array(n))
      this.tDay.push(new Int32Array(n))
      this.tBoard.push(new Int32Array(n))
      this.tAlight.push(new Int32Array(n))
    }
  }
}

const workspaces = new WeakMap<Timetable, Workspace>()

const HOW_NONE = 0
const HOW_SOURCE = 1
const HOW_TRANSIT = 2
const HOW_WALK = 3

const depAt = (p: Pattern, slot: number, pos: number) => p.times[(slot * p.stops.length + pos) * 2 + 1]
const arrAt = (p: Pattern, slot: number, pos: number) => p.times[(slot * p.stops.length + pos) * 2]

function usable(tt: Timetable, d: RaptorDay, trip: number, pos: number, pos2 = pos): boolean {
  if (!d.active[tt.tripService[trip]]) return false
  if (d.cancelled?.has(trip)) return false
  const skipped = d.skipped?.get(trip)
  return !skipped || (skipped[pos] === 0 && skipped[pos2] === 0)
}

/** The earliest trip of a pattern leaving position `pos` at or after `time`, over all days. */
function earliestTrip(
  tt: Timetable,
  p: Pattern,
  pos: number,
  time: number,
  days: RaptorDay[],
): { slot: number; day: number; dep: number } | undefined {
  let found: { slot: number; day: number; dep: number } | undefined
  const n = p.trips.length
  for (let di = 0; di < days.length; di++) {
    const d = days[di]
    const threshold = time - d.offset
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (depAt(p, mid, pos) < threshold) lo = mid + 1
      else hi = mid
    }
    for (let slot = lo; slot < n; slot++) {
      const dep = depAt(p, slot, pos) + d.offset
      if (found && dep >= found.dep) break
      if (usable(tt, d, p.trips[slot], pos)) {
        found = { slot, day: di, dep }
        break
      }
    }
  }
  return found
}

export function raptor(tt: Timetable, q: RaptorQuery): RaptorJourney[] {
  let ws = workspaces.get(tt)
  if (!ws) {
    ws = new Workspace(tt.stopCount)
    workspaces.set(tt, ws)
  }
  const K = q.maxRounds
  ws.round(K)
  const { best, tArr, marked } = ws
  best.fill(INF)
  for (let k = 0; k <= K; k++) {
    ws.arr[k].fill(INF)
    ws.how[k].fill(HOW_NONE)
  }
  let bound = INF
  const reach = (s: number, t: number) => {
    const egress = q.targets.get(s)
    if (egress !== undefined && t + egress < bound) bound = t + egress
  }

  // Round 0: the sources, and walking from them.
  let markedList: number[] = []
  for (const { stop, time } of q.sources) {
    if (time < ws.arr[0][stop]) {
      ws.arr[0][stop] = time
      best[stop] = Math.min(best[stop], time)
      ws.how[0][stop] = HOW_SOURCE
      if (!marked[stop]) {
        marked[stop] = 1
        markedList.push(stop)
      }
      reach(stop, time)
    }
  }
  if (q.walkFromSources) {
    for (const u of [...markedList]) markedList.push(...relaxFootpaths(tt, ws, 0, u, ws.arr[0][u], bound, reach))
  }

  const patternStart = new Int32Array(tt.patterns.length).fill(INF)
  const touched: number[] = []
  for (let k = 1; k <= K && markedList.length > 0; k++) {
    const arr = ws.arr[k]
    const prev = ws.arr[k - 1]
    const how = ws.how[k]
    const prevHow = ws.how[k - 1]
    arr.set(prev)
    how.set(prevHow)
    // Patterns through the stops improved last round, from the earliest such position.
    for (const s of markedList) {
      marked[s] = 0
      for (let e = tt.spStart[s]; e < tt.spStart[s + 1]; e++) {
        const p = tt.spPattern[e]
        if (patternStart[p] === INF) touched.push(p)
        if (tt.spPos[e] < patternStart[p]) patternStart[p] = tt.spPos[e]
      }
    }
    const improved: number[] = []
    for (const pi of touched) {
      const p = tt.patterns[pi]
      const start = patternStart[pi]
      patternStart[pi] = INF
      let slot = -1
      let di = 0
      let boardPos = -1
      for (let i = start; i < p.stops.length; i++) {
        const s = p.stops[i]
        if (slot >= 0 && !(p.flags[i] & NO_DROP_OFF)) {
          const d = q.days[di]
          const trip = p.trips[slot]
          const skipped = d.skipped?.get(trip)
          const t = arrAt(p, slot, i) + d.offset
          if (t < best[s] && t < bound && t <= q.horizon && (!skipped || skipped[i] === 0)) {
            arr[s] = t
            best[s] = t
            tArr[s] = t
            how[s] = HOW_TRANSIT
            ws.tPattern[k][s] = pi
            ws.tSlot[k][s] = slot
            ws.tDay[k][s] = di
            ws.tBoard[k][s] = boardPos
            ws.tAlight[k][s] = i
            if (!marked[s]) {
              marked[s] = 1
              improved.push(s)
            }
            reach(s, t)
          }
        }
        const ready = prev[s]
        if (ready === INF || p.flags[i] & NO_PICKUP) continue
        const earliest = ready + (prevHow[s] === HOW_TRANSIT ? tt.stopMinChange[s] : 0)
        const current = slot >= 0 ? depAt(p, slot, i) + q.days[di].offset : INF
        if (earliest > current) continue
        const next = earliestTrip(tt, p, i, earliest, q.days)
        if (next && next.dep < current) {
          slot = next.slot
          di = next.day
          boardPos = i
        }
      }
    }
    touched.length = 0
    const walked: number[] = []
    for (const u of improved) walked.push(...relaxFootpaths(tt, ws, k, u, tArr[u], bound, reach))
    for (const s of walked) {
      if (!marked[s]) {
        marked[s] = 1
        improved.push(s)
      }
    }
    markedList = improved
  }
  for (const s of markedList) marked[s] = 0
  return collect(tt, ws, q)
}

/** Walks from a stop reached at `from` (by a trip, or a source in round 0); returns the stops improved. */
function relaxFootpaths(
  tt: Timetable,
  ws: Workspace,
  k: number,
  u: number,
  from: number,
  bound: number,
  reach: (s: number, t: number) => void,
): number[] {
  const out: number[] = []
  for (let f = tt.fpStart[u]; f < tt.fpStart[u + 1]; f++) {
    const v = tt.fpTo[f]
    const t = from + tt.fpSeconds[f]
    if (t < ws.best[v] && t < bound) {
      ws.arr[k][v] = t
      ws.best[v] = t
      ws.how[k][v] = HOW_WALK
      ws.walkFrom[k][v] = u
      ws.walkFp[k][v] = f
      out.push(v)
      reach(v, t)
    }
  }
  return out
}

/** For each round that improves the arrival at the destination, the journey with that many trips. */
function collect(tt: Timetable, ws: Workspace, q: RaptorQuery): RaptorJourney[] {
  const journeys: RaptorJourney[] = []
  let previous = INF
  for (let k = 1; k <= q.maxRounds; k++) {
    let bestArrival = INF
    let target = -1
    for (const [s, egress] of q.targets) {
      const t = ws.arr[k][s]
      if (t !== INF && t + egress < bestArrival) {
        bestArrival = t + egress
        target = s
      }
    }
    if (target < 0 || bestArrival >= previous) continue
    previous = bestArrival
    const journey = reconstruct(tt, ws, k, target)
    if (journey && journey.trips > 0) journeys.push({ ...journey, target, arrival: bestArrival })
  }
  return journeys
}

function reconstruct(tt: Timetable, ws: Workspace, k: number, target: number) {
  const legs: RaptorLeg[] = []
  let s = target
  let r = k
  for (let guard = 0; guard < 4 * (k + 1); guard++) {
    // The round in which the arrival at s was set (later rounds copy it).
    while (r > 0 && ws.arr[r - 1][s] === ws.arr[r][s]) r--
    const how = ws.how[r][s]
    if (how === HOW_SOURCE) break
    let u = s
    if (how === HOW_WALK) {
      u = ws.walkFrom[r][s]
      const f = ws.walkFp[r][s]
      legs.push({ kind: 'walk', from: u, to: s, seconds: tt.fpSeconds[f], meters: tt.fpMeters[f] })
      if (r === 0) {
        s = u
        break
      }
    } else if (how !== HOW_TRANSIT) {
      return undefined
    }
    const p = ws.tPattern[r][u]
    const board = ws.tBoard[r][u]
    legs.push({
      kind: 'transit',
      pattern: p,
      slot: ws.tSlot[r][u],
      day: ws.tDay[r][u],
      board,
      alight: ws.tAlight[r][u],
    })
    s = tt.patterns[p].stops[board]
    r--
  }
  legs.reverse()
  return { source: s, legs, trips: legs.filter((l) => l.kind === 'transit').length }
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
