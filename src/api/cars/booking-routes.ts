import {
  Booking,
  BookingChange,
  BookingCreate,
  CancelRequest,
  OfferDetails,
  OfferTokenBody,
  PrebookRequest,
  PrebookResult,
} from '../../contract/car-bookings.ts'
import { responses } from '../../contract/common.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { BookingParams, doc } from './route-shared.ts'
import type { CarRouteDeps } from './routes.ts'

/** From an offer to a booking, and the booking read, changed and cancelled. */
export function carBookingRoutes(app: TypedApp, { bookings, clock }: CarRouteDeps) {
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
}
