import type { Zone } from '../../contract/micromobility.ts'
import type { ProviderZone } from '../types/micromobility.ts'
import { isObject, type Json, listOf, num, type Report, str } from './map.ts'

/**
 * TOMP /operator/regions → zones. A region is a zone only where it has a `serviceArea` polygon (the samples have
 * none: then there are no zones); its `type` gives the rules. Regions outside their `areaStartTime`–`areaEndTime`
 * are left out, as GBFS zones outside their start and end are.
 */

type Rule = ProviderZone['rules'][number]
type Ring = [number, number][]

const ALL = { rideStartAllowed: true, rideEndAllowed: true, rideThroughAllowed: true }
const KMH_PER_MPH = 1.609344

function ring(raw: unknown): Ring | string {
  if (!Array.isArray(raw)) return 'a ring is not a list'
  const points: Ring = []
  for (const p of raw) {
    const lon = Array.isArray(p) ? num(p[0]) : undefined
    const lat = Array.isArray(p) ? num(p[1]) : undefined
    if (lon === undefined || lat === undefined || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
      return `invalid position ${JSON.stringify(p)?.slice(0, 40)}`
    }
    points.push([lon, lat])
  }
  const [first, last] = [points[0], points.at(-1)]
  if (first && last && (first[0] !== last[0] || first[1] !== last[1])) points.push([first[0], first[1]])
  return points.length < 4 ? 'a ring has fewer than 4 positions' : points
}

/** A Polygon or MultiPolygon of usable rings (a bad hole is dropped, a bad outer ring drops its polygon). */
function geometry(raw: unknown, problems: string[]): Zone['geometry'] | undefined {
  if (!isObject(raw) || !Array.isArray(raw.coordinates)) {
    problems.push(raw === undefined || raw === null ? 'no serviceArea' : 'serviceArea has no coordinates')
    return undefined
  }
  const polygons = raw.type === 'MultiPolygon' ? raw.coordinates : raw.type === 'Polygon' ? [raw.coordinates] : []
  if (polygons.length === 0) problems.push(`serviceArea of type ${JSON.stringify(raw.type)} is not a polygon`)
  const usable: Ring[][] = []
  for (const polygon of polygons) {
    const rings = (Array.isArray(polygon) ? polygon : []).map(ring)
    const [outer, ...holes] = rings
    if (typeof outer !== 'object') {
      problems.push(outer ?? 'an empty polygon')
      continue
    }
    for (const hole of holes) if (typeof hole === 'string') problems.push(`${hole} (hole dropped)`)
    usable.push([outer, ...holes.filter((h): h is Ring => typeof h === 'object')])
  }
  if (usable.length === 0) return undefined
  return usable.length === 1
    ? { type: 'Polygon', coordinates: usable[0] }
    : { type: 'MultiPolygon', coordinates: usable }
}

/** The speed a SPEEDLIMIT region allows, km/h (`typeUnit`/`typeValue`; the samples say `unitType`/`unitValue`). */
function speedKph(raw: Json): number | undefined {
  const value = num(raw.typeValue ?? raw.unitValue)
  if (value === undefined || value < 0) return undefined
  const unit = str(raw.typeUnit ?? raw.unitType)?.toUpperCase()
  return unit === 'MPH' ? Math.round(value * KMH_PER_MPH * 10) / 10 : value
}

function kindAndRules(type: string, raw: Json): { kind: ProviderZone['kind']; rules: Rule[] } | undefined {
  switch (type) {
    case 'OPERATING':
      return { kind: 'SERVICE_AREA', rules: [{ ...ALL }] }
    case 'NO_PARKING':
      return {
        kind: 'NO_PARKING',
        rules: [{ rideStartAllowed: false, rideEndAllowed: false, rideThroughAllowed: true }],
      }
    case 'NO_ACCESS':
      return {
        kind: 'NO_RIDING',
        rules: [{ rideStartAllowed: false, rideEndAllowed: false, rideThroughAllowed: false }],
      }
    case 'PARKING':
      return { kind: 'PARKING', rules: [{ ...ALL }] }
    case 'DISCOUNT':
      return { kind: 'OTHER', rules: [{ ...ALL }] }
    case 'SPEEDLIMIT':
    case 'SPEED_LIMIT': {
      const speed = speedKph(raw)
      return { kind: 'SLOW', rules: [{ ...ALL, ...(speed === undefined ? {} : { maximumSpeedKph: speed }) }] }
    }
    default:
      return undefined
  }
}

export function mapRegions(raw: unknown, now: number, report: Report): ProviderZone[] {
  const zones: ProviderZone[] = []
  const ids = new Set<string>()
  const list = listOf(raw)
  if (!list) report('regions are not a list; no zones')
  for (const [i, region] of (list ?? []).entries()) {
    if (!isObject(region)) {
      report(`region #${i} is not an object; skipped`)
      continue
    }
    const regionId = str(region.regionId)
    const label = `region ${regionId ?? `#${i}`}`
    if (!regionId || ids.has(regionId)) {
      report(`${label}: ${regionId ? 'appears twice' : 'no regionId'}; skipped`)
      continue
    }
    const from = Date.parse(String(region.areaStartTime))
    const until = Date.parse(String(region.areaEndTime))
    if (from > now || until <= now) continue
    const type = str(region.type)?.toUpperCase() ?? 'OPERATING'
    const rules = kindAndRules(type, region)
    if (!rules) {
      report(`${label}: unknown type ${JSON.stringify(type)}; skipped`)
      continue
    }
    const problems: string[] = []
    const shape = geometry(region.serviceArea, problems)
    if (problems.length > 0) report(`${label}: ${problems.join('; ')}${shape ? '' : '; skipped'}`)
    if (!shape) continue
    ids.add(regionId)
    const name = str(region.name)
    zones.push({ id: regionId, ...(name ? { name } : {}), kind: rules.kind, geometry: shape, rules: rules.rules })
  }
  return zones
}
