import { Type } from 'typebox'
import { responses } from '../../contract/common.ts'
import {
  PtBooking,
  PtBookingCreate,
  PtPrebookRequest,
  PtPrebookResult,
  Ticket,
} from '../../contract/public-transport.ts'
import { type Person, Price } from '../../contract/shared.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { renamed } from '../shared/aliases.ts'
import { doc, Id, readBooking, write } from './route-shared.ts'
import type { PublicTransportRouteDeps } from './routes.ts'

/** Prebook, book, read and cancel ticket bookings, and their tickets. */
export function publicTransportBookingRoutes(app: TypedApp, deps: PublicTransportRouteDeps) {
  const { tickets, clock } = deps

  app.post(
    '/public-transport/prebook',
    {
      config: {
        ...write,
        errors: [
          'INVALID_OFFER_TOKEN',
          'OFFER_TOKEN_ALREADY_USED',
          'NOT_FOUND',
          'DATA_RETENTION_NONE',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'prebookTickets',
        ...doc(
          'Prebook tickets',
          'Consumes the ticket offers (`offerToken` for one, `offerTokens` for several of one journey) and answers a prebookedOfferToken. 400 OFFER_EXPIRED for an expired token, 400 OPERATION_NOT_SUPPORTED when the provider sells no tickets.',
        ),
        body: PtPrebookRequest,
        response: responses(PtPrebookResult),
      },
    },
    async (request) => ok(request, await tickets.prebook(request.body, callerOf(request, clock))),
  )

  app.post(
    '/public-transport/bookings',
    {
      config: {
        ...write,
        errors: [
          'INVALID_OFFER_TOKEN',
          'OFFER_TOKEN_ALREADY_USED',
          ['INTERNAL_ERROR', 409],
          'DATA_RETENTION_NONE',
          'NOT_FOUND',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'createTicketBooking',
        ...doc(
          'Book tickets',
          'Once per prebooked token (409 OFFER_TOKEN_ALREADY_USED with details.bookingId afterwards; an attempt while another with the same token runs answers 409 INTERNAL_ERROR, reason BOOKING_IN_PROGRESS: retry). 400 BOOKING_FAILED when the provider rejects it. Tickets may still be PENDING: read them with GET .../tickets. 403 DATA_RETENTION_NONE under retention NONE. 503 SERVICE_UNAVAILABLE with `details.reason: NOT_RECORDED` when the provider sold the tickets but the service could not record them: the token stays usable, and a retry with it within a minute takes them over (later they are cancelled at the provider).',
        ),
        body: PtBookingCreate,
        response: responses(PtBooking, 201),
      },
    },
    async (request, reply) => {
      const { customer: _old, ...body } = request.body
      const traveller = renamed<Person>(request.body, 'traveller', 'customer')
      const booking = await tickets.book({ ...body, traveller }, callerOf(request, clock))
      return created(request, reply, booking.bookingId, booking)
    },
  )

  app.get(
    '/public-transport/bookings/:bookingId',
    {
      config: { ...readBooking, errors: ['NOT_FOUND', 'DATA_RETENTION_NONE', ...PROVIDER_CALL] },
      schema: {
        operationId: 'getTicketBooking',
        ...doc('Read a ticket booking'),
        params: Id('bookingId'),
        response: responses(PtBooking),
      },
    },
    async (request) => ok(request, await tickets.get(request.params.bookingId as string, callerOf(request, clock))),
  )

  app.post(
    '/public-transport/bookings/:bookingId/cancel',
    {
      config: { ...write, errors: ['NOT_FOUND', 'DATA_RETENTION_NONE', ...PROVIDER_CALL] },
      schema: {
        operationId: 'cancelTicketBooking',
        ...doc(
          'Cancel a ticket booking',
          'Free until the tickets become valid; 400 BOOKING_FAILED when the provider refuses.',
        ),
        params: Id('bookingId'),
        response: responses(PtBooking),
      },
    },
    async (request) => ok(request, await tickets.cancel(request.params.bookingId as string, callerOf(request, clock))),
  )

  app.get(
    '/public-transport/bookings/:bookingId/tickets',
    {
      config: { ...readBooking, errors: ['NOT_FOUND', 'TICKET_NOT_READY', 'DATA_RETENTION_NONE', ...PROVIDER_CALL] },
      schema: {
        operationId: 'listBookingTickets',
        ...doc(
          'Tickets of a booking',
          'The issued tickets with their barcode data. 409 TICKET_NOT_READY (with Retry-After) while they are being issued.',
        ),
        params: Id('bookingId'),
        response: responses(
          Type.Object({ bookingId: Type.String(), status: Type.String(), tickets: Type.Array(Ticket), total: Price }),
        ),
      },
    },
    async (request) => ok(request, await tickets.tickets(request.params.bookingId as string, callerOf(request, clock))),
  )
}
