import type { Provider } from '../../connectors/types/common.ts'
import type { TransitAlert as ProviderAlert } from '../../connectors/types/public-transport.ts'
import { ApiError } from '../../contract/errors.ts'
import type { AlertQuery, ListedTransitAlert } from '../../contract/transit-alerts.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import { failIfNoProviderAnswered, mergedPage, providerOutcome } from '../providers/merged-pages.ts'
import { presentAlert, publishesAlerts } from './alert-view.ts'
import { type PublicTransportStops, scopedStopId, splitStopId } from './stops.ts'

function presentListed(p: Provider, a: ProviderAlert): ListedTransitAlert {
  return {
    ...presentAlert(p, a),
    provider: { id: p.entry.id, name: p.entry.name },
    informedEntities: a.informedEntities.map((e) => ({
      ...e,
      ...(e.stopId !== undefined ? { stopId: scopedStopId(p.entry.id, e.stopId) } : {}),
    })),
  }
}

const SEVERITY_RANK: Record<string, number> = { SEVERE: 0, WARNING: 1, INFO: 2, UNKNOWN_SEVERITY: 3 }
/** The order every provider lists its alerts in (most severe first, then by id), so pages merge without gaps. */
const compare = (a: ListedTransitAlert, b: ListedTransitAlert) =>
  SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
  (a.provider.id < b.provider.id ? -1 : a.provider.id > b.provider.id ? 1 : 0) ||
  (a.alertId < b.alertId ? -1 : a.alertId > b.alertId ? 1 : 0)

/** Cursors of this list (src/domain/token-diagnosis.ts). */
const cursorContext = (caller: Caller) => ({
  kind: 'alerts-cursor' as const,
  tenantId: caller.tenant.id,
  environment: caller.environment,
})

/** GET /public-transport/alerts (DECISIONS "Real-time transit"): the active alerts of the tenant's providers. */
export function createPublicTransportAlerts(deps: {
  stops: PublicTransportStops
  callProvider: CallProvider
  tokens: TokenCipher
  timeoutMs: number
}) {
  async function list(q: AlertQuery, caller: Caller) {
    const scoped = q.stopId === undefined ? undefined : splitStopId(q.stopId)
    if (q.stopId !== undefined && !scoped) {
      throw new ApiError('INVALID_REQUEST', undefined, {
        stopId: detail('STOP_ID_FORMAT'),
      })
    }
    if (scoped && q.provider !== undefined && q.provider !== scoped.providerId) {
      throw new ApiError('INVALID_REQUEST', undefined, {
        stopId: detail('NOT_A_STOP_OF_PROVIDER', { provider: q.provider }),
      })
    }
    const only = scoped?.providerId ?? q.provider
    const providers = only
      ? [deps.stops.providerById(caller, only, 'DEPARTURES')]
      : deps.stops.providersOf(caller, 'ALERTS').filter(publishesAlerts)
    const now = caller.now
    if (scoped) {
      const stop = await deps.callProvider(
        caller,
        providers[0],
        'stopById',
        deps.timeoutMs,
        (c, ctx) => c.stopById(scoped.stopId, ctx),
        true,
      )
      if (!stop) throw new ApiError('NOT_FOUND', undefined, { resource: 'stop', stopId: q.stopId })
    }
    const limit = q.limit ?? 20
    const sources = providers.map((p) => ({
      id: p.entry.id,
      fetch: async (want: number) => {
        // A provider without an alert feed has no alerts: an empty answer, not an error.
        if (!publishesAlerts(p)) return []
        const found = await deps.callProvider(
          caller,
          p,
          'alerts',
          deps.timeoutMs,
          (c, ctx) =>
            c.alerts
              ? c.alerts(
                  {
                    ...(scoped ? { stopId: scoped.stopId } : {}),
                    ...(q.routeId ? { routeId: q.routeId } : {}),
                    from: now,
                    until: now,
                  },
                  ctx,
                )
              : Promise.resolve([]),
          true,
        )
        return found
          .map((a) => presentListed(p, a))
          .sort(compare)
          .slice(0, want)
      },
    }))
    const merged = await mergedPage({
      tokens: deps.tokens,
      context: cursorContext(caller),
      cursor: q.cursor,
      params: [q.provider, q.stopId, q.routeId],
      now,
      limit,
      sources,
      compare,
    })
    const outcomes = merged.settled.map((answer, i) =>
      providerOutcome(
        providers[i],
        answer,
        caller.language,
        'alerts',
        merged.items.filter((a) => a.provider.id === providers[i].entry.id).length,
      ),
    )
    if (!q.cursor) failIfNoProviderAnswered(merged.settled, outcomes)
    return {
      alerts: merged.items,
      pagination: merged.hasMore ? { hasMore: true, nextCursor: merged.nextCursor } : { hasMore: false },
      providers: outcomes,
    }
  }

  return { list }
}

export type PublicTransportAlerts = ReturnType<typeof createPublicTransportAlerts>
