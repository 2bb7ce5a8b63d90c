import type { PricingPlan, PropulsionType, VehicleType } from '../../../contract/micromobility.ts'
import type { Coordinates } from '../../../contract/shared.ts'
import { distanceMeters } from '../../../platform/geo.ts'
import { hash32, seededRandom } from '../common.ts'
import { pointInDisc } from './geometry.ts'
import {
  ALEXANDERPLATZ,
  BERLIN_CENTRE,
  BIKE_STATIONS,
  FLEET_RADIUS_M,
  HAUPTBAHNHOF,
  type MicroKind,
  parkingForbidden,
  STATION_HALF_SIDE_M,
} from './zones.ts'

export const DEFAULT_FLEET_SIZE: Record<MicroKind, number> = { scoot: 400, bike: 250 }
/** Below this charge a vehicle cannot be rented. */
export const MIN_BATTERY_PERCENT = 5

const eur = (amount: number) => Object.freeze({ amount, currency: 'EUR' })
// Frozen, as the vehicles that carry them (the search keeps a frozen vehicle's serialized fields beside it).
const plan = (planId: string, name: string, unlockFee: number, perMinuteRate: number): PricingPlan =>
  Object.freeze({ planId, name, currency: 'EUR', unlockFee: eur(unlockFee), perMinuteRate: eur(perMinuteRate) })

export const SCOOT_PLANS = {
  standard: plan('scoot-standard', 'Standard', 100, 25),
  night: plan('scoot-night', 'Night', 50, 19),
}
export const BIKE_PLANS = {
  classic: plan('bike-classic', 'Classic', 100, 10),
  electric: plan('bike-e', 'E-Bike', 100, 20),
  cargo: plan('bike-cargo', 'Cargo', 150, 25),
}

/** A vehicle as the simulated provider has it before anyone rides it. */
export interface BaseVehicle {
  vehicleId: string
  type: VehicleType
  propulsionType: PropulsionType
  name: string
  latitude: number
  longitude: number
  batteryPercent?: number
  /** In the workshop: listed, but not available. */
  maintenance: boolean
  pricingPlan: PricingPlan
  deepLinks?: { android: string; ios: string; web: string }
  qrCode?: string
  /** The virtual station it is parked at (bikes). */
  stationId?: string
}

/** A parking spot around `anchor` inside the fleet radius, away from no-parking and no-riding zones. */
function parkingSpot(anchor: Coordinates, radius: number, random: () => number): Coordinates {
  let point = anchor
  for (let attempt = 0; attempt < 50; attempt++) {
    point = pointInDisc(anchor, radius, random)
    if (distanceMeters(point, BERLIN_CENTRE) <= FLEET_RADIUS_M && !parkingForbidden(point)) return point
  }
  return anchor
}

const pick = <T>(random: () => number, items: readonly T[]) => items[Math.floor(random() * items.length)]
const between = (random: () => number, min: number, max: number) => min + Math.floor(random() * (max - min + 1))

function scooter(id: string, random: () => number): Omit<BaseVehicle, 'vehicleId'> {
  const where = random()
  const spot =
    where < 0.22
      ? parkingSpot(ALEXANDERPLATZ, 450, random)
      : where < 0.4
        ? parkingSpot(HAUPTBAHNHOF, 450, random)
        : parkingSpot(BERLIN_CENTRE, FLEET_RADIUS_M, random)
  const low = random() < 0.1
  return {
    type: 'SCOOTER',
    propulsionType: 'ELECTRIC',
    name: `Sandbox Scoot ${pick(random, ['S1', 'S2', 'S2', 'S3'])}`,
    latitude: spot.latitude,
    longitude: spot.longitude,
    batteryPercent: low ? between(random, MIN_BATTERY_PERCENT, 19) : between(random, 20, 100),
    maintenance: random() < 0.03,
    pricingPlan: random() < 0.15 ? SCOOT_PLANS.night : SCOOT_PLANS.standard,
    qrCode: `sandbox:${id}`,
  }
}

function bike(id: string, random: () => number, websiteUrl: string): Omit<BaseVehicle, 'vehicleId'> {
  const kind = random()
  const cargo = kind < 0.08
  const electric = cargo ? random() < 0.6 : kind < 0.36
  const atStation = random() < 0.4
  const station = atStation ? pick(random, BIKE_STATIONS) : undefined
  const spot = station
    ? pointInDisc(station.coordinates, STATION_HALF_SIDE_M * 0.8, random)
    : parkingSpot(BERLIN_CENTRE, FLEET_RADIUS_M, random)
  const link = `${websiteUrl}/app/vehicle/${id}`
  return {
    type: cargo ? 'CARGO_BICYCLE' : 'BICYCLE',
    propulsionType: electric ? 'ELECTRIC_ASSIST' : 'HUMAN',
    name: cargo ? `Sandbox Bike Cargo${electric ? ' E' : ''}` : electric ? 'Sandbox Bike E' : 'Sandbox Bike Classic',
    latitude: spot.latitude,
    longitude: spot.longitude,
    ...(electric ? { batteryPercent: between(random, 10, 100) } : {}),
    maintenance: random() < 0.03,
    pricingPlan: cargo ? BIKE_PLANS.cargo : electric ? BIKE_PLANS.electric : BIKE_PLANS.classic,
    deepLinks: Object.freeze({ android: link, ios: link, web: `${websiteUrl}/vehicle/${id}` }),
    // Every sandbox vehicle carries `sandbox:<vehicleId>` (DECISIONS); a bike found by it answers with deep links.
    qrCode: `sandbox:${id}`,
    ...(station ? { stationId: station.id } : {}),
  }
}

/**
 * The deterministic fleet of a provider: the same seed and size give the same vehicles, and each vehicle depends only
 * on the seed and its number, so a larger fleet keeps the vehicles of a smaller one.
 */
export function buildFleet(kind: MicroKind, seed: string, size: number, websiteUrl: string): BaseVehicle[] {
  const digits = Math.max(4, String(size).length)
  const vehicles: BaseVehicle[] = []
  for (let n = 1; n <= size; n++) {
    const vehicleId = `${kind}-${String(n).padStart(digits, '0')}`
    const random = seededRandom(hash32(`${seed}:${vehicleId}`))
    vehicles.push({
      vehicleId,
      ...(kind === 'scoot' ? scooter(vehicleId, random) : bike(vehicleId, random, websiteUrl)),
    })
  }
  return vehicles
}
