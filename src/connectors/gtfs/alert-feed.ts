import { ApiError } from '../../contract/errors.ts'
import type { ProblemLog } from '../shared/problems.ts'
import type { CallContext } from '../types/common.ts'
import type {
  TransitAlert,
  TransitAlertQuery,
  TransitDeparture,
  TransitJourney,
  TransitLeg,
} from '../types/public-transport.ts'
import {
  AlertIndex,
  activeBetween,
  alertOrder,
  alertsForTrip,
  MAX_ALERTS_PER_ITEM,
  namesOf,
  presentAlert,
  selectorAffects,
} from './alert-match.ts'
import { type AlertSnapshot, decodeAlerts, type FeedAlert } from './alerts.ts'
import { display, fetchBytes, type ReadOptions } from './client.ts'
import { stopFamily } from './departures.ts'
import type { Timetable } from './engine/timetable.ts'

/**
 * The service-alerts side of a GTFS provider: reads `options.alertsUrl` every `realtimeRefreshSeconds` (a failed read
 * keeps the last good alerts), and puts the alerts on departures and journey legs. `scenarioAlerts` adds alerts for
 * one call (the sandbox's `transit-alert` scenario) that go through the same matching and translation.
 */

/** An alert feed is small; a larger answer is not one. */
export const MAX_ALERT_FEED_BYTES = 64 * 1024 * 1024
/** How long a query waits for the first read of the alert feed (a feed that hangs must not hold departures up). */
const FIRST_READ_WAIT_MS = 2000

export interface AlertFeedOptions {
  url?: URL
  refreshSeconds: number
  read: ReadOptions
  log: ProblemLog
  clock: () => Date
  scenarioAlerts?: (ctx: CallContext) => AlertSnapshot | undefined
}

export interface AlertFeedStats {
  url: string
  alerts: number
  skipped: number
  feedTimestamp?: string
  lastSuccessAt?: string
  lastError?: string
}

/** The trip instance and service day of a departure at `stop` scheduled at `scheduledMs`. */
function runAt(tt: Timetable, tripId: string, stop: number, scheduledMs: number) {
  const today = tt.clock.dayOf(scheduledMs)
  for (const t of tt.tripsById.get(tripId) ?? []) {
    if (tt.tripPattern[t] < 0) continue
    const a = tt.tripSt[t]
    for (let i = 0; i < tt.tripLen[t]; i++) {
      if (tt.stStop[a + i] !== stop) continue
      for (let day = today - Math.ceil(tt.maxTime / 86_400); day <= today; day++) {
        if (tt.clock.base(day) + (tt.stDep[a + i] + tt.tripOffset[t]) * 1000 === scheduledMs) return { trip: t, day }
      }
    }
  }
  return undefined
}

const firstRunning = (tt: Timetable, tripId: string) =>
  (tt.tripsById.get(tripId) ?? []).find((t) => tt.tripPattern[t] >= 0)

export function alertFeed(options: AlertFeedOptions) {
  const { url, log } = options
  let snapshot: AlertSnapshot | undefined
  let status: { lastSuccessAt?: Date; lastError?: string } = {}
  let cycle: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  /** The first read while it runs: queries wait for it a little, so a provider's first answers have its alerts. */
  let first: Promise<void> | undefined
  const indexes = new WeakMap<AlertSnapshot, AlertIndex>()
  const indexOf = (s: AlertSnapshot) => {
    let index = indexes.get(s)
    if (!index) {
      index = new AlertIndex(s.alerts)
      indexes.set(s, index)
    }
    return index
  }

  /** The indexes that apply to a call: the feed's and the call's scenario alerts. */
  function sources(ctx: CallContext | undefined): AlertIndex[] {
    const out = snapshot && snapshot.alerts.length > 0 ? [indexOf(snapshot)] : []
    const extra = ctx && options.scenarioAlerts?.(ctx)
    if (extra) out.push(indexOf(extra))
    return out
  }

  async function refresh(): Promise<void> {
    if (!url) return
    if (cycle) return cycle
    cycle = (async () => {
      const scope = log.scope(`alerts ${display(url)}`)
      try {
        const bytes = await fetchBytes(url, {
          ...options.read,
          timeoutMs: Math.min(options.read.timeoutMs, 30_000),
          maxBytes: Math.min(options.read.maxBytes, MAX_ALERT_FEED_BYTES),
        })
        snapshot = decodeAlerts(bytes, options.clock().getTime(), scope.report)
        status = { lastSuccessAt: options.clock() }
      } catch (error) {
        // The last good alerts stay in use.
        status = { ...status, lastError: (error as Error).message }
        scope.report((error as Error).message)
      } finally {
        scope.flush()
      }
    })().finally(() => {
      cycle = undefined
    })
    return cycle
  }

  const present = (list: ReturnType<typeof alertsForTrip>, ctx: CallContext): TransitAlert[] =>
    list.map((a) => presentAlert(a, ctx.language))

  return {
    /** Whether the provider publishes alerts (capability ALERTS). */
    enabled: !!url || !!options.scenarioAlerts,
    refresh,
    async start(): Promise<void> {
      if (!url || stopped) return
      first = refresh().finally(() => {
        first = undefined
      })
      await first
      if (stopped || timer) return
      timer = setInterval(() => void refresh(), options.refreshSeconds * 1000)
      timer.unref()
    },
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearInterval(timer)
      timer = undefined
      await cycle
    },

    /** Waits for the first read of the feed while it runs, at most FIRST_READ_WAIT_MS (or until `signal` aborts). */
    async settled(signal?: AbortSignal): Promise<void> {
      if (!first) return
      let timeout: NodeJS.Timeout | undefined
      const waited = new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, FIRST_READ_WAIT_MS)
        signal?.addEventListener('abort', () => resolve(), { once: true })
      })
      await Promise.race([first, waited])
      clearTimeout(timeout)
    },

    /** Each departure with the alerts for its trip at its stop and time. */
    onDepartures(tt: Timetable, list: TransitDeparture[], ctx: CallContext): TransitDeparture[] {
      const active = sources(ctx)
      if (active.length === 0) return list
      return list.map((d) => {
        const trip = firstRunning(tt, d.tripId)
        const stop = tt.stopIndex.get(d.stopId)
        if (trip === undefined || stop === undefined) return d
        const at = (d.estimated ?? d.scheduled).getTime()
        const found = alertsForTrip(tt, active, {
          trip,
          stops: [stop],
          from: at,
          until: at,
          run: () => runAt(tt, d.tripId, stop, d.scheduled.getTime()),
        })
        return found.length > 0 ? { ...d, alerts: present(found, ctx) } : d
      })
    },

    /** Each transit leg with the alerts for its trip, at the stops from boarding to alighting, over its time. */
    onJourneys(tt: Timetable, journeys: TransitJourney[], ctx: CallContext): TransitJourney[] {
      const active = sources(ctx)
      if (active.length === 0) return journeys
      const onLeg = (leg: TransitLeg): TransitLeg => {
        if (!leg.tripId) return leg
        const trip = firstRunning(tt, leg.tripId)
        const ids = [leg.from.stopId, ...(leg.intermediateStops ?? []).map((s) => s.stopId), leg.to.stopId]
        const stops = ids.map((id) => (id === undefined ? undefined : tt.stopIndex.get(id)))
        if (trip === undefined || stops.some((s) => s === undefined)) return leg
        const board = stops[0] as number
        const found = alertsForTrip(tt, active, {
          trip,
          stops: stops as number[],
          from: leg.departure.getTime(),
          until: leg.arrival.getTime(),
          run: () => runAt(tt, leg.tripId as string, board, leg.departure.getTime()),
        })
        return found.length > 0 ? { ...leg, alerts: present(found, ctx) } : leg
      }
      return journeys.map((j) => ({ ...j, legs: j.legs.map(onLeg) }))
    },

    /** The alerts active from `from` to `until` that departures at the stop / of the route can carry. */
    list(tt: Timetable, query: TransitAlertQuery, ctx: CallContext): TransitAlert[] {
      let stops: number[] | undefined
      if (query.stopId !== undefined) {
        const stop = tt.stopIndex.get(query.stopId)
        if (stop === undefined)
          throw new ApiError('NOT_FOUND', `Unknown stop ${query.stopId}`, { stopId: query.stopId })
        stops = stopFamily(tt, stop)
      }
      let route: number | undefined
      if (query.routeId !== undefined) {
        route = tt.routeIds.indexOf(query.routeId)
        if (route < 0) return []
      }
      const from = query.from.getTime()
      const until = query.until.getTime()
      const stopNames = stops && new Set(stops.flatMap((c) => namesOf(tt, c)))
      const filter = { stops, stopNames, route, stopWide: query.stopWide, from, until }
      const found = new Set<FeedAlert>()
      for (const index of sources(ctx)) {
        for (const alert of index.alerts) {
          if (found.has(alert) || !activeBetween(alert, from, until)) continue
          if (alert.selectors.some((s) => selectorAffects(tt, s, filter))) found.add(alert)
        }
      }
      const list = [...found].sort(alertOrder)
      return (query.stopWide ? list.slice(0, MAX_ALERTS_PER_ITEM) : list).map((a) => presentAlert(a, ctx.language))
    },

    stats(): AlertFeedStats | undefined {
      if (!url) return undefined
      return {
        url: display(url),
        alerts: snapshot?.alerts.length ?? 0,
        skipped: snapshot?.skipped ?? 0,
        ...(snapshot ? { feedTimestamp: new Date(snapshot.timestamp).toISOString() } : {}),
        ...(status.lastSuccessAt ? { lastSuccessAt: status.lastSuccessAt.toISOString() } : {}),
        ...(status.lastError ? { lastError: status.lastError } : {}),
      }
    },
    /** Seconds since the alert feed was published; undefined before the first good read. */
    ageSeconds: (): number | undefined =>
      snapshot ? (options.clock().getTime() - snapshot.timestamp) / 1000 : undefined,
  }
}

export type AlertFeed = ReturnType<typeof alertFeed>
