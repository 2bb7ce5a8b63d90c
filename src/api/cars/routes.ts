import { Type } from 'typebox'
import type { TypedApp } from '../../app.ts'
import type { CarBookings } from '../../domain/cars/bookings.ts'
import type { CarSearch } from '../../domain/cars/search.ts'
import type { CarStations } from '../../domain/cars/stations.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import { CursorPagination, responses } from '../../http/schemas.ts'
import { providerOutcome } from '../shared/schemas.ts'
import {
  Booking,
  BookingChange,
  BookingCreate,
  CancelRequest,
  CarSearchRequest,
  CarSearchResult,
  OfferDetails,
  OfferTokenBody,
  PrebookRequest,
  PrebookResult,
  Station,
  StationQuery,
  VehicleActionRequest,
  VehicleActionResult,
} from './schemas.ts'
import { carSearchBody } from './search-body.ts'

export interface CarRouteDeps {
  search: CarSearch
  stations: CarStations
  bookings: CarBookings
  clock: () => Date
}

const BookingParams = Type.Object({ bookingId: Type.String({ minLength: 1, maxLength: 4096 }) })
const doc = (summary: string, description?: string) => ({
  tags: ['Cars'],
  summary,
  ...(description ? { description } : {}),
  security: [{ apiKey: [] }],
})

export function carRoutes(app: TypedApp, { search, stations, bookings, clock }: CarRouteDeps) {
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
      // The bytes are the typed answer already serialized, which the reply's schema type cannot express.
      return reply.type('application/json; charset=utf-8').send(carSearchBody(data, meta) as never)
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

  app.post(
    '/cars/offer-details',
    {
      config: {
        permission: 'cars:offer:read',
        errors: ['INVALID_OFFER_TOKEN', 'OFFER_EXPIRED', 'OFFER_TOKEN_ALREADY_USED', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'getCarOfferDetails',
        ...doc(
          'Offer details',
          'The offer with a fresh token (the given token stays usable), its cancellation and change policies, pickup requirements and upsells.',
        ),
        body: OfferTokenBody,
        response: responses(OfferDetails),
      },
    },
    async (request) => ok(request, await bookings.offerDetails(request.body.offerToken, callerOf(request, clock))),
  )

  app.post(
    '/cars/prebook',
    {
      config: {
        permission: 'cars:booking:write',
        errors: [
          'INVALID_OFFER_TOKEN',
          'OFFER_EXPIRED',
          'OFFER_TOKEN_ALREADY_USED',
          'APP_ACCESS_NOT_AVAILABLE',
          ['INTERNAL_ERROR', 409],
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'prebookCar',
        ...doc(
          'Prebook an offer',
          'Consumes the offer token and answers a `prebookedOfferToken` for POST /cars/bookings, the final price (with PRICE_CHANGED warnings when it moved) and the fields the booking will ask for. 409 INTERNAL_ERROR when another request is prebooking the same offer (retry); 409 OFFER_TOKEN_ALREADY_USED once it was prebooked.',
        ),
        body: PrebookRequest,
        response: responses(PrebookResult),
      },
    },
    async (request) => ok(request, await bookings.prebook(request.body, callerOf(request, clock))),
  )

  app.post(
    '/cars/bookings',
    {
      config: {
        permission: 'cars:booking:write',
        errors: [
          'INVALID_OFFER_TOKEN',
          'MISSING_REQUIRED_FIELD',
          'APP_ACCESS_NOT_AVAILABLE',
          'OFFER_EXPIRED',
          'OFFER_TOKEN_ALREADY_USED',
          'NO_AVAILABLE_CARD',
          ['INTERNAL_ERROR', 409],
          'BOOKING_FAILED',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'createCarBooking',
        ...doc(
          'Book',
          'Consumes the prebooked token exactly once (409 OFFER_TOKEN_ALREADY_USED afterwards; a failed attempt leaves it usable). MISSING_REQUIRED_FIELD lists `details.requiredFields`: repeat with them in `additionalFields`; the token stays usable while they are collected, another full validity from each such answer (`details.usableUntil`). When other bookings took every car of the offer meanwhile: 409 NO_AVAILABLE_CARD with details.reason VEHICLE_NOT_AVAILABLE (search again). Under data retention NONE the `bookingId` is a `zr1_` reference that only the client keeps. 503 SERVICE_UNAVAILABLE with `details.reason: NOT_RECORDED` when the provider booked but the service could not record it: the token stays usable, and a retry with it within a minute takes that booking over (later it is cancelled at the provider and the retry books anew).',
        ),
        body: BookingCreate,
        response: responses(Booking, 201),
      },
    },
    async (request, reply) => {
      const booking = await bookings.book(request.body, callerOf(request, clock))
      return created(request, reply, booking.bookingId, booking)
    },
  )

  app.get(
    '/cars/bookings/:bookingId',
    {
      config: {
        permission: 'cars:booking:read',
        statusOverrides: { PROVIDER_ERROR: 502 },
        errors: ['NOT_FOUND', 'TIMEOUT'],
      },
      schema: {
        operationId: 'getCarBooking',
        ...doc(
          'Read a booking',
          'As the provider reports it now. 502 PROVIDER_ERROR when the provider fails, or when it no longer knows a booking the service holds (`details.reason` PROVIDER_RECORD_MISSING, the stored booking in `details.booking`). A booking stored before the tenant switched to data retention NONE stays readable by its id (`dataRetention: STANDARD`) while GET /bookings answers 403.',
        ),
        params: BookingParams,
        response: responses(Booking),
      },
    },
    async (request) => ok(request, await bookings.get(request.params.bookingId, callerOf(request, clock))),
  )

  app.patch(
    '/cars/bookings/:bookingId',
    {
      config: {
        permission: 'cars:booking:write',
        statusOverrides: { PROVIDER_ERROR: 502 },
        dateFields: /^rentalPeriod\./,
        errors: ['NOT_FOUND', 'NO_AVAILABLE_CARD', 'BOOKING_FAILED', 'OPERATION_NOT_SUPPORTED', 'TIMEOUT'],
      },
      schema: {
        operationId: 'changeCarBooking',
        ...doc(
          'Change a booking',
          'Each change follows its ChangeType policy: RENTAL_TIMES (`rentalPeriod`), DRIVER_INFO (`driver`), PICKUP_LOCATION, DROPOFF_LOCATION, VEHICLE_CATEGORY; 501 OPERATION_NOT_SUPPORTED with the manual contact where the policy says so. `notes` are kept by the platform. Under data retention NONE only `rentalPeriod` (400 otherwise). 502 PROVIDER_ERROR when the provider fails or no longer knows the booking (`details.reason` PROVIDER_RECORD_MISSING, the stored booking in `details.booking`).',
        ),
        params: BookingParams,
        body: BookingChange,
        response: responses(Booking),
      },
    },
    async (request) =>
      ok(request, await bookings.change(request.params.bookingId, request.body, callerOf(request, clock))),
  )

  app.post(
    '/cars/bookings/:bookingId/cancel',
    {
      config: {
        permission: 'cars:booking:write',
        statusOverrides: { BOOKING_FAILED: 422 },
        errors: ['NOT_FOUND', 'OPERATION_NOT_SUPPORTED', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'cancelCarBooking',
        ...doc(
          'Cancel a booking',
          'Answers the booking with status CANCELLED and the `fee` and `refund` applied per the policy at this time (also under `cancellation`, with the time and reason). No body is needed. 422 BOOKING_FAILED when the provider refuses.',
        ),
        params: BookingParams,
        body: CancelRequest,
        response: responses(Booking),
      },
    },
    async (request) =>
      ok(request, await bookings.cancel(request.params.bookingId, request.body ?? {}, callerOf(request, clock))),
  )

  app.post(
    '/cars/bookings/:bookingId/vehicle-action',
    {
      config: {
        permission: 'cars:booking:write',
        errors: ['NOT_FOUND', 'APP_ACCESS_NOT_AVAILABLE', 'OPERATION_NOT_SUPPORTED', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'performCarVehicleAction',
        ...doc(
          'Vehicle action (car sharing)',
          'UNLOCK, LOCK, HONK, FLASH_LIGHTS or LOCATE on the booked car, for providers with app access during the rental. A car that rejects the command answers 500 PROVIDER_ERROR (spec 7.1) with details.reason VEHICLE_REJECTED, and details.retryable false when no retry can change it (a cancelled booking, a rental that ended).',
        ),
        params: BookingParams,
        body: VehicleActionRequest,
        response: responses(VehicleActionResult),
      },
    },
    async (request) =>
      ok(
        request,
        await bookings.vehicleAction(request.params.bookingId, request.body.action, callerOf(request, clock)),
      ),
  )
}
