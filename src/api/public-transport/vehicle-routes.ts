import { responses } from '../../contract/common.ts'
import { MAX_VEHICLE_RADIUS_METERS, TransitVehicleList, TransitVehicleQuery } from '../../contract/transit-vehicles.ts'
import type { PublicTransportVehicles } from '../../domain/public-transport/vehicles.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'

/** GET /public-transport/vehicles (DECISIONS "Real-time transit and GBFS out"). */
export function transitVehicleRoutes(app: TypedApp, deps: { vehicles: PublicTransportVehicles; clock: () => Date }) {
  app.get(
    '/public-transport/vehicles',
    {
      config: {
        permission: 'public-transport:offer:read',
        locationFields: /^(latitude|longitude)$/,
        errors: ['NOT_FOUND', 'INVALID_CURSOR', 'PROVIDER_ERROR', 'TIMEOUT'],
      },
      schema: {
        operationId: 'listTransitVehicles',
        tags: ['Public Transport'],
        summary: 'Live transit vehicles near a point',
        description: [
          `Buses, trams and trains within \`radiusMeters\` (default 1000, at most ${MAX_VEHICLE_RADIUS_METERS}) of \`latitude\`, \`longitude\`, nearest first,`,
          'from the GTFS-Realtime VehiclePositions feeds of the providers (and the sandbox’s simulated vehicles), optionally of one `provider`.',
          'Each vehicle has its `location` (with `bearing` and `speed` in m/s when the feed gives them), its `line` and `tripId` when the trip or route is known,',
          '`occupancy` when given and `lastUpdated`; positions older than a few minutes are not shown.',
          'Cursor pages (`limit`, `cursor`, spec 8); positions are live, so a later page is read at its own time.',
          '`providers` reports each provider’s `status` (OK, FAILED, TIMEOUT): one failing provider leaves out its own vehicles only.',
          'Errors: 400 INVALID_LOCATION (`latitude` or `longitude` missing or out of range), 400 INVALID_REQUEST (`radiusMeters`, `limit` or an unknown parameter, named in `details`),',
          '400 INVALID_CURSOR, 404 NOT_FOUND (a `provider` that is not the tenant’s or publishes no vehicles),',
          '500 PROVIDER_ERROR or 504 TIMEOUT when no provider answered the first page. Publishable keys allowed.',
        ].join(' '),
        security: [{ apiKey: [] }],
        querystring: TransitVehicleQuery,
        response: responses(TransitVehicleList),
      },
    },
    async (request) => ok(request, await deps.vehicles(request.query, callerOf(request, deps.clock))),
  )
}
