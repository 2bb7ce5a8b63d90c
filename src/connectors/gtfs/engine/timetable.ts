import type KDBush from 'kdbush'
import type { FeedClock, ServiceCalendar } from './calendar.ts'
import type { LineBuild } from './lines.ts'

/**
 * The compact in-memory timetable. Everything a query touches per stop time lives in typed arrays (a city feed of a
 * million stop_times takes tens of megabytes, not gigabytes of objects); strings are interned once.
 *
 * - stop_times are sorted by trip and stop_sequence: trip t owns rows `tripSt[t] .. tripSt[t] + tripLen[t]`.
 *   Trips of frequencies.txt are expanded into one trip per start time that share their template's rows and add
 *   `tripOffset` seconds, so expansion costs a few bytes per trip, not a copy of its stop times.
 * - Patterns (RAPTOR "routes") group the trips that serve the same stops with the same pickup/drop-off rules and
 *   never overtake each other, with their times in one array per pattern.
 * - Per stop, its departures sorted by time (departure boards) and the patterns through it (routing); footpaths
 *   between stops within walking distance and from transfers.txt.
 */

export const NO_PICKUP = 1
export const NO_DROP_OFF = 2
export const WALK_METERS_PER_SECOND = 1.2

export interface Agency {
  id: string
  name: string
  url?: string
  timezone?: string
}

export interface Pattern {
  route: number
  /** Stop indexes, in order. */
  stops: Int32Array
  /** Per position: NO_PICKUP | NO_DROP_OFF. */
  flags: Uint8Array
  /** Trip indexes ordered by departure; no trip overtakes an earlier one at any stop. */
  trips: Int32Array
  /** Per trip (in `trips` order) and position: arrival, departure (service-day seconds). */
  times: Int32Array
}

export interface Timetable {
  clock: FeedClock
  calendar: ServiceCalendar
  agencies: Agency[]

  stopCount: number
  stopIds: string[]
  stopIndex: Map<string, number>
  stopNames: string[]
  stopLat: Float64Array
  stopLon: Float64Array
  stopCode: (string | undefined)[]
  stopPlatform: (string | undefined)[]
  stopParent: Int32Array
  /** location_type: 0 stop/platform, 1 station, 2 entrance, 3 generic node, 4 boarding area. */
  stopLocationType: Uint8Array
  /** wheelchair_boarding 0/1/2, a platform's 0 inherited from its station. */
  stopWheelchair: Uint8Array
  /** Bit set of TransitModes (map.ts `modeBit`) of the routes serving the stop (stations: their platforms'). */
  stopModes: Uint16Array
  stopChildren: Map<number, number[]>
  /** Normalized names of the stops a search returns (stations and stops without a station), else ''. */
  stopSearch: string[]
  /** Normalized stop_id and stop_code of the same stops (riders type the code on the pole, operators the id). */
  stopSearchKeys: string[][]
  /** Stations and stops without a station (what a map or a search shows). */
  nearStops: Int32Array
  nearIndex: KDBush
  /** Stops with departures (where a journey can begin or end). */
  routableStops: Int32Array
  routableIndex: KDBush
  /** Minimum change time at a stop (transfers.txt with from = to), seconds. */
  stopMinChange: Int32Array

  routeIds: string[]
  routeShortName: string[]
  routeLongName: string[]
  routeType: Int32Array
  routeColor: (string | undefined)[]
  routeTextColor: (string | undefined)[]
  routeAgency: Int32Array

  tripCount: number
  tripIds: string[]
  tripsById: Map<string, number[]>
  tripRoute: Int32Array
  tripService: Int32Array
  tripHeadsign: string[]
  /** direction_id of trips.txt (0 or 1), -1 when the feed does not give it (alerts select trips by direction). */
  tripDirection: Int8Array
  tripSt: Int32Array
  tripLen: Int32Array
  tripOffset: Int32Array
  /** Start time of a frequency-expanded trip (service-day seconds), -1 for a scheduled trip. */
  tripFreqStart: Int32Array
  /** 1 when the frequency is exact_times=1. */
  tripFreqExact: Uint8Array
  /** -1 for trips that never run themselves (frequency templates, broken trips). */
  tripPattern: Int32Array
  tripSlot: Int32Array

  stStop: Int32Array
  stArr: Int32Array
  stDep: Int32Array
  stSeq: Int32Array
  stFlags: Uint8Array
  stHeadsign: Map<number, string>

  patterns: Pattern[]
  /** Per stop (CSR): the patterns through it and the position there. */
  spStart: Int32Array
  spPattern: Int32Array
  spPos: Int32Array
  /** Per stop (CSR): footpaths to other stops. */
  fpStart: Int32Array
  fpTo: Int32Array
  fpSeconds: Int32Array
  fpMeters: Int32Array
  /** Per stop (CSR): every stop time there, ordered by departure. */
  evStart: Int32Array
  evTrip: Int32Array
  evPos: Int32Array
  evDep: Int32Array

  /** The latest time of any trip, seconds (beyond 86400 for trips past midnight). */
  maxTime: number
  /** Per route, its paths on a map (lines.ts). */
  lines: LineBuild
  stats: TimetableStats
}

export interface TimetableStats {
  agencies: number
  stops: number
  routes: number
  trips: number
  /** Trips after frequencies.txt is expanded. */
  tripInstances: number
  stopTimes: number
  patterns: number
  services: number
  footpaths: number
  frequencyTrips: number
  loadSeconds: number
  /** Bytes held by the typed arrays of the timetable. */
  arrayBytes: number
  /** Routes drawn on a map, their distinct paths (shapes or stop patterns) and the points of those paths. */
  lines: number
  linePaths: number
  linePoints: number
  firstServiceDay?: string
  lastServiceDay?: string
}

/** An Int32Array that grows. */
export class IntList {
  data: Int32Array
  length = 0

  constructor(capacity = 1024) {
    this.data = new Int32Array(capacity)
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = value
  }

  toArray(): Int32Array {
    return this.data.slice(0, this.length)
  }
}

const BLOCK_SHIFT = 20
const BLOCK = 1 << BLOCK_SHIFT
const BLOCK_MASK = BLOCK - 1

/** Whether order[k] === k for every k below `length` (rows that need no moving). */
export function isIdentity(order: Int32Array, length: number): boolean {
  for (let k = 0; k < length; k++) if (order[k] !== k) return false
  return true
}

/**
 * A column of int32 values that grows by fixed blocks of 2^20 values: no copy when it grows and no unused half after
 * a doubling, so the millions of stop_times rows take their size, not up to twice it, while the feed is read. The
 * blocks are large (4 MiB) because each new ArrayBuffer may make V8 collect garbage.
 */
export class IntColumn {
  private blocks: Int32Array[] = []
  length = 0

  push(value: number): void {
    const i = this.length & BLOCK_MASK
    if (i === 0) this.blocks.push(new Int32Array(BLOCK))
    this.blocks[this.length >>> BLOCK_SHIFT][i] = value
    this.length++
  }

  get(index: number): number {
    return this.blocks[index >>> BLOCK_SHIFT][index & BLOCK_MASK]
  }

  /** The values at `order[0 .. length)`, in that order (`inOrder`: whether order[k] === k throughout). */
  gather(order: Int32Array, length: number, inOrder = isIdentity(order, length)): Int32Array {
    const out = new Int32Array(length)
    const blocks = this.blocks
    if (inOrder) {
      // Rows already in order (a feed written trip by trip): whole blocks are copied.
      for (let b = 0; b * BLOCK < length; b++)
        out.set(blocks[b].subarray(0, Math.min(BLOCK, length - b * BLOCK)), b * BLOCK)
      return out
    }
    for (let k = 0; k < length; k++) {
      const r = order[k]
      out[k] = blocks[r >>> BLOCK_SHIFT][r & BLOCK_MASK]
    }
    return out
  }

  /** gather, into bytes (values 0 to 255). */
  gatherBytes(order: Int32Array, length: number, inOrder = isIdentity(order, length)): Uint8Array {
    const out = new Uint8Array(length)
    const blocks = this.blocks
    if (inOrder) {
      for (let b = 0; b * BLOCK < length; b++)
        out.set(blocks[b].subarray(0, Math.min(BLOCK, length - b * BLOCK)), b * BLOCK)
      return out
    }
    for (let k = 0; k < length; k++) {
      const r = order[k]
      out[k] = blocks[r >>> BLOCK_SHIFT][r & BLOCK_MASK]
    }
    return out
  }

  /** Lets the blocks go (the build copies the rows into their final arrays). */
  clear(): void {
    this.blocks = []
    this.length = 0
  }
}

/** What the loader parsed, before indexing. */
export interface RawFeed {
  clock: FeedClock
  calendar: ServiceCalendar
  agencies: Agency[]
  stops: {
    ids: string[]
    names: string[]
    lat: number[]
    lon: number[]
    code: (string | undefined)[]
    platform: (string | undefined)[]
    parentId: (string | undefined)[]
    locationType: number[]
    wheelchair: number[]
  }
  routes: {
    ids: string[]
    agency: number[]
    shortName: string[]
    longName: string[]
    type: number[]
    color: (string | undefined)[]
    textColor: (string | undefined)[]
  }
  /** direction: trips.txt direction_id, -1 when not given; `shape` is an index into `shapes.ids`, -1 for a trip without shape_id. */
  trips: { ids: string[]; route: number[]; service: number[]; headsign: string[]; direction: number[]; shape: number[] }
  /**
   * shapes.txt rows of the shapes trips name (others are not kept), in file order; positions in 1e-7 degrees, so a
   * shape point takes 16 bytes until the lines are built and the rows dropped.
   */
  shapes: { ids: string[]; shape: IntList; seq: IntList; lat: IntList; lon: IntList }
  frequencies: Map<number, { start: number; end: number; headway: number; exact: boolean }[]>
  /** stop_times.txt rows in file order (the build sorts them and then clears these columns). */
  stopTimes: {
    trip: IntColumn
    seq: IntColumn
    stop: IntColumn
    arr: IntColumn
    dep: IntColumn
    flags: IntColumn
    headsign: Map<number, string>
  }
  transfers: { from: number; to: number; type: number; minTime: number }[]
}

export interface BuildOptions {
  transferWalkMeters: number
  report: (file: string, message: string) => void
}

/** Bytes held by the typed arrays of a timetable (what "modest memory" is measured by). */
export function arrayBytes(tt: Omit<Timetable, 'stats'>): number {
  let total = 0
  for (const value of Object.values(tt)) {
    if (ArrayBuffer.isView(value)) total += value.byteLength
  }
  for (const p of tt.patterns)
    total += p.stops.byteLength + p.flags.byteLength + p.trips.byteLength + p.times.byteLength
  for (const r of tt.lines.routes) for (const p of r.paths) total += p.coordinates.byteLength
  return total
}
