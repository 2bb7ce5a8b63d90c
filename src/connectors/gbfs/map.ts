import { bool, id, isObject, type Json, num, type Report, short } from '../shared/json.ts'
import { type DeepLinks, link } from '../shared/links.ts'

/**
 * GBFS 2.x / 3.0 → domain. Every function of the map*.ts files is pure and tolerant: a record that cannot be used is
 * reported through `report` and skipped, the rest of the feed is kept. 2.x and 3.0 field names are both accepted
 * wherever they differ (`bike_id` / `vehicle_id`, POSIX / RFC 3339 times, plain / localized strings), because real
 * feeds mix them. This file has the GBFS readers, the envelope, deep links and system_information; map-types.ts
 * vehicle types and pricing plans, map-stations.ts, map-vehicles.ts and map-zones.ts the rest.
 */

export { bool, type DeepLinks, id, isObject, type Json, num, type Report, short }

// ---------------------------------------------------------------------------------------------------------------
// GBFS readers

const MIN_TIME = Date.UTC(1990, 0, 1)
const MAX_TIME = Date.UTC(2200, 0, 1)

/** A GBFS time: POSIX seconds (2.x), RFC 3339 (3.0), or milliseconds published by mistake. */
export function time(value: unknown): Date | undefined {
  let ms: number | undefined
  const n = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value
  if (typeof n === 'number' && Number.isFinite(n)) ms = n > 1e11 ? n : n * 1000
  else if (typeof n === 'string') ms = Date.parse(n)
  if (ms === undefined || Number.isNaN(ms) || ms < MIN_TIME || ms > MAX_TIME) return undefined
  return new Date(ms)
}

/** A plain string (2.x) or the entry of a localized string list (3.0) in `language`, else the first. */
export function text(value: unknown, language?: string): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value
  if (!Array.isArray(value)) return undefined
  const entries = value.filter(
    (e): e is { text: string; language?: unknown } => isObject(e) && typeof e.text === 'string' && e.text.trim() !== '',
  )
  if (entries.length === 0) return undefined
  if (language) {
    const lang = language.toLowerCase()
    const exact = entries.find((e) => typeof e.language === 'string' && e.language.toLowerCase() === lang)
    if (exact) return exact.text
    const base = lang.split('-')[0]
    const close = entries.find((e) => typeof e.language === 'string' && e.language.toLowerCase().split('-')[0] === base)
    if (close) return close.text
  }
  return entries[0].text
}

/** A list of ids: one string, or an array of ids (2.x and 3.0 publish both). */
export const strings = (value: unknown): string[] | undefined => {
  if (typeof value === 'string') return [value]
  if (!Array.isArray(value)) return undefined
  return value.map(id).filter((v): v is string => v !== undefined)
}

export const validLatitude = (v: number | undefined): v is number => v !== undefined && v >= -90 && v <= 90
export const validLongitude = (v: number | undefined): v is number => v !== undefined && v >= -180 && v <= 180

/** A usable position: both numbers in range and not exactly 0,0 ("null island", a common placeholder). */
export function position(lat: unknown, lon: unknown): { latitude: number; longitude: number } | string {
  const latitude = num(lat)
  const longitude = num(lon)
  if (!validLatitude(latitude) || !validLongitude(longitude))
    return `invalid coordinates (lat ${short(lat)}, lon ${short(lon)})`
  if (latitude === 0 && longitude === 0) return 'coordinates 0,0 (placeholder)'
  return { latitude, longitude }
}

// ---------------------------------------------------------------------------------------------------------------
// Envelope

export interface Envelope {
  lastUpdated?: Date
  ttl?: number
  version?: string
  data: Json
}

/** The array a feed is about, by feed name (2.x and 3.0 names). */
function mainList(name: string, data: Json): unknown {
  switch (name) {
    case 'vehicle_status':
    case 'free_bike_status':
      return data.vehicles ?? data.bikes
    case 'station_information':
    case 'station_status':
      return data.stations
    case 'vehicle_types':
      return data.vehicle_types
    case 'system_pricing_plans':
      return data.plans
    case 'geofencing_zones':
      return isObject(data.geofencing_zones) ? data.geofencing_zones.features : undefined
    default:
      return []
  }
}

/** The envelope of a feed, or why the whole file is unusable (then the last good copy is kept). */
export function readEnvelope(name: string, json: unknown): Envelope | string {
  if (!isObject(json)) return 'the document is not a JSON object'
  if (!isObject(json.data)) return 'the document has no "data" object'
  if (!Array.isArray(mainList(name, json.data))) return `"data" has no list of ${name.replaceAll('_', ' ')}`
  const ttl = num(json.ttl)
  return {
    lastUpdated: time(json.last_updated),
    ttl: ttl !== undefined && ttl >= 0 ? ttl : undefined,
    version: typeof json.version === 'string' ? json.version : undefined,
    data: json.data,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Deep links

/** `rental_uris` of a vehicle or station → DeepLinks; unusable links are reported and left out. */
export function deepLinks(raw: unknown, label: string, report: Report): DeepLinks | undefined {
  if (raw === undefined || raw === null) return undefined
  if (!isObject(raw)) {
    report(`${label}: rental_uris is not an object; ignored`)
    return undefined
  }
  const links: DeepLinks = {}
  for (const key of ['android', 'ios', 'web'] as const) {
    if (raw[key] === undefined || raw[key] === null) continue
    const value = link(raw[key], key === 'web')
    if (value) links[key] = value
    else report(`${label}: rental_uris.${key} ${short(raw[key])} is not a usable URI; ignored`)
  }
  return Object.keys(links).length > 0 ? links : undefined
}

// ---------------------------------------------------------------------------------------------------------------
// system_information

/** App store links and the system's website: the deep links of vehicles that publish none of their own. */
export function mapSystemInformation(envelope: Envelope): DeepLinks | undefined {
  const data = envelope.data
  const apps = isObject(data.rental_apps) ? data.rental_apps : {}
  const android = isObject(apps.android) ? link(apps.android.store_uri, false) : undefined
  const ios = isObject(apps.ios) ? link(apps.ios.store_uri, false) : undefined
  const web = link(data.url, true)
  const links: DeepLinks = {
    ...(android ? { android } : {}),
    ...(ios ? { ios } : {}),
    ...(web ? { web } : {}),
  }
  return Object.keys(links).length > 0 ? links : undefined
}
