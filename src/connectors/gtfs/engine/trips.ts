import type { BuildOptions, Pattern, RawFeed } from './timetable.ts'

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

/** Orders stop_times by trip and stop_sequence (counting sort by trip), fills missing times by interpolation. */
export function sortStopTimes(raw: RawFeed, report: BuildOptions['report']): SortedStopTimes {
  const src = raw.stopTimes
  const rows = src.trip.length
  const tripCount = raw.trips.ids.length
  const count = new Int32Array(tripCount + 1)
  const trip = src.trip
  for (let r = 0; r < rows; r++) count[trip.get(r) + 1]++
  for (let t = 0; t < tripCount; t++) count[t + 1] += count[t]
  const cursor = count.slice(0, tripCount)
  const order = new Int32Array(rows)
  for (let r = 0; r < rows; r++) order[cursor[trip.get(r)]++] = r

  const seq = src.seq
  for (let t = 0; t < tripCount; t++) {
    const a = count[t]
    const b = count[t + 1]
    let sorted = true
    for (let i = a + 1; i < b; i++) {
      if (seq.get(order[i]) <= seq.get(order[i - 1])) {
        sorted = false
        break
      }
    }
    if (!sorted) {
      const slice = Array.from(order.subarray(a, b)).sort((x, y) => seq.get(x) - seq.get(y))
      order.set(slice, a)
    }
  }

  const out = {
    stop: new Int32Array(rows),
    arr: new Int32Array(rows),
    dep: new Int32Array(rows),
    seq: new Int32Array(rows),
    flags: new Uint8Array(rows),
    headsign: new Map<number, string>(),
    start: new Int32Array(tripCount),
    len: new Int32Array(tripCount),
  }
  let w = 0
  for (let t = 0; t < tripCount; t++) {
    const first = w
    let lastSeq = Number.NEGATIVE_INFINITY
    for (let i = count[t]; i < count[t + 1]; i++) {
      const r = order[i]
      if (seq.get(r) === lastSeq) {
        report(
          'stop_times.txt',
          `trip ${raw.trips.ids[t]}: stop_sequence ${seq.get(r)} appears twice, the second is ignored`,
        )
        continue
      }
      lastSeq = seq.get(r)
      out.stop[w] = src.stop.get(r)
      out.arr[w] = src.arr.get(r)
      out.dep[w] = src.dep.get(r)
      out.seq[w] = seq.get(r)
      out.flags[w] = src.flags.get(r)
      const headsign = src.headsign.get(r)
      if (headsign) out.headsign.set(w, headsign)
      w++
    }
    const len = w - first
    if (len === 0) continue
    if (len < 2 || !fillTimes(out.arr, out.dep, first, w)) {
      report(
        'stop_times.txt',
        `trip ${raw.trips.ids[t]}: ${len < 2 ? 'fewer than two stops' : 'no times at its first or last stop, or times going back'}; the trip is ignored`,
      )
      w = first
      continue
    }
    out.start[t] = first
    out.len[t] = len
  }
  if (w < rows) {
    for (const key of ['stop', 'arr', 'dep', 'seq'] as const) out[key] = out[key].slice(0, w)
    out.flags = out.flags.slice(0, w)
  }
  return out
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
  const ids: string[] = []
  const route: number[] = []
  const service: number[] = []
  const headsign: string[] = []
  const direction: number[] = []
  const start: number[] = []
  const len: number[] = []
  const offset: number[] = []
  const freqStart: number[] = []
  const freqExact: number[] = []
  const runs: boolean[] = []
  const add = (t: number, shift: number, fStart: number, exact: boolean, run: boolean) => {
    ids.push(raw.trips.ids[t])
    route.push(raw.trips.route[t])
    service.push(raw.trips.service[t])
    headsign.push(raw.trips.headsign[t])
    direction.push(raw.trips.direction[t])
    start.push(st.start[t])
    len.push(st.len[t])
    offset.push(shift)
    freqStart.push(fStart)
    freqExact.push(exact ? 1 : 0)
    runs.push(run)
  }
  let frequencyTrips = 0
  for (let t = 0; t < raw.trips.ids.length; t++) {
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
        report('frequencies.txt', `trip ${raw.trips.ids[t]}: headway or time range not usable, ignored`)
        continue
      }
      // GTFS: start times are start_time + x * headway_secs while they are before end_time.
      for (let time = f.start; time < f.end; time += f.headway) add(t, time - first, time, f.exact, true)
    }
  }
  const tripsById = new Map<string, number[]>()
  ids.forEach((id, i) => {
    const list = tripsById.get(id)
    if (list) list.push(i)
    else tripsById.set(id, [i])
  })
  return {
    tripCount: ids.length,
    tripIds: ids,
    tripsById,
    tripRoute: Int32Array.from(route),
    tripService: Int32Array.from(service),
    tripHeadsign: headsign,
    tripDirection: Int8Array.from(direction),
    tripSt: Int32Array.from(start),
    tripLen: Int32Array.from(len),
    tripOffset: Int32Array.from(offset),
    tripFreqStart: Int32Array.from(freqStart),
    tripFreqExact: Uint8Array.from(freqExact),
    runs,
    frequencyTrips,
  }
}

export function buildPatterns(st: SortedStopTimes, trips: ReturnType<typeof expandTrips>) {
  const n = trips.tripCount
  const keyOfRows = new Map<number, string>()
  const groups = new Map<string, number[]>()
  for (let t = 0; t < n; t++) {
    if (!trips.runs[t]) continue
    const a = trips.tripSt[t]
    let key = keyOfRows.get(a)
    if (key === undefined) {
      const parts: number[] = [trips.tripRoute[t]]
      for (let i = a; i < a + trips.tripLen[t]; i++) parts.push(st.stop[i], st.flags[i])
      key = parts.join(',')
      keyOfRows.set(a, key)
    }
    const group = groups.get(key)
    if (group) group.push(t)
    else groups.set(key, [t])
  }

  const tripPattern = new Int32Array(n).fill(-1)
  const tripSlot = new Int32Array(n).fill(-1)
  const patterns: Pattern[] = []
  let maxTime = 0
  const time = (t: number, i: number, kind: 0 | 1) =>
    (kind === 0 ? st.arr : st.dep)[trips.tripSt[t] + i] + trips.tripOffset[t]
  for (const group of groups.values()) {
    const len = trips.tripLen[group[0]]
    group.sort((x, y) => time(x, 0, 1) - time(y, 0, 1) || time(x, len - 1, 0) - time(y, len - 1, 0))
    // Trips that overtake another go to a pattern of their own, so each pattern's times stay sorted at every stop.
    const lanes: number[][] = []
    for (const t of group) {
      const lane = lanes.find((l) => {
        const last = l[l.length - 1]
        for (let i = 0; i < len; i++) {
          if (time(t, i, 0) < time(last, i, 0) || time(t, i, 1) < time(last, i, 1)) return false
        }
        return true
      })
      if (lane) lane.push(t)
      else lanes.push([t])
    }
    for (const lane of lanes) {
      const first = lane[0]
      const a = trips.tripSt[first]
      const times = new Int32Array(lane.length * len * 2)
      lane.forEach((t, k) => {
        tripPattern[t] = patterns.length
        tripSlot[t] = k
        for (let i = 0; i < len; i++) {
          times[(k * len + i) * 2] = time(t, i, 0)
          times[(k * len + i) * 2 + 1] = time(t, i, 1)
        }
        maxTime = Math.max(maxTime, time(t, len - 1, 0))
      })
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
