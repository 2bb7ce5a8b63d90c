import KDBush from 'kdbush'
import type { FleetSnapshot, ProviderMicroVehicle } from '../../connectors/types/micromobility.ts'
import { nearestWithin } from '../../platform/nearest.ts'

/** A fleet with a k-d tree over its positions, answering radius queries nearest first. */
export interface FleetIndex {
  version: string
  vehicles: ProviderMicroVehicle[]
  /** Indexes into `vehicles` within `radiusMeters`, nearest first (then by index), that pass `accept`. */
  within(
    latitude: number,
    longitude: number,
    radiusMeters: number,
    accept?: (v: ProviderMicroVehicle) => boolean,
    max?: number,
  ): number[]
}

export function buildFleetIndex(snapshot: FleetSnapshot): FleetIndex {
  const { vehicles } = snapshot
  const index = new KDBush(Math.max(1, vehicles.length))
  for (const v of vehicles) index.add(v.longitude, v.latitude)
  if (vehicles.length === 0) index.add(0, 0)
  index.finish()
  return {
    version: snapshot.version,
    vehicles,
    within: (latitude, longitude, radiusMeters, accept, max = Number.POSITIVE_INFINITY) =>
      vehicles.length === 0
        ? []
        : nearestWithin(
            index,
            longitude,
            latitude,
            max,
            radiusMeters / 1000,
            accept ? (i) => accept(vehicles[i]) : undefined,
          ),
  }
}

/** Keeps one index per provider and rebuilds it only when the fleet's version changes. */
export function createFleetIndexCache() {
  const cache = new Map<string, FleetIndex>()
  return (providerId: string, snapshot: FleetSnapshot): FleetIndex => {
    const cached = cache.get(providerId)
    if (cached && cached.version === snapshot.version) return cached
    const built = buildFleetIndex(snapshot)
    cache.set(providerId, built)
    return built
  }
}

export type FleetIndexCache = ReturnType<typeof createFleetIndexCache>
