import { type BuildOptions, IntList, isIdentity, type Pattern, type RawFeed } from './timetable.ts'

/**
 * Trips of the timetable: stop_times in trip order with missing times filled in, frequencies.txt expanded into
 * trips, and the trips grouped into patterns (same stops, same pickup/drop-off rules, no overtaking).
 */

export interface SortedStopTimes {
  stop: Int32Array
  arr: Int32Array
  dep: Int32Array
  seq: Int32Array
  flags: Uint8Array
  headsign: Map<number, string>
  /** Per trip of trips.txt: first row and row count (0 when the trip has no usable stop times). */
  start: Int32Array
  len: Int32Array
}

/**
 * Orders stop_times by trip and stop_sequence (counting sort by trip), fills missing times by interpolation. The
 * parsed columns are moved one at a time into their sorted arrays and let go, so that the rows are held about
 * once and a half, not twice, at the peak.
 */
export function sortStopTimes(raw: RawFeed, report: BuildOptions['report']): SortedStopTimes {
  const src = raw.stopTimes
  const rows = src.trip.length
  const tripCount = raw.trips.ids.length
  const count = new Int32Array(tripCount + 1)
  const trip = src.trip
  for (let r = 0; r < rows; r++) count[trip.get(r) + 1]++
  for (let t = 0; t < tripCount; t++) count[t + 1] += count[t]
  let order = new Int32Array(rows)
  {
    const cursor = count.slice(0, tripCount)
    for (let r = 0; r < rows; r++) order[cursor[trip.get(r)]++] = r
  }
  trip.clear()

  let seq = src.seq.gather(order, rows)
  src.seq.clear()
  for (let t = 0; t < tripCount; t++) {
    const a = count[t]
    const b = count[t + 1]
    let sorted = true
    for (let i = a + 1; i < b; i++) {
      if (seq[i] <= seq[i - 1]) {
        sorted = false
        break
      }
    }
    if (!sorted) {
      // A stable sort of the trip's rows by stop_sequence (rows of one sequence number stay in file order).
      const slice = Array.from({ length: b - a }, (_, k) => a + k).sort((x, y) => seq[x] - seq[y])
      const rowsOf = slice.map((i) => order[i])
      const seqOf = slice.map((i) => seq[i])
      order.set(rowsOf, a)
      seq.set(seqOf, a)
    }
  }
  // A feed written trip by trip in stop_sequence order needs no moving (checked once for the columns).
  const inOrder = isIdentity(order, rows)
  let arr = src.arr.gather(order, rows, inOrder)
  src.arr.clear()
  let dep = src.dep.gather(order, rows, inOrder)
  src.dep.clear()

  const start = new Int32Array(tripCount)
  const len = new Int32Array(tripCount)
  // Each trip's rows, without repeated sequence numbers and unusable trips, moved down to `w` in place.
  let w = 0
  for (let t = 0; t < tripCount; t++) {
    const first = w
    let lastSeq = Number.NEGATIVE_INFINITY
    for (let i = count[t]; i < count[t + 1]; i++) {
      if (seq[i] === lastSeq) {
        report(
          'stop_times.txt',
          `trip ${raw.trips.ids[t]}: stop_sequence ${seq[i]} appears twice, the second is ignored`,
        )
        continue
      }
      lastSeq = seq[i]
      order[w] = order[i]
      seq[w] = seq[i]
      arr[w] = arr[i]
      dep[w] = dep[i]
      w++
    }
    const n = w - first
    if (n === 0) continue
    if (n < 2 || !fillTimes(arr, dep, first, w)) {
      report(
        'stop_times.txt',
        `trip ${raw.trips.ids[t]}: ${n < 2 ? 'fewer than two stops' : 'no times at its first or last stop, or times going back'}; the trip is ignored`,
      )
      w = first
      continue
    }
    start[t] = first
    len[t] = n
  }
  if (w < rows) {
    order = order.slice(0, w)
    seq = seq.slice(0, w)
    arr = arr.slice(0, w)
    dep = dep.slice(0, w)
  }
  // Rows left out moved the rest down: then the order is checked again.
  const stillInOrder = w === rows ? inOrder : isIdentity(order, w)
  const stop = src.stop.gather(order, w, stillInOrder)
  src.stop.clear()
  const flags = src.flags.gatherBytes(order, w, stillInOrder)
  src.flags.clear()
  const headsign = new Map<number, string>()
  if (src.headsign.size > 0) {
    for (let k = 0; k < w; k++) {
      const text = src.headsign.get(order[k])
      if (text) headsign.set(k, text)
    }
  }
  src.headsign.clear()
  return { stop, arr, dep, seq, flags, headsign, start, len }
}

/** Copies a lone arrival or departure to the other, interpolates untimed stops; false when the trip is unusable. */
function fillTimes(arr: Int32Array, dep: Int32Array, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    if (arr[i] < 0 && dep[i] >= 0) arr[i] = dep[i]
    else if (dep[i] < 0 && arr[i] >= 0) dep[i] = arr[i]
  }
  if (dep[a] < 0 || arr[b - 1] < 0) return false
  let last = a
  for (let i = a + 1; i < b; i++) {
    if (arr[i] < 0) continue
    // Untimed stops between two timed ones, evenly spaced (shape distances are not kept).
    const gap = i - last
    for (let j = last + 1; j < i; j++) {
      arr[j] = dep[j] = Math.round(dep[last] + ((arr[i] - dep[last]) * (j - last)) / gap)
    }
    if (arr[i] < dep[last] || dep[i] < arr[i]) return false
    last = i
  }
  return true
}

export function expandTrips(raw: RawFeed, st: SortedStopTimes, report: BuildOptions['report']) {
  const trips = raw.trips
  // Typed columns that grow; a feed without frequencies.txt fills them exactly.
  const size = trips.ids.length + 16
  const ids: string[] = []
  const headsign: string[] = []
  const route = new IntList(size)
  const service = new IntList(size)
  const direction = new IntList(size)
  const start = new IntList(size)
  const len = new IntList(size)
  const offset = new IntList(size)
  const freqStart = new IntList(size)
  const freqExact = new IntList(size)
  const runs = new IntList(size)
  const add = (t: number, shift: number, fStart: number, exact: boolean, run: boolean) => {
    ids.push(trips.ids[t])
    route.push(trips.route[t])
    service.push(trips.service[t])
    headsign.push(trips.headsign[t])
    direction.push(trips.direction[t])
    start.push(st.start[t])
    len.push(st.len[t])
    offset.push(shift)
    freqStart.push(fStart)
    freqExact.push(exact ? 1 : 0)
    runs.push(run ? 1 : 0)
  }
  let frequencyTrips = 0
  for (let t = 0; t < trips.ids.length; t++) {
    const usable = st.len[t] >= 2
    const frequencies = raw.frequencies.get(t)
    if (!frequencies || !usable) {
      add(t, 0, -1, false, usable)
      continue
    }
    // The template itself does not run; one trip per start time does.
    add(t, 0, -1, false, false)
    frequencyTrips++
    const first = st.dep[st.start[t]]
    for (const f of frequencies) {
      if (f.headway <= 0 || f.end <= f.start) {
        report('frequencies.txt', `trip ${trips.ids[t]}: headway or time range not usable, ignored`)
        continue
      }
      // GTFS: start times are start_time + x * headway_secs while they are before end_time.
      for (let time = f.start; time < f.end; time += f.headway) add(t, time - first, time, f.exact, true)
    }
  }
  return {
    tripCount: ids.length,
    tripIds: ids,
    tripRoute: route.toArray(),
    tripService: service.toArray(),
    tripHeadsign: headsign,
    tripDirection: Int8Array.from(direction.data.subarray(0, direction.length)),
    tripSt: start.toArray(),
    tripLen: len.toArray(),
    tripOffset: offset.toArray(),
    tripFreqStart: freqStart.toArray(),
    tripFreqExact: Uint8Array.from(freqExact.data.subarray(0, freqExact.length)),
    /** 1 for a trip that runs (not a frequency template, not unusable). */
    runs: runs.data.subarray(0, runs.length),
    frequencyTrips,
  }
}

/** A hash of a trip's route, stops and pickup/drop-off flags (what makes its pattern, with the times' order). */
function rowsHash(route: number, stop: Int32Array, flags: Uint8Array, a: number, len: number): number {
  let h = Math.imul(route ^ 0x9e3779b9, 0x85ebca6b) ^ len
  for (let i = a; i < a + len; i++) h = Math.imul(h ^ (stop[i] * 4 + flags[i]), 0x01000193)
  return h
}

/** Whether two trips have the same route, stops and flags. */
function sameRows(st: SortedStopTimes, trips: ExpandedTrips, x: number, y: number): boolean {
  const len = trips.tripLen[x]
  if (trips.tripRoute[x] !== trips.tripRoute[y] || trips.tripLen[y] !== len) return false
  const a = trips.tripSt[x]
  const b = trips.tripSt[y]
  for (let i = 0; i < len; i++) {
    if (st.stop[a + i] !== st.stop[b + i] || st.flags[a + i] !== st.flags[b + i]) return false
  }
  return true
}

export function buildPatterns(st: SortedStopTimes, trips: ReturnType<typeof expandTrips>) {
  const n = trips.tripCount
  const { tripSt, tripLen, tripOffset } = trips
  // Trips with the same route, stops and flags, in the order each first appears.
  const groups: number[][] = []
  const byHash = new Map<number, number | number[]>()
  for (let t = 0; t < n; t++) {
    if (!trips.runs[t]) continue
    const h = rowsHash(trips.tripRoute[t], st.stop, st.flags, tripSt[t], tripLen[t])
    const known = byHash.get(h)
    let group: number[] | undefined
    if (known !== undefined) {
      for (const g of typeof known === 'number' ? [known] : known) {
        if (sameRows(st, trips, groups[g][0], t)) {
          group = groups[g]
          break
        }
      }
    }
    if (group) {
      group.push(t)
      continue
    }
    const g = groups.length
    groups.push([t])
    if (known === undefined) byHash.set(h, g)
    else if (typeof known === 'number') byHash.set(h, [known, g])
    else known.push(g)
  }

  const tripPattern = new Int32Array(n).fill(-1)
  const tripSlot = new Int32Array(n).fill(-1)
  const patterns: Pattern[] = []
  let maxTime = 0
  const { arr, dep } = st
  for (const group of groups) {
    const len = tripLen[group[0]]
    group.sort(
      (x, y) =>
        dep[tripSt[x]] + tripOffset[x] - (dep[tripSt[y]] + tripOffset[y]) ||
        arr[tripSt[x] + len - 1] + tripOffset[x] - (arr[tripSt[y] + len - 1] + tripOffset[y]),
    )
    // Trips that overtake another go to a pattern of their own, so each pattern's times stay sorted at every stop.
    const lanes: number[][] = []
    for (const t of group) {
      const a = tripSt[t]
      const shift = tripOffset[t]
      let fits: number[] | undefined
      for (const lane of lanes) {
        const last = lane[lane.length - 1]
        const b = tripSt[last]
        const d = shift - tripOffset[last]
        let i = 0
        while (i < len && arr[a + i] + d >= arr[b + i] && dep[a + i] + d >= dep[b + i]) i++
        if (i === len) {
          fits = lane
          break
        }
      }
      if (fits) fits.push(t)
      else lanes.push([t])
    }
    for (const lane of lanes) {
      const first = lane[0]
      const a = tripSt[first]
      const times = new Int32Array(lane.length * len * 2)
      for (let k = 0; k < lane.length; k++) {
        const t = lane[k]
        tripPattern[t] = patterns.length
        tripSlot[t] = k
        const b = tripSt[t]
        const shift = tripOffset[t]
        for (let i = 0; i < len; i++) {
          times[(k * len + i) * 2] = arr[b + i] + shift
          times[(k * len + i) * 2 + 1] = dep[b + i] + shift
        }
        maxTime = Math.max(maxTime, arr[b + len - 1] + shift)
      }
      patterns.push({
        route: trips.tripRoute[first],
        stops: st.stop.slice(a, a + len),
        flags: st.flags.slice(a, a + len),
        trips: Int32Array.from(lane),
        times,
      })
    }
  }
  return { patterns, tripPattern, tripSlot, maxTime }
}

export type ExpandedTrips = ReturnType<typeof expandTrips>

/**
 * The expanded trips of each trip_id (a frequency-based trip has several). Made last in the build: its hundreds of
 * thousands of small arrays would otherwise be marked again by every collection the build's large arrays start.
 */
export function tripsByIdOf(ids: string[]): Map<string, number[]> {
  const tripsById = new Map<string, number[]>()
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]
    const list = tripsById.get(id)
    if (list) list.push(i)
    else tripsById.set(id, [i])
  }
  return tripsById
}
