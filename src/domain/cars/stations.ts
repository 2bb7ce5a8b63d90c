import type { Registry } from '../../connectors/registry.ts'
import { isCarConnector } from '../../connectors/types/cars.ts'
import type { Station } from '../../contract/cars.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { failIfNoProviderAnswered, mergedPage, providerOutcome } from '../providers/merged-pages.ts'
import { DEFAULT_RADIUS_METERS, placeIdFor } from './locations.ts'
import { providerDisplay } from './present.ts'

export interface StationQuery {
  latitude: number
  longitude: number
  radiusMeters?: number
  radius?: number
  limit?: number
  cursor?: string
}

/** Cursors of this list (src/domain/token-diagnosis.ts). */
const cursorContext = (caller: Caller) => ({
  kind: 'stations-cursor' as const,
  tenantId: caller.tenant.id,
  environment: caller.environment,
})
const nearestFirst = (a: Station, b: Station) => a.distanceFromSearch - b.distanceFromSearch || a.id.localeCompare(b.id)

/**
 * GET /cars/stations: every car provider's stations around a point, nearest first. Stations are stable, so the
 * cursor only remembers how far each provider's list went (and the parameters it belongs to); each page asks the
 * providers again, and one that failed joins on the next page.
 */
export function createCarStations(deps: {
  registry: Registry
  callProvider: CallProvider
  tokens: TokenCipher
  timeoutMs: number
}) {
  return async function stations(query: StationQuery, caller: Caller) {
    const radiusMeters = query.radiusMeters ?? query.radius ?? DEFAULT_RADIUS_METERS
    const limit = query.limit ?? 20
    const area = { coordinates: { latitude: query.latitude, longitude: query.longitude }, radiusMeters }
    const providers = eligibleProviders(deps.registry, caller, 'STATIONS', isCarConnector)
    // Stations are stable and a provider answers all of its area at once; the cursor keeps each one's position.
    const merged = await mergedPage<Station>({
      tokens: deps.tokens,
      context: cursorContext(caller),
      cursor: query.cursor,
      params: [query.latitude, query.longitude, radiusMeters],
      now: caller.now,
      limit,
      sources: providers.map((p) => ({
        id: p.entry.id,
        fetch: () =>
          deps
            .callProvider(caller, p, 'stations', deps.timeoutMs, (c, ctx) => c.stations(area, ctx), true)
            .then((list) =>
              list
                .map(({ distanceMeters, ...station }) => ({
                  ...station,
                  placeId: placeIdFor(station.coordinates, station.id),
                  provider: providerDisplay(p),
                  distanceFromSearch: Math.round(distanceMeters),
                }))
                .sort(nearestFirst),
            ),
      })),
      compare: nearestFirst,
    })
    const answers = merged.settled
    const outcomes = answers.map((answer, i) =>
      providerOutcome(
        providers[i],
        answer,
        caller.language,
        'stations',
        merged.items.filter((s) => s.provider.id === providers[i].entry.id).length,
      ),
    )
    if (!query.cursor) failIfNoProviderAnswered(answers, outcomes)
    return {
      stations: merged.items,
      pagination: merged.hasMore ? { hasMore: true, nextCursor: merged.nextCursor } : { hasMore: false },
      providers: outcomes,
    }
  }
}

export type CarStations = ReturnType<typeof createCarStations>
