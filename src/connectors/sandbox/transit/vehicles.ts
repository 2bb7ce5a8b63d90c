import type { TransitOccupancy } from '../../../contract/transit-vehicles.ts'
import type { Timetable } from '../../gtfs/engine/timetable.ts'
import { headsignOf, mapLine } from '../../gtfs/map.ts'
import type { TransitVehicle, TransitVehicleSnapshot } from '../../types/public-transport.ts'
import { hash32 } from '../common.ts'

/**
 * The simulated provider's live vehicles: every trip of the timetable that runs at the given time, placed on the
 * straight line between the stop it left and the next one in proportion to the time elapsed (at the stop while it
 * dwells there). The timetable decides everything, so every instance of the service shows a vehicle at the same
 * place at the same time. A vehicle's id is its trip and its start (frequency-based trips share a trip_id).
 */

const rad = (deg: number) => (deg * Math.PI) / 180
const EARTH_RADIUS_M = 6_371_008.8

/** Initial great-circle bearing from a to b, degrees clockwise from north (0..360). */
function bearingOf(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const y = Math.sin(rad(lon2 - lon1)) * Math.cos(rad(lat2))
  const x =
    Math.cos(rad(lat1)) * Math.sin(rad(lat2)) - Math.sin(rad(lat1)) * Math.cos(rad(lat2)) * Math.cos(rad(lon2 - lon1))
  const degrees = (Math.atan2(y, x) * 180) / Math.PI
  return Math.round(((degrees % 360) + 360) % 360) % 360
}

function metersBetween(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const h =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)))
}

const hhmm = (seconds: number) =>
  `${String(Math.floor(seconds / 3600)).padStart(2, '0')}${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`

/** Fuller in the rush hours (07-09, 16-19 local), and more so on some trips than on others; steady per trip and hour. */
function occupancyOf(vehicleId: string, seconds: number): TransitOccupancy {
  const hour = Math.floor(seconds / 3600) % 24
  const rush = (hour >= 7 && hour < 9) || (hour >= 16 && hour < 19)
  const draw = hash32(`${vehicleId}@${hour}`) % 10
  if (rush) return draw < 3 ? 'MANY_SEATS_AVAILABLE' : draw < 8 ? 'FEW_SEATS_AVAILABLE' : 'STANDING_ROOM_ONLY'
  return draw < 7 ? 'MANY_SEATS_AVAILABLE' : 'FEW_SEATS_AVAILABLE'
}

/** Where trip `t` of service day `day` is `seconds` into that day, or undefined when it does not run then. */
function place(tt: Timetable, t: number, seconds: number, at: Date): TransitVehicle | undefined {
  const a = tt.tripSt[t]
  const len = tt.tripLen[t]
  const offset = tt.tripOffset[t]
  const start = tt.stDep[a] + offset
  const end = tt.stArr[a + len - 1] + offset
  if (len < 2 || seconds < start || seconds > end) return undefined
  // The last position whose arrival is not after `seconds`: the vehicle is there, or past it towards the next.
  let lo = 0
  let hi = len - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if (tt.stArr[a + mid] + offset <= seconds) lo = mid
    else hi = mid - 1
  }
  const i = lo
  const from = tt.stStop[a + i]
  const dwelling = seconds <= tt.stDep[a + i] + offset || i === len - 1
  const next = i < len - 1 ? i + 1 : i
  const to = tt.stStop[a + next]
  const [aLat, aLon, bLat, bLon] = [tt.stopLat[from], tt.stopLon[from], tt.stopLat[to], tt.stopLon[to]]
  let latitude = aLat
  let longitude = aLon
  let speed = 0
  if (!dwelling) {
    const leaves = tt.stDep[a + i] + offset
    const arrives = tt.stArr[a + next] + offset
    const f = arrives > leaves ? (seconds - leaves) / (arrives - leaves) : 1
    latitude = aLat + (bLat - aLat) * f
    longitude = aLon + (bLon - aLon) * f
    speed = arrives > leaves ? metersBetween(aLat, aLon, bLat, bLon) / (arrives - leaves) : 0
  }
  // Heading for the next stop (at the last stop: as it arrived).
  const bearing =
    next !== i
      ? bearingOf(aLat, aLon, bLat, bLon)
      : bearingOf(tt.stopLat[tt.stStop[a + i - 1]], tt.stopLon[tt.stStop[a + i - 1]], aLat, aLon)
  const id = `${tt.tripIds[t]}-${hhmm(start)}`
  const stop = dwelling ? from : to
  return {
    id,
    latitude: Math.round(latitude * 1e6) / 1e6,
    longitude: Math.round(longitude * 1e6) / 1e6,
    bearing,
    speed: Math.round(speed * 10) / 10,
    tripId: tt.tripIds[t],
    line: mapLine(tt, tt.tripRoute[t]),
    headsign: headsignOf(tt, t, dwelling ? i : next),
    stop: { id: tt.stopIds[stop], name: tt.stopNames[stop] },
    currentStatus: dwelling ? 'STOPPED_AT' : 'IN_TRANSIT_TO',
    occupancy: occupancyOf(id, seconds),
    lastUpdated: at,
  }
}

/** Every vehicle on the road at `at` (whole seconds), ordered by id. */
export function vehiclesAt(tt: Timetable, at: Date): TransitVehicle[] {
  const ms = Math.floor(at.getTime() / 1000) * 1000
  const when = new Date(ms)
  const today = tt.clock.dayOf(ms)
  const vehicles: TransitVehicle[] = []
  // Trips of earlier service days still run after midnight (times past 24:00).
  for (let day = today - Math.floor(tt.maxTime / 86_400); day <= today; day++) {
    const seconds = (ms - tt.clock.base(day)) / 1000
    if (seconds < 0 || seconds > tt.maxTime) continue
    const active = tt.calendar.active(day)
    for (let t = 0; t < tt.tripCount; t++) {
      // Frequency templates never run themselves (their expansions do).
      if (tt.tripPattern[t] < 0 || !active[tt.tripService[t]]) continue
      const vehicle = place(tt, t, seconds, when)
      if (vehicle) vehicles.push(vehicle)
    }
  }
  return vehicles.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
}

/** vehiclesAt with the last few seconds remembered (a map asks for many tiles of the same moment). */
export function scheduledVehicles(): (tt: Timetable, at: Date) => TransitVehicleSnapshot {
  const memo = new Map<string, TransitVehicleSnapshot>()
  const ids = new WeakMap<Timetable, number>()
  let next = 0
  return (tt, at) => {
    let ttId = ids.get(tt)
    if (ttId === undefined) {
      ttId = ++next
      ids.set(tt, ttId)
    }
    const version = `${ttId}:${Math.floor(at.getTime() / 1000)}`
    let snapshot = memo.get(version)
    if (!snapshot) {
      snapshot = { version, vehicles: vehiclesAt(tt, at) }
      memo.set(version, snapshot)
      while (memo.size > 4) memo.delete(memo.keys().next().value as string)
    }
    return snapshot
  }
}
