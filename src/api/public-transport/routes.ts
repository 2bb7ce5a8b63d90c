import { type Static, Type } from 'typebox'
import type { TypedApp } from '../../app.ts'
import type { PublicTransportAlerts } from '../../domain/public-transport/alerts.ts'
import type { PublicTransportJourneys } from '../../domain/public-transport/journeys.ts'
import type { PublicTransportStops } from '../../domain/public-transport/stops.ts'
import type { PublicTransportSubscriptions } from '../../domain/public-transport/subscriptions.ts'
import type { PublicTransportTickets } from '../../domain/public-transport/tickets.ts'
import type { PublicTransportVehicles } from '../../domain/public-transport/vehicles.ts'
import { callerOf } from '../../http/caller.ts'
import { created, ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import { OffsetPagination, OffsetQuery, responses } from '../../http/schemas.ts'
import { renamed } from '../shared/aliases.ts'
import { type Person, Price, providerOutcome } from '../shared/schemas.ts'
import { AlertList, AlertQuery, ItemAlerts } from './alert-schemas.ts'
import {
  Departure,
  DepartureQuery,
  Journey,
  JourneyRequest,
  Product,
  PtBooking,
  PtBookingCreate,
  PtPrebookRequest,
  PtPrebookResult,
  Stop,
  StopList,
  StopQuery,
  Subscription,
  SubscriptionCreate,
  type SubscriptionTraveller,
  Ticket,
} from './schemas.ts'
import { transitVehicleRoutes } from './vehicle-routes.ts'

export interface PublicTransportRouteDeps {
  stops: PublicTransportStops
  journeys: PublicTransportJourneys
  tickets: PublicTransportTickets
  subscriptions: PublicTransportSubscriptions
  alerts: PublicTransportAlerts
  vehicles: PublicTransportVehicles
  clock: () => Date
}

const sourceList = <K extends 'stops' | 'journeys'>(count: K) =>
  Type.Array(providerOutcome(count, `${count === 'stops' ? 'Stops' : 'Journeys'} of this provider in this answer`))
const Id = (name: string) => Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 300 }) })
const doc = (summary: string, description?: string) => ({
  tags: ['Public Transport'],
  summary,
  ...(description ? { description } : {}),
  security: [{ apiKey: [] }],
})
const PT_STATUSES = { OPERATION_NOT_SUPPORTED: 400, BOOKING_FAILED: 400, OFFER_EXPIRED: 400 } as const

export function publicTransportRoutes(app: TypedApp, deps: PublicTransportRouteDeps) {
  const { stops, journeys, tickets, subscriptions, alerts, clock } = deps
  const read = { permission: 'public-transport:offer:read' as const }
  const write = { permission: 'public-transport:booking:write' as const, statusOverrides: PT_STATUSES }
  const readBooking = { permission: 'public-transport:booking:read' as const, statusOverrides: PT_STATUSES }

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

  app.get(
    '/public-transport/subscriptions/products',
    {
      config: { ...read, errors: PROVIDER_CALL },
      schema: {
        operationId: 'listSubscriptionProducts',
        ...doc('Subscription products', 'For example the Deutschlandticket.'),
        response: responses(
          Type.Object({
            products: Type.Array(Product),
            providers: Type.Array(providerOutcome('products', 'Products of this provider')),
          }),
        ),
      },
    },
    async (request) => ok(request, await subscriptions.products(callerOf(request, clock))),
  )

  app.post(
    '/public-transport/subscriptions',
    {
      config: {
        permission: 'public-transport:booking:write',
        errors: [
          'INVALID_IDENTIFICATION',
          'PIN_REQUIRED',
          'DATA_RETENTION_NONE',
          'PRODUCT_NOT_AVAILABLE',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'createSubscription',
        ...doc(
          'Subscribe',
          "Errors: 422 PRODUCT_NOT_AVAILABLE (a product unknown to the tenant's providers, reason UNKNOWN_PRODUCT, or not sold, reason EMPLOYER_ONLY), 400 INVALID_IDENTIFICATION (identification missing or invalid where the product needs one), 400 PIN_REQUIRED, 400 INVALID_DATE_RANGE-like start dates as INVALID_REQUEST, 403 DATA_RETENTION_NONE under retention NONE. 503 SERVICE_UNAVAILABLE with `details.reason: NOT_RECORDED` when the provider created the subscription but the service could not record it: it is withdrawn at the provider, so subscribe again.",
        ),
        body: SubscriptionCreate,
        response: responses(Subscription, 201),
      },
    },
    async (request, reply) => {
      const { holder: _old, ...body } = request.body
      const traveller = renamed<Static<typeof SubscriptionTraveller>>(request.body, 'traveller', 'holder')
      const subscription = await subscriptions.create({ ...body, traveller }, callerOf(request, clock))
      return created(request, reply, subscription.subscriptionId, subscription)
    },
  )

  app.get(
    '/public-transport/subscriptions',
    {
      config: { permission: 'public-transport:booking:read', errors: ['DATA_RETENTION_NONE'] },
      schema: {
        operationId: 'listSubscriptions',
        ...doc('List subscriptions'),
        querystring: OffsetQuery,
        response: responses(Type.Object({ subscriptions: Type.Array(Subscription), pagination: OffsetPagination })),
      },
    },
    async (request) =>
      ok(
        request,
        await subscriptions.list(request.query.page ?? 0, request.query.limit ?? 20, callerOf(request, clock)),
      ),
  )

  app.get(
    '/public-transport/subscriptions/:subscriptionId',
    {
      config: {
        permission: 'public-transport:booking:read',
        errors: ['SUBSCRIPTION_NOT_FOUND', 'DATA_RETENTION_NONE', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'getSubscription',
        ...doc('Read a subscription', '404 SUBSCRIPTION_NOT_FOUND for an unknown id.'),
        params: Id('subscriptionId'),
        response: responses(Subscription),
      },
    },
    async (request) =>
      ok(request, await subscriptions.get(request.params.subscriptionId as string, callerOf(request, clock))),
  )

  app.post(
    '/public-transport/subscriptions/:subscriptionId/cancel',
    {
      config: {
        permission: 'public-transport:booking:write',
        errors: [
          'SUBSCRIPTION_NOT_FOUND',
          'DATA_RETENTION_NONE',
          'SUBSCRIPTION_ALREADY_CANCELLED',
          'SUBSCRIPTION_NOT_CANCELLABLE',
          'SUBSCRIPTION_EXPIRED',
          ...PROVIDER_CALL,
        ],
      },
      schema: {
        operationId: 'cancelSubscription',
        ...doc(
          'Cancel a subscription',
          '409 SUBSCRIPTION_ALREADY_CANCELLED, 422 SUBSCRIPTION_NOT_CANCELLABLE (minimum term), 422 SUBSCRIPTION_EXPIRED.',
        ),
        params: Id('subscriptionId'),
        response: responses(Subscription),
      },
    },
    async (request) =>
      ok(request, await subscriptions.cancel(request.params.subscriptionId as string, callerOf(request, clock))),
  )
}
