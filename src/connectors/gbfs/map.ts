import { createHash } from 'node:crypto'
import type { PricingPlan, PropulsionType, VehicleType, Zone } from '../../contract/micromobility.ts'
import { toMinor } from '../../platform/money.ts'
import type { ProviderMicroVehicle, ProviderZone } from '../types/micromobility.ts'

/**
 * GBFS 2.x / 3.0 → domain. Every function here is pure and tolerant: a record that cannot be used is reported through
 * `report` and skipped, the rest of the feed is kept. 2.x and 3.0 field names are both accepted wherever they differ
 * (`bike_id` / `vehicle_id`, POSIX / RFC 3339 times, plain / localized strings), because real feeds mix them.
 */

export type Report = (message: string) => void
export type DeepLinks = NonNullable<ProviderMicroVehicle['deepLinks']>
type Json = Record<string, unknown>

// ---------------------------------------------------------------------------------------------------------------
// Readers for loosely typed JSON

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** An identifier: a non-empty string, or a number (some feeds publish numeric ids). */
export function id(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** A finite number; numeric strings are accepted. */
export function num(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value)
  return undefined
}

/** A boolean; 0/1 and "true"/"false" are accepted (GBFS 1.x published integers). */
export function bool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === '1' || value === 'true') return true
  if (value === 0 || value === '0' || value === 'false') return false
  return undefined
}

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

const strings = (value: unknown): string[] | undefined => {
  if (typeof value === 'string') return [value]
  if (!Array.isArray(value)) return undefined
  return value.map(id).filter((v): v is string => v !== undefined)
}

const short = (value: unknown) => {
  const s = JSON.stringify(value) ?? String(value)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

export const validLatitude = (v: number | undefined): v is number => v !== undefined && v >= -90 && v <= 90
export const validLongitude = (v: number | undefined): v is number => v !== undefined && v >= -180 && v <= 180

/** A usable position: both numbers in range and not exactly 0,0 ("null island", a common placeholder). */
function position(lat: unknown, lon: unknown): { latitude: number; longitude: number } | string {
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

const BLOCKED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'])

/** A deep link clients may open: an absolute URI, never script or local file; `web` must be http(s). */
function link(value: unknown, web: boolean): string | undefined {
  if (typeof value !== 'string') return undefined
  const s = value.trim()
  if (s === '' || s.length > 2000) return undefined
  let url: URL
  try {
    url = new URL(s)
  } catch {
    return undefined
  }
  if (BLOCKED_SCHEMES.has(url.protocol)) return undefined
  if (web && url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return s
}

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

// ---------------------------------------------------------------------------------------------------------------
// vehicle_types

export interface VehicleTypeInfo {
  type: VehicleType
  propulsionType: PropulsionType
  name: string
  defaultPricingPlanId?: string
}

const FORM_FACTORS: Record<string, VehicleType> = {
  bicycle: 'BICYCLE',
  cargo_bicycle: 'CARGO_BICYCLE',
  car: 'CAR',
  moped: 'MOPED',
  scooter: 'SCOOTER', // 2.x
  scooter_standing: 'SCOOTER',
  scooter_seated: 'SCOOTER',
  other: 'OTHER',
}

const PROPULSION_TYPES: Record<string, PropulsionType> = {
  human: 'HUMAN',
  electric_assist: 'ELECTRIC_ASSIST',
  electric: 'ELECTRIC',
  combustion: 'COMBUSTION',
  combustion_diesel: 'COMBUSTION',
  hybrid: 'HYBRID',
  plug_in_hybrid: 'HYBRID',
  hydrogen_fuel_cell: 'OTHER',
}

/** Names of a vehicle without one: [human or unknown propulsion, motorised]. */
export const NAMES: Record<VehicleType, [string, string]> = {
  // [human or unknown, motorised]
  BICYCLE: ['Bicycle', 'E-bike'],
  CARGO_BICYCLE: ['Cargo bike', 'Electric cargo bike'],
  SCOOTER: ['Kick scooter', 'E-scooter'],
  MOPED: ['Moped', 'E-moped'],
  CAR: ['Car', 'Car'],
  OTHER: ['Vehicle', 'Vehicle'],
}

export const defaultName = (type: VehicleType, propulsion: PropulsionType) =>
  NAMES[type][propulsion === 'HUMAN' ? 0 : 1]

/** GBFS assumes bicycles where a system publishes no vehicle types. */
export const DEFAULT_VEHICLE_TYPE: VehicleTypeInfo = { type: 'BICYCLE', propulsionType: 'HUMAN', name: 'Bicycle' }
/** A vehicle whose declared type is not published. */
export const UNKNOWN_VEHICLE_TYPE: VehicleTypeInfo = { type: 'OTHER', propulsionType: 'OTHER', name: 'Vehicle' }

export function mapVehicleTypes(envelope: Envelope, language: string | undefined, report: Report) {
  const types = new Map<string, VehicleTypeInfo>()
  const list = envelope.data.vehicle_types as unknown[]
  for (const [i, raw] of list.entries()) {
    if (!isObject(raw)) {
      report(`vehicle type #${i} is not an object; skipped`)
      continue
    }
    const typeId = id(raw.vehicle_type_id)
    if (!typeId) {
      report(`vehicle type #${i} has no vehicle_type_id; skipped`)
      continue
    }
    if (types.has(typeId)) {
      report(`vehicle type ${typeId} appears twice; the first is kept`)
      continue
    }
    let type = FORM_FACTORS[String(raw.form_factor)]
    if (!type) {
      report(`vehicle type ${typeId}: unknown form_factor ${short(raw.form_factor)}; taken as OTHER`)
      type = 'OTHER'
    }
    let propulsionType = PROPULSION_TYPES[String(raw.propulsion_type)]
    if (!propulsionType) {
      report(`vehicle type ${typeId}: unknown propulsion_type ${short(raw.propulsion_type)}; taken as OTHER`)
      propulsionType = 'OTHER'
    }
    const makeModel = [text(raw.make, language), text(raw.model, language)].filter(Boolean).join(' ')
    const name = text(raw.name, language) ?? (makeModel || defaultName(type, propulsionType))
    const defaultPricingPlanId = id(raw.default_pricing_plan_id)
    types.set(typeId, { type, propulsionType, name, ...(defaultPricingPlanId ? { defaultPricingPlanId } : {}) })
  }
  return types
}

// ---------------------------------------------------------------------------------------------------------------
// system_pricing_plans

export function mapPricingPlans(envelope: Envelope, language: string | undefined, report: Report) {
  const plans = new Map<string, PricingPlan>()
  const list = envelope.data.plans as unknown[]
  for (const [i, raw] of list.entries()) {
    if (!isObject(raw)) {
      report(`pricing plan #${i} is not an object; skipped`)
      continue
    }
    const planId = id(raw.plan_id)
    if (!planId) {
      report(`pricing plan #${i} has no plan_id; skipped`)
      continue
    }
    if (plans.has(planId)) {
      report(`pricing plan ${planId} appears twice; the first is kept`)
      continue
    }
    const currency = typeof raw.currency === 'string' ? raw.currency.trim().toUpperCase() : ''
    if (!/^[A-Z]{3}$/.test(currency)) {
      report(`pricing plan ${planId}: currency ${short(raw.currency)} is not ISO 4217; skipped`)
      continue
    }
    const price = num(raw.price)
    if (price === undefined || price < 0) {
      report(`pricing plan ${planId}: price ${short(raw.price)} is not a non-negative number; skipped`)
      continue
    }

    // The first segment (lowest `start`) is the rate a rider pays from the first minute; a rate per `interval`
    // minutes is spread over the minutes of the interval.
    const segments = (Array.isArray(raw.per_min_pricing) ? raw.per_min_pricing : [])
      .filter(isObject)
      .map((s) => ({ start: num(s.start) ?? 0, rate: num(s.rate), interval: num(s.interval) ?? 1 }))
      .filter((s): s is { start: number; rate: number; interval: number } => s.rate !== undefined && s.rate >= 0)
      .sort((a, b) => a.start - b.start)
    if (Array.isArray(raw.per_min_pricing) && segments.length === 0) {
      report(`pricing plan ${planId}: per_min_pricing has no usable segment`)
    }
    const first = segments[0]
    const interval = first && first.interval > 0 ? first.interval : 1
    const perMinuteRate: PricingPlan['perMinuteRate'] = first
      ? {
          amount: toMinor(first.rate / interval, currency),
          currency,
          ...(interval !== 1 ? { description: `${first.rate} ${currency} per ${interval} minutes` } : {}),
        }
      : {
          amount: 0,
          currency,
          description: Array.isArray(raw.per_km_pricing) ? 'charged by distance, not by time' : 'no per-minute charge',
        }
    plans.set(planId, {
      planId,
      name: text(raw.name, language) ?? planId,
      currency,
      unlockFee: { amount: toMinor(price, currency), currency },
      perMinuteRate,
    })
  }
  return plans
}

// ---------------------------------------------------------------------------------------------------------------
// station_information + station_status

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

// ---------------------------------------------------------------------------------------------------------------
// vehicle_status (3.0) / free_bike_status (2.x)

export interface VehicleLookups {
  /** Undefined when the system publishes no vehicle_types (every vehicle is then a bicycle). */
  types?: Map<string, VehicleTypeInfo>
  plans: Map<string, PricingPlan>
  stations: Map<string, StationInfo>
  systemLinks?: DeepLinks
  /** Stands in for a missing `last_reported` and `last_updated`. */
  now: Date
}

export interface MappedFleet {
  vehicles: ProviderMicroVehicle[]
  /** Vehicles not at a station. */
  freeFloating: number
}

export function mapVehicles(feed: string, envelope: Envelope, lookups: VehicleLookups, report: Report): MappedFleet {
  const data = envelope.data
  const list = (Array.isArray(data.vehicles) ? data.vehicles : data.bikes) as unknown[]
  const is2x = feed === 'free_bike_status'
  if (is2x && Array.isArray(data.vehicles)) report('a 2.x feed with the 3.0 list "vehicles" (read anyway)')
  if (!is2x && Array.isArray(data.bikes) && !Array.isArray(data.vehicles)) {
    report('a 3.0 feed with the 2.x list "bikes" (read anyway)')
  }
  const fallbackTime = (envelope.lastUpdated ?? lookups.now).toISOString()
  const seen = new Set<string>()
  const unknownTypes = new Set<string>()
  const unknownPlans = new Set<string>()
  const unknownStations = new Set<string>()
  let mixedIds = 0
  let freeFloating = 0
  const vehicles: ProviderMicroVehicle[] = []

  for (const [i, raw] of list.entries()) {
    try {
      if (!isObject(raw)) {
        report(`vehicle #${i} is not an object; skipped`)
        continue
      }
      const vehicleId = id(raw.vehicle_id) ?? id(raw.bike_id)
      if (!vehicleId) {
        report(`vehicle #${i} has no ${is2x ? 'bike_id' : 'vehicle_id'}; skipped`)
        continue
      }
      if (is2x ? raw.bike_id === undefined : raw.vehicle_id === undefined) mixedIds++
      if (seen.has(vehicleId)) {
        report(`vehicle ${vehicleId} appears twice; the first is kept`)
        continue
      }
      seen.add(vehicleId)

      // Position: the vehicle's own, else the station it is docked at.
      const stationId = id(raw.station_id)
      const station = stationId ? lookups.stations.get(stationId) : undefined
      const hasOwn = (raw.lat !== undefined && raw.lat !== null) || (raw.lon !== undefined && raw.lon !== null)
      let where = hasOwn ? position(raw.lat, raw.lon) : undefined
      if (typeof where === 'string') {
        report(`vehicle ${vehicleId}: ${where}${station ? '; placed at its station' : '; skipped'}`)
        where = undefined
      }
      if (!where && station) where = { latitude: station.latitude, longitude: station.longitude }
      if (!where) {
        if (stationId && !hasOwn) unknownStations.add(stationId)
        else if (!hasOwn) report(`vehicle ${vehicleId} has neither lat/lon nor station_id; skipped`)
        continue
      }
      if (!stationId) freeFloating++

      // Type: the published type, the GBFS default (bicycle) when none are published.
      const typeId = id(raw.vehicle_type_id)
      let info = DEFAULT_VEHICLE_TYPE
      if (lookups.types) {
        const found = typeId ? lookups.types.get(typeId) : undefined
        if (found) info = found
        else {
          unknownTypes.add(typeId ?? '(none)')
          info = typeId ? UNKNOWN_VEHICLE_TYPE : DEFAULT_VEHICLE_TYPE
        }
      } else if (typeId) info = UNKNOWN_VEHICLE_TYPE

      const reserved = bool(raw.is_reserved) === true
      const disabled = bool(raw.is_disabled) === true
      const lastReported = raw.last_reported !== undefined ? time(raw.last_reported) : undefined
      if (raw.last_reported !== undefined && !lastReported) {
        report(`vehicle ${vehicleId}: last_reported ${short(raw.last_reported)} is not a time; feed time used`)
      }

      let batteryPercent: number | undefined
      if (raw.current_fuel_percent !== undefined && raw.current_fuel_percent !== null) {
        const fuel = num(raw.current_fuel_percent)
        if (fuel !== undefined && fuel >= 0 && fuel <= 1) batteryPercent = Math.round(fuel * 1000) / 10
        else if (fuel !== undefined && fuel > 1 && fuel <= 100) {
          report(
            `vehicle ${vehicleId}: current_fuel_percent ${fuel} looks like a percentage, not a fraction; read as such`,
          )
          batteryPercent = fuel
        } else
          report(
            `vehicle ${vehicleId}: current_fuel_percent ${short(raw.current_fuel_percent)} is out of range; ignored`,
          )
      }

      const planId = id(raw.pricing_plan_id) ?? info.defaultPricingPlanId
      const pricingPlan = planId ? lookups.plans.get(planId) : undefined
      if (planId && !pricingPlan && lookups.plans.size > 0) unknownPlans.add(planId)

      const links =
        deepLinks(raw.rental_uris, `vehicle ${vehicleId}`, report) ?? station?.deepLinks ?? lookups.systemLinks

      vehicles.push({
        vehicleId,
        type: info.type,
        propulsionType: info.propulsionType,
        name: info.name,
        latitude: where.latitude,
        longitude: where.longitude,
        lastUpdated: lastReported?.toISOString() ?? fallbackTime,
        isAvailable: !reserved && !disabled && (station?.isRenting ?? true),
        ...(batteryPercent !== undefined ? { batteryPercent } : {}),
        ...(pricingPlan ? { pricingPlan } : {}),
        ...(links ? { deepLinks: links } : {}),
        ...(station && stationId ? { stationId } : {}),
      })
    } catch (error) {
      report(`vehicle #${i}: ${(error as Error).message}; skipped`)
    }
  }

  if (mixedIds > 0)
    report(`${mixedIds} vehicles use the ${is2x ? '3.0 field vehicle_id' : '2.x field bike_id'} (read anyway)`)
  if (unknownTypes.size > 0) report(`vehicle types not published in vehicle_types: ${[...unknownTypes].join(', ')}`)
  if (unknownPlans.size > 0)
    report(`pricing plans not published in system_pricing_plans: ${[...unknownPlans].join(', ')}`)
  if (unknownStations.size > 0) {
    report(
      `docked vehicles skipped, their stations have no known position: ${[...unknownStations].slice(0, 10).join(', ')}`,
    )
  }
  return { vehicles, freeFloating }
}

// ---------------------------------------------------------------------------------------------------------------
// geofencing_zones

export interface ZoneEntry {
  zone: ProviderZone
  /** Epoch ms; the zone applies only from `start` to `end` when they are given. */
  start?: number
  end?: number
}

type Ring = [number, number][]

function ring(raw: unknown): Ring | string {
  if (!Array.isArray(raw)) return 'a ring is not an array'
  const points: Ring = []
  for (const p of raw) {
    const lon = Array.isArray(p) ? num(p[0]) : undefined
    const lat = Array.isArray(p) ? num(p[1]) : undefined
    if (!validLongitude(lon) || !validLatitude(lat)) return `invalid position ${short(p)}`
    points.push([lon, lat])
  }
  if (points.length > 0) {
    const [first, last] = [points[0], points[points.length - 1]]
    if (first[0] !== last[0] || first[1] !== last[1]) points.push([first[0], first[1]])
  }
  if (points.length < 4) return 'a ring has fewer than 4 positions'
  return points
}

/** One polygon: outer ring and holes; an unusable hole is dropped, an unusable outer ring drops the polygon. */
function polygon(raw: unknown, problems: string[]): Ring[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    problems.push('an empty polygon')
    return undefined
  }
  const outer = ring(raw[0])
  if (typeof outer === 'string') {
    problems.push(outer)
    return undefined
  }
  const rings: Ring[] = [outer]
  for (const hole of raw.slice(1)) {
    const r = ring(hole)
    if (typeof r === 'string') problems.push(`${r} (hole dropped)`)
    else rings.push(r)
  }
  return rings
}

/** Any Polygon or MultiPolygon → a MultiPolygon of its usable polygons. */
function geometry(raw: unknown, problems: string[]): Zone['geometry'] | undefined {
  if (!isObject(raw)) {
    problems.push(raw === null || raw === undefined ? 'no geometry' : 'geometry is not an object')
    return undefined
  }
  let polygons: unknown[]
  if (raw.type === 'MultiPolygon' && Array.isArray(raw.coordinates)) polygons = raw.coordinates
  else if (raw.type === 'Polygon' && Array.isArray(raw.coordinates)) polygons = [raw.coordinates]
  else {
    problems.push(`geometry of type ${short(raw.type)} without polygon coordinates`)
    return undefined
  }
  const usable = polygons.map((p) => polygon(p, problems)).filter((p): p is Ring[] => p !== undefined)
  if (usable.length === 0) return undefined
  return { type: 'MultiPolygon', coordinates: usable }
}

type Rule = ProviderZone['rules'][number]

function rule(
  raw: Json,
  types: Map<string, VehicleTypeInfo> | undefined,
  unknown: Set<string>,
  problems: string[],
): Rule {
  const rideAllowed = bool(raw.ride_allowed) // 2.x: start and end
  const flag = (name: string, value: boolean | undefined) => {
    if (value !== undefined) return value
    problems.push(`a rule without ${name} (taken as allowed)`)
    return true
  }
  const rideStartAllowed = flag('ride_start_allowed', bool(raw.ride_start_allowed) ?? rideAllowed)
  const rideEndAllowed = flag('ride_end_allowed', bool(raw.ride_end_allowed) ?? rideAllowed)
  const rideThroughAllowed = flag('ride_through_allowed', bool(raw.ride_through_allowed))
  const speed = num(raw.maximum_speed_kph)
  const stationParking = bool(raw.station_parking)
  // 2.x `vehicle_type_ids`, 3.0 `vehicle_type_id` (both arrays). Rules name types by id; clients know the domain
  // types. A rule whose ids are all unknown stays unscoped: a restriction is safer applied too widely than dropped.
  const ids = strings(raw.vehicle_type_ids ?? raw.vehicle_type_id)
  let vehicleTypes: string[] | undefined
  if (ids && ids.length > 0) {
    const mapped = new Set<string>()
    for (const typeId of ids) {
      const info = types?.get(typeId)
      if (info) mapped.add(info.type)
      else unknown.add(typeId)
    }
    if (mapped.size > 0) vehicleTypes = [...mapped]
  }
  return {
    rideStartAllowed,
    rideEndAllowed,
    rideThroughAllowed,
    ...(speed !== undefined && speed >= 0 ? { maximumSpeedKph: speed } : {}),
    ...(stationParking !== undefined ? { stationParking } : {}),
    ...(vehicleTypes ? { vehicleTypes } : {}),
  }
}

/** The most restrictive kind any rule of the zone gives. */
export function zoneKind(rules: Rule[]): ProviderZone['kind'] {
  if (rules.some((r) => !r.rideThroughAllowed)) return 'NO_RIDING'
  if (rules.some((r) => !r.rideEndAllowed)) return 'NO_PARKING'
  if (rules.some((r) => r.maximumSpeedKph !== undefined)) return 'SLOW'
  if (rules.some((r) => r.stationParking)) return 'PARKING'
  return 'SERVICE_AREA'
}

export function mapZones(
  envelope: Envelope,
  types: Map<string, VehicleTypeInfo> | undefined,
  language: string | undefined,
  report: Report,
): ZoneEntry[] {
  const collection = envelope.data.geofencing_zones as Json
  const features = collection.features as unknown[]
  const zones: ZoneEntry[] = []
  const ids = new Set<string>()
  const unknown = new Set<string>()
  for (const [i, raw] of features.entries()) {
    try {
      if (!isObject(raw)) {
        report(`zone #${i} is not an object; skipped`)
        continue
      }
      const properties = isObject(raw.properties) ? raw.properties : {}
      const name = text(properties.name, language)
      const label = `zone #${i}${name ? ` "${name}"` : ''}`
      const problems: string[] = []
      const shape = geometry(raw.geometry, problems)
      if (!shape) {
        report(`${label}: ${problems.join('; ')}; skipped`)
        continue
      }
      const rawRules = Array.isArray(properties.rules) ? properties.rules : []
      if (properties.rules !== undefined && !Array.isArray(properties.rules)) problems.push('rules is not a list')
      const rules = rawRules.filter(isObject).map((r) => rule(r, types, unknown, problems))
      if (problems.length > 0) report(`${label}: ${problems.join('; ')}`)

      const hash = createHash('sha1')
        .update(JSON.stringify([name ?? '', shape.coordinates]))
        .digest('hex')
      let zoneId = id(raw.id) ?? `z${hash.slice(0, 12)}`
      for (let n = 2; ids.has(zoneId); n++) zoneId = `${id(raw.id) ?? `z${hash.slice(0, 12)}`}-${n}`
      ids.add(zoneId)

      const start = time(properties.start)?.getTime()
      const end = time(properties.end)?.getTime()
      zones.push({
        zone: { id: zoneId, ...(name ? { name } : {}), kind: zoneKind(rules), geometry: shape, rules },
        ...(start !== undefined ? { start } : {}),
        ...(end !== undefined ? { end } : {}),
      })
    } catch (error) {
      report(`zone #${i}: ${(error as Error).message}; skipped`)
    }
  }
  if (unknown.size > 0) {
    report(`zone rules name vehicle types not published in vehicle_types: ${[...unknown].slice(0, 10).join(', ')}`)
  }
  return zones
}
