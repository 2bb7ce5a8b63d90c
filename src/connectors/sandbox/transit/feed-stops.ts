import { distanceMeters } from '../../../platform/geo.ts'
import {
  type Line,
  type PlatformGroup,
  type Platforms,
  platformIds,
  type RouteKind,
  STATIONS,
  type Station,
} from './network.ts'

/**
 * The stops of the bundled feed (stations, their platforms a few metres apart) and the run times between them, from
 * the network table; make-feed.ts writes them with the trips.
 */

/** Small offsets so that a station's platforms are not all on one point. */
const GROUP_OFFSET: Record<PlatformGroup, [number, number]> = {
  S: [0, 0],
  RING: [0.0003, 0.0002],
  U2: [-0.0003, 0.0004],
  U5: [0.0002, -0.0005],
  U8: [-0.0004, -0.0002],
  TRAM: [0.0006, 0.0006],
  BUS: [0.0008, -0.0008],
  RE: [-0.0002, 0.0001],
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6

export interface StopRow {
  stop_id: string
  stop_name: string
  stop_lat: number
  stop_lon: number
  zone_id: string
  location_type: number
  parent_station?: string
  wheelchair_boarding: number
  platform_code?: string
  /** Not written: the platform group, for transfer times. */
  group?: PlatformGroup
}

export function stopRows(): StopRow[] {
  const rows: StopRow[] = []
  for (const station of Object.values(STATIONS) as Station[]) {
    const base = {
      stop_name: station.name,
      zone_id: station.zone,
      wheelchair_boarding: station.stepFree === false ? 2 : 1,
    }
    if (!station.platforms) {
      rows.push({ stop_id: station.id, stop_lat: station.lat, stop_lon: station.lon, location_type: 0, ...base })
      continue
    }
    rows.push({ stop_id: station.id, stop_lat: station.lat, stop_lon: station.lon, location_type: 1, ...base })
    for (const [group, platforms] of Object.entries(station.platforms) as [PlatformGroup, Platforms][]) {
      const [lat, lon] = platforms.at ?? [station.lat + GROUP_OFFSET[group][0], station.lon + GROUP_OFFSET[group][1]]
      platformIds(station.id, group, platforms).forEach((id, i) => {
        rows.push({
          stop_id: id,
          stop_lat: round6(lat),
          stop_lon: round6(lon + i * 0.00006),
          location_type: 0,
          parent_station: station.id,
          platform_code: platforms.codes[i],
          group,
          ...base,
        })
      })
    }
  }
  return rows
}

/** Minutes between two stops by kind of line: calibrated on real run times (Hbf–Alexanderplatz: S 7, U5 9 minutes). */
function runMinutes(kind: RouteKind, meters: number): number {
  const km = meters / 1000
  switch (kind) {
    case 'U_BAHN':
      return Math.max(1, Math.round(0.8 + km * 1.2))
    case 'S_BAHN':
      return Math.max(1, Math.round(1 + km * 1.1))
    case 'TRAM':
      return Math.max(1, Math.round(0.8 + km * 2.2))
    case 'BUS':
      return Math.max(1, Math.round(1 + km * 2.6))
    case 'REGIONAL':
      return Math.max(2, Math.round(2 + km * 1.1))
  }
}

/** Arrival and departure offsets (seconds from the trip's start) at each stop of one direction of a line. */
export function pattern(line: Line, stopIds: string[], where: Map<string, StopRow>) {
  const times: { arrival: number; departure: number }[] = []
  let t = 0
  stopIds.forEach((id, i) => {
    if (i > 0) {
      const a = where.get(stopIds[i - 1])!
      const b = where.get(id)!
      const meters = distanceMeters(
        { latitude: a.stop_lat, longitude: a.stop_lon },
        { latitude: b.stop_lat, longitude: b.stop_lon },
      )
      t += runMinutes(line.kind, meters) * 60
    }
    // Regional trains wait a minute at intermediate stations; city lines have their dwell in the run time.
    const dwell = line.kind === 'REGIONAL' && i > 0 && i < stopIds.length - 1 ? 60 : 0
    times.push({ arrival: t, departure: t + dwell })
    t += dwell
  })
  return times
}
