import type { Registry } from '../../connectors/registry.ts'
import type { CallContext, Provider } from '../../connectors/types/common.ts'
import {
  isMicromobilityConnector,
  type MicromobilityConnector,
  type ProviderMicroStation,
  type ProviderMicroVehicle,
  type ProviderZone,
} from '../../connectors/types/micromobility.ts'
import { ApiError } from '../../contract/errors.ts'
import { lru } from '../../platform/lru.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import {
  GBFS_FEEDS,
  type GbfsFeed,
  type GbfsVehicleType,
  geofencingData,
  isGbfsFeed,
  plansOf,
  pricingPlansData,
  rfc3339,
  stationInformationData,
  stationStatusData,
  systemInformationData,
  vehicleStatusData,
  vehicleTypesData,
  vehicleTypesOf,
} from './gbfs-out-feeds.ts'
import { vehicleIdRotation } from './gbfs-out-ids.ts'

/**
 * GBFS 3.0 out (DECISIONS "Real-time transit and GBFS out"): the tenant's micromobility providers as GBFS systems.
 * What a provider has is read once per provider, environment and language and kept `ttlSeconds` (the files' `ttl` says
 * how much of that is left); concurrent readers share one read, the number of entries kept is bounded, and a provider
 * that fails is answered from its last copy (with `ttl` 0) for at most `maxStaleSeconds`.
 */

export const GBFS_VERSION = '3.0'
/** How long one read of a provider is served: the `ttl` of its files. */
export const GBFS_TTL_SECONDS = 15
const MAX_STALE_SECONDS = 300
const MAX_ENTRIES = 128
/** A fleet is published up to this many vehicles (the first the provider lists): one file stays bounded work. */
export const MAX_FEED_VEHICLES = 100_000

export interface GbfsOutDeps {
  registry: Registry
  callProvider: CallProvider
  /** The secret of the rotated vehicle ids (TokenCipher.deriveKey). */
  secret: Buffer
  clock: () => Date
  /** Deadline of each provider call. */
  timeoutMs: number
  /** feed_contact_email of system_information (GBFS_CONTACT_EMAIL). */
  contactEmail: string
  ttlSeconds?: number
  maxStaleSeconds?: number
  maxEntries?: number
}

/** One GBFS file: the envelope every GBFS file has, around its `data`. */
export interface GbfsDocument<T = unknown> {
  last_updated: string
  ttl: number
  version: typeof GBFS_VERSION
  data: T
}

/** The JSON of each file's `data`, made once per read: `data` objects are kept with their read, and so is this. */
const dataJson = new WeakMap<object, string>()

/** A GBFS file as JSON; the `data` of a kept read (a fleet's vehicle_status can be megabytes) is serialized once. */
export function gbfsJson(file: GbfsDocument): string {
  const data = file.data
  if (typeof data !== 'object' || data === null) return JSON.stringify(file)
  let json = dataJson.get(data)
  if (json === undefined) {
    json = JSON.stringify(data)
    dataJson.set(data, json)
  }
  return `{"last_updated":${JSON.stringify(file.last_updated)},"ttl":${file.ttl},"version":"${file.version}","data":${json}}`
}

type MicroProvider = Provider & { connector: MicromobilityConnector }

interface Snapshot {
  provider: MicroProvider
  environment: string
  language: string
  builtAt: Date
  /** Epoch ms (service clock) until which this read is served. */
  expiresAt: number
  vehicles: ProviderMicroVehicle[]
  zones: ProviderZone[]
  stations: ProviderMicroStation[]
  types: Map<string, GbfsVehicleType>
  published: GbfsFeed[]
  /** The `data` of each file, made when first asked for (system_information, which names the host, is not kept). */
  data: Map<GbfsFeed, unknown>
}

export function createGbfsOut(deps: GbfsOutDeps) {
  const ttlMs = (deps.ttlSeconds ?? GBFS_TTL_SECONDS) * 1000
  const maxStaleMs = (deps.maxStaleSeconds ?? MAX_STALE_SECONDS) * 1000
  const cache = lru<string, Snapshot>(deps.maxEntries ?? MAX_ENTRIES)
  // Keys come from the registry's providers, two environments and the service's few languages: bounded.
  const building = new Map<string, Promise<Snapshot>>()

  const providersOf = (caller: Caller) => eligibleProviders(deps.registry, caller, 'SEARCH', isMicromobilityConnector)

  function providerOf(caller: Caller, providerId: string): MicroProvider {
    const provider = providersOf(caller).find((p) => p.entry.id === providerId)
    // Unknown, not enabled for the tenant, not in the key's environment, or not micromobility: no such system here.
    if (!provider) throw new ApiError('NOT_FOUND', undefined, { resource: 'gbfsSystem', providerId })
    return provider
  }

  async function build(caller: Caller, p: MicroProvider, previous: Snapshot | undefined): Promise<Snapshot> {
    const call = <T>(operation: string, fn: (c: MicromobilityConnector, ctx: CallContext) => Promise<T>) =>
      deps.callProvider(caller, p, operation, deps.timeoutMs, fn, true)
    const stationsOf = p.connector.stations?.bind(p.connector)
    const [fleet, zones, stations] = await Promise.allSettled([
      call('fleet', (c, ctx) => c.fleet(ctx)),
      p.connector.capabilities.operations.includes('ZONES')
        ? call('zones', (c, ctx) => c.zones(ctx))
        : Promise.resolve<ProviderZone[]>([]),
      stationsOf ? call('stations', (_c, ctx) => stationsOf(ctx)) : Promise.resolve<ProviderMicroStation[]>([]),
    ])
    if (fleet.status === 'rejected') throw fleet.reason
    // Zones and stations that cannot be read now: the ones read before, else none (their files are then not listed).
    const vehicles = fleet.value.vehicles.slice(0, MAX_FEED_VEHICLES)
    const zoneList = zones.status === 'fulfilled' ? zones.value : (previous?.zones ?? [])
    const stationList = stations.status === 'fulfilled' ? stations.value : (previous?.stations ?? [])
    const types = vehicleTypesOf(vehicles)
    const present: Record<GbfsFeed, boolean> = {
      system_information: true,
      vehicle_types: true,
      vehicle_status: true,
      station_information: stationList.length > 0,
      station_status: stationList.length > 0,
      geofencing_zones: zoneList.length > 0,
      system_pricing_plans: vehicles.some((v) => v.pricingPlan),
    }
    const builtAt = deps.clock()
    return {
      provider: p,
      environment: caller.environment,
      language: caller.language,
      builtAt,
      expiresAt: builtAt.getTime() + ttlMs,
      vehicles,
      zones: zoneList,
      stations: stationList,
      types,
      published: GBFS_FEEDS.filter((name) => present[name]),
      data: new Map(),
    }
  }

  /** The provider's current read: kept, shared with concurrent readers, or the last one while the provider fails. */
  async function snapshotOf(caller: Caller, p: MicroProvider): Promise<{ snapshot: Snapshot; stale: boolean }> {
    // A test scenario aimed at this provider (X-Sandbox-Scenario) is this request's alone: nothing kept is used or kept.
    if (caller.scenarios.some((s) => !s.target || s.target === p.entry.id)) {
      return { snapshot: await build(caller, p, undefined), stale: false }
    }
    const key = `${p.entry.id}|${caller.environment}|${caller.language}`
    const now = deps.clock().getTime()
    const cached = cache.get(key)
    if (cached && now < cached.expiresAt) return { snapshot: cached, stale: false }
    let pending = building.get(key)
    if (!pending) {
      // The read is everyone's: it does not end when the first caller goes away.
      pending = build({ ...caller, signal: undefined }, p, cached).then((snapshot) => {
        cache.set(key, snapshot)
        return snapshot
      })
      const started = pending
      building.set(key, started)
      started.then(
        () => building.delete(key),
        () => building.delete(key),
      )
    }
    try {
      return { snapshot: await pending, stale: false }
    } catch (error) {
      if (cached && now - cached.builtAt.getTime() < maxStaleMs) return { snapshot: cached, stale: true }
      throw error
    }
  }

  const document = <T>(snapshot: Snapshot, stale: boolean, data: T): GbfsDocument<T> => ({
    last_updated: rfc3339(snapshot.builtAt),
    ttl: stale ? 0 : Math.max(0, Math.ceil((snapshot.expiresAt - deps.clock().getTime()) / 1000)),
    version: GBFS_VERSION,
    data,
  })

  function dataOf(snapshot: Snapshot, feed: GbfsFeed, base: string): unknown {
    if (feed === 'system_information') {
      return systemInformationData({
        entry: snapshot.provider.entry,
        language: snapshot.language,
        manifestUrl: `${base}/manifest.json`,
        contactEmail: deps.contactEmail,
      })
    }
    const kept = snapshot.data.get(feed)
    if (kept) return kept
    const { vehicles, types, stations, zones, language } = snapshot
    let data: unknown
    switch (feed) {
      case 'vehicle_types':
        data = vehicleTypesData(types, language)
        break
      case 'vehicle_status': {
        const rotate = vehicleIdRotation(deps.secret, snapshot.environment, snapshot.provider.entry.id)
        data = vehicleStatusData(vehicles, types, new Set(stations.map((s) => s.stationId)), rotate)
        break
      }
      case 'station_information':
        data = stationInformationData(stations, language)
        break
      case 'station_status':
        data = stationStatusData(stations, vehicles, types, snapshot.builtAt)
        break
      case 'geofencing_zones':
        data = geofencingData(zones, types, language)
        break
      case 'system_pricing_plans':
        data = pricingPlansData(plansOf(vehicles), language)
        break
    }
    snapshot.data.set(feed, data)
    return data
  }

  return {
    /** manifest.json: one dataset per micromobility provider of the tenant in the key's environment. */
    manifest(caller: Caller, base: string): GbfsDocument {
      const updated = new Date(caller.tenant.updatedAt)
      return {
        last_updated: rfc3339(Number.isNaN(updated.getTime()) ? caller.now : updated),
        // The list changes whenever the operator changes the tenant's providers, at no foreseeable time.
        ttl: 0,
        version: GBFS_VERSION,
        data: {
          datasets: providersOf(caller).map((p) => ({
            system_id: p.entry.id,
            versions: [{ version: GBFS_VERSION, url: `${base}/${encodeURIComponent(p.entry.id)}/gbfs.json` }],
          })),
        },
      }
    },

    /** gbfs.json of one provider: the files it has, with absolute URLs under `base` (…/gbfs). */
    async discovery(caller: Caller, providerId: string, base: string): Promise<GbfsDocument> {
      const p = providerOf(caller, providerId)
      const { snapshot, stale } = await snapshotOf(caller, p)
      const root = `${base}/${encodeURIComponent(p.entry.id)}`
      return document(snapshot, stale, {
        feeds: snapshot.published.map((name) => ({ name, url: `${root}/${name}.json` })),
      })
    },

    /** One file of one provider; 404 for a file this provider does not publish. */
    async feed(caller: Caller, providerId: string, feed: string, base: string): Promise<GbfsDocument> {
      const p = providerOf(caller, providerId)
      if (!isGbfsFeed(feed)) {
        throw new ApiError('NOT_FOUND', undefined, { resource: 'gbfsFeed', feed, feeds: [...GBFS_FEEDS] })
      }
      const { snapshot, stale } = await snapshotOf(caller, p)
      if (!snapshot.published.includes(feed)) {
        throw new ApiError('NOT_FOUND', undefined, {
          resource: 'gbfsFeed',
          feed,
          reason: 'FEED_NOT_PUBLISHED',
          published: snapshot.published,
        })
      }
      return document(snapshot, stale, dataOf(snapshot, feed, base))
    },
  }
}

export type GbfsOut = ReturnType<typeof createGbfsOut>
