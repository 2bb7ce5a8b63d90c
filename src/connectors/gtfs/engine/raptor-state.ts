import type { Timetable } from './timetable.ts'

/**
 * What one RAPTOR search writes, kept per timetable and reused by every query (a query runs synchronously, so one
 * workspace suffices): the labels of each round, and the lists and marks of the scan. Nothing in it is allocated
 * per query once the timetable has answered a query with as many rounds.
 */

export const INF = 0x7fffffff

export const HOW_NONE = 0
export const HOW_SOURCE = 1
export const HOW_TRANSIT = 2
export const HOW_WALK = 3

/** A stack of stop or pattern indexes (each at most once while it is in use: callers mark what they push). */
export class IndexList {
  readonly items: Int32Array
  length = 0

  constructor(capacity: number) {
    this.items = new Int32Array(Math.max(1, capacity))
  }

  push(value: number): void {
    this.items[this.length++] = value
  }
}

export class Workspace {
  /** Per round k: arrival at each stop with at most k trips (INF: not reached), and how it was reached. */
  readonly arr: Int32Array[] = []
  readonly how: Uint8Array[] = []
  /** HOW_WALK: the stop walked from and the footpath. */
  readonly walkFrom: Int32Array[] = []
  readonly walkFp: Int32Array[] = []
  /** HOW_TRANSIT: the pattern, its trip slot, the day (index into the query's days), boarding and alighting positions. */
  readonly tPattern: Int32Array[] = []
  readonly tSlot: Int32Array[] = []
  readonly tDay: Int32Array[] = []
  readonly tBoard: Int32Array[] = []
  readonly tAlight: Int32Array[] = []
  /** Best arrival at each stop over all rounds so far (local pruning). */
  readonly best: Int32Array
  /** Arrival by a trip in the current round (footpaths start from it). */
  readonly tArr: Int32Array
  /** 1 while a stop is in the current list of improved stops. */
  readonly marked: Uint8Array
  /** The round stamp (`stamp`) of the last round that improved the stop: a trip is boarded only where it just changed. */
  readonly markedIn: Int32Array
  /** Counts rounds over all queries, so that `markedIn` never needs clearing. */
  stamp = 0
  /** Walking seconds from a target stop to the destination; -1 for other stops (reset after each query). */
  readonly egress: Int32Array
  /** Per pattern, the first position to scan this round; INF when the pattern is not to be scanned. */
  readonly patternStart: Int32Array
  /** Per pattern, the last position of a stop improved last round (past it no trip is boarded); -1 when none. */
  readonly patternEnd: Int32Array
  readonly touched: IndexList
  /** The stops improved in the previous round, and in this one (swapped each round). */
  marks: IndexList
  improved: IndexList
  readonly n: number

  constructor(stopCount: number, patternCount: number) {
    const n = stopCount
    this.n = n
    this.best = new Int32Array(n)
    this.tArr = new Int32Array(n)
    this.marked = new Uint8Array(n)
    this.markedIn = new Int32Array(n)
    this.egress = new Int32Array(n).fill(-1)
    this.patternStart = new Int32Array(patternCount).fill(INF)
    this.patternEnd = new Int32Array(patternCount).fill(-1)
    this.touched = new IndexList(patternCount)
    this.marks = new IndexList(n)
    this.improved = new IndexList(n)
  }

  /** Makes sure rounds 0..k exist. */
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

  swap(): void {
    const marks = this.marks
    this.marks = this.improved
    this.improved = marks
    this.improved.length = 0
  }
}

const workspaces = new WeakMap<Timetable, Workspace>()

export function workspaceOf(tt: Timetable): Workspace {
  let ws = workspaces.get(tt)
  if (!ws) {
    ws = new Workspace(tt.stopCount, tt.patterns.length)
    workspaces.set(tt, ws)
  }
  return ws
}
