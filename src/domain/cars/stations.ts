import { createHash } from 'node:crypto'
import type { Station } from '../../api/cars/schemas.ts'
import type { Registry } from '../../connectors/registry.ts'
import { isCarConnector } from '../../connectors/types.ts'
import { ApiError } from '../../http/errors.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
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

const cursorContext = (caller: Caller) => `stations-cursor|${caller.tenant.id}|${caller.environment}`

/**
 * GET /cars/stations: every car provider's stations around a point, nearest first. Stations are stable, so the
 * cursor only remembers the position (and the parameters it belongs to); each page asks the providers again.
 */
export function carStations(deps: {
  registry: Registry
  callProvider: CallProvider
  tokens: TokenCipher
  timeoutMs: number
}) {
  return async function stations(query: StationQuery, caller: Caller) {
    const radiusMeters = query.radiusMeters ?? query.radius ?? DEFAULT_RADIUS_METERS
    const limit = query.limit ?? 20
    const h = createHash('sha256')
      .update(JSON.stringify([query.latitude, query.longitude, radiusMeters]))
      .digest('base64url')
    let offset = 0
    if (query.cursor) {
      const claim = deps.tokens.open<{ o: number; h: string }>(cursorContext(caller), query.cursor)
      if (!claim) throw new ApiError('INVALID_CURSOR', undefined, { cursor: 'is not a cursor of this key' })
      if (claim.h === h) offset = claim.o
    }
    const area = { coordinates: { latitude: query.latitude, longitude: query.longitude }, radiusMeters }
    const providers = eligibleProviders(deps.registry, caller, 'STATIONS', isCarConnector)
    const answers = await Promise.allSettled(
      providers.map((p) =>
        deps.callProvider(caller, p, 'stations', deps.timeoutMs, (c, ctx) => c.stations(area, ctx), true),
      ),
    )
    const all: Station[] = answers.flatMap((answer, i) =>
      answer.status === 'fulfilled'
        ? answer.value.map(({ distanceMeters, ...station }) => ({
            ...station,
            placeId: placeIdFor(station.coordinates, station.id),
            provider: providerDisplay(providers[i]),
            distanceFromSearch: Math.round(distanceMeters),
          }))
        : [],
    )
    all.sort((a, b) => a.distanceFromSearch - b.distanceFromSearch || a.id.localeCompare(b.id))
    const page = all.slice(offset, offset + limit)
    const hasMore = offset + limit < all.length
    return {
      stations: page,
      pagination: hasMore
        ? { hasMore, nextCursor: deps.tokens.seal(cursorContext(caller), { o: offset + limit, h }) }
        : { hasMore },
      providers: answers.map((answer, i) => ({
        id: providers[i].entry.id,
        name: providers[i].entry.name,
        status:
          answer.status === 'fulfilled'
            ? ('OK' as const)
            : answer.reason instanceof ApiError && answer.reason.code === 'TIMEOUT'
              ? ('TIMEOUT' as const)
              : ('FAILED' as const),
        offers: answer.status === 'fulfilled' ? answer.value.length : 0,
      })),
    }
  }
}
