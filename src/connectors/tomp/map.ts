import type { PricingPlan, PropulsionType, VehicleType } from '../../contract/micromobility.ts'
import type { Modality } from '../../contract/providers.ts'
import { isObject, type Json, num, type Report, short } from '../shared/json.ts'
import { type DeepLinks, link } from '../shared/links.ts'
import { defaultName } from '../shared/vehicle-names.ts'
import type { ProviderMicroVehicle } from '../types/micromobility.ts'

/**
 * TOMP-API 1.x operator information → domain. Pure and tolerant, as the GBFS mapping is: a record that cannot be used
 * is reported through `report` and skipped, the rest is kept. Where published samples differ from the schema (a
 * single pricing plan instead of a list, `lon` for `lng`, numeric strings) both are read.
 */

// The readers are shared with the GBFS mapping: operators are as loose about types as GBFS feeds.
export { type DeepLinks, isObject, type Json, num, type Report, short }
/** A vehicle before the connector stamps when it last changed. */
export type MappedVehicle = Omit<ProviderMicroVehicle, 'lastUpdated'>

/** A non-empty string; numbers are accepted as identifiers. */
export function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim()
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

const time = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN)
/** A list where a list belongs; a lone object (as the sample pricing plans file has it) is taken as a list of one. */
export const listOf = (value: unknown): unknown[] | undefined =>
  Array.isArray(value) ? value : isObject(value) ? [value] : undefined

/** A TOMP place (`{ coordinates: { lat, lng } }`) as a position; not 0,0, which operators send as a placeholder. */
export function positionOf(place: unknown): { latitude: number; longitude: number } | undefined {
  const c = isObject(place) && isObject(place.coordinates) ? place.coordinates : undefined
  const latitude = num(c?.lat)
  const longitude = num(c?.lng ?? c?.lon)
  if (latitude === undefined || longitude === undefined || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
    return undefined
  }
  return latitude === 0 && longitude === 0 ? undefined : { latitude, longitude }
}

// ---------------------------------------------------------------------------------------------------------------
// Deep links: asset rentalUrl* first, else the operator's app store links and website (operator/information)

function links(android: unknown, ios: unknown, web: unknown): DeepLinks | undefined {
  const found: DeepLinks = {}
  const a = link(android, false)
  const i = link(ios, false)
  const w = link(web, true)
  if (a) found.android = a
  if (i) found.ios = i
  if (w) found.web = w
  return Object.keys(found).length > 0 ? found : undefined
}

// ---------------------------------------------------------------------------------------------------------------
// /operator/information

export interface OperatorInfo {
  name?: string
  typeOfSystem?: string
  assetClasses: string[]
  links?: DeepLinks
}

export function mapInformation(raw: unknown): OperatorInfo {
  const info = isObject(raw) ? raw : {}
  const appLinks = links(info.storeUriAndroid, info.storeUriIOS, info.url)
  const name = str(info.name)
  const typeOfSystem = str(info.typeOfSystem)?.toUpperCase()
  return {
    ...(name ? { name } : {}),
    ...(typeOfSystem ? { typeOfSystem } : {}),
    assetClasses: (Array.isArray(info.assetClasses) ? info.assetClasses : []).map(str).filter((c) => c !== undefined),
    ...(appLinks ? { links: appLinks } : {}),
  }
}

const MODALITY_OF_CLASS: Record<string, Modality> = {
  BICYCLE: 'BIKE',
  STEP: 'SCOOTER',
  MOPED: 'MOPED',
  MOTORCYCLE: 'MOPED',
}
export const MODALITY_OF_TYPE: Partial<Record<VehicleType, Modality>> = {
  SCOOTER: 'SCOOTER',
  BICYCLE: 'BIKE',
  CARGO_BICYCLE: 'BIKE',
  MOPED: 'MOPED',
}
export const modalitiesOfClasses = (classes: string[]) =>
  classes.map((c) => MODALITY_OF_CLASS[c.toUpperCase()]).filter((m) => m !== undefined)

// ---------------------------------------------------------------------------------------------------------------
// /operator/available-assets (asset types, each with its assets in the map-oriented scenario)

/** The domain type of a TOMP asset class; undefined for classes that are not shared vehicles (BUS, RAIL ...). */
export function vehicleTypeOf(assetClass: string | undefined, subClass: string | undefined): VehicleType | undefined {
  const sub = subClass?.toLowerCase() ?? ''
  switch (assetClass?.toUpperCase()) {
    case 'BICYCLE':
      return /cargo/.test(sub) ? 'CARGO_BICYCLE' : 'BICYCLE'
    case 'STEP':
      return 'SCOOTER'
    case 'MOPED':
    case 'MOTORCYCLE':
      return 'MOPED'
    case 'CAR':
    case 'SELFDRIVE':
      return 'CAR'
    case 'OTHER':
      if (/cargo/.test(sub)) return 'CARGO_BICYCLE'
      if (/scooter|step/.test(sub)) return 'SCOOTER'
      if (/moped/.test(sub)) return 'MOPED'
      return /bike|bicycle/.test(sub) ? 'BICYCLE' : 'OTHER'
    default:
      return undefined
  }
}

const FUEL_PROPULSION: Record<string, string> = { NONE: 'MUSCLE', ELECTRIC: 'ELECTRIC', HYDROGEN: 'HYDROGEN' }

export function propulsionOf(type: VehicleType, propulsion: unknown, fuel: unknown): PropulsionType {
  const f = str(fuel)?.toUpperCase()
  const p =
    str(propulsion)?.toUpperCase() ?? (f && (FUEL_PROPULSION[f] ?? (f.startsWith('HYBRID') ? 'HYBRID' : 'GASOLINE')))
  const pedals = type === 'BICYCLE' || type === 'CARGO_BICYCLE'
  switch (p) {
    case 'MUSCLE':
      return 'HUMAN'
    case 'ELECTRIC':
      // An electric bicycle still has pedals: pedal assistance, as GBFS calls it.
      return pedals ? 'ELECTRIC_ASSIST' : 'ELECTRIC'
    case 'GASOLINE':
    case 'DIESEL':
    case 'LPG':
      return 'COMBUSTION'
    case 'HYBRID':
      return 'HYBRID'
    case undefined:
      return pedals ? 'HUMAN' : 'OTHER'
    default:
      return 'OTHER'
  }
}

export interface FleetContext {
  /** The pricing plan of an asset type (see map-pricing.ts). */
  planOf(assetType: Json): PricingPlan | undefined
  links?: DeepLinks
  now: number
}

/** Every usable asset of every asset type; `atStations` counts those parked at a station. */
export function mapAssets(raw: unknown, fleet: FleetContext, report: Report) {
  const vehicles: MappedVehicle[] = []
  const seen = new Set<string>()
  let atStations = 0
  const types = listOf(raw)
  if (!types) report('available-assets is not a list of asset types; no vehicles')
  for (const [i, assetType] of (types ?? []).entries()) {
    if (!isObject(assetType)) {
      report(`asset type #${i} is not an object; skipped`)
      continue
    }
    const typeId = str(assetType.id) ?? `#${i}`
    const type = vehicleTypeOf(str(assetType.assetClass), str(assetType.assetSubClass))
    if (!type) {
      report(`asset type ${typeId}: asset class ${short(assetType.assetClass)} is not a shared vehicle; skipped`)
      continue
    }
    const shared = isObject(assetType.sharedProperties) ? assetType.sharedProperties : {}
    const plan = fleet.planOf(assetType)
    const assets = Array.isArray(assetType.assets) ? assetType.assets : []
    for (const asset of assets) {
      const vehicleId = isObject(asset) ? str(asset.id) : undefined
      if (!isObject(asset) || !vehicleId || vehicleId.length > 200) {
        report(`asset type ${typeId}: an asset without a usable id; skipped`)
        continue
      }
      if (seen.has(vehicleId)) {
        report(`asset ${vehicleId} appears twice; the first is kept`)
        continue
      }
      const own = isObject(asset.overriddenProperties) ? asset.overriddenProperties : {}
      const where = positionOf(own.location) ?? positionOf(shared.location)
      if (!where) {
        report(`asset ${vehicleId}: no usable location; skipped`)
        continue
      }
      seen.add(vehicleId)
      if (str(asset.stationId) ?? str(assetType.stationId)) atStations++
      const propulsionType = propulsionOf(type, own.propulsion ?? shared.propulsion, own.fuel ?? shared.fuel)
      const made = [str(own.brand ?? shared.brand), str(own.model ?? shared.model)].filter(Boolean).join(' ')
      const name = str(own.name) ?? str(shared.name) ?? (made || defaultName(type, propulsionType))
      const charge = num(asset.stateOfCharge)
      const battery = charge !== undefined && charge >= 0 && charge <= 100 ? Math.round(charge) : undefined
      if (charge !== undefined && battery === undefined)
        report(`asset ${vehicleId}: stateOfCharge ${short(charge)} ignored`)
      const reservedFrom = time(asset.isReservedFrom)
      const reservedTo = time(asset.isReservedTo)
      const reserved = asset.isReserved === true && !(reservedFrom > fleet.now) && !(reservedTo <= fleet.now)
      const expired = time(asset.availableUntil) <= fleet.now
      const deepLinks = links(asset.rentalUrlAndroid, asset.rentalUrlIOS, asset.rentalUrl) ?? fleet.links
      vehicles.push({
        vehicleId,
        type,
        propulsionType,
        name,
        ...where,
        isAvailable: !reserved && asset.isDisabled !== true && !expired,
        ...(battery !== undefined && propulsionType !== 'HUMAN' ? { batteryPercent: battery } : {}),
        ...(plan ? { pricingPlan: plan } : {}),
        ...(deepLinks ? { deepLinks } : {}),
      })
    }
  }
  return { vehicles, atStations }
}

// ---------------------------------------------------------------------------------------------------------------
// Bookings and legs

/** Where a leg's vehicle is: the asset's reported location, else where the leg started. */
export const legPosition = (leg: Json | undefined) =>
  positionOf(
    isObject(leg?.asset) && isObject(leg.asset.overriddenProperties)
      ? leg.asset.overriddenProperties.location
      : undefined,
  ) ?? positionOf(leg?.from)

export function firstLeg(booking: unknown, legId?: string): Json | undefined {
  const legs = isObject(booking) && Array.isArray(booking.legs) ? booking.legs.filter(isObject) : []
  return legs.find((l) => str(l.id) === legId) ?? legs[0]
}
