import { responses } from '../../contract/common.ts'
import { ApiError } from '../../contract/errors.ts'
import {
  MultimodalRequest,
  MultimodalResult,
  TILE_CONTENT_TYPE,
  TileParams,
  tileResponses,
} from '../../contract/multimodal.ts'
import type { Multimodal } from '../../domain/multimodal/index.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { explorerRoutes } from '../explorer/routes.ts'

export interface MultimodalRouteDeps {
  multimodal: Multimodal
  clock: () => Date
}

/**
 * Tiles depend on the key (the tenant's providers, live or test data), so caches must keep them per key: `private`
 * keeps shared caches (CDNs, proxies) from handing one tenant's tile to another; the browser may reuse it briefly.
 */
export const TILE_CACHE_CONTROL = 'private, max-age=15'

const doc = (summary: string, description: string) => ({
  tags: ['Multimodal'],
  summary,
  description,
  security: [{ apiKey: [] }],
})

/** Whether an If-None-Match header names this ETag (weak or strong, in a list, or `*`). */
export function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false
  const tags = [header]
    .flat()
    .join(',')
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
  return tags.includes('*') || tags.includes(etag)
}

export function multimodalRoutes(app: TypedApp, { multimodal, clock }: MultimodalRouteDeps) {
  app.post(
    '/multimodal',
    {
      config: { permission: 'multimodal:read', locationFields: /^location\./ },
      schema: {
        operationId: 'searchMultimodal',
        ...doc(
          'Departures, vehicles and car-sharing stations around a point (beta)',
          'Combines public-transport departures at the nearest stops, micromobility vehicles (as POST /micromobility answers them) and car-sharing stations within `radiusMeters` (default 500, max 5000); `limit` applies per source. Each source runs under its own deadline (3 s); `sources` reports every requested source under its name (`sources.MICROMOBILITY`) with `status` OK, FAILED or TIMEOUT and its `error`. One failing source never fails the request. Publishable keys allowed.',
        ),
        body: MultimodalRequest,
        response: responses(MultimodalResult),
      },
    },
    async (request) => ok(request, await multimodal.search(request.body, callerOf(request, clock))),
  )

  app.get(
    '/multimodal/tiles/:z/:x/:y.mvt',
    {
      config: { permission: 'multimodal:read', errors: ['TIMEOUT'] },
      // One tile has one address: digits only, no sign, hex or leading zeros (which coercion would accept), so
      // caches never hold the same tile twice.
      preValidation: async (request) => {
        const raw = request.params as unknown as Record<string, string>
        const bad = ['z', 'x', 'y'].filter((k) => !/^(0|[1-9][0-9]{0,9})$/.test(raw[k] ?? ''))
        if (bad.length > 0) {
          const details = Object.fromEntries(bad.map((k) => [k, detail('DIGITS_WITHOUT_LEADING_ZEROS')]))
          throw new ApiError('INVALID_REQUEST', undefined, details)
        }
      },
      schema: {
        operationId: 'getMapTile',
        ...doc(
          'Map tiles: transit lines, vehicles, stations, stops, zones and transit vehicles (beta)',
          [
            'A Mapbox Vector Tile (XYZ scheme, extent 4096) with these layers:',
            '`lines` (public-transport lines as LineStrings, one per distinct shape of the feed, or per distinct stop pattern joined stop to stop where it has none: `kind` LINE, `id`, `provider`, `providerName`, `routeId`, `name`, `mode`, `color` (the route colour, else one per mode), `textColor`, `agency`, `pathSource` SHAPE or STOPS, `shapeId`),',
            '`vehicles` (points: `kind` VEHICLE, `id`, `provider`, `providerName`, `vehicleType`, `propulsionType`, `name`, `available`, `battery`),',
            '`stations` (car stations: `kind` CARSHARING_STATION or CAR_RENTAL_STATION, `id`, `provider`, `providerName`, `modality`, `name`, `stationType`, `placeId`),',
            '`stops` (public transport: `kind` STOP, `id`, `provider`, `providerName`, `name`, `mode`, `modes`, `code`, `platform`),',
            '`zones` (polygons: `kind` ZONE, `id`, `provider`, `providerName`, `name`, `zoneKind`, `rideStartAllowed`, `rideEndAllowed`, `rideThroughAllowed`, `maximumSpeedKph`).',
            '`transit-vehicles` (live buses, trams and trains as GET /public-transport/vehicles lists them, points: `kind` TRANSIT_VEHICLE, `id` and `vehicleId`, `provider`, `providerName`, `lastUpdated`, and when known `line` (its name), `lineId`, `mode`, `color`, `textColor`, `bearing`, `speed`, `tripId`, `headsign`, `label`, `occupancy`).',
            'Low zooms stay light: zones from z 0, lines from z 5 (bus lines from z 9), a sample of vehicles from z 6 (every vehicle from z 10), car stations from z 8, stops from z 12, transit vehicles from z 10.',
            'The data is live: `Cache-Control: private, max-age=15` and an `ETag`; a matching `If-None-Match` answers 304.',
            'z runs 0..22 and x, y 0..2^z−1; other tile coordinates answer 400 INVALID_REQUEST. Errors use the JSON envelope.',
            'Publishable keys allowed (Origin checked, CORS headers).',
          ].join(' '),
        ),
        produces: [TILE_CONTENT_TYPE, 'application/json'],
        params: TileParams,
        response: tileResponses,
      },
    },
    async (request, reply) => {
      const { z, x, y } = request.params
      const tile = await multimodal.tiles(z, x, y, callerOf(request, clock))
      // (Vary: Authorization, Accept-Language is added to every authenticated answer.)
      reply.header('cache-control', TILE_CACHE_CONTROL).header('etag', tile.etag)
      if (matchesEtag(request.headers['if-none-match'], tile.etag)) return reply.status(304).send()
      return reply.type(TILE_CONTENT_TYPE).send(tile.bytes)
    },
  )
}

export interface RegisterMultimodalDeps extends MultimodalRouteDeps {
  /** The API prefix, `/mobility-api/v2`. */
  apiPrefix: string
}

/** Registers POST /multimodal and the tiles under the API prefix, and the /explorer map page. */
export async function registerMultimodal(app: TypedApp, deps: RegisterMultimodalDeps) {
  const { multimodal, clock } = deps
  await app.register(async (api) => multimodalRoutes(api.withTypeProvider(), { multimodal, clock }), {
    prefix: deps.apiPrefix,
  })
  await app.register(async (root) => explorerRoutes(root, { apiPrefix: deps.apiPrefix }))
}
