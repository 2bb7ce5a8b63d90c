import { createHash } from 'node:crypto'
import { ApiError } from '../../contract/errors.ts'
import type { VehicleType } from '../../contract/micromobility.ts'
import type { Modality } from '../../contract/providers.ts'
import { problemLog } from '../shared/problems.ts'
import type { Capabilities, ConnectorDeps, ConnectorFactory, ProviderEntry } from '../types/common.ts'
import type {
  FleetSnapshot,
  MicromobilityConnector,
  ProviderMicroStation,
  ProviderZone,
} from '../types/micromobility.ts'
import { type FeedName, GbfsFeeds } from './feeds.ts'
import { mapSystemInformation } from './map.ts'
import { mapStations, type StationInfo } from './map-stations.ts'
import { mapPricingPlans, mapVehicleTypes, type VehicleTypeInfo } from './map-types.ts'
import { mapVehicles } from './map-vehicles.ts'
import { mapZones, type ZoneEntry } from './map-zones.ts'
import { parseGbfsOptions } from './options.ts'

export { type GbfsOptions, parseGbfsOptions } from './options.ts'

/**
 * GBFS 2.3 and 3.0 (MobilityData): a search-only micromobility provider over public feeds. Vehicles come from
 * vehicle_status / free_bike_status (docked ones placed at their station), with vehicle_types, system_pricing_plans
 * and rental_uris as deep links; zones from geofencing_zones. Feeds are read again by their `ttl` and served from
 * memory in between; a bad record or a failing feed is logged in `problems()` and never takes the rest down.
 */

export interface GbfsConnector extends MicromobilityConnector {
  /** Recent problems, oldest first: `<time> <feed>: <message>` with ` (×n)` when repeated. */
  problems(): string[]
  /** The URLs of the feeds in use, by feed name. */
  feedUrls(): Record<string, string>
}

const MODALITY_OF: Partial<Record<VehicleType, Modality>> = {
  SCOOTER: 'SCOOTER',
  BICYCLE: 'BIKE',
  CARGO_BICYCLE: 'BIKE',
  MOPED: 'MOPED',
}

const hashOf = (...parts: string[]) => createHash('sha1').update(parts.join('|')).digest('hex').slice(0, 16)

/** Waits for `promise`, giving up when the call's signal aborts (the load itself goes on). */
function within<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) {
    // Nobody else may wait for the load this call started: its failure must not go unhandled.
    promise.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolvePromise, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort)
        resolvePromise(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort)
        reject(error)
      },
    )
  })
}

export function createGbfsConnector(entry: ProviderEntry, deps: ConnectorDeps): GbfsConnector {
  const options = parseGbfsOptions(entry.options, entry.id)
  // Known synchronously; the first load sets what the feeds show.
  const capabilities: Capabilities = {
    modalities: ['BIKE'],
    operations: ['SEARCH', 'ZONES'],
    stationBased: false,
    freeFloating: true,
    requiresStoredBooking: false,
  }
  const log = problemLog('gbfs', entry.id, deps.clock, options.logger ?? deps.logger)
  const stopping = new AbortController()
  const monotonic = () => performance.now()
  const feeds = new GbfsFeeds({
    url: options.url,
    ...(options.language ? { language: options.language } : {}),
    localFeeds: options.localFeeds,
    ...(options.systemId ? { systemId: options.systemId } : {}),
    minTtlSeconds: options.minTtlSeconds,
    timeoutMs: options.timeoutMs,
    maxFeedBytes: options.maxFeedBytes,
    ...(options.headers ? { headers: options.headers } : {}),
    log,
    clock: deps.clock,
    monotonic,
    signal: stopping.signal,
  })

  let snapshot: FleetSnapshot = { version: 'empty', vehicles: [] }
  let stationList: ProviderMicroStation[] = []
  let zoneEntries: ZoneEntry[] = []
  let fleetKey = ''
  let zonesKey = ''
  let loaded = false
  let loading: Promise<void> | undefined
  let lastFailure: { at: number; error: Error } | undefined
  let cycle: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false

  /** Maps what changed since the last build; the snapshot keeps its version (and identity) when nothing did. */
  function rebuild(): void {
    const language = feeds.language
    const scoped = <T>(feed: FeedName, map: (report: (m: string) => void) => T): T => {
      const scope = log.scope(feed)
      try {
        return map(scope.report)
      } finally {
        scope.flush()
      }
    }
    const vehicleFeed = feeds.vehicleFeed
    const inputs: FeedName[] = [
      vehicleFeed,
      'station_information',
      'station_status',
      'vehicle_types',
      'system_pricing_plans',
      'system_information',
    ]
    const nextFleetKey = inputs.map((name) => `${name}=${feeds.hash(name)}`).join(',')
    const nextZonesKey = `${feeds.hash('geofencing_zones')},${feeds.hash('vehicle_types')}`
    if (nextFleetKey === fleetKey && nextZonesKey === zonesKey) return

    const typesFeed = feeds.get('vehicle_types')
    let types: Map<string, VehicleTypeInfo> | undefined
    if (typesFeed) types = scoped('vehicle_types', (report) => mapVehicleTypes(typesFeed, language, report))

    if (nextFleetKey !== fleetKey) {
      const plansFeed = feeds.get('system_pricing_plans')
      const plans = plansFeed
        ? scoped('system_pricing_plans', (report) => mapPricingPlans(plansFeed, language, report))
        : new Map()
      const stationInfo = feeds.get('station_information')
      const stations = stationInfo
        ? scoped('station_information', (report) =>
            mapStations(stationInfo, feeds.get('station_status'), language, report),
          )
        : new Map()
      const systemFeed = feeds.get('system_information')
      const systemLinks = systemFeed ? mapSystemInformation(systemFeed) : undefined
      const vehiclesFeed = feeds.get(vehicleFeed)
      const fleet = vehiclesFeed
        ? scoped(vehicleFeed, (report) =>
            mapVehicles(
              vehicleFeed,
              vehiclesFeed,
              { types, plans, stations, ...(systemLinks ? { systemLinks } : {}), now: deps.clock() },
              report,
            ),
          )
        : { vehicles: [], freeFloating: 0 }
      snapshot = { version: hashOf(nextFleetKey), vehicles: fleet.vehicles }
      stationList = [...stations].map(([stationId, info]) => stationOf(stationId, info))
      fleetKey = nextFleetKey

      const present = new Set<VehicleType>([...(types?.values() ?? [])].map((t) => t.type))
      for (const v of fleet.vehicles) present.add(v.type)
      const modalities = [...new Set([...present].map((t) => MODALITY_OF[t]).filter((m) => m !== undefined))]
      capabilities.modalities = modalities.length > 0 ? modalities : ['BIKE']
      capabilities.stationBased = stations.size > 0
      capabilities.freeFloating = fleet.freeFloating > 0
    }
    if (nextZonesKey !== zonesKey) {
      const zonesFeed = feeds.get('geofencing_zones')
      zoneEntries = zonesFeed
        ? scoped('geofencing_zones', (report) => mapZones(zonesFeed, types, language, report))
        : []
      zonesKey = nextZonesKey
    }
  }

  function schedule(): void {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (stopped) return
    const next = feeds.nextDueAt()
    if (!Number.isFinite(next)) return
    timer = setTimeout(refresh, Math.max(next - monotonic(), 10))
    timer.unref()
  }

  /** One refresh cycle at a time; the next is scheduled when it ends. */
  function refresh(): void {
    if (stopped || !loaded || cycle) return
    cycle = feeds
      .refresh()
      .then((changed) => {
        if (changed.size > 0 && !stopped) rebuild()
      })
      .catch((error: unknown) => log.add(`refresh failed: ${(error as Error).message}`))
      .finally(() => {
        cycle = undefined
        schedule()
      })
  }

  async function load(): Promise<void> {
    await feeds.discover()
    await feeds.refresh()
    rebuild()
    loaded = true
    schedule()
  }

  /** The first load, shared by start() and early calls; after a failure tried again at most every minTtlSeconds. */
  function ready(): Promise<void> {
    if (loaded) return Promise.resolve()
    if (loading) return loading
    if (stopped) return Promise.reject(new Error('the connector is stopped'))
    if (lastFailure && monotonic() - lastFailure.at < options.minTtlSeconds * 1000) {
      return Promise.reject(lastFailure.error)
    }
    loading = load()
      .catch((error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error))
        const wrapped = new Error(`GBFS discovery failed: ${failure.message}`)
        lastFailure = { at: monotonic(), error: wrapped }
        log.add(wrapped.message)
        throw wrapped
      })
      .finally(() => {
        loading = undefined
      })
    return loading
  }

  async function whenReady(signal: AbortSignal | undefined): Promise<void> {
    try {
      await within(ready(), signal)
    } catch (error) {
      // The caller gave up: TIMEOUT, as every connector answers (not the signal's bare AbortError).
      if (signal?.aborted) {
        throw new ApiError('TIMEOUT', 'The provider call was aborted', { providerId: entry.id, reason: 'ABORTED' })
      }
      throw new ApiError('PROVIDER_ERROR', (error as Error).message, { providerId: entry.id })
    }
    if (feeds.isDue()) refresh()
  }

  return {
    capabilities,
    start: () => ready(),
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = undefined
      stopping.abort()
      await cycle?.catch(() => {})
    },
    async fleet(ctx) {
      await whenReady(ctx?.signal)
      return snapshot
    },
    async zones(ctx) {
      await whenReady(ctx?.signal)
      const now = deps.clock().getTime()
      return zoneEntries
        .filter((z) => (z.start === undefined || z.start <= now) && (z.end === undefined || z.end > now))
        .map((z): ProviderZone => z.zone)
    },
    async stations(ctx) {
      await whenReady(ctx?.signal)
      return stationList
    },
    problems: () => log.list(),
    feedUrls: () => feeds.urls(),
    feedAgeSeconds: () => {
      const published = feeds.realtimeLastUpdated()
      return published ? (deps.clock().getTime() - published.getTime()) / 1000 : undefined
    },
  }
}

/** A station of station_information (with its station_status) as the service's micromobility stations have it. */
function stationOf(stationId: string, info: StationInfo): ProviderMicroStation {
  return {
    stationId,
    name: info.name ?? stationId,
    latitude: info.latitude,
    longitude: info.longitude,
    isVirtual: info.isVirtual,
    ...(info.area ? { area: info.area } : {}),
    ...(info.capacity !== undefined ? { capacity: info.capacity } : {}),
    ...(info.docksAvailable !== undefined ? { docksAvailable: info.docksAvailable } : {}),
    isInstalled: info.isInstalled,
    isRenting: info.isRenting,
    isReturning: info.isReturning,
    ...(info.lastReported ? { lastReported: info.lastReported } : {}),
  }
}

/** The `gbfs` connector of the providers file (DECISIONS "Providers file"): `options.url` is the discovery file. */
export const gbfs: ConnectorFactory = (entry, deps) => createGbfsConnector(entry, deps) satisfies MicromobilityConnector
