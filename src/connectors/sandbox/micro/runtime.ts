import type { ConnectorDeps, ProviderEntry } from '../../types/common.ts'
import type { ProviderMicroVehicle } from '../../types/micromobility.ts'
import { hash32, type SimulationOptions, simulation } from '../common.ts'
import { type BaseVehicle, buildFleet, DEFAULT_FLEET_SIZE, MIN_BATTERY_PERCENT } from './fleet.ts'
import { microStore, type VehicleOverlay } from './state.ts'
import type { MicroKind } from './zones.ts'

export interface MicroOptions extends SimulationOptions {
  /** Vehicles in the fleet (default: scoot 400, bike 250). */
  fleetSize?: number
  /** Another seed gives another (again deterministic) fleet; default: the provider id. */
  seed?: string | number
}

/** Where a vehicle is and how charged it is, after any rides. */
export interface VehiclePosition {
  latitude: number
  longitude: number
  batteryPercent?: number
}

/** What the operations of one sandbox micromobility provider share: its fleet, state and simulation. */
export function microRuntime(kind: MicroKind, entry: ProviderEntry, deps: ConnectorDeps, options: MicroOptions) {
  const websiteUrl = (entry.websiteUrl ?? `https://${kind}.sandbox.example`).replace(/\/$/, '')
  const seed = String(options.seed ?? entry.id)
  const size = options.fleetSize ?? DEFAULT_FLEET_SIZE[kind]
  /** Part of every fleet version, so another seed or size never shares a version with this fleet. */
  const signature = hash32(`${kind}:${seed}:${size}`).toString(36)
  let base: { list: BaseVehicle[]; byId: Map<string, BaseVehicle> } | undefined
  const fleet = () => {
    if (!base) {
      const list = buildFleet(kind, seed, size, websiteUrl)
      base = { list, byId: new Map(list.map((v) => [v.vehicleId, v])) }
    }
    return base
  }

  const positionOf = (v: BaseVehicle, o: VehicleOverlay | undefined): VehiclePosition => {
    const batteryPercent = o ? o.batteryPercent : v.batteryPercent
    return {
      latitude: o?.latitude ?? v.latitude,
      longitude: o?.longitude ?? v.longitude,
      ...(batteryPercent === undefined ? {} : { batteryPercent }),
    }
  }

  /** The overlay for a free vehicle at `p`; undefined when that is just where and how it started. */
  const settle = (v: BaseVehicle, p: VehiclePosition): VehicleOverlay | undefined =>
    p.latitude === v.latitude && p.longitude === v.longitude && p.batteryPercent === v.batteryPercent
      ? undefined
      : { ...p }

  const rentable = (v: BaseVehicle, p: VehiclePosition) =>
    !v.maintenance && (p.batteryPercent === undefined || p.batteryPercent >= MIN_BATTERY_PERCENT)

  function present(v: BaseVehicle, o: VehicleOverlay | undefined, lastUpdated: string): ProviderMicroVehicle {
    const p = positionOf(v, o)
    // Frozen: a snapshot's vehicles are shared by every search of its version (which keeps their serialized fields).
    return Object.freeze({
      vehicleId: v.vehicleId,
      type: v.type,
      propulsionType: v.propulsionType,
      name: v.name,
      latitude: p.latitude,
      longitude: p.longitude,
      lastUpdated,
      isAvailable: rentable(v, p),
      ...(p.batteryPercent === undefined ? {} : { batteryPercent: p.batteryPercent }),
      pricingPlan: v.pricingPlan,
      ...(v.deepLinks ? { deepLinks: v.deepLinks } : {}),
      ...(v.qrCode ? { qrCode: v.qrCode } : {}),
      // Bikes parked at a virtual station until a ride moves them (bikes have no rides here).
      ...(v.stationId && o === undefined ? { stationId: v.stationId } : {}),
    })
  }

  return {
    kind,
    entry,
    deps,
    signature,
    fleet,
    store: microStore(deps.kv, entry.id, kind === 'scoot' ? 'SC' : 'SB'),
    enter: simulation(entry.id, options),
    positionOf,
    settle,
    rentable,
    present,
  }
}

export type MicroRuntime = ReturnType<typeof microRuntime>
