import { createHash } from 'node:crypto'
import type { TransitLinePath } from '../../types/public-transport.ts'
import type { BuildOptions, Pattern, RawFeed } from './timetable.ts'
import type { ExpandedTrips, SortedStopTimes } from './trips.ts'

/**
 * The lines of a feed as a map draws them (the `lines` tile layer): per route, the distinct shapes of shapes.txt its
 * trips follow, and, for stop patterns none of whose trips has a usable shape, the pattern's stops joined in order.
 * Built once per load from the patterns (thousands), not per trip (millions). Shape points are thinned
 * (Douglas–Peucker at about a metre) and the whole is capped at `maxPoints`, so a large feed's lines stay within a few
 * tens of megabytes; the shape rows themselves are dropped with the raw feed after the build.
 */

export interface LineLimits {
  /** Douglas–Peucker tolerance; points closer than this to the simplified path are dropped. */
  toleranceMeters: number
  /** All paths of the feed together; beyond it the tolerance grows, then paths are left off (and reported). The tile
   * index of a feed grows with its points (about 120 bytes a point with every tile to z 14 built), so this bounds it. */
  maxPoints: number
}

export const LINE_LIMITS: LineLimits = { toleranceMeters: 1, maxPoints: 1_000_000 }
const MAX_TOLERANCE_METERS = 64
/** Routes with more stop patterns than this keep every distinct one (no search for patterns inside others). */
const MAX_PATTERNS_COMPARED = 300
const MAX_REPORTS = 20

export interface RoutePaths {
  /** Route index of the feed. */
  route: number
  paths: TransitLinePath[]
}

export interface LineBuild {
  routes: RoutePaths[]
  /** Points of every path together. */
  points: number
}

const METERS_PER_DEGREE_LAT = 110_574
const METERS_PER_DEGREE_LON = 111_320

/**
 * Douglas–Peucker in a local flat projection, after a linear pass that drops points within the tolerance of the
 * last kept one (so a shape of a million points costs one pass, not a quadratic split). Keeps the first and last point.
 */
export function simplifyPath(coordinates: Float64Array, toleranceMeters: number): Float64Array {
  const n = coordinates.length / 2
  if (n <= 2) return coordinates
  const kx = Math.cos((coordinates[1] * Math.PI) / 180) * METERS_PER_DEGREE_LON
  const ky = METERS_PER_DEGREE_LAT
  const tol2 = toleranceMeters * toleranceMeters
  const kept = new Int32Array(n)
  let m = 0
  kept[m++] = 0
  for (let i = 1; i < n; i++) {
    const last = kept[m - 1]
    const dx = (coordinates[i * 2] - coordinates[last * 2]) * kx
    const dy = (coordinates[i * 2 + 1] - coordinates[last * 2 + 1]) * ky
    if (dx * dx + dy * dy > tol2 || i === n - 1) kept[m++] = i
  }
  const x = new Float64Array(m)
  const y = new Float64Array(m)
  for (let k = 0; k < m; k++) {
    x[k] = coordinates[kept[k] * 2] * kx
    y[k] = coordinates[kept[k] * 2 + 1] * ky
  }
  const marks = new Uint8Array(m)
  marks[0] = 1
  marks[m - 1] = 1
  const stack = [0, m - 1]
  while (stack.length > 0) {
    const last = stack.pop() as number
    const first = stack.pop() as number
    let worst = 0
    let at = -1
    for (let k = first + 1; k < last; k++) {
      const d = segmentDistance2(x[k], y[k], x[first], y[first], x[last], y[last])
      if (d > worst) {
        worst = d
        at = k
      }
    }
    if (at >= 0 && worst > tol2) {
      marks[at] = 1
      stack.push(first, at, at, last)
    }
  }
  let count = 0
  for (let k = 0; k < m; k++) count += marks[k]
  const out = new Float64Array(count * 2)
  let w = 0
  for (let k = 0; k < m; k++) {
    if (!marks[k]) continue
    out[w++] = coordinates[kept[k] * 2]
    out[w++] = coordinates[kept[k] * 2 + 1]
  }
  return out
}

function segmentDistance2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax
  const dy = by - ay
  const length2 = dx * dx + dy * dy
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / length2))
  const ex = px - (ax + t * dx)
  const ey = py - (ay + t * dy)
  return ex * ex + ey * ey
}

/** A reporter that lists the first MAX_REPORTS problems of a file and counts the rest. */
function cappedReport(report: BuildOptions['report'], file: string) {
  let count = 0
  return {
    add(message: string) {
      count++
      if (count <= MAX_REPORTS) report(file, message)
    },
    flush() {
      if (count > MAX_REPORTS) report(file, `${count - MAX_REPORTS} more problems not listed`)
    },
  }
}

/** Each shape trips name, sorted by shape_pt_sequence and simplified; undefined where it has fewer than two points. */
function buildShapes(raw: RawFeed, toleranceMeters: number, report: BuildOptions['report']) {
  const { ids, shape, seq, lat, lon } = raw.shapes
  const n = ids.length
  const rows = shape.length
  const out = new Array<Float64Array | undefined>(n)
  if (rows === 0) return out // no usable shapes.txt: reported when it was read
  const problems = cappedReport(report, 'shapes.txt')
  const start = new Int32Array(n + 1)
  for (let r = 0; r < rows; r++) start[shape.data[r] + 1]++
  for (let s = 0; s < n; s++) start[s + 1] += start[s]
  const cursor = start.slice(0, n)
  const order = new Int32Array(rows)
  for (let r = 0; r < rows; r++) order[cursor[shape.data[r]]++] = r
  for (let s = 0; s < n; s++) {
    const a = start[s]
    const b = start[s + 1]
    const rowsOf = order.subarray(a, b)
    let sorted = true
    for (let i = 1; i < rowsOf.length && sorted; i++) sorted = seq.data[rowsOf[i]] > seq.data[rowsOf[i - 1]]
    if (!sorted) rowsOf.set(Array.from(rowsOf).sort((p, q) => seq.data[p] - seq.data[q]))
    const coordinates = new Float64Array(rowsOf.length * 2)
    let w = 0
    let lastSeq = -1
    let duplicates = 0
    for (const r of rowsOf) {
      if (seq.data[r] === lastSeq) {
        duplicates++
        continue
      }
      lastSeq = seq.data[r]
      const x = lon.data[r] / 1e7
      const y = lat.data[r] / 1e7
      if (w > 0 && coordinates[w - 2] === x && coordinates[w - 1] === y) continue
      coordinates[w++] = x
      coordinates[w++] = y
    }
    if (duplicates > 0) {
      problems.add(`shape ${ids[s]}: ${duplicates} shape_pt_sequence values appear twice, the later rows are ignored`)
    }
    if (w < 4) {
      problems.add(
        `shape ${ids[s]}: ${b === a ? 'no points' : 'fewer than two distinct points'}; its trips are drawn along their stops`,
      )
      continue
    }
    out[s] = simplifyPath(coordinates.subarray(0, w), toleranceMeters).slice()
  }
  problems.flush()
  return out
}

const fingerprint = (coordinates: Float64Array) =>
  createHash('sha1')
    .update(new Uint8Array(coordinates.buffer, coordinates.byteOffset, coordinates.byteLength))
    .digest('base64')

/** Stop sequences of one route without repeats: reversed ones and those running inside a longer one are dropped. */
function distinctSequences(sequences: Int32Array[]): Int32Array[] {
  const keyOf = (stops: ArrayLike<number>) => `,${Array.prototype.join.call(stops, ',')},`
  const unique = new Map<string, Int32Array>()
  for (const stops of sequences) {
    const key = keyOf(stops)
    if (!unique.has(key) && !unique.has(keyOf(stops.slice().reverse()))) unique.set(key, stops)
  }
  if (unique.size > MAX_PATTERNS_COMPARED) return [...unique.values()]
  const byLength = [...unique].sort((p, q) => q[1].length - p[1].length)
  const kept: [string, Int32Array][] = []
  for (const [key, stops] of byLength) {
    const reversed = keyOf(stops.slice().reverse())
    if (!kept.some(([longer]) => longer.includes(key) || longer.includes(reversed))) kept.push([key, stops])
  }
  return kept.map(([, stops]) => stops)
}

/**
 * Per stop, the stop a map shows for it: its station when it has one (platforms of both directions, and the station
 * point the `stops` layer draws, then give one path), else itself.
 */
function shownStops(raw: RawFeed): Int32Array {
  const { ids, parentId } = raw.stops
  const index = new Map<string, number>()
  ids.forEach((id, i) => {
    index.set(id, i)
  })
  const shown = new Int32Array(ids.length)
  for (let i = 0; i < ids.length; i++) {
    const parent = parentId[i] ? index.get(parentId[i] as string) : undefined
    shown[i] = parent !== undefined && raw.stops.locationType[parent] === 1 ? parent : i
  }
  return shown
}

function stopPath(raw: RawFeed, stops: Int32Array): Float64Array | undefined {
  const coordinates = new Float64Array(stops.length * 2)
  let w = 0
  for (const s of stops) {
    const x = raw.stops.lon[s]
    const y = raw.stops.lat[s]
    if (w > 0 && coordinates[w - 2] === x && coordinates[w - 1] === y) continue
    coordinates[w++] = x
    coordinates[w++] = y
  }
  return w >= 4 ? coordinates.slice(0, w) : undefined
}

/** The paths of every route of the feed (see the top of the file). */
export function buildLinePaths(
  raw: RawFeed,
  st: SortedStopTimes,
  trips: ExpandedTrips,
  patterns: Pattern[],
  report: BuildOptions['report'],
  limits: LineLimits = LINE_LIMITS,
): LineBuild {
  const shapes = buildShapes(raw, limits.toleranceMeters, report)
  // Expanded trips share their template's stop_times rows: the first row leads back to the trip of trips.txt.
  // (A feed without shapes has no trip to look up: lines go along the stops.)
  const tripOfRow = new Map<number, number>()
  const anyShape = shapes.some((shape) => shape !== undefined)
  if (anyShape) for (let t = 0; t < raw.trips.ids.length; t++) if (st.len[t] > 0) tripOfRow.set(st.start[t], t)

  const perRoute = new Map<number, { shapes: Set<number>; sequences: Int32Array[] }>()
  let shown: Int32Array | undefined
  for (const pattern of patterns) {
    let entry = perRoute.get(pattern.route)
    if (!entry) {
      entry = { shapes: new Set(), sequences: [] }
      perRoute.set(pattern.route, entry)
    }
    let shaped = false
    for (const e of anyShape ? pattern.trips : []) {
      const shape = raw.trips.shape[tripOfRow.get(trips.tripSt[e]) ?? -1] ?? -1
      if (shape >= 0 && shapes[shape]) {
        entry.shapes.add(shape)
        shaped = true
      }
    }
    if (!shaped) {
      shown ??= shownStops(raw)
      entry.sequences.push(pattern.stops.map((stop) => (shown as Int32Array)[stop]))
    }
  }

  const routes: RoutePaths[] = []
  let points = 0
  for (const route of [...perRoute.keys()].sort((a, b) => a - b)) {
    const entry = perRoute.get(route) as { shapes: Set<number>; sequences: Int32Array[] }
    const paths: TransitLinePath[] = []
    const seen = new Set<string>()
    for (const shape of [...entry.shapes].sort((a, b) => a - b)) {
      const coordinates = shapes[shape] as Float64Array
      const key = fingerprint(coordinates)
      if (seen.has(key)) continue
      seen.add(key)
      paths.push({ coordinates, shapeId: raw.shapes.ids[shape] })
    }
    for (const stops of distinctSequences(entry.sequences)) {
      const coordinates = stopPath(raw, stops)
      if (coordinates) paths.push({ coordinates })
    }
    if (paths.length === 0) continue
    for (const p of paths) points += p.coordinates.length / 2
    routes.push({ route, paths })
  }
  return capPoints(routes, points, limits, report)
}

/** Thins the shapes further while the feed has more than `maxPoints`; then leaves the last paths out. */
function capPoints(routes: RoutePaths[], total: number, limits: LineLimits, report: BuildOptions['report']): LineBuild {
  let points = total
  let tolerance = limits.toleranceMeters
  while (points > limits.maxPoints && tolerance < MAX_TOLERANCE_METERS) {
    tolerance *= 4
    points = 0
    for (const r of routes) {
      for (const p of r.paths) {
        if (p.shapeId !== undefined) p.coordinates = simplifyPath(p.coordinates, tolerance).slice()
        points += p.coordinates.length / 2
      }
    }
  }
  if (points <= limits.maxPoints) return { routes, points }
  let kept = 0
  let left = 0
  const capped: RoutePaths[] = []
  for (const r of routes) {
    const paths = r.paths.filter((p) => {
      const n = p.coordinates.length / 2
      if (kept + n > limits.maxPoints) {
        left++
        return false
      }
      kept += n
      return true
    })
    if (paths.length > 0) capped.push({ route: r.route, paths })
  }
  report('shapes.txt', `more than ${limits.maxPoints} points of lines; ${left} paths are left off the map`)
  return { routes: capped, points: kept }
}
