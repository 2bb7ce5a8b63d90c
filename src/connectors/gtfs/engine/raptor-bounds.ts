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

/** The relaxed network, reversed (per stop: the stops that lead to it and the least time), built once per timetable. */
interface ReverseGraph {
  start: Int32Array
  from: Int32Array
  seconds: Int32Array
}

const graphs = new WeakMap<Timetable, ReverseGraph>()

function reverseGraph(tt: Timetable): ReverseGraph {
  const known = graphs.get(tt)
  if (known) return known
  const n = tt.stopCount
  // Least time per (from, to) pair over all patterns and footpaths.
  const least = new Map<number, number>()
  const edge = (u: number, v: number, w: number) => {
    if (u === v) return
    const key = v * n + u
    const old = least.get(key)
    if (old === undefined || w < old) least.set(key, w)
  }
  for (const p of tt.patterns) {
    const len = p.stops.length
    const trips = p.trips.length
    for (let i = 0; i + 1 < len; i++) {
      let w = INF
      for (let slot = 0; slot < trips; slot++) {
        const ride = p.times[(slot * len + i + 1) * 2] - p.times[(slot * len + i) * 2 + 1]
        if (ride < w) w = ride
      }
      if (w !== INF) edge(p.stops[i], p.stops[i + 1], Math.max(0, w))
    }
  }
  for (let u = 0; u < n; u++) {
    for (let f = tt.fpStart[u]; f < tt.fpStart[u + 1]; f++) edge(u, tt.fpTo[f], Math.max(0, tt.fpSeconds[f]))
  }
  const start = new Int32Array(n + 1)
  for (const key of least.keys()) start[Math.floor(key / n) + 1]++
  for (let s = 0; s < n; s++) start[s + 1] += start[s]
  const cursor = start.slice(0, n)
  const from = new Int32Array(least.size)
  const seconds = new Int32Array(least.size)
  for (const [key, w] of least) {
    const v = Math.floor(key / n)
    const c = cursor[v]++
    from[c] = key - v * n
    seconds[c] = w
  }
  const graph = { start, from, seconds }
  graphs.set(tt, graph)
  return graph
}

/** A binary min-heap of (key, stop) with lazy deletion, its arrays reused. */
class Heap {
  keys: Int32Array
  values: Int32Array
  length = 0

  constructor(capacity: number) {
    this.keys = new Int32Array(Math.max(1, capacity))
    this.values = new Int32Array(Math.max(1, capacity))
  }

  push(key: number, value: number): void {
    if (this.length === this.keys.length) {
      const keys = new Int32Array(this.length * 2)
      const values = new Int32Array(this.length * 2)
      keys.set(this.keys)
      values.set(this.values)
      this.keys = keys
      this.values = values
    }
    const { keys, values } = this
    let i = this.length++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (keys[parent] <= key) break
      keys[i] = keys[parent]
      values[i] = values[parent]
      i = parent
    }
    keys[i] = key
    values[i] = value
  }

  /** Removes the least entry; read `topKey`/`topValue` first. */
  pop(): void {
    const { keys, values } = this
    const last = --this.length
    if (last === 0) return
    const key = keys[last]
    const value = values[last]
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= last) break
      if (child + 1 < last && keys[child + 1] < keys[child]) child++
      if (keys[child] >= key) break
      keys[i] = keys[child]
      values[i] = values[child]
      i = child
    }
    keys[i] = key
    values[i] = value
  }
}

/** Per timetable: the bounds of the last destination asked for (journey planning asks the same one several times). */
interface Bounds {
  targets: number[]
  bound: Int32Array
  heap: Heap
}

const computed = new WeakMap<Timetable, Bounds>()

/** The lower bound of each stop's time to the destination (INF: the destination cannot be reached from it). */
export function lowerBounds(tt: Timetable, targets: Map<number, number>): Int32Array {
  let b = computed.get(tt)
  if (!b) {
    b = { targets: [], bound: new Int32Array(tt.stopCount), heap: new Heap(tt.stopCount * 4) }
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
  const { bound, heap } = b
  bound.fill(INF)
  heap.length = 0
  b.targets = []
  for (const [s, egress] of targets) {
    b.targets.push(s, egress)
    if (egress < bound[s]) {
      bound[s] = egress
      heap.push(egress, s)
    }
  }
  while (heap.length > 0) {
    const d = heap.keys[0]
    const v = heap.values[0]
    heap.pop()
    if (d > bound[v]) continue
    for (let e = g.start[v]; e < g.start[v + 1]; e++) {
      const u = g.from[e]
      const du = d + g.seconds[e]
      if (du < bound[u]) {
        bound[u] = du
        heap.push(du, u)
      }
    }
  }
  return b.bound
}
