import { INF, IndexList } from './raptor-state.ts'
import type { Timetable } from './timetable.ts'

/**
 * Lower bounds of what is still needed from each stop to the destination, for pruning RAPTOR like A* prunes Dijkstra:
 * - time: an arrival `t` at stop `s` with `t + time[s]` after the best arrival at the destination found so far can be
 *   part of no journey the search returns (those arrive no later), so it is not recorded;
 * - trips: an arrival in round k at a stop that needs more than maxRounds - k further trips is of no use either.
 *
 * Both come from a relaxed network without waiting, change times, pickup/drop-off rules or the one-footpath-per-round
 * rule: stop `u` to stop `v` takes the least time any trip of any pattern needs between them at consecutive positions
 * (a trip's times never go back, so a longer ride takes at least the sum of its hops), or a footpath's seconds. They
 * are consistent (a stop's bound is at most a hop or a footpath plus the next stop's, and at most one trip more), so
 * whatever follows from a pruned arrival is pruned too: along a ridden trip `t + time` never decreases, and once a
 * trip's arrival is pruned at one position it is pruned at every later one. The search then records exactly the
 * arrivals it recorded without the bounds that can still matter, and the answers do not change.
 */

/**
 * The relaxed network, reversed (per stop: the stops that lead to it and the least time), built once per timetable.
 * A pair of stops served by several patterns has several edges: harmless, and cheaper than merging them.
 */
interface ReverseGraph {
  start: Int32Array
  from: Int32Array
  seconds: Int32Array
  /** The longest edge, seconds. */
  longest: number
  /** The footpaths alone, reversed (per stop: the stops that walk to it). */
  walkStart: Int32Array
  walkFrom: Int32Array
}

const graphs = new WeakMap<Timetable, ReverseGraph>()

const MAX_STEP = 86_400

function reverseGraph(tt: Timetable): ReverseGraph {
  const known = graphs.get(tt)
  if (known) return known
  const n = tt.stopCount
  let edges = tt.fpTo.length
  for (const p of tt.patterns) edges += Math.max(0, p.stops.length - 1)
  const edgeFrom = new Int32Array(edges)
  const edgeTo = new Int32Array(edges)
  const edgeSeconds = new Int32Array(edges)
  let m = 0
  // Longer steps count as MAX_STEP (still a lower bound), so the buckets stay small whatever transfers.txt says.
  const add = (u: number, v: number, w: number) => {
    if (u === v) return
    edgeFrom[m] = u
    edgeTo[m] = v
    edgeSeconds[m++] = Math.min(MAX_STEP, Math.max(0, w))
  }
  for (const p of tt.patterns) {
    const len = p.stops.length
    const trips = p.trips.length
    if (trips === 0) continue
    for (let i = 0; i + 1 < len; i++) {
      let w = INF
      for (let slot = 0; slot < trips; slot++) {
        const ride = p.times[(slot * len + i + 1) * 2] - p.times[(slot * len + i) * 2 + 1]
        if (ride < w) w = ride
      }
      add(p.stops[i], p.stops[i + 1], w)
    }
  }
  for (let u = 0; u < n; u++) {
    for (let f = tt.fpStart[u]; f < tt.fpStart[u + 1]; f++) add(u, tt.fpTo[f], tt.fpSeconds[f])
  }
  const start = new Int32Array(n + 1)
  for (let e = 0; e < m; e++) start[edgeTo[e] + 1]++
  for (let s = 0; s < n; s++) start[s + 1] += start[s]
  const cursor = start.slice(0, n)
  const from = new Int32Array(m)
  const seconds = new Int32Array(m)
  let longest = 0
  for (let e = 0; e < m; e++) {
    const c = cursor[edgeTo[e]]++
    from[c] = edgeFrom[e]
    seconds[c] = edgeSeconds[e]
    if (edgeSeconds[e] > longest) longest = edgeSeconds[e]
  }
  const walkStart = new Int32Array(n + 1)
  for (let f = 0; f < tt.fpTo.length; f++) walkStart[tt.fpTo[f] + 1]++
  for (let v = 0; v < n; v++) walkStart[v + 1] += walkStart[v]
  const walkCursor = walkStart.slice(0, n)
  const walkFrom = new Int32Array(tt.fpTo.length)
  for (let u = 0; u < n; u++) {
    for (let f = tt.fpStart[u]; f < tt.fpStart[u + 1]; f++) walkFrom[walkCursor[tt.fpTo[f]]++] = u
  }
  const graph = { start, from, seconds, longest, walkStart, walkFrom }
  graphs.set(tt, graph)
  return graph
}

/**
 * Dial's buckets: a circular array of lists of stops by their tentative time, one bucket per second, as many buckets
 * as the longest step from one settled time to a new one (the longest edge, or the spread of the start times) needs.
 */
class Buckets {
  head = new Int32Array(1)
  /** A pool of entries: the stop, the next entry in its bucket. */
  stop: Int32Array
  next: Int32Array
  used = 0

  constructor(capacity: number) {
    this.stop = new Int32Array(Math.max(1, capacity))
    this.next = new Int32Array(Math.max(1, capacity))
  }

  reset(width: number): void {
    if (this.head.length < width) this.head = new Int32Array(width)
    this.head.fill(-1, 0, width)
    this.used = 0
  }

  push(bucket: number, stop: number): void {
    if (this.used === this.stop.length) {
      const grownStop = new Int32Array(this.used * 2)
      const grownNext = new Int32Array(this.used * 2)
      grownStop.set(this.stop)
      grownNext.set(this.next)
      this.stop = grownStop
      this.next = grownNext
    }
    const e = this.used++
    this.stop[e] = stop
    this.next[e] = this.head[bucket]
    this.head[bucket] = e
  }
}

/** Per timetable: the bounds of the last destination asked for (journey planning asks the same one several times). */
export interface Bounds {
  /** Per stop: a lower bound of the seconds to the destination (INF: it cannot be reached). */
  time: Int32Array
  /**
   * Per stop: a lower bound of the trips still needed to reach the destination from there, up to `rounds` (at least
   * that many): walking is free and unlimited, a trip goes from any stop of a pattern to any later one.
   */
  trips: Uint8Array
  rounds: number
  /**
   * Per pattern position (`offset[pattern] + position`): the fewest trips needed from that position or a later one
   * (nothing is gained riding or boarding a pattern past which the destination needs more trips than are left).
   */
  tripsAfter: Uint8Array
  offset: Int32Array
  targets: number[]
  buckets: Buckets
  /** Scratch of the trip bounds: per pattern the last position of a stop of the level (-1), lists of stops, patterns. */
  lastPos: Int32Array
  level: IndexList
  next: IndexList
  touched: IndexList
}

const computed = new WeakMap<Timetable, Bounds>()

/** The bounds of each stop for a destination (`targets`: stop → walking seconds to the destination). */
export function destinationBounds(tt: Timetable, targets: Map<number, number>, rounds: number): Bounds {
  let b = computed.get(tt)
  if (!b) {
    const n = tt.stopCount
    const m = tt.patterns.length
    const offset = new Int32Array(m + 1)
    for (let p = 0; p < m; p++) offset[p + 1] = offset[p] + tt.patterns[p].stops.length
    b = {
      time: new Int32Array(n),
      trips: new Uint8Array(n),
      rounds: -1,
      tripsAfter: new Uint8Array(offset[m]),
      offset,
      targets: [],
      buckets: new Buckets(n * 4),
      lastPos: new Int32Array(m).fill(-1),
      level: new IndexList(n),
      next: new IndexList(n),
      touched: new IndexList(m),
    }
    computed.set(tt, b)
  }
  if (b.rounds === rounds && b.targets.length === targets.size * 2) {
    let same = true
    let j = 0
    for (const [s, egress] of targets) {
      if (b.targets[j++] !== s || b.targets[j++] !== egress) {
        same = false
        break
      }
    }
    if (same) return b
  }
  b.targets = []
  for (const [s, egress] of targets) b.targets.push(s, egress)
  b.rounds = rounds
  timeBounds(tt, b, targets)
  tripBounds(tt, b, targets, rounds)
  const { trips, tripsAfter, offset } = b
  for (let p = 0; p < tt.patterns.length; p++) {
    const stops = tt.patterns[p].stops
    let least = 255
    for (let i = stops.length - 1; i >= 0; i--) {
      if (trips[stops[i]] < least) least = trips[stops[i]]
      tripsAfter[offset[p] + i] = least
    }
  }
  return b
}

/** Shortest times to the destination in the relaxed network (Dijkstra with Dial's buckets). */
function timeBounds(tt: Timetable, b: Bounds, targets: Map<number, number>): void {
  const g = reverseGraph(tt)
  const { time: bound, buckets } = b
  bound.fill(INF)
  let first = INF
  let last = 0
  for (const egress of targets.values()) {
    first = Math.min(first, egress)
    last = Math.max(last, egress)
  }
  const width = Math.max(g.longest, last - first) + 1
  buckets.reset(width)
  let pending = 0
  for (const [s, egress] of targets) {
    if (egress < bound[s]) {
      bound[s] = egress
      buckets.push(egress % width, s)
      pending++
    }
  }
  const { start, from, seconds } = g
  for (let time = first; pending > 0; time++) {
    const bucket = time % width
    // Edges of 0 s add to this very bucket while it is emptied.
    while (buckets.head[bucket] >= 0) {
      const e = buckets.head[bucket]
      const v = buckets.stop[e]
      buckets.head[bucket] = buckets.next[e]
      pending--
      // A stop is listed again when its time improves: the older entries are stale.
      if (bound[v] !== time) continue
      for (let f = start[v]; f < start[v + 1]; f++) {
        const u = from[f]
        const t = time + seconds[f]
        if (t < bound[u]) {
          bound[u] = t
          buckets.push(t % width, u)
          pending++
        }
      }
    }
  }
}

/**
 * Fewest trips to the destination, level by level: a stop needs m trips if a pattern takes it to a stop that needs
 * m - 1. Only the patterns through the stops of the last level can give new ones, before the last such position.
 */
function tripBounds(tt: Timetable, b: Bounds, targets: Map<number, number>, rounds: number): void {
  const need = b.trips
  const cap = Math.min(rounds, 255)
  need.fill(cap)
  const g = reverseGraph(tt)
  const { spStart, spPattern, spPos, patterns } = tt
  const last = b.lastPos
  const touched = b.touched
  // Walking is free: whoever walks to a stop needing m trips needs m too (the reverse footpaths, to a fixed point).
  const walkTo = (list: IndexList, m: number) => {
    for (let j = 0; j < list.length; j++) {
      const v = list.items[j]
      for (let f = g.walkStart[v]; f < g.walkStart[v + 1]; f++) {
        const u = g.walkFrom[f]
        if (need[u] > m) {
          need[u] = m
          list.push(u)
        }
      }
    }
  }
  let level = b.level
  let next = b.next
  level.length = 0
  for (const s of targets.keys()) {
    if (need[s] > 0) {
      need[s] = 0
      level.push(s)
    }
  }
  walkTo(level, 0)
  for (let m = 1; m < cap && level.length > 0; m++) {
    touched.length = 0
    for (let j = 0; j < level.length; j++) {
      const s = level.items[j]
      for (let e = spStart[s]; e < spStart[s + 1]; e++) {
        const p = spPattern[e]
        if (last[p] < 0) touched.push(p)
        if (spPos[e] > last[p]) last[p] = spPos[e]
      }
    }
    next.length = 0
    for (let j = 0; j < touched.length; j++) {
      const p = touched.items[j]
      const stops = patterns[p].stops
      for (let i = last[p] - 1; i >= 0; i--) {
        const s = stops[i]
        // Before a stop of an older level, the stops got m - 1 or fewer trips then.
        if (need[s] < m - 1) break
        if (need[s] > m) {
          need[s] = m
          next.push(s)
        }
      }
      last[p] = -1
    }
    walkTo(next, m)
    const done = level
    level = next
    next = done
  }
}
