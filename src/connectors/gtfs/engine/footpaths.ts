import KDBush from 'kdbush'
import { distanceMeters } from '../../../platform/geo.ts'
import { type BuildOptions, IntList, type RawFeed, WALK_METERS_PER_SECOND } from './timetable.ts'

const MAX_FOOTPATHS_PER_STOP = 32

/** Walking between stops within transferWalkMeters (1.2 m/s), corrected and completed by transfers.txt. */
export function footpaths(
  raw: RawFeed,
  stops: { stopIds: string[]; stopLat: Float64Array; stopLon: Float64Array; stopChildren: Map<number, number[]> },
  routable: Int32Array,
  options: BuildOptions,
) {
  const n = stops.stopIds.length
  const { stopLat: lat, stopLon: lon } = stops
  const minChange = new Int32Array(n)
  const isRoutable = new Uint8Array(n)
  for (const s of routable) isRoutable[s] = 1
  // transfers.txt names stations too: a station stands for its platforms.
  const expand = (s: number) =>
    isRoutable[s] ? [s] : (stops.stopChildren.get(s) ?? []).filter((child) => isRoutable[child] === 1)
  const overrides = new Map<number, Map<number, number>>()
  for (const t of raw.transfers) {
    for (const from of expand(t.from)) {
      for (const to of expand(t.to)) {
        if (from === to) {
          if (t.type === 2 && t.minTime > 0) minChange[from] = Math.max(minChange[from], t.minTime)
          continue
        }
        const walk = Math.ceil(distanceMeters(point(from), point(to)) / WALK_METERS_PER_SECOND)
        const seconds = t.type === 3 ? -1 : t.type === 2 && t.minTime >= 0 ? t.minTime : walk
        if (t.type > 3) continue
        let byTo = overrides.get(from)
        if (!byTo) {
          byTo = new Map()
          overrides.set(from, byTo)
        }
        byTo.set(to, seconds)
      }
    }
  }
  function point(s: number) {
    return { latitude: lat[s], longitude: lon[s] }
  }

  const from = new IntList(routable.length * 8 + 16)
  const to = new IntList(routable.length * 8 + 16)
  const seconds = new IntList(routable.length * 8 + 16)
  const meters = new IntList(routable.length * 8 + 16)
  const radius = options.transferWalkMeters
  if (radius > 0 && routable.length > 1) {
    // Plane coordinates in meters around the feed's middle latitude; exact distances are checked after.
    let latSum = 0
    for (const s of routable) latSum += lat[s]
    const kx = Math.cos((latSum / routable.length) * (Math.PI / 180)) * 111_320
    const ky = 110_574
    const plane = new KDBush(routable.length)
    for (const s of routable) plane.add(lon[s] * kx, lat[s] * ky)
    plane.finish()
    const margin = 1.05
    for (const s of routable) {
      const found = plane.within(lon[s] * kx, lat[s] * ky, radius * margin)
      const near: { to: number; d: number }[] = []
      for (const k of found) {
        const other = routable[k]
        if (other === s) continue
        const d = distanceMeters(point(s), point(other))
        if (d <= radius) near.push({ to: other, d })
      }
      near.sort((x, y) => x.d - y.d)
      const byTo = overrides.get(s)
      for (const { to: other, d } of near.slice(0, MAX_FOOTPATHS_PER_STOP)) {
        if (byTo?.has(other)) continue
        from.push(s)
        to.push(other)
        seconds.push(Math.ceil(d / WALK_METERS_PER_SECOND))
        meters.push(Math.round(d))
      }
    }
  }
  for (const [s, byTo] of overrides) {
    for (const [other, secs] of byTo) {
      if (secs < 0) continue
      from.push(s)
      to.push(other)
      seconds.push(secs)
      meters.push(Math.round(distanceMeters(point(s), point(other))))
    }
  }

  const start = new Int32Array(n + 1)
  for (let i = 0; i < from.length; i++) start[from.data[i] + 1]++
  for (let s = 0; s < n; s++) start[s + 1] += start[s]
  const cursor = start.slice(0, n)
  const outTo = new Int32Array(from.length)
  const outSeconds = new Int32Array(from.length)
  const outMeters = new Int32Array(from.length)
  for (let i = 0; i < from.length; i++) {
    const c = cursor[from.data[i]]++
    outTo[c] = to.data[i]
    outSeconds[c] = seconds.data[i]
    outMeters[c] = meters.data[i]
  }
  return { start, to: outTo, seconds: outSeconds, meters: outMeters, minChange }
}
