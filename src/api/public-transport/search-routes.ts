import { Type } from 'typebox'
import { responses } from '../../contract/common.ts'
import {
  Departure,
  DepartureQuery,
  Journey,
  JourneyRequest,
  Stop,
  StopList,
  StopQuery,
} from '../../contract/public-transport.ts'
import { AlertList, AlertQuery, ItemAlerts } from '../../contract/transit-alerts.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { doc, Id, read, sourceList } from './route-shared.ts'
import type { PublicTransportRouteDeps } from './routes.ts'
import { transitVehicleRoutes } from './vehicle-routes.ts'

/** Stops, departures, transit vehicles, journeys and alerts. */
export function publicTransportSearchRoutes(app: TypedApp, deps: PublicTransportRouteDeps) {
  const { stops, journeys, alerts, clock } = deps

  app.get(
    '/public-transport/stops',
    {
      config: {
        ...read,
        locationFields: /^(latitude|longitude)$/,
        errors: ['INVALID_CURSOR', 'NOT_FOUND', 'DATA_RETENTION_NONE', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'searchStops',
        ...doc(
          'Find stops',
          'By coordinates (`latitude`, `longitude`, `radiusMeters` or its alias `radius`, nearest first) or by text (`query` or its alias `q`, ranked; case- and diacritics-insensitive). Cursor pagination works with coordinate search or an explicit `provider`; a text query without provider merges every provider in one answer with `hasMore: false`.',
        ),
        querystring: StopQuery,
        response: responses(Type.Intersect([StopList, Type.Object({ providers: sourceList('stops') })])),
      },
    },
    async (request) => {
      // `radius` and `q` are aliases (as `radius` is for car stations); the full names win when both are sent.
      const { radius, q, ...query } = request.query
      const normalized = { ...query, radiusMeters: query.radiusMeters ?? radius, query: query.query ?? q }
      return ok(request, await stops.stops(normalized, callerOf(request, clock)))
    },
  )

  transitVehicleRoutes(app, { vehicles: deps.vehicles, clock })

  app.get(
    '/public-transport/stops/:stopId/departures',
    {
      config: { ...read, errors: ['NOT_FOUND', ...PROVIDER_CALL] },
      schema: {
        operationId: 'listDepartures',
        ...doc(
          'Departures at a stop',
          'The next departures from `from` (default now), realtime delays and cancellations applied where the provider publishes GTFS-Realtime. Each departure carries the service alerts for its trip there and then; `alerts` lists those about the stop as a whole (a closure), active from `from` to the last departure listed.',
        ),
        params: Id('stopId'),
        querystring: DepartureQuery,
        response: responses(
          Type.Object({
            stop: Stop,
            departures: Type.Array(Departure),
            alerts: { ...ItemAlerts, description: 'Alerts about the stop as a whole (a closure), most severe first' },
          }),
        ),
      },
    },
    async (request) =>
      ok(request, await stops.departures(request.params.stopId as string, request.query, callerOf(request, clock))),
  )

  app.post(
    '/public-transport/journeys',
    {
      config: {
        ...read,
        statusOverrides: { OFFER_EXPIRED: 400 },
        locationFields: /^(origin|destination)\.(coordinates|placeId|address)/,
        errors: ['GEOCODING_FAILED', 'NOT_FOUND', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'planJourneys',
        ...doc(
          'Plan journeys',
          'From `origin` to `destination` (a stop, coordinates, an address or a place), departing at `departAt` or arriving by `arriveBy` (default: now). Earliest arrival plus alternatives with fewer transfers; each journey lists ticket offers with an `offerToken` for prebook.',
        ),
        body: JourneyRequest,
        response: responses(Type.Object({ journeys: Type.Array(Journey), providers: sourceList('journeys') })),
      },
    },
    async (request) => ok(request, await journeys(request.body, callerOf(request, clock))),
  )

  app.get(
    '/public-transport/alerts',
    {
      config: { ...read, errors: ['NOT_FOUND', 'INVALID_CURSOR', 'PROVIDER_ERROR', 'TIMEOUT'] },
      schema: {
        ...doc(
          'List service alerts',
          "The alerts active now of the tenant's providers that publish them (GTFS-Realtime service alerts), most severe first, in the caller's language where the provider has it. `stopId` and `routeId` keep the alerts that departures at that stop (and its platforms) or of that line can carry; `provider` keeps one provider. Cursor pages. 400 INVALID_REQUEST for a stop id without its provider, 404 NOT_FOUND for an unknown provider or stop.",
        ),
        operationId: 'listTransitAlerts',
        querystring: AlertQuery,
        response: responses(AlertList),
      },
    },
    async (request) => ok(request, await alerts.list(request.query, callerOf(request, clock))),
  )
}
