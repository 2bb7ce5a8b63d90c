import { createHash } from 'node:crypto'
import type { ProviderEntry } from '../../connectors/types/common.ts'
import type { ProviderMicroStation, ProviderMicroVehicle, ProviderZone } from '../../connectors/types/micromobility.ts'
import type { PricingPlan, PropulsionType, VehicleType } from '../../contract/micromobility.ts'
import { toMajor } from '../../platform/money.ts'

/**
 * The `data` of each GBFS 3.0 file, built from what the connectors give the service (pure functions). What GBFS asks
 * for and the providers do not tell (a vehicle type's range, a system's time zone and opening hours) is filled in the
 * way the README documents ("GBFS out"), never silently made more specific than it is.
 */

export const GBFS_FEEDS = [
  'system_information',
  'vehicle_types',
  'vehicle_status',
  'station_information',
  'station_status',
  'geofencing_zones',
  'system_pricing_plans',
] as const
export type GbfsFeed = (typeof GBFS_FEEDS)[number]
export const isGbfsFeed = (name: string): name is GbfsFeed => (GBFS_FEEDS as readonly string[]).includes(name)

type Localized = { text: string; language: string }[]
const localized = (text: string, language: string): Localized => [{ text, language }]

/** RFC 3339 without fractions of a second, as GBFS examples write it. */
export const rfc3339 = (time: Date | string) => new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z')

const FORM_FACTOR: Record<VehicleType, string> = {
  SCOOTER: 'scooter_standing',
  BICYCLE: 'bicycle',
  CARGO_BICYCLE: 'cargo_bicycle',
  MOPED: 'moped',
  CAR: 'car',
  OTHER: 'other',
}

/** OTHER (a propulsion the provider did not name) is published as electric, the common case of shared vehicles. */
const PROPULSION: Record<PropulsionType, string> = {
  HUMAN: 'human',
  ELECTRIC_ASSIST: 'electric_assist',
  ELECTRIC: 'electric',
  COMBUSTION: 'combustion',
  HYBRID: 'hybrid',
  OTHER: 'electric',
}

/**
 * GBFS requires `max_range_meters` of every motorised type; no provider behind the service reports it, so a typical
 * full-charge range of the form factor is published (and the current range derived from the charge).
 */
export const TYPICAL_RANGE_METERS: Record<VehicleType, number> = {
  SCOOTER: 40_000,
  BICYCLE: 60_000,
  CARGO_BICYCLE: 50_000,
  MOPED: 100_000,
  CAR: 300_000,
  OTHER: 40_000,
}

/** Time zones of countries with one; a provider whose first country is not here is published in Etc/UTC. */
const COUNTRY_TIMEZONES: Record<string, string> = {
  AT: 'Europe/Vienna',
  BE: 'Europe/Brussels',
  BG: 'Europe/Sofia',
  CH: 'Europe/Zurich',
  CY: 'Asia/Nicosia',
  CZ: 'Europe/Prague',
  DE: 'Europe/Berlin',
  DK: 'Europe/Copenhagen',
  EE: 'Europe/Tallinn',
  ES: 'Europe/Madrid',
  FI: 'Europe/Helsinki',
  FR: 'Europe/Paris',
  GB: 'Europe/London',
  GR: 'Europe/Athens',
  HR: 'Europe/Zagreb',
  HU: 'Europe/Budapest',
  IE: 'Europe/Dublin',
  IL: 'Asia/Jerusalem',
  IS: 'Atlantic/Reykjavik',
  IT: 'Europe/Rome',
  JP: 'Asia/Tokyo',
  KR: 'Asia/Seoul',
  LI: 'Europe/Vaduz',
  LT: 'Europe/Vilnius',
  LU: 'Europe/Luxembourg',
  LV: 'Europe/Riga',
  MC: 'Europe/Monaco',
  MT: 'Europe/Malta',
  NL: 'Europe/Amsterdam',
  NO: 'Europe/Oslo',
  NZ: 'Pacific/Auckland',
  PL: 'Europe/Warsaw',
  PT: 'Europe/Lisbon',
  RO: 'Europe/Bucharest',
  RS: 'Europe/Belgrade',
  SE: 'Europe/Stockholm',
  SG: 'Asia/Singapore',
  SI: 'Europe/Ljubljana',
  SK: 'Europe/Bratislava',
  TR: 'Europe/Istanbul',
}
export const timezoneOf = (entry: ProviderEntry) => COUNTRY_TIMEZONES[entry.countries?.[0] ?? ''] ?? 'Etc/UTC'

// ---------------------------------------------------------------------------------------------------------------
// vehicle_types and system_pricing_plans

export interface GbfsVehicleType {
  id: string
  type: VehicleType
  propulsionType: PropulsionType
  name: string
  planId?: string
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 10)

/** One type per kind, propulsion and name, with an id that stays the same as long as those do. */
export function vehicleTypesOf(vehicles: ProviderMicroVehicle[]): Map<string, GbfsVehicleType> {
  const types = new Map<string, GbfsVehicleType>()
  for (const v of vehicles) {
    const key = `${v.type}|${v.propulsionType}|${v.name}`
    if (types.has(key)) continue
    types.set(key, {
      id: `${FORM_FACTOR[v.type]}-${PROPULSION[v.propulsionType]}-${shortHash(key)}`,
      type: v.type,
      propulsionType: v.propulsionType,
      name: v.name,
      ...(v.pricingPlan ? { planId: v.pricingPlan.planId } : {}),
    })
  }
  return types
}
export const typeKey = (v: ProviderMicroVehicle) => `${v.type}|${v.propulsionType}|${v.name}`

const motorised = (p: PropulsionType) => p !== 'HUMAN'

export function vehicleTypesData(types: Map<string, GbfsVehicleType>, language: string) {
  return {
    vehicle_types: [...types.values()].map((t) => ({
      vehicle_type_id: t.id,
      form_factor: FORM_FACTOR[t.type],
      propulsion_type: PROPULSION[t.propulsionType],
      ...(motorised(t.propulsionType) ? { max_range_meters: TYPICAL_RANGE_METERS[t.type] } : {}),
      name: localized(t.name, language),
      ...(t.planId ? { default_pricing_plan_id: t.planId } : {}),
    })),
  }
}

export function plansOf(vehicles: ProviderMicroVehicle[]): Map<string, PricingPlan> {
  const plans = new Map<string, PricingPlan>()
  for (const v of vehicles)
    if (v.pricingPlan && !plans.has(v.pricingPlan.planId)) plans.set(v.pricingPlan.planId, v.pricingPlan)
  return plans
}

const PLAN_TEXT: Record<string, (unlock: string, rate: string | undefined) => string> = {
  en: (unlock, rate) => `${unlock} to unlock${rate ? `, then ${rate} per minute` : ''}`,
  de: (unlock, rate) => `${unlock} zum Entsperren${rate ? `, dann ${rate} pro Minute` : ''}`,
  fr: (unlock, rate) => `${unlock} pour déverrouiller${rate ? `, puis ${rate} par minute` : ''}`,
}

export function pricingPlansData(plans: Map<string, PricingPlan>, language: string) {
  const lang = PLAN_TEXT[language] ? language : 'en'
  return {
    plans: [...plans.values()].map((p) => {
      const price = toMajor(p.unlockFee.amount, p.unlockFee.currency)
      const rate = p.perMinuteRate.amount > 0 ? toMajor(p.perMinuteRate.amount, p.perMinuteRate.currency) : undefined
      const money = (amount: number) => `${amount} ${p.currency}`
      const description = PLAN_TEXT[lang](money(price), rate === undefined ? undefined : money(rate))
      return {
        plan_id: p.planId,
        name: localized(p.name, language),
        currency: p.currency,
        price,
        // The prices the service shows are what the rider pays: nothing is added on top.
        is_taxable: false,
        description: localized(
          p.perMinuteRate.description ? `${description} (${p.perMinuteRate.description})` : description,
          lang,
        ),
        ...(rate !== undefined ? { per_min_pricing: [{ start: 0, rate, interval: 1 }] } : {}),
      }
    }),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// vehicle_status

/**
 * Rental links are published only when they do not name the provider's vehicle id: a link with a stable id would
 * undo the rotation of `vehicle_id`. (Vehicle tokens never go into links: they run out, the feed is cached.)
 */
export function publishableLinks(v: ProviderMicroVehicle): Record<string, string> | undefined {
  if (!v.deepLinks) return undefined
  const id = v.vehicleId.toLowerCase()
  const names = (link: string) => {
    const lower = link.toLowerCase()
    return lower.includes(id) || lower.includes(encodeURIComponent(id))
  }
  const links = Object.fromEntries(Object.entries(v.deepLinks).filter(([, link]) => link && !names(link)))
  return Object.keys(links).length > 0 ? links : undefined
}

export function vehicleStatusData(
  vehicles: ProviderMicroVehicle[],
  types: Map<string, GbfsVehicleType>,
  stationIds: Set<string>,
  rotate: (v: ProviderMicroVehicle) => string,
) {
  return {
    vehicles: vehicles.map((v) => {
      const type = types.get(typeKey(v))
      const charge = v.batteryPercent === undefined ? undefined : Math.min(100, Math.max(0, v.batteryPercent))
      const links = publishableLinks(v)
      return {
        vehicle_id: rotate(v),
        lat: v.latitude,
        lon: v.longitude,
        // Connectors say whether a vehicle can be rented, not why not: every one that cannot is published disabled.
        is_reserved: false,
        is_disabled: !v.isAvailable,
        ...(type ? { vehicle_type_id: type.id } : {}),
        last_reported: rfc3339(v.lastUpdated),
        ...(charge !== undefined && motorised(v.propulsionType)
          ? {
              current_fuel_percent: Math.round(charge * 10) / 1000,
              current_range_meters: Math.round((TYPICAL_RANGE_METERS[v.type] * charge) / 100),
            }
          : {}),
        ...(v.stationId && stationIds.has(v.stationId) ? { station_id: v.stationId } : {}),
        ...(v.pricingPlan ? { pricing_plan_id: v.pricingPlan.planId } : {}),
        ...(links ? { rental_uris: links } : {}),
      }
    }),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// station_information and station_status

export function stationInformationData(stations: ProviderMicroStation[], language: string) {
  return {
    stations: stations.map((s) => ({
      station_id: s.stationId,
      name: localized(s.name, language),
      lat: s.latitude,
      lon: s.longitude,
      is_virtual_station: s.isVirtual,
      ...(s.area ? { station_area: s.area } : {}),
      ...(s.capacity !== undefined ? { capacity: s.capacity } : {}),
    })),
  }
}

export function stationStatusData(
  stations: ProviderMicroStation[],
  vehicles: ProviderMicroVehicle[],
  types: Map<string, GbfsVehicleType>,
  fallbackTime: Date,
) {
  const at = new Map<string, ProviderMicroVehicle[]>()
  for (const v of vehicles) if (v.stationId) at.set(v.stationId, [...(at.get(v.stationId) ?? []), v])
  return {
    stations: stations.map((s) => {
      const here = at.get(s.stationId) ?? []
      const available = here.filter((v) => v.isAvailable)
      const counts = new Map([...types.values()].map((t) => [t.id, 0]))
      for (const v of available) {
        const id = types.get(typeKey(v))?.id
        if (id) counts.set(id, (counts.get(id) ?? 0) + 1)
      }
      // Docks: what the provider counts, else what its capacity leaves (virtual stations have none to count).
      const docks =
        s.docksAvailable ??
        (!s.isVirtual && s.capacity !== undefined ? Math.max(0, s.capacity - here.length) : undefined)
      return {
        station_id: s.stationId,
        num_vehicles_available: available.length,
        num_vehicles_disabled: here.length - available.length,
        vehicle_types_available: [...counts].map(([vehicle_type_id, count]) => ({ vehicle_type_id, count })),
        ...(docks !== undefined ? { num_docks_available: docks } : {}),
        is_installed: s.isInstalled,
        is_renting: s.isRenting,
        is_returning: s.isReturning,
        last_reported: rfc3339(s.lastReported ?? fallbackTime),
      }
    }),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// geofencing_zones

type Rule = ProviderZone['rules'][number]

/**
 * GBFS applies the first listed zone where zones overlap: service areas (which allow everything) go last, so the
 * restrictions inside them win; the providers' order is kept otherwise. With a service area, outside it no ride may
 * start or end (`global_rules`); without one nothing is restricted outside the zones.
 */
export function geofencingData(zones: ProviderZone[], types: Map<string, GbfsVehicleType>, language: string) {
  const ordered = [...zones.filter((z) => z.kind !== 'SERVICE_AREA'), ...zones.filter((z) => z.kind === 'SERVICE_AREA')]
  const rule = (r: Rule) => {
    // Rules name domain vehicle types; GBFS names vehicle type ids. A rule for types the fleet does not have stays
    // unscoped, as the GBFS connector reads one: a restriction is safer applied too widely than dropped.
    const ids = r.vehicleTypes
      ? [...types.values()].filter((t) => r.vehicleTypes?.includes(t.type)).map((t) => t.id)
      : []
    return {
      ...(ids.length > 0 ? { vehicle_type_ids: ids } : {}),
      ride_start_allowed: r.rideStartAllowed,
      ride_end_allowed: r.rideEndAllowed,
      ride_through_allowed: r.rideThroughAllowed,
      ...(r.maximumSpeedKph !== undefined ? { maximum_speed_kph: Math.round(r.maximumSpeedKph) } : {}),
      ...(r.stationParking !== undefined ? { station_parking: r.stationParking } : {}),
    }
  }
  return {
    geofencing_zones: {
      type: 'FeatureCollection',
      features: ordered.map((z) => ({
        type: 'Feature',
        geometry: {
          type: 'MultiPolygon',
          coordinates: z.geometry.type === 'Polygon' ? [z.geometry.coordinates] : z.geometry.coordinates,
        },
        properties: {
          ...(z.name ? { name: localized(z.name, language) } : {}),
          rules: z.rules.map(rule),
        },
      })),
    },
    global_rules: zones.some((z) => z.kind === 'SERVICE_AREA')
      ? [{ ride_start_allowed: false, ride_end_allowed: false, ride_through_allowed: true }]
      : [],
  }
}

// ---------------------------------------------------------------------------------------------------------------
// system_information

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const absoluteUrl = (value: string | undefined) => {
  try {
    return value && /^https?:$/.test(new URL(value).protocol) ? value : undefined
  } catch {
    return undefined
  }
}

export interface SystemInput {
  entry: ProviderEntry
  language: string
  manifestUrl: string
  /** GBFS_CONTACT_EMAIL, the address feed consumers report problems to. */
  contactEmail: string
}

export function systemInformationData({ entry, language, manifestUrl, contactEmail }: SystemInput) {
  const phone = entry.contact?.phone?.replace(/[\s()./-]/g, '')
  const email = entry.contact?.email
  const url = absoluteUrl(entry.websiteUrl)
  return {
    system_id: entry.id,
    languages: [language],
    name: localized(entry.name, language),
    operator: localized(entry.name, language),
    // The providers behind the service publish no opening hours: vehicles in the feed can be rented now.
    opening_hours: '24/7',
    feed_contact_email: contactEmail,
    timezone: timezoneOf(entry),
    manifest_url: manifestUrl,
    ...(url ? { url } : {}),
    ...(email && EMAIL.test(email) ? { email } : {}),
    ...(phone && /^\+[1-9]\d{1,14}$/.test(phone) ? { phone_number: phone } : {}),
  }
}
