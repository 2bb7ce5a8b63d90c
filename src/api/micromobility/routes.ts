import { Type } from 'typebox'
import type { TypedApp } from '../../app.ts'
import type { MicromobilityTrips } from '../../domain/micromobility/trips.ts'
import type { MicromobilityVehicles } from '../../domain/micromobility/vehicles.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import { responses } from '../../http/schemas.ts'
import { splitCommas } from '../shared/query-lists.ts'
import { providerOutcome } from '../shared/schemas.ts'
import {
  MicroSearchRequest,
  MicroSearchResult,
  MicroVehicle,
  Trip,
  TripActionAccepted,
  TripActionRequest,
  TripEndRequest,
  TripList,
  TripListQuery,
  TripRequest,
  Zone,
  ZoneQuery,
} from './schemas.ts'

export interface MicromobilityRouteDeps {
  vehicles: MicromobilityVehicles
  trips: MicromobilityTrips
  clock: () => Date
}

const TripParams = Type.Object({ tripId: Type.String({ minLength: 1, maxLength: 100 }) })
const doc = (summary: string, description?: string) => ({
  tags: ['Micro Mobility'],
  summary,
  ...(description ? { description } : {}),
  security: [{ apiKey: [] }],
})
const TRIP_STATES =
  'Trip states (spec 3.1): RESERVE → RESERVED; START (tripId, or vehicleToken without reservation) → ACTIVE; LOCK → PAUSED, UNLOCK → ACTIVE (paused minutes are billed like active ones); end → COMPLETED with priceBreakdown; cancel only from RESERVED → CANCELLED; a reservation that runs out → CANCELLED with cancellationReason RESERVATION_EXPIRED. A request that does not fit the state answers 400 INVALID_REQUEST with details.reason INVALID_TRIP_STATE; any operation on a trip that already ended answers 500 PROVIDER_ERROR (spec 7.1) with details.reason TRIP_ENDED and details.retryable false (retrying cannot change it).'

export function micromobilityRoutes(app: TypedApp, { vehicles, trips, clock }: MicromobilityRouteDeps) {
  const trip = { permission: 'micromobility:trip:write' as const }
  /** What every operation on an existing trip may answer besides the hooks' codes (TRIP_STATES). */
  const onTrip = { ...trip, errors: ['NOT_FOUND', 'OPERATION_NOT_SUPPORTED', ...PROVIDER_CALL] as const }

  app.post(
    '/micromobility',
    {
      config: {
        permission: 'micromobility:offer:read',
        locationFields: /^location\./,
        errors: ['INVALID_CURSOR', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'searchMicromobilityVehicles',
        ...doc(
          'Find scooters, bikes and mopeds near a point',
          'Nearest first within `radiusMeters` (default 500, max 5000). Trip-capable providers give a short-lived `vehicleToken`; search-only providers give `deepLinks`. Publishable keys allowed.',
        ),
        body: MicroSearchRequest,
        response: responses(MicroSearchResult),
      },
    },
    async (request) => ok(request, await vehicles.search(request.body, callerOf(request, clock))),
  )

  app.get(
    '/micromobility/vehicles/by-qr/:qrCode',
    {
      config: { permission: 'micromobility:offer:read', errors: ['NOT_FOUND', ...PROVIDER_CALL] },
      schema: {
        operationId: 'getMicromobilityVehicleByQrCode',
        ...doc(
          'Look up a vehicle by its QR code',
          'The scanned content, URL-encoded. Answers the vehicle with a fresh vehicleToken; 404 when no provider knows it.',
        ),
        params: Type.Object({ qrCode: Type.String({ minLength: 1, maxLength: 2000 }) }),
        response: responses(MicroVehicle),
      },
    },
    async (request) => ok(request, await vehicles.byQr(request.params.qrCode, callerOf(request, clock))),
  )

  app.get(
    '/micromobility/vehicles/:vehicleId',
    {
      config: {
        permission: 'micromobility:offer:read',
        statusOverrides: { OFFER_EXPIRED: 400 },
        errors: ['NOT_FOUND', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'getMicromobilityVehicle',
        ...doc(
          'Read a vehicle',
          'With a fresh vehicleToken. Passing the previous `vehicleToken` checks it: 400 OFFER_EXPIRED once it ran out.',
        ),
        params: Type.Object({ vehicleId: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object(
          { vehicleToken: Type.Optional(Type.String({ maxLength: 4096 })) },
          { additionalProperties: false },
        ),
        response: responses(MicroVehicle),
      },
    },
    async (request) =>
      ok(request, await vehicles.byId(request.params.vehicleId, callerOf(request, clock), request.query.vehicleToken)),
  )

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

  app.get(
    '/micromobility/zones',
    {
      config: {
        permission: 'micromobility:offer:read',
        locationFields: /^(latitude|longitude|bbox)$/,
        errors: ['NOT_FOUND', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'listMicromobilityZones',
        ...doc(
          'Service areas and parking zones',
          'GeoJSON geometries with their rules, from GBFS geofencing_zones and the sandbox, around a point (`latitude`, `longitude`, `radiusMeters` or its alias `radius`, default 1000) or in a `bbox`, optionally of one `provider`.',
        ),
        querystring: ZoneQuery,
        response: responses(
          Type.Object({
            zones: Type.Array(Zone),
            providers: Type.Array(providerOutcome('zones', 'Zones of this provider in the area')),
          }),
        ),
      },
    },
    async (request) => ok(request, await vehicles.zones(request.query, callerOf(request, clock))),
  )
}
