import type { PricingPlan } from '../../contract/micromobility.ts'
import type { ProviderMicroVehicle } from '../types/micromobility.ts'
import {
  bool,
  type DeepLinks,
  deepLinks,
  type Envelope,
  id,
  isObject,
  num,
  position,
  type Report,
  short,
  time,
} from './map.ts'
import type { StationInfo } from './map-stations.ts'
import { DEFAULT_VEHICLE_TYPE, UNKNOWN_VEHICLE_TYPE, type VehicleTypeInfo } from './map-types.ts'

/** vehicle_status (3.0) / free_bike_status (2.x) → the fleet, docked vehicles placed at their station. */

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
