import { around } from 'geokdbush'
import KDBush from 'kdbush'
import type { Registry } from '../../connectors/registry.ts'
import type { Provider } from '../../connectors/types/common.ts'
import {
  isTransitVehicleConnector,
  type TransitVehicle,
  type TransitVehicleConnector,
  type TransitVehicleSnapshot,
} from '../../connectors/types/public-transport.ts'
import { ApiError } from '../../contract/errors.ts'
import type { TransitVehicle as PresentedVehicle, TransitVehicleQuery } from '../../contract/transit-vehicles.ts'
import { distanceMeters } from '../../platform/geo.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { failIfNoProviderAnswered, mergedPage, providerOutcome } from '../providers/merged-pages.ts'
import { lineOf, scopedStopId } from './stops.ts'

/**
 * Live transit vehicles (DECISIONS "Real-time transit and GBFS out"): GET /public-transport/vehicles and the
 * `transit-vehicles` layer of the map tiles. Every provider with capability VEHICLE_POSITIONS is asked through the
 * resilience layer; one that fails leaves out its own vehicles only.
 */

export type VehicleProvider = Provider & { connector: TransitVehicleConnector }

/** One provider's vehicles with a k-d tree over their positions, rebuilt only when the snapshot's version changes. */
export interface VehicleIndex {
  version: string
  vehicles: TransitVehicle[]
  /** Indexes into `vehicles` within `radiusMeters`, nearest first, at most `max`. */
  within(latitude: number, longitude: number, radiusMeters: number, max: number): number[]
  /** Indexes into `vehicles` inside the box, in list order. */
  inBox(west: number, south: number, east: number, north: number): number[]
}

function buildIndex(snapshot: TransitVehicleSnapshot): VehicleIndex {
  const { vehicles } = snapshot
  const index = new KDBush(Math.max(1, vehicles.length))
  for (const v of vehicles) index.add(v.longitude, v.latitude)
  if (vehicles.length === 0) index.add(0, 0)
  index.finish()
  return {
    version: snapshot.version,
    vehicles,
    within: (latitude, longitude, radiusMeters, max) =>
      vehicles.length === 0 ? [] : around(index, longitude, latitude, max, radiusMeters / 1000),
    inBox: (west, south, east, north) =>
      vehicles.length === 0 ? [] : index.range(west, south, east, north).sort((a, b) => a - b),
  }
}

/** The tenant's vehicle providers and their indexed snapshots (one index per provider, kept between calls). */
export function transitVehicleFeeds(deps: { registry: Registry; callProvider: CallProvider }) {
  const cache = new Map<string, VehicleIndex>()
  return {
    providers: (caller: Caller): VehicleProvider[] =>
      eligibleProviders(deps.registry, caller, 'VEHICLE_POSITIONS', isTransitVehicleConnector),
    async index(caller: Caller, p: VehicleProvider, timeoutMs: number): Promise<VehicleIndex> {
      const snapshot = await deps.callProvider(caller, p, 'vehicles', timeoutMs, (c, ctx) => c.vehicles(ctx), true)
      const cached = cache.get(p.entry.id)
      if (cached && cached.version === snapshot.version) return cached
      const built = buildIndex(snapshot)
      cache.set(p.entry.id, built)
      return built
    },
  }
}

export const scopedVehicleId = (providerId: string, vehicleId: string) => `${providerId}:${vehicleId}`

export function presentVehicle(p: Provider, v: TransitVehicle, distance: number): PresentedVehicle {
  return {
    vehicleId: scopedVehicleId(p.entry.id, v.id),
    provider: { id: p.entry.id, name: p.entry.name },
    location: {
      latitude: v.latitude,
      longitude: v.longitude,
      ...(v.bearing !== undefined ? { bearing: v.bearing } : {}),
      ...(v.speed !== undefined ? { speed: v.speed } : {}),
    },
    ...(v.line ? { line: lineOf(v.line) } : {}),
    ...(v.tripId ? { tripId: v.tripId } : {}),
    ...(v.label ? { label: v.label } : {}),
    ...(v.headsign ? { headsign: v.headsign } : {}),
    ...(v.stop ? { stop: { stopId: scopedStopId(p.entry.id, v.stop.id), name: v.stop.name } } : {}),
    ...(v.currentStatus ? { currentStatus: v.currentStatus } : {}),
    ...(v.occupancy ? { occupancy: v.occupancy } : {}),
    lastUpdated: v.lastUpdated.toISOString(),
    distanceFromSearch: Math.round(distance),
  }
}

/** Cursors of this list (src/domain/token-diagnosis.ts). */
const cursorContext = (caller: Caller) => ({
  kind: 'transit-vehicles-cursor' as const,
  tenantId: caller.tenant.id,
  environment: caller.environment,
})

/** GET /public-transport/vehicles: nearest first, merged over the providers, in cursor pages (spec 8). */
export function createPublicTransportVehicles(deps: {
  registry: Registry
  callProvider: CallProvider
  tokens: TokenCipher
  timeoutMs: number
}) {
  const feeds = transitVehicleFeeds(deps)

  return async function list(q: TransitVehicleQuery, caller: Caller) {
    const { latitude, longitude } = q
    const radius = q.radiusMeters ?? 1000
    const limit = q.limit ?? 20
    const all = feeds.providers(caller)
    let providers = all
    if (q.provider !== undefined) {
      providers = all.filter((p) => p.entry.id === q.provider)
      // Unknown, not the tenant's, or publishing no vehicles: the same answer, as for stops.
      if (providers.length === 0)
        throw new ApiError('NOT_FOUND', undefined, { resource: 'provider', provider: q.provider })
    }
    const here = { latitude, longitude }
    const sources = providers.map((p) => ({
      id: p.entry.id,
      fetch: async (want: number) => {
        const index = await feeds.index(caller, p, deps.timeoutMs)
        return index.within(latitude, longitude, radius, want).map((i, at) => {
          const v = index.vehicles[i]
          const vehicle = presentVehicle(p, v, distanceMeters(here, { latitude: v.latitude, longitude: v.longitude }))
          return { vehicle, at }
        })
      },
    }))
    const merged = await mergedPage({
      tokens: deps.tokens,
      context: cursorContext(caller),
      cursor: q.cursor,
      params: [latitude, longitude, radius, q.provider],
      now: caller.now,
      limit,
      sources,
      compare: (a, b) =>
        a.vehicle.distanceFromSearch - b.vehicle.distanceFromSearch ||
        a.at - b.at ||
        a.vehicle.vehicleId.localeCompare(b.vehicle.vehicleId),
    })
    const outcomes = merged.settled.map((answer, i) =>
      providerOutcome(
        providers[i],
        answer,
        caller.language,
        'vehicles',
        merged.items.filter((x) => x.vehicle.provider.id === providers[i].entry.id).length,
      ),
    )
    if (!q.cursor) failIfNoProviderAnswered(merged.settled, outcomes)
    return {
      vehicles: merged.items.map((x) => x.vehicle),
      pagination: merged.hasMore ? { hasMore: true, nextCursor: merged.nextCursor } : { hasMore: false },
      providers: outcomes,
    }
  }
}

export type PublicTransportVehicles = ReturnType<typeof createPublicTransportVehicles>
