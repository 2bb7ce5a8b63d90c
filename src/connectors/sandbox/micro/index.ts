import type { Capabilities, ConnectorDeps, ProviderEntry } from '../../types/common.ts'
import type {
  FleetSnapshot,
  MicromobilityConnector,
  ProviderMicroStation,
  ProviderMicroVehicle,
} from '../../types/micromobility.ts'
import { squareRing } from './geometry.ts'
import { type MicroOptions, microRuntime } from './runtime.ts'
import { trips } from './trips.ts'
import { BIKE_STATIONS, type MicroKind, STATION_HALF_SIDE_M, zonesOf } from './zones.ts'

/**
 * A simulated micromobility provider (DECISIONS "Test environment and sandbox") around Berlin: `scoot` is a
 * trip-capable e-scooter provider (QR codes, reserve, start, lock, unlock, honk, end), `bike` a search-only bike
 * provider (deep links). The fleet is deterministic; what riders change (held vehicles, new positions, charge) lives
 * in `deps.kv` under `sandbox:<providerId>:<environment>:`, so every instance of the service sees the same fleet.
 */
export function createSandboxMicroConnector(
  kind: MicroKind,
  entry: ProviderEntry,
  deps: ConnectorDeps,
  capabilities: Capabilities,
  options: MicroOptions,
): MicromobilityConnector {
  const rt = microRuntime(kind, entry, deps, options)
  const { enter, present } = rt
  /** The last snapshot per environment: asked again at the same moment and version, it is answered as it is. */
  const snapshots = new Map<string, { key: string; snapshot: FleetSnapshot }>()

  function remember(env: string, key: string, build: () => ProviderMicroVehicle[], version: string) {
    const cached = snapshots.get(env)
    if (cached?.key === key) return cached.snapshot
    const snapshot = { version, vehicles: build() }
    snapshots.set(env, { key, snapshot })
    return snapshot
  }

  const connector: MicromobilityConnector = {
    capabilities,

    async fleet(ctx) {
      await enter(ctx, 'FLEET')
      const lastUpdated = ctx.now.toISOString()
      const base = rt.fleet().list
      if (kind === 'bike') {
        const version = `${rt.signature}.0`
        return remember(ctx.environment, version, () => base.map((v) => present(v, undefined, lastUpdated)), version)
      }
      const view = await rt.store.view(ctx.environment)
      const now = ctx.now.getTime()
      // A hold past its time no longer counts; counting those keeps the version moving when one lapses.
      let lapsed = 0
      for (const id in view.vehicles) {
        const o = view.vehicles[id]
        if (o.held && (o.until ?? 0) <= now) lapsed++
      }
      const version = `${rt.signature}.${view.version ?? '0'}${lapsed > 0 ? `.${lapsed}` : ''}`
      const build = () => {
        const vehicles: ProviderMicroVehicle[] = []
        for (const v of base) {
          const o = view.vehicles[v.vehicleId]
          if (o?.held && (o.until ?? 0) > now) continue
          vehicles.push(present(v, o, lastUpdated))
        }
        return vehicles
      }
      // One snapshot per fleet version: vehicles report the time their state last changed, and the service's
      // spatial index (kept per version) stays valid.
      return remember(ctx.environment, version, build, version)
    },

    async zones(ctx) {
      await enter(ctx, 'ZONES')
      return zonesOf(kind, ctx.language)
    },
  }
  if (kind === 'scoot') connector.trips = trips(rt)
  if (kind === 'bike') {
    // Virtual stations: marked parking squares (the PARKING zone), no docks; bikes parked there name theirs.
    connector.stations = async (ctx) => {
      await enter(ctx, 'STATIONS')
      return BIKE_STATIONS.map(
        (s): ProviderMicroStation => ({
          stationId: s.id,
          name: s.name,
          latitude: s.coordinates.latitude,
          longitude: s.coordinates.longitude,
          isVirtual: true,
          area: { type: 'MultiPolygon', coordinates: [[squareRing(s.coordinates, STATION_HALF_SIDE_M)]] },
          isInstalled: true,
          isRenting: true,
          isReturning: true,
        }),
      )
    }
  }
  return connector
}

export { type BaseVehicle, BIKE_PLANS, DEFAULT_FLEET_SIZE, MIN_BATTERY_PERCENT, SCOOT_PLANS } from './fleet.ts'
export { RESERVATION_HOLD_MS, RIDE_HOLD_MS } from './trips.ts'
export { ALEXANDERPLATZ, BERLIN_CENTRE, BIKE_STATIONS, HAUPTBAHNHOF, type MicroKind } from './zones.ts'
