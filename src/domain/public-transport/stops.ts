import type { Registry } from '../../connectors/registry.ts'
import type { Provider } from '../../connectors/types/common.ts'
import {
  isPublicTransportConnector,
  type PublicTransportConnector,
  type TransitDeparture,
  type TransitLine,
  type TransitStop,
} from '../../connectors/types/public-transport.ts'
import { ApiError } from '../../contract/errors.ts'
import type { Departure, Stop } from '../../contract/public-transport.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { providersFor } from '../providers/directory.ts'
import { failIfNoProviderAnswered, mergedPage, providerOutcome } from '../providers/merged-pages.ts'
import { presentAlerts, publishesAlerts } from './alert-view.ts'

export type PtProvider = Provider & { connector: PublicTransportConnector }

/** Stop ids are `<providerId>:<feed stop_id>`: provider ids never contain a colon. */
export const scopedStopId = (providerId: string, stopId: string) => `${providerId}:${stopId}`
export function splitStopId(stopId: string): { providerId: string; stopId: string } | undefined {
  const at = stopId.indexOf(':')
  if (at <= 0 || at === stopId.length - 1) return undefined
  return { providerId: stopId.slice(0, at), stopId: stopId.slice(at + 1) }
}

export const lineOf = (line: TransitLine) => ({
  id: line.routeId,
  name: line.name,
  mode: line.mode,
  ...(line.color ? { color: line.color } : {}),
  ...(line.textColor ? { textColor: line.textColor } : {}),
  ...(line.agency ? { agency: line.agency } : {}),
})

export function presentStop(
  p: Provider,
  s: TransitStop,
  extra: { distanceMeters?: number; score?: number } = {},
): Stop {
  return {
    stopId: scopedStopId(p.entry.id, s.id),
    name: s.name,
    provider: { id: p.entry.id, name: p.entry.name },
    location: { latitude: s.latitude, longitude: s.longitude },
    ...(s.code ? { code: s.code } : {}),
    ...(s.platform ? { platform: s.platform } : {}),
    ...(s.parentStation ? { parentStationId: scopedStopId(p.entry.id, s.parentStation) } : {}),
    ...(s.wheelchairBoarding ? { wheelchairBoarding: s.wheelchairBoarding } : {}),
    modes: s.modes,
    ...(extra.distanceMeters !== undefined ? { distanceFromSearch: Math.round(extra.distanceMeters) } : {}),
    ...(extra.score !== undefined ? { relevance: Math.round(extra.score * 1000) / 1000 } : {}),
  }
}

export function presentDeparture(p: Provider, d: TransitDeparture): Departure {
  return {
    tripId: d.tripId,
    line: lineOf(d.line),
    headsign: d.headsign,
    stop: { stopId: scopedStopId(p.entry.id, d.stopId), name: d.stopName },
    ...(d.platform ? { platform: d.platform } : {}),
    scheduledTime: d.scheduled.toISOString(),
    ...(d.estimated ? { estimatedTime: d.estimated.toISOString() } : {}),
    ...(d.delaySeconds !== undefined ? { delaySeconds: d.delaySeconds } : {}),
    cancelled: d.cancelled,
    realtime: d.realtime,
    alerts: presentAlerts(p, d.alerts),
  }
}

export interface StopQuery {
  latitude?: number
  longitude?: number
  radiusMeters?: number
  query?: string
  provider?: string
  limit?: number
  cursor?: string
}

/** Cursors of this list (src/domain/token-diagnosis.ts). */
const cursorContext = (caller: Caller) => ({
  kind: 'stops-cursor' as const,
  tenantId: caller.tenant.id,
  environment: caller.environment,
})

/** GET /public-transport/stops and departures (spec 4.3; DECISIONS "Public transport"). */
export function createPublicTransportStops(deps: {
  registry: Registry
  callProvider: CallProvider
  tokens: TokenCipher
  timeoutMs: number
}) {
  const providersOf = (caller: Caller, operation: 'STOPS' | 'DEPARTURES' | 'JOURNEYS' | 'ALERTS') =>
    eligibleProviders(deps.registry, caller, operation, isPublicTransportConnector)
  const call = <T>(
    caller: Caller,
    p: PtProvider,
    op: string,
    fn: (c: PublicTransportConnector, ctx: Parameters<PublicTransportConnector['stopById']>[1]) => Promise<T>,
  ) => deps.callProvider(caller, p, op, deps.timeoutMs, fn, true)

  function providerById(caller: Caller, id: string, operation: 'STOPS' | 'DEPARTURES' | 'JOURNEYS' | 'ALERTS') {
    const p = providersOf(caller, operation).find((x) => x.entry.id === id)
    if (p) return p
    // Spec 4.5: under retention NONE a provider that needs a stored booking answers 403, not "unknown".
    const hidden = providersFor(deps.registry, caller.tenant, caller.environment).find((x) => x.entry.id === id)
    if (hidden?.connector?.capabilities.requiresStoredBooking && caller.tenant.dataRetention === 'NONE') {
      throw new ApiError('DATA_RETENTION_NONE', undefined, { providerId: id, reason: 'PROVIDER_NEEDS_STORED_BOOKING' })
    }
    throw new ApiError('NOT_FOUND', undefined, { resource: 'provider', provider: id })
  }

  return {
    providersOf,
    providerById,
    async stops(q: StopQuery, caller: Caller) {
      const byCoordinates = q.latitude !== undefined || q.longitude !== undefined
      if (byCoordinates && (q.latitude === undefined || q.longitude === undefined)) {
        throw new ApiError('INVALID_LOCATION', undefined, {
          [q.latitude === undefined ? 'latitude' : 'longitude']: detail('REQUIRED_WITH_OTHER_COORDINATE'),
        })
      }
      if (!byCoordinates && !q.query) {
        throw new ApiError('INVALID_REQUEST', undefined, { query: detail('SEND_QUERY_OR_COORDINATES') })
      }
      const limit = q.limit ?? 20
      const paged = byCoordinates || q.provider !== undefined
      // A text search across every provider is one page and hands out no cursor, so a valid cursor here is of other
      // parameters: the search starts afresh (spec 8), as mergedPage does for any changed parameters.
      const providers = q.provider ? [providerById(caller, q.provider, 'STOPS')] : providersOf(caller, 'STOPS')
      // Each stop keeps its place in its provider's list (`at`): among stops the service ranks equal (same rounded
      // distance or relevance), the provider's own order decides, so every page continues the provider's list
      // exactly where the cursor left it, whatever the provider breaks its ties by.
      const ranked = (list: Stop[]) => list.map((stop, at) => ({ stop, at }))
      const sources = providers.map((p) => ({
        id: p.entry.id,
        fetch: (want: number) =>
          byCoordinates
            ? call(caller, p, 'stopsNear', (c, ctx) =>
                c
                  .stopsNear(q.latitude!, q.longitude!, q.radiusMeters ?? 1000, want, ctx)
                  .then((list) => ranked(list.map((s) => presentStop(p, s, { distanceMeters: s.distanceMeters })))),
              )
            : call(caller, p, 'searchStops', (c, ctx) =>
                c
                  .searchStops(q.query!, want, ctx)
                  .then((list) => ranked(list.map((s) => presentStop(p, s, { score: s.score })))),
              ),
      }))
      const merged = await mergedPage({
        tokens: deps.tokens,
        context: cursorContext(caller),
        cursor: q.cursor,
        params: [q.latitude, q.longitude, q.radiusMeters, q.query, q.provider],
        now: caller.now,
        limit,
        sources,
        compare: (a, b) =>
          (byCoordinates
            ? (a.stop.distanceFromSearch ?? 0) - (b.stop.distanceFromSearch ?? 0)
            : (b.stop.relevance ?? 0) - (a.stop.relevance ?? 0)) ||
          a.at - b.at ||
          a.stop.stopId.localeCompare(b.stop.stopId),
      })
      const answers = merged.settled
      // A text search across every provider is one page (its relevance is not comparable across pages).
      const hasMore = paged && merged.hasMore
      const outcomes = answers.map((a, i) =>
        providerOutcome(
          providers[i],
          a,
          caller.language,
          'stops',
          merged.items.filter((x) => x.stop.provider.id === providers[i].entry.id).length,
        ),
      )
      if (!q.cursor) failIfNoProviderAnswered(answers, outcomes)
      return {
        stops: merged.items.map((x) => x.stop),
        pagination: hasMore ? { hasMore, nextCursor: merged.nextCursor } : { hasMore: false },
        providers: outcomes,
      }
    },

    async departures(stopId: string, q: { from?: string; limit?: number }, caller: Caller) {
      const scoped = splitStopId(stopId)
      if (!scoped) throw new ApiError('NOT_FOUND', undefined, { resource: 'stop', stopId })
      const p = providerById(caller, scoped.providerId, 'DEPARTURES')
      const from = q.from ? new Date(q.from) : caller.now
      const stop = await call(caller, p, 'stopById', (c, ctx) => c.stopById(scoped.stopId, ctx))
      if (!stop) throw new ApiError('NOT_FOUND', undefined, { resource: 'stop', stopId })
      const list = await call(caller, p, 'departures', (c, ctx) =>
        c.departures(scoped.stopId, from, q.limit ?? 20, ctx),
      )
      // A closure of the stop shows on the board even when it lists no departures.
      const last = list.reduce((at, d) => Math.max(at, (d.estimated ?? d.scheduled).getTime()), from.getTime())
      const boardAlerts = publishesAlerts(p)
        ? await call(caller, p, 'alerts', (c, ctx) =>
            c.alerts
              ? c.alerts({ stopId: scoped.stopId, from, until: new Date(last), stopWide: true }, ctx)
              : Promise.resolve([]),
          ).catch(() => [])
        : []
      return {
        stop: presentStop(p, stop),
        departures: list.map((d) => presentDeparture(p, d)),
        alerts: presentAlerts(p, boardAlerts),
      }
    },
  }
}

export type PublicTransportStops = ReturnType<typeof createPublicTransportStops>
