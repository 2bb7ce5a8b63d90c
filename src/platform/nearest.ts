import type KDBush from 'kdbush'

/**
 * The nearest points of a KDBush index (longitude, latitude) to a location within a great-circle radius, nearest
 * first, as geokdbush's `around` answers, without its object per tree node and per point: a depth-first walk, the
 * nearer half first, that keeps the best `maxResults` so far in a bounded max-heap and skips every subtree and point
 * whose lower bound is beyond the worst kept. Once the first leaf has filled the heap, most points cost a few
 * multiplications (their bound) and only those that could enter the heap cost their exact haversine.
 *
 * Order: by haversine distance, then by id, exactly (ties included: the heap orders by both). Synchronous, so the
 * heap, the stack and the query's state are scratch shared by every query of the process.
 */

const RAD = Math.PI / 180
/** Earth's radius in km as geokdbush counts it, so a radius keeps including exactly the points it did. */
const EARTH_RADIUS_KM = 6371

const hav = (theta: number) => {
  const s = Math.sin(theta / 2)
  return s * s
}
const havPartial = (havDLng: number, cosLat: number, lat: number, lat2: number) =>
  cosLat * Math.cos(lat2 * RAD) * havDLng + hav((lat - lat2) * RAD)

/** A lower bound of the haversine from (lng, lat) to any point of the box at `box[b]`. */
function boxHav(lng: number, lat: number, cosLat: number, box: Float64Array, b: number): number {
  const minLng = box[b]
  const minLat = box[b + 1]
  const maxLng = box[b + 2]
  const maxLat = box[b + 3]
  if (lng >= minLng && lng <= maxLng) {
    if (lat < minLat) return hav((lat - minLat) * RAD)
    if (lat > maxLat) return hav((lat - maxLat) * RAD)
    return 0
  }
  // West or east of the box: the great circle's nearest approach to the nearer meridian, or a corner.
  const havDLng = Math.min(hav((lng - minLng) * RAD), hav((lng - maxLng) * RAD))
  const cosDLng = 1 - 2 * havDLng
  const vertexLat = cosDLng <= 0 ? (lat > 0 ? 90 : -90) : Math.atan(Math.tan(lat * RAD) / cosDLng) / RAD
  if (vertexLat > minLat && vertexLat < maxLat) return havPartial(havDLng, cosLat, lat, vertexLat)
  return Math.min(havPartial(havDLng, cosLat, lat, minLat), havPartial(havDLng, cosLat, lat, maxLat))
}

// The kept points: a max-heap by (distance, id), the worst at 0.
let keys = new Float64Array(256)
let values = new Int32Array(256)
let size = 0
// The stack of subtrees to walk: box (minLng, minLat, maxLng, maxLat), range and axis (left, right, axis), bound.
let boxes = new Float64Array(4 * 64)
let ranges = new Int32Array(3 * 64)
let bounds = new Float64Array(64)
let depth = 0
// The query.
let qLng = 0
let qLat = 0
let qCos = 0
let qSin = 0
let qMax = 0
let qK = 0
let worst = 0

const worse = (ka: number, va: number, kb: number, vb: number) => ka > kb || (ka === kb && va > vb)

function siftDown(key: number, value: number, end: number) {
  let i = 0
  for (;;) {
    let child = 2 * i + 1
    if (child >= end) break
    if (child + 1 < end && worse(keys[child + 1], values[child + 1], keys[child], values[child])) child++
    if (!worse(keys[child], values[child], key, value)) break
    keys[i] = keys[child]
    values[i] = values[child]
    i = child
  }
  keys[i] = key
  values[i] = value
}

function keep(d: number, id: number) {
  if (size < qK) {
    if (size === keys.length) {
      const k = new Float64Array(2 * size)
      k.set(keys)
      keys = k
      const v = new Int32Array(2 * size)
      v.set(values)
      values = v
    }
    let i = size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!worse(d, id, keys[parent], values[parent])) break
      keys[i] = keys[parent]
      values[i] = values[parent]
      i = parent
    }
    keys[i] = d
    values[i] = id
  } else if (worse(keys[0], values[0], d, id)) {
    siftDown(d, id, size)
  } else {
    return
  }
  if (size === qK) worst = keys[0]
}

/** The point at position `i` of the index, kept when it is within the radius and among the best so far. */
function consider(index: KDBush, i: number, accept: ((id: number) => boolean) | undefined) {
  const lng = index.coords[2 * i]
  const lat = index.coords[2 * i + 1]
  // A lower bound first, from sin(x) ≥ x - x³/6 and cos(lat + Δ) ≥ cos(lat) - |sin(lat)| |Δ| - Δ²/2 (Taylor), with
  // room for rounding; it only skips points that cannot be kept.
  const dLat = Math.abs(lat - qLat) * RAD
  let dLng = Math.abs(lng - qLng) * RAD
  if (dLng > Math.PI) dLng = 0
  const hLat = Math.max(0, dLat / 2 - (dLat * dLat * dLat) / 48)
  const hLng = Math.max(0, dLng / 2 - (dLng * dLng * dLng) / 48)
  const cosLow = Math.max(0, qCos - qSin * dLat - (dLat * dLat) / 2)
  if ((hLat * hLat + qCos * cosLow * hLng * hLng) * (1 - 1e-9) > worst) return
  const id = index.ids[i]
  if (accept && !accept(id)) return
  const d = qCos * Math.cos(lat * RAD) * hav((lng - qLng) * RAD) + hav((lat - qLat) * RAD)
  if (d <= qMax) keep(d, id)
}

/** Pushes the subtree [left, right] with its box unless its bound is beyond the worst kept. */
function pushSubtree(
  minLng: number,
  minLat: number,
  maxLng: number,
  maxLat: number,
  left: number,
  right: number,
  axis: number,
) {
  if (left > right) return
  if (depth === bounds.length) {
    const b = new Float64Array(2 * boxes.length)
    b.set(boxes)
    boxes = b
    const r = new Int32Array(2 * ranges.length)
    r.set(ranges)
    ranges = r
    const d = new Float64Array(2 * bounds.length)
    d.set(bounds)
    bounds = d
  }
  const n = depth
  boxes[4 * n] = minLng
  boxes[4 * n + 1] = minLat
  boxes[4 * n + 2] = maxLng
  boxes[4 * n + 3] = maxLat
  const bound = boxHav(qLng, qLat, qCos, boxes, 4 * n)
  if (bound > worst) return
  ranges[3 * n] = left
  ranges[3 * n + 1] = right
  ranges[3 * n + 2] = axis
  bounds[n] = bound
  depth++
}

/**
 * Ids of the index's points within `maxDistanceKm` of (lng, lat), nearest first (then by id), at most `maxResults`,
 * that pass `accept` (when given; a plain predicate: it must not query an index itself, the walk's state is shared).
 */
export function nearestWithin(
  index: KDBush,
  lng: number,
  lat: number,
  maxResults = Number.POSITIVE_INFINITY,
  maxDistanceKm = Number.POSITIVE_INFINITY,
  accept?: (id: number) => boolean,
): number[] {
  const { ids, coords, nodeSize } = index
  qK = Math.min(maxResults, ids.length)
  if (ids.length === 0 || !(qK > 0)) return []
  qMax = maxDistanceKm >= Math.PI * EARTH_RADIUS_KM ? 1 : hav(maxDistanceKm / EARTH_RADIUS_KM)
  qLng = lng
  qLat = lat
  qCos = Math.cos(lat * RAD)
  qSin = Math.abs(Math.sin(lat * RAD))
  worst = qMax
  size = 0
  depth = 0
  pushSubtree(-180, -90, 180, 90, 0, ids.length - 1, 0)
  while (depth > 0) {
    const n = --depth
    if (bounds[n] > worst) continue
    const left = ranges[3 * n]
    const right = ranges[3 * n + 1]
    if (right - left <= nodeSize) {
      for (let i = left; i <= right; i++) consider(index, i, accept)
      continue
    }
    const axis = ranges[3 * n + 2]
    const m = (left + right) >> 1
    const midLng = coords[2 * m]
    const midLat = coords[2 * m + 1]
    const minLng = boxes[4 * n]
    const minLat = boxes[4 * n + 1]
    const maxLng = boxes[4 * n + 2]
    const maxLat = boxes[4 * n + 3]
    // The node's own point, then its halves: the far one on the stack first, so the near one is walked next.
    consider(index, m, accept)
    const next = 1 - axis
    const leftMaxLng = axis === 0 ? midLng : maxLng
    const leftMaxLat = axis === 1 ? midLat : maxLat
    const rightMinLng = axis === 0 ? midLng : minLng
    const rightMinLat = axis === 1 ? midLat : minLat
    if (axis === 0 ? lng <= midLng : lat <= midLat) {
      pushSubtree(rightMinLng, rightMinLat, maxLng, maxLat, m + 1, right, next)
      pushSubtree(minLng, minLat, leftMaxLng, leftMaxLat, left, m - 1, next)
    } else {
      pushSubtree(minLng, minLat, leftMaxLng, leftMaxLat, left, m - 1, next)
      pushSubtree(rightMinLng, rightMinLat, maxLng, maxLat, m + 1, right, next)
    }
  }
  // The kept points, nearest first.
  const result = new Array<number>(size)
  while (size > 0) {
    result[size - 1] = values[0]
    const last = --size
    if (last > 0) siftDown(keys[last], values[last], last)
  }
  return result
}
