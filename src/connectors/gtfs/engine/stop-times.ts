import { parseGtfsTimeAt } from './calendar.ts'
import type { FastRow, Header } from './csv.ts'
import { NO_DROP_OFF, NO_PICKUP, type RawFeed } from './timetable.ts'

/**
 * stop_times.txt read off the decoded text (csv.ts `FastRow`): millions of rows, so the common row makes no
 * strings but its stop_id (and its trip_id when the trip changes) and no array of fields. Whatever this reader is
 * not sure to read exactly as load.ts's row handler would (a field with unusual spaces, a sequence that is not
 * plain digits, an unknown id, a malformed time, ...) it leaves to that handler, which takes or reports the row.
 */

const MAX_FIELDS = 64

/** Whitespace String.prototype.trim removes, in ASCII. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13)
/** An edge character that trim might remove or keep (control characters, anything not ASCII): not for the fast path. */
const unusual = (c: number) => c < 32 || c >= 127

/** Whether `text[from, to)` is `value`. */
function same(text: string, from: number, to: number, value: string): boolean {
  if (to - from !== value.length) return false
  for (let i = 0; i < value.length; i++) if (text.charCodeAt(from + i) !== value.charCodeAt(i)) return false
  return true
}

export function stopTimesFast(
  tripIndex: Map<string, number>,
  stopIndex: Map<string, number>,
  out: RawFeed['stopTimes'],
  intern: (value: string) => string,
): FastRow {
  let cols:
    | {
        trip: number
        arr: number
        dep: number
        stop: number
        seq: number
        pickup: number
        dropOff: number
        headsign: number
      }
    | undefined
  const starts = new Int32Array(MAX_FIELDS)
  const ends = new Int32Array(MAX_FIELDS)
  let count = 0
  let lastTrip = ''
  let lastTripIndex = -1
  // The trimmed bounds of the last field asked for.
  let from = 0
  let to = 0

  const columns = (h: Header) => ({
    trip: h.col('trip_id'),
    arr: h.col('arrival_time'),
    dep: h.col('departure_time'),
    stop: h.col('stop_id'),
    seq: h.col('stop_sequence'),
    pickup: h.col('pickup_type'),
    dropOff: h.col('drop_off_type') >= 0 ? h.col('drop_off_type') : h.col('drop_off_time'),
    headsign: h.col('stop_headsign'),
  })

  /** Bounds of a column's trimmed value in `from`/`to` (empty when the row lacks it); false when unusual. */
  const field = (text: string, col: number): boolean => {
    if (col < 0 || col >= count) {
      from = to = 0
      return true
    }
    let a = starts[col]
    let b = ends[col]
    while (a < b && isSpace(text.charCodeAt(a))) a++
    while (b > a && isSpace(text.charCodeAt(b - 1))) b--
    if (a < b && (unusual(text.charCodeAt(a)) || unusual(text.charCodeAt(b - 1)))) return false
    from = a
    to = b
    return true
  }
  /** The untrimmed time of a column (load.ts parses `row[col] ?? ''`). */
  const time = (text: string, col: number) =>
    col < 0 || col >= count ? parseGtfsTimeAt('', 0, 0) : parseGtfsTimeAt(text, starts[col], ends[col])
  const isOne = (text: string) => to - from === 1 && text.charCodeAt(from) === 49

  return (text, start, end, header) => {
    cols ??= columns(header)
    count = 0
    let a = start
    for (;;) {
      if (count === MAX_FIELDS) return false
      const comma = text.indexOf(',', a)
      const b = comma < 0 || comma > end ? end : comma
      starts[count] = a
      ends[count++] = b
      if (b === end) break
      a = b + 1
    }

    if (!field(text, cols.trip) || from === to) return false
    let trip = lastTripIndex
    if (!same(text, from, to, lastTrip)) {
      const id = text.slice(from, to)
      const found = tripIndex.get(id)
      if (found === undefined) return false
      trip = found
      lastTrip = id
      lastTripIndex = found
    }
    if (!field(text, cols.stop) || from === to) return false
    const stop = stopIndex.get(text.slice(from, to))
    if (stop === undefined) return false
    if (!field(text, cols.seq) || from === to || to - from > 9) return false
    let seq = 0
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i) - 48
      if (c < 0 || c > 9) return false
      seq = seq * 10 + c
    }
    const arr = time(text, cols.arr)
    const dep = time(text, cols.dep)
    if (Number.isNaN(arr) || Number.isNaN(dep)) return false
    let flags = 0
    if (!field(text, cols.pickup)) return false
    if (isOne(text)) flags |= NO_PICKUP
    if (!field(text, cols.dropOff)) return false
    if (isOne(text)) flags |= NO_DROP_OFF
    let headsign = ''
    if (cols.headsign >= 0) {
      if (!field(text, cols.headsign)) return false
      if (to > from) headsign = intern(text.slice(from, to))
    }

    if (headsign) out.headsign.set(out.trip.length, headsign)
    out.trip.push(trip)
    out.seq.push(seq)
    out.stop.push(stop)
    out.arr.push(arr)
    out.dep.push(dep)
    out.flags.push(flags)
    return true
  }
}
