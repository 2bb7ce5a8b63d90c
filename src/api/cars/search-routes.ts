import { Type } from 'typebox'
import { CarSearchRequest, CarSearchResult, Station, StationQuery } from '../../contract/cars.ts'
import { CursorPagination, responses } from '../../contract/common.ts'
import { providerOutcome } from '../../contract/shared.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { doc } from './route-shared.ts'
import type { CarRouteDeps } from './routes.ts'
import { carSearchBody } from './search-body.ts'

/** POST /cars and GET /cars/stations. */
export function carSearchRoutes(app: TypedApp, { search, stations, clock }: CarRouteDeps) {
  app.post(
    '/cars',
    {
      config: {
        permission: 'cars:offer:read',
        locationFields: /^(pickup|dropoff)\.(coordinates|placeId|address)/,
        dateFields: /^dates\./,
        // Every provider failing on a first page: PROVIDER_ERROR, or TIMEOUT when all missed the deadline.
        errors: ['GEOCODING_FAILED', 'INVALID_CURSOR', 'NO_OFFERS_AVAILABLE', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'searchCars',
        ...doc(
          'Search car offers across providers',
          'Asks every eligible provider in parallel under one deadline, then merges, filters (`filters`), scores and sorts (`sortBy`, default RECOMMENDED). `price` appears only when `estimatedKilometers` is sent. A provider that fails or misses the deadline is listed in `providers` and asked again on the next page. Pages with the opaque `cursor` (a 30-minute session, renewed per page); changed parameters start a fresh first page. A cursor whose session the service no longer holds answers 400 INVALID_CURSOR with `details.reason` CURSOR_EXPIRED (unused for 30 minutes) or SESSION_EVICTED (dropped sooner to keep memory bounded): search again without it.',
        ),
        body: CarSearchRequest,
        response: responses(CarSearchResult),
      },
    },
    async (request, reply) => {
      const data = await search(request.body, callerOf(request, clock))
      // Written from cached parts instead of by the route's serializer (the same schema; see search-body.ts).
      const { meta } = ok(request, undefined)
      reply.type('application/json; charset=utf-8')
      // The bytes are the typed answer already serialized, which the reply's schema type cannot express. Returned, not
      // sent: an async handler that returns the reply makes Fastify await it as a thenable, which builds an error with
      // a stack trace per request (end-of-stream's premature-close error, 3 % of the car-search profile).
      return carSearchBody(data, meta) as never
    },
  )

  app.get(
    '/cars/stations',
    {
      config: {
        permission: 'cars:offer:read',
        locationFields: /^(latitude|longitude)$/,
        errors: ['INVALID_CURSOR', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'listCarStations',
        ...doc(
          'Find car rental and sharing stations',
          'Stations near a point, nearest first; `placeId` goes into a search as `{ "type": "place" }`. `radius` is an alias of `radiusMeters` (default 5000).',
        ),
        querystring: StationQuery,
        response: responses(
          Type.Object({
            stations: Type.Array(Station),
            pagination: CursorPagination,
            providers: Type.Array(providerOutcome('stations', 'Stations of this provider on this page')),
          }),
        ),
      },
    },
    async (request) => ok(request, await stations(request.query, callerOf(request, clock))),
  )
}
