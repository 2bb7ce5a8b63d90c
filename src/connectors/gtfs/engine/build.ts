import KDBush from 'kdbush'
import { modeBit } from '../map.ts'
import { normalizeText } from '../search.ts'
import { footpaths } from './footpaths.ts'
import { buildLinePaths } from './lines.ts'
import type { BuildOptions, Pattern, RawFeed, Timetable } from './timetable.ts'
import {
  buildPatterns,
  type ExpandedTrips,
  expandTrips,
  type SortedStopTimes,
  sortStopTimes,
  tripsByIdOf,
} from './trips.ts'

/** Indexes a parsed feed into the compact timetable (see timetable.ts): stops, trips, patterns, events, footpaths. */

export function buildTimetable(raw: RawFeed, options: BuildOptions): Omit<Timetable, 'stats'> {
  const stops = buildStops(raw)
  // The rows now live sorted in `st`; sortStopTimes let the parsed columns go (peak memory).
  const st = sortStopTimes(raw, options.report)
  const trips = expandTrips(raw, st, options.report)
  const patterns = buildPatterns(st, trips)
  const lines = buildLinePaths(raw, st, trips, patterns.patterns, options.report)
  const { runs: _runs, frequencyTrips: _frequencyTrips, tripCount, tripIds, ...tripArrays } = trips
  const stopCount = stops.stopIds.length
  const sp = stopPatternIndex(stopCount, patterns.patterns)
  const events = eventIndex(stopCount, st, trips, patterns.tripPattern)

  const stopModes = new Uint16Array(stopCount)
  for (const p of patterns.patterns) {
    const bit = modeBit(raw.routes.type[p.route])
    for (const s of p.stops) stopModes[s] |= bit
  }
  for (const [parent, children] of stops.stopChildren) {
    for (const child of children) stopModes[parent] |= stopModes[child]
  }
  const routable: number[] = []
  for (let s = 0; s < stopCount; s++) if (sp.spStart[s + 1] > sp.spStart[s]) routable.push(s)
  const routableStops = Int32Array.from(routable)
  const fp = footpaths(raw, stops, routableStops, options)

  const tripsById = tripsByIdOf(tripIds)
  return {
    clock: raw.clock,
    calendar: raw.calendar,
    agencies: raw.agencies,
    stopCount,
    ...stops,
    stopModes,
    routableStops,
    routableIndex: geoIndex(routableStops, stops.stopLat, stops.stopLon),
    stopMinChange: fp.minChange,
    routeIds: raw.routes.ids,
    routeShortName: raw.routes.shortName,
    routeLongName: raw.routes.longName,
    routeType: Int32Array.from(raw.routes.type),
    routeColor: raw.routes.color,
    routeTextColor: raw.routes.textColor,
    routeAgency: Int32Array.from(raw.routes.agency),
    tripCount,
    tripIds,
    tripsById,
    ...tripArrays,
    tripPattern: patterns.tripPattern,
    tripSlot: patterns.tripSlot,
    stStop: st.stop,
    stArr: st.arr,
    stDep: st.dep,
    stSeq: st.seq,
    stFlags: st.flags,
    stHeadsign: st.headsign,
    patterns: patterns.patterns,
    ...sp,
    fpStart: fp.start,
    fpTo: fp.to,
    fpSeconds: fp.seconds,
    fpMeters: fp.meters,
    ...events,
    maxTime: patterns.maxTime,
    lines,
  }
}

function geoIndex(stops: Int32Array, lat: Float64Array, lon: Float64Array): KDBush {
  const index = new KDBush(Math.max(1, stops.length))
  for (const s of stops) index.add(lon[s], lat[s])
  if (stops.length === 0) index.add(0, 0)
  return index.finish()
}

function buildStops(raw: RawFeed) {
  const { stops } = raw
  const n = stops.ids.length
  const stopIndex = new Map<string, number>()
  stops.ids.forEach((id, i) => {
    stopIndex.set(id, i)
  })
  const stopParent = new Int32Array(n).fill(-1)
  const stopChildren = new Map<number, number[]>()
  for (let i = 0; i < n; i++) {
    const parentId = stops.parentId[i]
    if (!parentId) continue
    const parent = stopIndex.get(parentId)
    if (parent === undefined || parent === i) continue
    stopParent[i] = parent
    const list = stopChildren.get(parent)
    if (list) list.push(i)
    else stopChildren.set(parent, [i])
  }
  const stopWheelchair = Uint8Array.from(stops.wheelchair)
  const stopNames = stops.names.slice()
  for (let i = 0; i < n; i++) {
    const parent = stopParent[i]
    if (parent < 0) continue
    if (stopWheelchair[i] === 0) stopWheelchair[i] = stopWheelchair[parent]
    if (!stopNames[i]) stopNames[i] = stopNames[parent]
  }
  const stopLocationType = Uint8Array.from(stops.locationType)
  const stopLat = Float64Array.from(stops.lat)
  const stopLon = Float64Array.from(stops.lon)
  const near: number[] = []
  const stopSearch = new Array<string>(n).fill('')
  const stopSearchKeys = new Array<string[]>(n)
  for (let i = 0; i < n; i++) {
    const type = stopLocationType[i]
    if (type === 1 || (type === 0 && stopParent[i] < 0)) {
      near.push(i)
      stopSearch[i] = normalizeText(stopNames[i])
      const code = stops.code[i]
      stopSearchKeys[i] = code ? [normalizeText(stops.ids[i]), normalizeText(code)] : [normalizeText(stops.ids[i])]
    }
  }
  const nearStops = Int32Array.from(near)
  return {
    stopIds: stops.ids,
    stopIndex,
    stopNames,
    stopLat,
    stopLon,
    stopCode: stops.code,
    stopPlatform: stops.platform,
    stopParent,
    stopLocationType,
    stopWheelchair,
    stopChildren,
    stopSearch,
    stopSearchKeys,
    nearStops,
    nearIndex: geoIndex(nearStops, stopLat, stopLon),
  }
}

function stopPatternIndex(stopCount: number, patterns: Pattern[]) {
  const spStart = new Int32Array(stopCount + 1)
  for (const p of patterns) for (const s of p.stops) spStart[s + 1]++
  for (let s = 0; s < stopCount; s++) spStart[s + 1] += spStart[s]
  const cursor = spStart.slice(0, stopCount)
  const spPattern = new Int32Array(spStart[stopCount])
  const spPos = new Int32Array(spStart[stopCount])
  patterns.forEach((p, pi) => {
    p.stops.forEach((s, pos) => {
      spPattern[cursor[s]] = pi
      spPos[cursor[s]++] = pos
    })
  })
  return { spStart, spPattern, spPos }
}

/** Per stop, every stop time of every running trip, sorted by departure (ties in trip order). */
function eventIndex(stopCount: number, st: SortedStopTimes, trips: ExpandedTrips, tripPattern: Int32Array) {
  const evStart = new Int32Array(stopCount + 1)
  for (let t = 0; t < trips.tripCount; t++) {
    if (tripPattern[t] < 0) continue
    const a = trips.tripSt[t]
    for (let i = a; i < a + trips.tripLen[t]; i++) evStart[st.stop[i] + 1]++
  }
  for (let s = 0; s < stopCount; s++) evStart[s + 1] += evStart[s]
  const total = evStart[stopCount]
  const cursor = evStart.slice(0, stopCount)
  const evTrip = new Int32Array(total)
  const evPos = new Int32Array(total)
  const evDep = new Int32Array(total)
  for (let t = 0; t < trips.tripCount; t++) {
    if (tripPattern[t] < 0) continue
    const a = trips.tripSt[t]
    for (let i = 0; i < trips.tripLen[t]; i++) {
      const c = cursor[st.stop[a + i]]++
      evTrip[c] = t
      evPos[c] = i
      evDep[c] = st.dep[a + i] + trips.tripOffset[t]
    }
  }
  const order = new DepartureOrder()
  let tripCopy = new Int32Array(256)
  let posCopy = new Int32Array(256)
  let depCopy = new Int32Array(256)
  for (let s = 0; s < stopCount; s++) {
    const a = evStart[s]
    const n = evStart[s + 1] - a
    const perm = order.sort(evDep, a, n)
    if (!perm) continue
    if (tripCopy.length < n) {
      tripCopy = new Int32Array(n * 2)
      posCopy = new Int32Array(n * 2)
      depCopy = new Int32Array(n * 2)
    }
    tripCopy.set(evTrip.subarray(a, a + n))
    posCopy.set(evPos.subarray(a, a + n))
    depCopy.set(evDep.subarray(a, a + n))
    for (let j = 0; j < n; j++) {
      const from = perm[j]
      evTrip[a + j] = tripCopy[from]
      evPos[a + j] = posCopy[from]
      evDep[a + j] = depCopy[from]
    }
  }
  return { evStart, evTrip, evPos, evDep }
}

/** Runs of a stop's events beyond which a key sort beats merging them. */
const MAX_MERGED_RUNS = 32

/**
 * The order of a stop's events by departure, ties in the order they come (a stable sort). A stop's events come trip
 * by trip, and a line's trips mostly in time order: they form a few ascending runs, merged in a few passes; events
 * in many runs are sorted by a Float64 key (departure × n + position), without a comparator.
 */
export class DepartureOrder {
  private a = new Int32Array(256)
  private b = new Int32Array(256)
  private runs = new Int32Array(MAX_MERGED_RUNS + 2)
  private keys = new Float64Array(256)

  /** The permutation (positions from `start`), or undefined when the events are in order already. */
  sort(dep: Int32Array, start: number, n: number): Int32Array | undefined {
    if (n < 2) return undefined
    let runCount = 0
    for (let j = 1; j < n && runCount <= MAX_MERGED_RUNS; j++) {
      if (dep[start + j] < dep[start + j - 1]) this.runs[++runCount] = j
    }
    if (runCount === 0) return undefined
    if (this.a.length < n) {
      this.a = new Int32Array(n * 2)
      this.b = new Int32Array(n * 2)
    }
    if (runCount > MAX_MERGED_RUNS) return this.keySort(dep, start, n)
    const runs = this.runs
    runs[0] = 0
    runs[++runCount] = n
    let from = this.a
    let to = this.b
    for (let j = 0; j < n; j++) from[j] = j
    // Bottom-up: merge runs pairwise (the left one first on equal departures) until one is left.
    while (runCount > 1) {
      let out = 0
      for (let r = 0; r < runCount; r += 2) {
        const lo = runs[r]
        if (r + 1 === runCount) {
          to.set(from.subarray(lo, runs[r + 1]), lo)
          runs[out++] = lo
          continue
        }
        const mid = runs[r + 1]
        const hi = runs[r + 2]
        let x = lo
        let y = mid
        let k = lo
        while (x < mid && y < hi) {
          if (dep[start + from[y]] < dep[start + from[x]]) to[k++] = from[y++]
          else to[k++] = from[x++]
        }
        while (x < mid) to[k++] = from[x++]
        while (y < hi) to[k++] = from[y++]
        runs[out++] = lo
      }
      runs[out] = n
      runCount = out
      const swap = from
      from = to
      to = swap
    }
    return from.subarray(0, n)
  }

  private keySort(dep: Int32Array, start: number, n: number): Int32Array {
    const perm = this.a.subarray(0, n)
    let low = 0
    let high = 0
    for (let j = 0; j < n; j++) {
      const d = dep[start + j]
      if (d < low) low = d
      if (d > high) high = d
    }
    if (low >= 0 && (high + 1) * n <= 0x7fffffff) {
      // Keys that fit 31 bits sort as integers (faster than doubles).
      const view = this.b.subarray(0, n)
      for (let j = 0; j < n; j++) view[j] = dep[start + j] * n + j
      view.sort()
      for (let j = 0; j < n; j++) perm[j] = view[j] % n
      return perm
    }
    if (this.keys.length < n) this.keys = new Float64Array(n * 2)
    const view = this.keys.subarray(0, n)
    for (let j = 0; j < n; j++) view[j] = dep[start + j] * n + j
    view.sort()
    for (let j = 0; j < n; j++) perm[j] = view[j] % n
    return perm
  }
}
