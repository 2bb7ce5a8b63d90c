import type { Registry } from '../../connectors/registry.ts'
import { isCarConnector } from '../../connectors/types/cars.ts'
import type { Provider } from '../../connectors/types/common.ts'
import {
  isPublicTransportConnector,
  type TransitDeparture,
  type TransitStop,
} from '../../connectors/types/public-transport.ts'
import { ApiError, type ErrorCode, isApiError } from '../../contract/errors.ts'
import {
  MULTIMODAL_SOURCES,
  type MultimodalItem,
  type MultimodalRequest,
  type MultimodalResult,
  type MultimodalSource,
  type SourceOutcome,
  type SourceStatus,
} from '../../contract/multimodal.ts'
import type { Departure } from '../../contract/public-transport.ts'
import { errorMessage } from '../../platform/i18n/index.ts'
import { placeIdFor } from '../cars/locations.ts'
import { providerDisplay } from '../cars/present.ts'
import type { MicromobilityVehicles } from '../micromobility/vehicles.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { providerError } from '../providers/merged-pages.ts'
import { presentAlerts } from '../public-transport/alert-view.ts'
import { presentStop } from '../public-transport/stops.ts'
import { createMultimodalTiles } from './tiles.ts'

export { createMultimodalTiles, MAX_TILE_ZOOM, tileBounds, validTile } from './tiles.ts'

export interface MultimodalDeps {
  registry: Registry
  callProvider: CallProvider
  /** The micromobility use case: POST /multimodal reuses its search. */
  vehicles: Pick<MicromobilityVehicles, 'search'>
  /** Deadline of each source of POST /multimodal (default 3 s). */
  sourceTimeoutMs?: number
  /** Deadline of each provider call while building a tile (default 3 s). */
  tileTimeoutMs?: number
}

export const SOURCE_TIMEOUT_MS = 3_000
/** Stops whose departures are listed: the nearest few, so one search stays a handful of calls per provider. */
const MAX_STOPS = 6
const STOPS_PER_PROVIDER = 12

type ProviderOutcome = SourceOutcome['providers'][number]
interface SourceAnswer {
  items: MultimodalItem[]
  providers: ProviderOutcome[]
}

/** A provider's outcome as another area reports it (`status`, `error.code`), in the source's shape. */
function outcomeOf(
  p: { id: string; name: string; status: string; error?: { code: string } },
  language: string,
): ProviderOutcome {
  if (p.status === 'OK') return { id: p.id, name: p.name, status: 'OK' }
  const status = p.status === 'TIMEOUT' ? 'TIMEOUT' : 'FAILED'
  const code = (p.error?.code ?? (status === 'TIMEOUT' ? 'TIMEOUT' : 'PROVIDER_ERROR')) as ErrorCode
  return { id: p.id, name: p.name, status, error: { code, message: errorMessage(language, code) } }
}

/** The providers an error lists (`details.providers`: every provider of a source failed), as outcomes. */
const failedProviders = (error: unknown, language: string): ProviderOutcome[] => {
  const listed = isApiError(error) ? error.details?.providers : undefined
  return Array.isArray(listed) ? listed.map((p) => outcomeOf(p, language)) : []
}

const statusOf = (error: unknown): Exclude<SourceStatus, 'OK'> =>
  isApiError(error) && error.code === 'TIMEOUT' ? 'TIMEOUT' : 'FAILED'

/**
 * POST /multimodal (DECISIONS "Multimodal"): public-transport departures, micromobility vehicles and car-sharing
 * stations around one point. Each source runs under its own deadline; a source that fails or misses it is reported
 * in `sources` and never fails the request.
 */
export function createMultimodal(deps: MultimodalDeps) {
  const sourceTimeoutMs = deps.sourceTimeoutMs ?? SOURCE_TIMEOUT_MS
  const remaining = (deadline: number) => Math.max(1, deadline - Date.now())
  const providerFailure = (caller: Caller, p: Provider, error: unknown): ProviderOutcome => ({
    id: p.entry.id,
    name: p.entry.name,
    status: statusOf(error),
    error: providerError(error, caller.language),
  })
  const providerOk = (p: Provider): ProviderOutcome => ({ id: p.entry.id, name: p.entry.name, status: 'OK' })

  async function publicTransport(
    request: Required<Pick<MultimodalRequest, 'location' | 'radiusMeters' | 'limit'>>,
    caller: Caller,
    deadline: number,
  ): Promise<SourceAnswer> {
    const { latitude, longitude } = request.location
    const providers = eligibleProviders(deps.registry, caller, 'DEPARTURES', isPublicTransportConnector)
    const perProvider = await Promise.all(
      providers.map(async (p) => {
        let stops: (TransitStop & { distanceMeters: number })[]
        try {
          stops = await deps.callProvider(
            caller,
            p,
            'stopsNear',
            remaining(deadline),
            (c, ctx) => c.stopsNear(latitude, longitude, request.radiusMeters, STOPS_PER_PROVIDER, ctx),
            true,
          )
        } catch (error) {
          return { outcome: providerFailure(caller, p, error), items: [] as MultimodalItem[] }
        }
        // A station and its platforms: departures of a station include its platforms', so list the station only.
        const ids = new Set(stops.map((s) => s.id))
        const chosen = stops
          .filter((s) => !(s.parentStation && ids.has(s.parentStation)))
          .sort((a, b) => a.distanceMeters - b.distanceMeters || a.id.localeCompare(b.id))
          .slice(0, MAX_STOPS)
        const answers = await Promise.allSettled(
          chosen.map((s) =>
            deps.callProvider(
              caller,
              p,
              'departures',
              remaining(deadline),
              (c, ctx) => c.departures(s.id, caller.now, request.limit, ctx),
              true,
            ),
          ),
        )
        const failed = answers.find((a) => a.status === 'rejected')
        if (failed && answers.every((a) => a.status === 'rejected')) {
          return { outcome: providerFailure(caller, p, failed.reason), items: [] as MultimodalItem[] }
        }
        const seen = new Set<string>()
        const items: MultimodalItem[] = []
        answers.forEach((answer, i) => {
          if (answer.status !== 'fulfilled') return
          const stop = presentStop(p, chosen[i], { distanceMeters: chosen[i].distanceMeters })
          for (const d of answer.value) {
            const key = `${d.tripId}|${d.scheduled.toISOString()}`
            if (seen.has(key)) continue
            seen.add(key)
            items.push({
              kind: 'DEPARTURE',
              ...presentDeparture(p, d),
              stop,
              provider: { id: p.entry.id, name: p.entry.name },
              distanceFromSearch: Math.round(chosen[i].distanceMeters),
            })
          }
        })
        return { outcome: providerOk(p), items }
      }),
    )
    const at = (item: MultimodalItem) =>
      item.kind === 'DEPARTURE' ? Date.parse(item.estimatedTime ?? item.scheduledTime) : 0
    const items = perProvider
      .flatMap((r) => r.items)
      .sort((a, b) => at(a) - at(b) || a.distanceFromSearch! - b.distanceFromSearch!)
      .slice(0, request.limit)
    return { items, providers: perProvider.map((r) => r.outcome) }
  }

  async function micromobility(
    request: Required<Pick<MultimodalRequest, 'location' | 'radiusMeters' | 'limit'>>,
    caller: Caller,
  ): Promise<SourceAnswer> {
    const found = await deps.vehicles.search(
      { location: request.location, radiusMeters: request.radiusMeters, limit: request.limit },
      caller,
    )
    return {
      items: found.results.map((v) => ({ kind: 'VEHICLE' as const, ...v })),
      providers: found.providers.map((p) => outcomeOf(p, caller.language)),
    }
  }

  async function carsharing(
    request: Required<Pick<MultimodalRequest, 'location' | 'radiusMeters' | 'limit'>>,
    caller: Caller,
    deadline: number,
  ): Promise<SourceAnswer> {
    const providers = eligibleProviders(deps.registry, caller, 'STATIONS', isCarConnector).filter((p) =>
      p.connector.capabilities.modalities.includes('CAR_SHARING'),
    )
    const area = { coordinates: request.location, radiusMeters: request.radiusMeters }
    const answers = await Promise.allSettled(
      providers.map((p) =>
        deps.callProvider(caller, p, 'stations', remaining(deadline), (c, ctx) => c.stations(area, ctx), true),
      ),
    )
    const items = answers
      .flatMap((answer, i) =>
        answer.status === 'fulfilled'
          ? answer.value
              .filter((s) => s.distanceMeters <= request.radiusMeters)
              .map(({ distanceMeters, ...station }) => ({
                kind: 'CARSHARING_STATION' as const,
                ...station,
                placeId: placeIdFor(station.coordinates, station.id),
                provider: providerDisplay(providers[i]),
                distanceFromSearch: Math.round(distanceMeters),
              }))
          : [],
      )
      .sort((a, b) => a.distanceFromSearch - b.distanceFromSearch || a.id.localeCompare(b.id))
      .slice(0, request.limit)
    return {
      items,
      providers: answers.map((answer, i) =>
        answer.status === 'fulfilled' ? providerOk(providers[i]) : providerFailure(caller, providers[i], answer.reason),
      ),
    }
  }

  /** Runs one source under its own deadline; whatever happens, it answers an outcome. */
  async function run(
    source: MultimodalSource,
    caller: Caller,
    work: (deadline: number) => Promise<SourceAnswer>,
  ): Promise<{ items: MultimodalItem[]; outcome: SourceOutcome }> {
    const deadline = Date.now() + sourceTimeoutMs
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ApiError('TIMEOUT', undefined, { source })), sourceTimeoutMs)
    })
    try {
      const answer = await Promise.race([work(deadline), timeout])
      const failed = answer.providers.filter((p) => p.status !== 'OK')
      // A source with a failed provider is FAILED (TIMEOUT when every failure was one), so a failure always shows at
      // the source; what the providers that answered found is still in `results` (and each provider in `providers`).
      if (failed.length > 0) {
        const status = failed.every((p) => p.status === 'TIMEOUT') ? 'TIMEOUT' : 'FAILED'
        const code: ErrorCode = status === 'TIMEOUT' ? 'TIMEOUT' : 'PROVIDER_ERROR'
        return {
          items: answer.items,
          outcome: {
            status,
            results: answer.items.length,
            error: { code, message: errorMessage(caller.language, code) },
            providers: answer.providers,
          },
        }
      }
      return {
        items: answer.items,
        outcome: { status: 'OK', results: answer.items.length, providers: answer.providers },
      }
    } catch (error) {
      return {
        items: [],
        outcome: {
          status: statusOf(error),
          results: 0,
          error: providerError(error, caller.language),
          // Every provider failed (the area answered an error): each is still listed with how it failed.
          providers: failedProviders(error, caller.language),
        },
      }
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    async search(request: MultimodalRequest, caller: Caller): Promise<MultimodalResult> {
      const include = new Set(request.include ?? MULTIMODAL_SOURCES)
      const query = {
        location: request.location,
        radiusMeters: request.radiusMeters ?? 500,
        limit: request.limit ?? 20,
      }
      const work: Record<MultimodalSource, (deadline: number) => Promise<SourceAnswer>> = {
        PUBLIC_TRANSPORT: (deadline) => publicTransport(query, caller, deadline),
        MICROMOBILITY: () => micromobility(query, caller),
        CARSHARING: (deadline) => carsharing(query, caller, deadline),
      }
      const sources = MULTIMODAL_SOURCES.filter((s) => include.has(s))
      const answers = await Promise.all(sources.map((source) => run(source, caller, work[source])))
      return {
        results: answers.flatMap((a) => a.items),
        sources: Object.fromEntries(sources.map((source, i) => [source, answers[i].outcome])),
      }
    },

    tiles: createMultimodalTiles({
      registry: deps.registry,
      callProvider: deps.callProvider,
      timeoutMs: deps.tileTimeoutMs ?? SOURCE_TIMEOUT_MS,
    }),
  }
}

export type Multimodal = ReturnType<typeof createMultimodal>

function presentDeparture(p: Provider, d: TransitDeparture): Omit<Departure, 'stop'> {
  return {
    tripId: d.tripId,
    line: {
      id: d.line.routeId,
      name: d.line.name,
      mode: d.line.mode,
      ...(d.line.color ? { color: d.line.color } : {}),
      ...(d.line.textColor ? { textColor: d.line.textColor } : {}),
      ...(d.line.agency ? { agency: d.line.agency } : {}),
    },
    headsign: d.headsign,
    ...(d.platform ? { platform: d.platform } : {}),
    scheduledTime: d.scheduled.toISOString(),
    ...(d.estimated ? { estimatedTime: d.estimated.toISOString() } : {}),
    ...(d.delaySeconds !== undefined ? { delaySeconds: d.delaySeconds } : {}),
    cancelled: d.cancelled,
    realtime: d.realtime,
    alerts: presentAlerts(p, d.alerts),
  }
}
