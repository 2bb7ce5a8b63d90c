import { responses } from '../../contract/common.ts'
import {
  Trip,
  TripActionAccepted,
  TripActionRequest,
  TripEndRequest,
  TripList,
  TripListQuery,
  TripRequest,
} from '../../contract/micromobility.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { splitCommas } from '../shared/query-lists.ts'
import { doc, TRIP_STATES, TripParams } from './route-shared.ts'
import type { MicromobilityRouteDeps } from './routes.ts'

/** Trips: reserve or start, list, read, vehicle actions, end and cancel. */
export function micromobilityTripRoutes(app: TypedApp, { trips, clock }: MicromobilityRouteDeps) {
  const trip = { permission: 'micromobility:trip:write' as const }
  /** What every operation on an existing trip may answer besides the hooks' codes (TRIP_STATES). */
  const onTrip = { ...trip, errors: ['NOT_FOUND', 'OPERATION_NOT_SUPPORTED', ...PROVIDER_CALL] as const }

  app.post(
    '/micromobility/trips',
    {
      config: {
        ...trip,
        errors: ['NOT_FOUND', 'OFFER_EXPIRED', 'VEHICLE_MISMATCH', 'OPERATION_NOT_SUPPORTED', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'startTrip',
        ...doc(
          'Reserve or start a trip',
          `${TRIP_STATES} An expired, invalid or unknown vehicleToken answers 404 NOT_FOUND (spec 7.1; details.reason VEHICLE_TOKEN_EXPIRED when it ran out). A vehicle another trip holds (the losers of a race for one vehicle), or one no longer available, answers 404 OFFER_EXPIRED with details.reason VEHICLE_NOT_AVAILABLE (spec 7.1: offer sold out; do not retry, choose another vehicle). scannedQrCode must match the vehicle (409 VEHICLE_MISMATCH). 503 SERVICE_UNAVAILABLE with details.reason NOT_RECORDED when the provider reserved or started but the service could not record the trip: the vehicle is released (the ride ended) at once, so retry with the same vehicleToken.`,
        ),
        body: TripRequest,
        response: responses(Trip, 201),
      },
    },
    async (request, reply) => {
      const trip = await trips.create(request.body, callerOf(request, clock))
      return created(request, reply, trip.tripId, trip)
    },
  )

  app.get(
    '/micromobility/trips',
    {
      config: { ...trip, errors: ['INVALID_CURSOR'] },
      preValidation: splitCommas('status'),
      schema: {
        operationId: 'listTrips',
        ...doc(
          'List trips',
          "The tenant's trips in the key's environment, newest first, without price: to find what a lost answer reserved or started. `status` filters (one or several statuses). Cursor pages as everywhere in the API: `limit` (default 20, at most 100), then `cursor` = `pagination.nextCursor` until `hasMore` is false; a cursor lasts 30 minutes from its page, and other parameters start a fresh first page. A cursor that is not this key's answers 400 INVALID_CURSOR (details.reason CURSOR_EXPIRED once it ran out). A reservation whose window ran out is listed as CANCELLED (RESERVATION_EXPIRED). Secret keys only (publishable keys: 403).",
        ),
        querystring: TripListQuery,
        response: responses(TripList),
      },
    },
    async (request) => ok(request, await trips.list(request.query, callerOf(request, clock))),
  )

  app.get(
    '/micromobility/trips/:tripId',
    {
      config: { ...trip, errors: ['NOT_FOUND'] },
      schema: {
        operationId: 'getTrip',
        ...doc(
          'Read a trip',
          'Status and duration, without price. Trips are visible to their tenant only (404 otherwise).',
        ),
        params: TripParams,
        response: responses(Trip),
      },
    },
    async (request) => ok(request, await trips.get(request.params.tripId, callerOf(request, clock))),
  )

  app.post(
    '/micromobility/trips/:tripId/vehicle-action',
    {
      config: onTrip,
      schema: {
        operationId: 'performTripVehicleAction',
        ...doc(
          'Lock, unlock or honk',
          `Carried out by the vehicle; the result shows in the trip's lastAction. The request waits up to 2 s for the vehicle: 202 when it carried the command out or is still at it, 500 PROVIDER_ERROR (details.reason, e.g. VEHICLE_REJECTED) when it rejected it (spec 7.1), with details.retryable false when the refusal is definitive. ${TRIP_STATES}`,
        ),
        params: TripParams,
        body: TripActionRequest,
        response: responses(TripActionAccepted, 202),
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(ok(request, await trips.action(request.params.tripId, request.body.action, callerOf(request, clock)))),
  )

  app.post(
    '/micromobility/trips/:tripId/end',
    {
      config: { ...onTrip, errors: [...onTrip.errors, 'INVALID_LOCATION'] },
      schema: {
        operationId: 'endTrip',
        ...doc(
          'End a trip',
          'COMPLETED with duration and priceBreakdown (unlock fee plus per-minute charge). The body is optional: without `endLocation` the trip ends where the vehicle reports itself, and `endLocationSource` says which applied (REQUEST or VEHICLE).',
        ),
        params: TripParams,
        body: TripEndRequest,
        response: responses(Trip),
      },
    },
    async (request) =>
      ok(request, await trips.end(request.params.tripId, request.body.endLocation, callerOf(request, clock))),
  )

  app.post(
    '/micromobility/trips/:tripId/cancel',
    {
      config: onTrip,
      schema: {
        operationId: 'cancelTrip',
        ...doc('Cancel a reservation', 'Only from RESERVED (no charge); other states answer 400 INVALID_TRIP_STATE.'),
        params: TripParams,
        response: responses(Trip),
      },
    },
    async (request) => ok(request, await trips.cancel(request.params.tripId, callerOf(request, clock))),
  )
}
