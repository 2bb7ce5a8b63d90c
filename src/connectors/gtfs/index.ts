import { randomUUID } from 'node:crypto'
import { around } from 'geokdbush'
import { ApiError } from '../../contract/errors.ts'
import { distanceMeters } from '../../platform/geo.ts'
import { problemLog } from '../shared/problems.ts'
import type { CallContext, Capabilities, ConnectorDeps, ConnectorFactory, ProviderEntry } from '../types/common.ts'
import type { PublicTransportConnector, TransitLineSet, TransitStop } from '../types/public-transport.ts'
import { type AlertFeedStats, alertFeed } from './alert-feed.ts'
import type { AlertSnapshot } from './alerts.ts'
import { display, fetchBytes, openFeed } from './client.ts'
import { departuresAt } from './departures.ts'
import { loadTimetable } from './engine/load.ts'
import type { Timetable, TimetableStats } from './engine/timetable.ts'
import { planJourneys } from './journeys.ts'
import { mapLine, mapStop } from './map.ts'
import { parseGtfsOptions } from './options.ts'
import { decodeTripUpdates, type RealtimeSnapshot, RealtimeView } from './realtime.ts'
import { normalizeText, rankStop, scoreOf } from './search.ts'
import { type VehicleFeedStats, vehicleFeed, vehicleMaxAgeSeconds } from './vehicle-feed.ts'

export { type GtfsOptions, parseGtfsOptions } from './options.ts'

/**
 * GTFS static (+ GTFS-Realtime TripUpdates, VehiclePositions and Alerts): stops, departure boards, journeys, live
 * vehicles and service alerts from a timetable held in memory.
 * `start()` loads the feed (a failure makes the provider UNAVAILABLE); `reload()` builds a new timetable beside the
 * one in use and swaps it when ready, so queries never wait for a reload. Realtime updates are read every
 * `realtimeRefreshSeconds`; a failed read keeps the last good one.
 */

export interface GtfsStats extends Partial<TimetableStats> {
  loaded: boolean
  loadedAt?: string
  reloading: boolean
  realtime?: {
    url: string
    tripUpdates: number
    /** Trip instances of the timetable the updates apply to. */
    matchedTrips: number
    feedTimestamp?: string
    lastSuccessAt?: string
    lastError?: string
  }
  alerts?: AlertFeedStats
  /** The VehiclePositions feed (options.vehiclePositionsUrl). */
  vehiclePositions?: VehicleFeedStats
}

/** Vehicles one VehiclePositions feed may hold (the largest cities run a few thousand at once). */
const MAX_VEHICLES = 100_000

export interface GtfsConnector extends PublicTransportConnector {
  /** Builds a new timetable from the feed and swaps it in when complete; the old one answers meanwhile. */
  reload(): Promise<void>
  /** Reads the realtime feed now (also done every realtimeRefreshSeconds). */
  refreshRealtime(): Promise<void>
  /** Reads the alert feed now (also done every realtimeRefreshSeconds). */
  refreshAlerts(): Promise<void>
  /** Reads the VehiclePositions feed now (also done every realtimeRefreshSeconds). */
  refreshVehiclePositions(): Promise<void>
  /** The timetable in use (waits for the first load); the sandbox simulates its vehicles on it. */
  timetable(signal?: AbortSignal): Promise<Timetable>
  stats(): GtfsStats
  /** Recent problems, oldest first: bad rows skipped, missing optional files, failed realtime reads. */
  problems(): string[]
}

/** What a connector built on this one (the sandbox) adds: alerts of one call, matched as the feed's are. */
export interface GtfsExtras {
  scenarioAlerts?: (ctx: CallContext) => AlertSnapshot | undefined
}

export function createGtfsConnector(entry: ProviderEntry, deps: ConnectorDeps, extras: GtfsExtras = {}): GtfsConnector {
  const options = parseGtfsOptions(entry.options, entry.id)
  const publishesAlerts = !!options.alertsUrl || !!extras.scenarioAlerts
  const capabilities: Capabilities = {
    modalities: ['PUBLIC_TRANSPORT'],
    operations: [
      'STOPS',
      'DEPARTURES',
      'JOURNEYS',
      ...(options.vehiclePositionsUrl ? ['VEHICLE_POSITIONS' as const] : []),
      ...(publishesAlerts ? (['ALERTS'] as const) : []),
    ],
    stationBased: true,
    freeFloating: false,
    requiresStoredBooking: false,
  }
  const log = problemLog('gtfs', entry.id, deps.clock, options.logger ?? deps.logger)
  const stopping = new AbortController()
  const readOptions = {
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxFeedBytes,
    signal: stopping.signal,
    ...(options.headers ? { headers: options.headers } : {}),
  }
  const positions = options.vehiclePositionsUrl
    ? vehicleFeed({
        url: options.vehiclePositionsUrl,
        refreshSeconds: options.realtimeRefreshSeconds,
        maxAgeSeconds: vehicleMaxAgeSeconds(options.realtimeRefreshSeconds),
        maxVehicles: MAX_VEHICLES,
        read: (url) => fetchBytes(url, { ...readOptions, timeoutMs: Math.min(options.timeoutMs, 30_000) }),
        clock: deps.clock,
        log,
      })
    : undefined

  const alerts = alertFeed({
    ...(options.alertsUrl ? { url: options.alertsUrl } : {}),
    refreshSeconds: options.realtimeRefreshSeconds,
    read: readOptions,
    log,
    clock: deps.clock,
    ...(extras.scenarioAlerts ? { scenarioAlerts: extras.scenarioAlerts } : {}),
  })

  let timetable: Timetable | undefined
  let loadedAt: Date | undefined
  let loading: Promise<void> | undefined
  let lastFailure: { at: number; error: Error } | undefined
  let snapshot: RealtimeSnapshot | undefined
  let view: RealtimeView | undefined
  let realtimeStatus: { lastSuccessAt?: Date; lastError?: string } = {}
  let realtimeCycle: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let reloadTimer: NodeJS.Timeout | undefined
  let stopped = false
  let lineSet: { tt: Timetable; lines: TransitLineSet } | undefined

  async function build(): Promise<Timetable> {
    const source = await openFeed(options.url, readOptions)
    try {
      return await loadTimetable(source, {
        transferWalkMeters: options.transferWalkMeters,
        report: (file, message) => log.add(`${file}: ${message}`),
      })
    } finally {
      await source.close().catch(() => {})
    }
  }

  /** One load at a time; the timetable in use is replaced only by a complete new one. */
  function load(): Promise<void> {
    if (loading) return loading
    if (stopped) return Promise.reject(new Error('the connector is stopped'))
    loading = build()
      .then((next) => {
        timetable = next
        loadedAt = deps.clock()
        view = undefined
        lastFailure = undefined
      })
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error)
        const failure = new Error(`GTFS feed ${display(options.url)} could not be loaded: ${message}`)
        lastFailure = { at: performance.now(), error: failure }
        log.add(failure.message)
        throw failure
      })
      .finally(() => {
        loading = undefined
      })
    return loading
  }

  /** The timetable in use; before the first load, waits for it (a failed load is tried again after a minute). */
  async function ready(signal?: AbortSignal): Promise<Timetable> {
    if (!timetable) {
      if (!loading && lastFailure && performance.now() - lastFailure.at < 60_000) {
        throw new ApiError('PROVIDER_ERROR', lastFailure.error.message, { providerId: entry.id })
      }
      try {
        const pending = load()
        await (signal ? Promise.race([pending, aborted(signal)]) : pending)
      } catch (error) {
        // The caller gave up: TIMEOUT, as every connector answers (not the signal's bare AbortError).
        if (signal?.aborted) {
          throw new ApiError('TIMEOUT', 'The provider call was aborted', { providerId: entry.id, reason: 'ABORTED' })
        }
        throw new ApiError('PROVIDER_ERROR', (error as Error).message, { providerId: entry.id })
      }
    }
    const current = timetable
    if (!current) throw new ApiError('PROVIDER_ERROR', 'the GTFS feed is not loaded', { providerId: entry.id })
    return current
  }

  function realtime(tt: Timetable): RealtimeView | undefined {
    if (!snapshot) return undefined
    if (!view || view.tt !== tt || view.snapshot !== snapshot) view = new RealtimeView(tt, snapshot)
    return view
  }

  async function refreshRealtime(): Promise<void> {
    const url = options.realtimeUrl
    if (!url) return
    if (realtimeCycle) return realtimeCycle
    realtimeCycle = (async () => {
      try {
        const bytes = await fetchBytes(url, { ...readOptions, timeoutMs: Math.min(options.timeoutMs, 30_000) })
        snapshot = decodeTripUpdates(bytes, deps.clock().getTime(), (message) => log.add(`realtime: ${message}`))
        realtimeStatus = { lastSuccessAt: deps.clock() }
      } catch (error) {
        // The last good update stays in use.
        realtimeStatus = { ...realtimeStatus, lastError: (error as Error).message }
        log.add(`realtime ${display(url)}: ${(error as Error).message}`)
      }
    })().finally(() => {
      realtimeCycle = undefined
    })
    return realtimeCycle
  }

  function scheduleRealtime(): void {
    if (!options.realtimeUrl || stopped || timer) return
    timer = setInterval(() => void refreshRealtime(), options.realtimeRefreshSeconds * 1000)
    timer.unref()
  }

  function scheduleReload(): void {
    if (!options.reloadHours || stopped || reloadTimer) return
    // A failed reload is logged and the timetable in use stays.
    reloadTimer = setInterval(() => void load().catch(() => {}), options.reloadHours * 3_600_000)
    reloadTimer.unref()
  }

  const stopOf = (tt: Timetable, stopId: string): number => {
    const stop = tt.stopIndex.get(stopId)
    if (stop === undefined) throw new ApiError('NOT_FOUND', `Unknown stop ${stopId}`, { stopId, providerId: entry.id })
    return stop
  }

  return {
    capabilities,
    async start() {
      // The alert feed does not need the timetable: it is read while the timetable loads.
      const alertsStarting = alerts.start()
      await load().catch(async (error: unknown) => {
        // The provider is UNAVAILABLE: its alerts are not read on.
        await alerts.stop()
        throw error
      })
      scheduleReload()
      if (options.realtimeUrl) {
        await refreshRealtime()
        scheduleRealtime()
      }
      await alertsStarting
      await positions?.start()
    },
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      if (reloadTimer) clearInterval(reloadTimer)
      timer = undefined
      reloadTimer = undefined
      stopping.abort()
      await Promise.allSettled([loading, realtimeCycle, alerts.stop(), positions?.stop()])
    },
    reload: () => load(),
    refreshRealtime,
    refreshAlerts: alerts.refresh,
    refreshVehiclePositions: async () => positions?.refresh(),
    timetable: (signal) => ready(signal),
    ...(positions
      ? { vehicles: async (ctx: CallContext) => positions.vehicles(await ready(ctx.signal), ctx.now) }
      : {}),

    async stopsNear(latitude, longitude, radiusMeters, limit, ctx) {
      const tt = await ready(ctx?.signal)
      const here = { latitude, longitude }
      const found = around(tt.nearIndex, longitude, latitude, limit, radiusMeters / 1000)
      return found
        .filter((k) => k < tt.nearStops.length)
        .map((k) => {
          const s = tt.nearStops[k]
          const distance = distanceMeters(here, { latitude: tt.stopLat[s], longitude: tt.stopLon[s] })
          return { ...mapStop(tt, s), distanceMeters: Math.round(distance) }
        })
        .filter((stop) => stop.distanceMeters <= radiusMeters)
    },

    async searchStops(text, limit, ctx) {
      const tt = await ready(ctx?.signal)
      const query = normalizeText(text)
      if (!query) return []
      const hits: { s: number; rank: number; length: number }[] = []
      for (const s of tt.nearStops) {
        const name = tt.stopSearch[s]
        const rank = rankStop(name, tt.stopSearchKeys[s], query)
        if (rank >= 0) hits.push({ s, rank, length: name.length })
      }
      hits.sort(
        (a, b) => a.rank - b.rank || a.length - b.length || tt.stopSearch[a.s].localeCompare(tt.stopSearch[b.s]),
      )
      return hits.slice(0, limit).map((h): TransitStop & { score: number } => ({
        ...mapStop(tt, h.s),
        score: scoreOf(h.rank, h.length, query.length),
      }))
    },

    async stopById(stopId, ctx) {
      const tt = await ready(ctx?.signal)
      const stop = tt.stopIndex.get(stopId)
      return stop === undefined ? undefined : mapStop(tt, stop)
    },

    async departures(stopId, from, limit, ctx) {
      const tt = await ready(ctx?.signal)
      await alerts.settled(ctx?.signal)
      return alerts.onDepartures(tt, departuresAt(tt, realtime(tt), stopOf(tt, stopId), from, limit), ctx)
    },

    async journeys(query, ctx) {
      const tt = await ready(ctx?.signal)
      const found = await planJourneys(
        tt,
        realtime(tt),
        query,
        ctx?.now ?? deps.clock(),
        { maxWalkToStopMeters: options.maxWalkToStopMeters, maxRounds: options.maxTrips },
        ctx?.signal,
      )
      await alerts.settled(ctx?.signal)
      return alerts.onJourneys(tt, found, ctx)
    },

    ...(publishesAlerts
      ? {
          async alerts(query, ctx) {
            const tt = await ready(ctx?.signal)
            await alerts.settled(ctx?.signal)
            return alerts.list(tt, query, ctx)
          },
        }
      : {}),
    async lineGeometries(ctx) {
      const tt = await ready(ctx?.signal)
      // Mapped once per timetable: the paths are the timetable's own arrays.
      if (lineSet?.tt !== tt) {
        const lines = tt.lines.routes.map((r) => ({ line: mapLine(tt, r.route), paths: r.paths }))
        lineSet = { tt, lines: { version: randomUUID(), lines } }
      }
      return lineSet.lines
    },

    stats() {
      const tt = timetable
      const rt = tt ? realtime(tt) : undefined
      return {
        ...(tt?.stats ?? {}),
        loaded: !!tt,
        ...(loadedAt ? { loadedAt: loadedAt.toISOString() } : {}),
        reloading: !!loading && !!tt,
        ...(options.realtimeUrl
          ? {
              realtime: {
                url: display(options.realtimeUrl),
                tripUpdates: snapshot?.tripUpdates ?? 0,
                matchedTrips: rt?.size ?? 0,
                ...(snapshot ? { feedTimestamp: new Date(snapshot.timestamp).toISOString() } : {}),
                ...(realtimeStatus.lastSuccessAt ? { lastSuccessAt: realtimeStatus.lastSuccessAt.toISOString() } : {}),
                ...(realtimeStatus.lastError ? { lastError: realtimeStatus.lastError } : {}),
              },
            }
          : {}),
        ...(options.alertsUrl ? { alerts: alerts.stats() } : {}),
        ...(positions ? { vehiclePositions: positions.stats() } : {}),
      }
    },
    problems: () => log.list(),
    // Only the realtime feeds say when they were published; a static timetable has no age worth alerting on.
    feedAgeSeconds: () => {
      const ages = [
        snapshot ? (deps.clock().getTime() - snapshot.timestamp) / 1000 : undefined,
        alerts.ageSeconds(),
        positions?.ageSeconds(deps.clock()),
      ].filter((age): age is number => age !== undefined)
      return ages.length > 0 ? Math.max(...ages) : undefined
    },
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

/** The `gtfs` connector of the providers file (DECISIONS "Providers file"): `options.url` is the zip or folder. */
export const gtfs: ConnectorFactory = (entry, deps) =>
  createGtfsConnector(entry, deps) satisfies PublicTransportConnector
