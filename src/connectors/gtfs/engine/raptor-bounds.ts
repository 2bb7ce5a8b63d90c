import { INF } from './raptor-state.ts'
import type { Timetable } from './timetable.ts'

/**
 * Lower bounds on the time from each stop to the destination, for pruning RAPTOR like A* prunes Dijkstra: an
 * arrival `t` at stop `s` with `t + bound[s]` not before the best arrival at the destination found so far can be
 * part of no journey the search returns (those arrive strictly earlier), so it is not recorded.
 *
 * The bound is the shortest time in a relaxed network without waiting, change times, pickup/drop-off rules or the
 * one-footpath-per-round rule: stop `u` to stop `v` takes the least time any trip of any pattern needs between them
 * at consecutive positions (a trip's times never go back, so a longer ride takes at least the sum of its hops),
 * or a footpath's seconds. It is consistent (the bound of a stop is at most a hop or a footpath plus the bound of
 * the next stop), so along a ridden trip `t + bound` never decreases: once a trip's arrival is pruned at one
 * position it is pruned at every later one.
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
}

const graphs = new WeakMap<Timetable, ReverseGraph>()

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
  const add = (u: number, v: number, w: number) => {
    if (u === v) return
    edgeFrom[m] = u
    edgeTo[m] = v
    edgeSeconds[m++] = Math.max(0, w)
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
  const graph = { start, from, seconds, longest }
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
interface Bounds {
  targets: number[]
  bound: Int32Array
  buckets: Buckets
}

const computed = new WeakMap<Timetable, Bounds>()

/** The lower bound of each stop's time to the destination (INF: the destination cannot be reached from it). */
export function lowerBounds(tt: Timetable, targets: Map<number, number>): Int32Array {
  let b = computed.get(tt)
  if (!b) {
    b = { targets: [], bound: new Int32Array(tt.stopCount), buckets: new Buckets(tt.stopCount * 4) }
    computed.set(tt, b)
  }
  if (b.targets.length === targets.size * 2) {
    let same = true
    let j = 0
    for (const [s, egress] of targets) {
      if (b.targets[j++] !== s || b.targets[j++] !== egress) {
        same = false
        break
      }
    }
    if (same) return b.bound
  }
  const g = reverseGraph(tt)
  const { bound, buckets } = b
  bound.fill(INF)
  b.targets = []
  let first = INF
  let last = 0
  for (const [s, egress] of targets) {
    b.targets.push(s, egress)
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
  return bound
}
