import {
  bool,
  type DeepLinks,
  deepLinks,
  type Envelope,
  id,
  isObject,
  type Json,
  num,
  position,
  type Report,
  text,
  time,
} from './map.ts'
import { geometry } from './map-zones.ts'

/** station_information + station_status → the stations vehicles are docked at and the service lists. */

export interface StationInfo {
  latitude: number
  longitude: number
  name?: string
  /** False when station_status says the station is not installed or not renting. */
  isRenting: boolean
  deepLinks?: DeepLinks
  /** What else the two feeds say, for the service's own GBFS output (see `stationsOf` in index.ts). */
  isInstalled: boolean
  isReturning: boolean
  isVirtual: boolean
  area?: { type: 'MultiPolygon'; coordinates: [number, number][][][] }
  capacity?: number
  docksAvailable?: number
  lastReported?: string
}

/** A station_area: a MultiPolygon of usable rings, else undefined (reported). */
function stationArea(raw: unknown, label: string, report: Report): StationInfo['area'] {
  if (raw === undefined || raw === null) return undefined
  const problems: string[] = []
  const shape = geometry(raw, problems)
  if (!shape) {
    report(`${label}: station_area unusable (${problems.join('; ')}); left out`)
    return undefined
  }
  return shape as StationInfo['area']
}

const count = (value: unknown) => {
  const n = num(value)
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined
}

export function mapStations(
  information: Envelope,
  status: Envelope | undefined,
  language: string | undefined,
  report: Report,
) {
  const statusOf = new Map<string, Json>()
  for (const raw of (status?.data.stations as unknown[] | undefined) ?? []) {
    if (!isObject(raw)) continue
    const stationId = id(raw.station_id)
    if (stationId && !statusOf.has(stationId)) statusOf.set(stationId, raw)
  }
  const stations = new Map<string, StationInfo>()
  const list = information.data.stations as unknown[]
  for (const [i, raw] of list.entries()) {
    if (!isObject(raw)) {
      report(`station #${i} is not an object; skipped`)
      continue
    }
    const stationId = id(raw.station_id)
    if (!stationId) {
      report(`station #${i} has no station_id; skipped`)
      continue
    }
    if (stations.has(stationId)) {
      report(`station ${stationId} appears twice; the first is kept`)
      continue
    }
    const where = position(raw.lat, raw.lon)
    if (typeof where === 'string') {
      report(`station ${stationId}: ${where}; skipped`)
      continue
    }
    const links = deepLinks(raw.rental_uris, `station ${stationId}`, report)
    const name = text(raw.name, language)
    const state = statusOf.get(stationId)
    const isInstalled = bool(state?.is_installed) !== false
    const area = stationArea(raw.station_area, `station ${stationId}`, report)
    const capacity = count(raw.capacity)
    const docksAvailable = count(state?.num_docks_available)
    const lastReported = state ? time(state.last_reported)?.toISOString() : undefined
    stations.set(stationId, {
      ...where,
      ...(name ? { name } : {}),
      isRenting: isInstalled && bool(state?.is_renting) !== false,
      ...(links ? { deepLinks: links } : {}),
      isInstalled,
      isReturning: isInstalled && bool(state?.is_returning) !== false,
      isVirtual: bool(raw.is_virtual_station) === true,
      ...(area ? { area } : {}),
      ...(capacity !== undefined ? { capacity } : {}),
      ...(docksAvailable !== undefined ? { docksAvailable } : {}),
      ...(lastReported ? { lastReported } : {}),
    })
  }
  return stations
}
