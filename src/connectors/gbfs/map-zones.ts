import { createHash } from 'node:crypto'
import type { Zone } from '../../contract/micromobility.ts'
import type { ProviderZone } from '../types/micromobility.ts'
import {
  bool,
  type Envelope,
  id,
  isObject,
  type Json,
  num,
  type Report,
  short,
  strings,
  text,
  time,
  validLatitude,
  validLongitude,
} from './map.ts'
import type { VehicleTypeInfo } from './map-types.ts'

/** geofencing_zones → zones with their rules; the polygon reading is shared with station areas (map-stations.ts). */

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
export function geometry(raw: unknown, problems: string[]): Zone['geometry'] | undefined {
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
