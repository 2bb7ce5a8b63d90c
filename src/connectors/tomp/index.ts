import { createHash, randomUUID } from 'node:crypto'
import type { PricingPlan } from '../../contract/micromobility.ts'
import { problemLog } from '../shared/problems.ts'
import type { Capabilities, ConnectorDeps, ConnectorFactory, ProviderEntry } from '../types/common.ts'
import type {
  FleetSnapshot,
  MicromobilityConnector,
  ProviderMicroVehicle,
  ProviderZone,
} from '../types/micromobility.ts'
import { type Refreshing, refreshing } from './cache.ts'
import { type CallOptions, operatorError, tompClient } from './client.ts'
import { MODALITY_OF_TYPE, mapAssets, mapInformation, modalitiesOfClasses, type OperatorInfo } from './map.ts'
import { mapPricingPlans, planOf } from './map-pricing.ts'
import { mapRegions } from './map-regions.ts'
import { parseTompOptions } from './options.ts'
import { tompTrips } from './trips.ts'

export { parseTompOptions, type TompOptions } from './options.ts'

/**
 * A TOMP-API 1.x transport operator (https://github.com/TOMP-WG/TOMP-API) for bikes, scooters and mopeds. Search
 * reads /operator/available-assets (map-oriented: asset types with their assets) with /operator/pricing-plans, zones
 * read /operator/regions; both are kept in memory between reads. With `trips: true` the operator also books and runs
 * rides (plannings, bookings and leg events, see ./trips.ts). Bad records are logged in `problems()` and skipped.
 */

export interface TompConnector extends MicromobilityConnector {
  /** Recent problems, oldest first: `<time> <message>` with ` (×n)` when repeated. */
  problems(): string[]
}

const INFORMATION_REFRESH_MS = 3_600_000
/** How long the mark of a booking change stays in the shared store (an instance that missed it reads at refresh). */
const CHANGE_MARK_TTL_MS = 86_400_000
/** Zones are kept per language; more languages than this in use start the list afresh. */
const MAX_ZONE_LANGUAGES = 8

const hashOf = (value: unknown) => createHash('sha1').update(JSON.stringify(value)).digest('hex').slice(0, 16)

export function createTompConnector(entry: ProviderEntry, deps: ConnectorDeps): TompConnector {
  const options = parseTompOptions(entry.options, entry.id)
  const client = tompClient({
    url: options.url,
    apiVersion: options.apiVersion,
    maasId: options.maasId,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.token ? { token: options.token } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxFeedBytes,
  })
  const log = problemLog('tomp', entry.id, deps.clock, options.logger ?? deps.logger)
  // Shared reads are not the caller's: they end when the connector stops (or at the timeout), not when one caller
  // gives up, so the next caller finds them done.
  const stopping = new AbortController()
  const shared = (language: string): CallOptions => ({ language, signal: stopping.signal })
  const capabilities: Capabilities = {
    modalities: ['BIKE'],
    operations: ['SEARCH', 'ZONES', ...(options.trips ? (['TRIPS', 'VEHICLE_ACTIONS'] as const) : [])],
    stationBased: false,
    freeFloating: true,
    requiresStoredBooking: false,
  }
  const timing = { clock: deps.clock, maxStaleMs: options.maxStaleSeconds * 1000 }
  const stale = (what: string) => (error: unknown) =>
    log.add(`${what} failed, answering the copy read before: ${operatorError(error).message}`)
  const reading = <T>(what: string, load: () => Promise<T>) =>
    load().catch((error: unknown) => {
      const failure = operatorError(error)
      log.add(`${what} failed: ${failure.message}`)
      throw failure
    })

  let info: OperatorInfo = { assetClasses: [] }
  let atStations = 0
  const information = refreshing({
    ...timing,
    refreshMs: INFORMATION_REFRESH_MS,
    maxStaleMs: Number.POSITIVE_INFINITY,
    onStale: stale('operator/information'),
    load: () =>
      reading('operator/information', async () => {
        info = mapInformation(await client.get('operator/information', shared(options.language)))
        updateCapabilities()
        return info
      }),
  })

  let plans = new Map<string, PricingPlan>()
  let snapshot: FleetSnapshot = { version: 'empty', vehicles: [] }
  async function loadFleet(): Promise<FleetSnapshot> {
    const call = shared(options.language)
    const [assets] = await Promise.all([
      client.get('operator/available-assets', call),
      // Plans only price the vehicles: without them the fleet is still worth showing, with the plans read before.
      client.get('operator/pricing-plans', call).then(
        (raw) => {
          plans = mapPricingPlans(raw, scoped('operator/pricing-plans'))
        },
        (error: unknown) => log.add(`operator/pricing-plans failed: ${operatorError(error).message}`),
      ),
      information.get().catch(() => undefined),
    ])
    const now = deps.clock()
    const report = scoped('operator/available-assets')
    const fleet = mapAssets(
      assets,
      {
        planOf: (assetType) => planOf(assetType, plans, report),
        ...(info.links ? { links: info.links } : {}),
        now: now.getTime(),
      },
      report,
    )
    // A vehicle keeps the time it was first seen as it is now, so lastUpdated says when its state last changed.
    const before = new Map(snapshot.vehicles.map((v) => [v.vehicleId, v]))
    const vehicles = fleet.vehicles.map((v): ProviderMicroVehicle => {
      const old = before.get(v.vehicleId)
      const unchanged = old && hashOf({ ...old, lastUpdated: undefined }) === hashOf(v)
      return { ...v, lastUpdated: unchanged ? old.lastUpdated : now.toISOString() }
    })
    const version = hashOf(fleet.vehicles)
    if (version !== snapshot.version) snapshot = { version, vehicles }
    atStations = fleet.atStations
    updateCapabilities()
    return snapshot
  }
  const fleet = refreshing({
    ...timing,
    refreshMs: options.refreshSeconds * 1000,
    onStale: stale('operator/available-assets'),
    load: () => reading('operator/available-assets', loadFleet),
  })
  // A booking made through any instance changes the operator's fleet: it leaves a mark in the store the instances
  // share, and an instance that finds a mark it has not seen reads the fleet again instead of waiting for refresh.
  const changeKey = `tomp:${entry.id}:fleet-changed`
  let seenChange: string | undefined
  async function currentFleet(signal?: AbortSignal) {
    const mark = await deps.kv.get(changeKey).catch(() => seenChange)
    if (mark !== seenChange) {
      seenChange = mark
      fleet.invalidate()
    }
    return fleet.get(signal)
  }
  async function fleetChanged() {
    fleet.invalidate()
    seenChange = randomUUID()
    await deps.kv.set(changeKey, seenChange, CHANGE_MARK_TTL_MS).catch(() => undefined)
  }

  const zonesByLanguage = new Map<string, Refreshing<ProviderZone[]>>()
  function zonesIn(language: string): Refreshing<ProviderZone[]> {
    let zones = zonesByLanguage.get(language)
    if (!zones) {
      if (zonesByLanguage.size >= MAX_ZONE_LANGUAGES) zonesByLanguage.clear()
      zones = refreshing({
        ...timing,
        refreshMs: options.refreshSeconds * 1000,
        onStale: stale('operator/regions'),
        load: () =>
          reading('operator/regions', async () => {
            const raw = await client.get('operator/regions', shared(language))
            return mapRegions(raw, deps.clock().getTime(), scoped('operator/regions'))
          }),
      })
      zonesByLanguage.set(language, zones)
    }
    return zones
  }

  function scoped(what: string) {
    const scope = log.scope(what)
    // Reports of one read are summed up when the read is done (mapping is synchronous).
    queueMicrotask(scope.flush)
    return scope.report
  }

  /** What the operator says (typeOfSystem, assetClasses) first; what its fleet shows where it says nothing. */
  function updateCapabilities() {
    const fromTypes = snapshot.vehicles.map((v) => MODALITY_OF_TYPE[v.type]).filter((m) => m !== undefined)
    const modalities = [...new Set([...modalitiesOfClasses(info.assetClasses), ...fromTypes])]
    capabilities.modalities = modalities.length > 0 ? modalities : ['BIKE']
    const system = info.typeOfSystem
    const stationSystem = system === 'STATION_BASED' || system === 'VIRTUAL_STATION_BASED'
    capabilities.stationBased = stationSystem || atStations > 0
    capabilities.freeFloating = system === 'FREE_FLOATING' || (!stationSystem && atStations < snapshot.vehicles.length)
    if (!system && snapshot.vehicles.length === 0) capabilities.freeFloating = true
  }

  const connector: TompConnector = {
    capabilities,
    // Information is what tells a reachable, correctly configured operator; the fleet is only warmed.
    start: async () => {
      await information.get()
      await currentFleet().catch(() => undefined)
    },
    async stop() {
      stopping.abort()
    },
    fleet: (ctx) => currentFleet(ctx.signal),
    zones: (ctx) => zonesIn(ctx.language).get(ctx.signal),
    problems: () => log.list(),
  }
  if (options.trips) {
    connector.trips = tompTrips({
      client,
      options,
      fleet: { get: currentFleet, changed: fleetChanged },
    })
  }
  return connector
}

/** The `tomp` connector of the providers file: `options.url` is the operator's TOMP-API base URL. */
export const tomp: ConnectorFactory = (entry, deps) => createTompConnector(entry, deps) satisfies MicromobilityConnector
