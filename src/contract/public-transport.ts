import { type Static, Type } from 'typebox'
import { CursorPagination, DateTime } from './common.ts'
import {
  deprecatedAlias,
  enumOf,
  type LocationSearch,
  LocationSearchBranches,
  Person,
  Price,
  ProviderRef,
} from './shared.ts'
import { ItemAlerts } from './transit-alerts.ts'

export const TRANSIT_MODES = [
  'WALK',
  'TRAM',
  'SUBWAY',
  'RAIL',
  'BUS',
  'FERRY',
  'CABLE_CAR',
  'GONDOLA',
  'FUNICULAR',
  'TROLLEYBUS',
  'MONORAIL',
  'OTHER',
] as const
export type TransitMode = (typeof TRANSIT_MODES)[number]

export const Stop = Type.Object(
  {
    stopId: Type.String({ description: 'Provider-scoped id: <providerId>:<GTFS stop_id>' }),
    name: Type.String(),
    provider: ProviderRef,
    location: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }),
    code: Type.Optional(Type.String()),
    platform: Type.Optional(Type.String()),
    parentStationId: Type.Optional(Type.String()),
    wheelchairBoarding: Type.Optional(enumOf(['UNKNOWN', 'POSSIBLE', 'NOT_POSSIBLE'] as const)),
    modes: Type.Array(enumOf(TRANSIT_MODES)),
    distanceFromSearch: Type.Optional(Type.Number({ description: 'Meters (coordinate search)' })),
    relevance: Type.Optional(Type.Number({ description: '0..1 (text search)' })),
  },
  { title: 'Stop' },
)
export type Stop = Static<typeof Stop>

export const StopQuery = Type.Object(
  {
    latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    radiusMeters: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 50_000, description: 'Default 1000 (with coordinates)' }),
    ),
    radius: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50_000, description: 'Alias of radiusMeters' })),
    query: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Text search (case- and diacritics-insensitive)' }),
    ),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Alias of query' })),
    provider: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
)

export const Line = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    mode: enumOf(TRANSIT_MODES),
    color: Type.Optional(Type.String()),
    textColor: Type.Optional(Type.String()),
    agency: Type.Optional(Type.String()),
  },
  { title: 'Line' },
)

export const Departure = Type.Object(
  {
    tripId: Type.String(),
    line: Line,
    headsign: Type.String(),
    stop: Type.Object({ stopId: Type.String(), name: Type.String() }),
    platform: Type.Optional(Type.String()),
    scheduledTime: DateTime,
    estimatedTime: Type.Optional(DateTime),
    delaySeconds: Type.Optional(Type.Integer()),
    cancelled: Type.Boolean(),
    realtime: Type.Boolean({ description: 'true when a GTFS-Realtime update applies' }),
    alerts: ItemAlerts,
  },
  { title: 'Departure' },
)
export type Departure = Static<typeof Departure>

export const DepartureQuery = Type.Object(
  {
    from: Type.Optional(DateTime),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
)

export const Place = Type.Object(
  {
    stopId: Type.Optional(Type.String()),
    name: Type.String(),
    location: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }),
  },
  { title: 'JourneyPlace' },
)

export const Leg = Type.Object(
  {
    mode: enumOf(TRANSIT_MODES),
    from: Place,
    to: Place,
    departure: DateTime,
    arrival: DateTime,
    durationMinutes: Type.Integer(),
    line: Type.Optional(Line),
    headsign: Type.Optional(Type.String()),
    tripId: Type.Optional(Type.String()),
    intermediateStops: Type.Optional(
      Type.Array(Type.Object({ stopId: Type.String(), name: Type.String(), arrival: DateTime, departure: DateTime })),
    ),
    distanceMeters: Type.Optional(Type.Integer()),
    alerts: ItemAlerts,
  },
  { title: 'Leg' },
)

export const TicketOffer = Type.Object(
  {
    offerToken: Type.String({ description: 'For POST /public-transport/prebook; encrypted, expires at usableUntil' }),
    usableUntil: DateTime,
    productId: Type.String(),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    price: Price,
    travellerCategory: enumOf(['ADULT', 'CHILD', 'REDUCED'] as const),
    validFrom: DateTime,
    validUntil: DateTime,
    fareZones: Type.Optional(Type.Array(Type.String())),
    provider: ProviderRef,
  },
  { title: 'TicketOffer' },
)
export type TicketOffer = Static<typeof TicketOffer>

export const Journey = Type.Object(
  {
    journeyId: Type.String(),
    provider: ProviderRef,
    departure: DateTime,
    arrival: DateTime,
    durationMinutes: Type.Integer(),
    transfers: Type.Integer({ minimum: 0 }),
    legs: Type.Array(Leg),
    ticketOffers: Type.Array(TicketOffer),
  },
  { title: 'Journey' },
)
export type Journey = Static<typeof Journey>

const StopPlace = Type.Object(
  { type: Type.Literal('stop'), stopId: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false, title: 'StopLocation' },
)

/** A stop of a provider, or a LocationSearch; discriminated by `type`, so errors name the chosen branch only. */
const JourneyEnd = Type.Unsafe<Static<typeof StopPlace> | Static<typeof LocationSearch>>({
  title: 'JourneyEnd',
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [StopPlace, ...LocationSearchBranches],
})

export const JourneyRequest = Type.Object(
  {
    origin: JourneyEnd,
    destination: JourneyEnd,
    departAt: Type.Optional(DateTime),
    arriveBy: Type.Optional(DateTime),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 5,
        description: 'Journeys in the answer, at most; each provider plans up to 10 (spec 8 bounds every limit by 100)',
      }),
    ),
    travellers: Type.Optional(
      Type.Array(
        Type.Object({ category: enumOf(['ADULT', 'CHILD', 'REDUCED'] as const) }, { additionalProperties: false }),
        { minItems: 1, maxItems: 9 },
      ),
    ),
  },
  { additionalProperties: false, title: 'JourneyRequest' },
)
export type JourneyRequest = Static<typeof JourneyRequest>

export const StopList = Type.Object({ stops: Type.Array(Stop), pagination: CursorPagination }, { title: 'StopList' })

const Category = enumOf(['ADULT', 'CHILD', 'REDUCED'] as const)

const OfferTokenString = Type.String({ minLength: 1, maxLength: 8192 })
export const PtPrebookRequest = Type.Object(
  {
    offerToken: Type.Optional({ ...OfferTokenString, description: 'One ticket offer (as cars prebook one offer)' }),
    offerTokens: Type.Optional(
      Type.Array(OfferTokenString, {
        minItems: 1,
        maxItems: 9,
        description: 'One or more ticket offers of one journey (for example one per traveller)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of `offerToken` and `offerTokens`.',
    title: 'TicketPrebookRequest',
  },
)
export type PtPrebookRequest = Static<typeof PtPrebookRequest>

/** A ticket offer once prebooked or booked: without its token. */
const BookedTicketOffer = Type.Omit(TicketOffer, ['offerToken', 'usableUntil'], { title: 'BookedTicketOffer' })

export const PtPrebookResult = Type.Object(
  {
    prebookedOfferToken: Type.String(),
    usableUntil: DateTime,
    provider: ProviderRef,
    offers: Type.Array(BookedTicketOffer),
    total: Price,
  },
  { title: 'TicketPrebookResult' },
)

export const Ticket = Type.Object(
  {
    ticketId: Type.String(),
    status: enumOf(['PENDING', 'ISSUED', 'CANCELLED'] as const),
    productName: Type.String(),
    travellerCategory: Category,
    holderName: Type.Optional(Type.String()),
    validFrom: DateTime,
    validUntil: DateTime,
    format: Type.Optional(enumOf(['QR', 'AZTEC', 'PDF417'] as const)),
    data: Type.Optional(Type.String({ description: 'Barcode payload to render' })),
    issuedAt: Type.Optional(DateTime),
  },
  { title: 'Ticket' },
)

export const PtBookingCreate = Type.Object(
  {
    prebookedOfferToken: Type.String({ minLength: 1, maxLength: 8192 }),
    traveller: Type.Optional({
      ...Person,
      description: 'Who travels on the tickets. Required (or its old name `customer`)',
    }),
    customer: Type.Optional(deprecatedAlias(Person, 'traveller')),
  },
  {
    additionalProperties: false,
    title: 'TicketBookingRequest',
    description: 'Exactly one of `traveller` and its deprecated old name `customer` (400 INVALID_REQUEST otherwise).',
  },
)
export type PtBookingCreate = Static<typeof PtBookingCreate>

export const PtBooking = Type.Object(
  {
    bookingId: Type.String(),
    status: enumOf(['PENDING', 'CONFIRMED', 'CANCELLED', 'FAILED'] as const),
    provider: ProviderRef,
    providerReference: Type.String(),
    traveller: Person,
    customer: deprecatedAlias(Person, 'traveller'),
    offers: Type.Array(BookedTicketOffer),
    total: Price,
    tickets: Type.Array(Ticket),
    cancellation: Type.Optional(Type.Object({ cancelledAt: DateTime, fee: Price, refund: Price })),
    statusHistory: Type.Array(
      Type.Object({ status: Type.String(), time: DateTime, reason: Type.Optional(Type.String()) }),
    ),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'PublicTransportBooking' },
)
export type PtBooking = Static<typeof PtBooking>

export const Product = Type.Object(
  {
    productId: Type.String(),
    provider: ProviderRef,
    name: Type.String(),
    description: Type.String(),
    price: Price,
    billingPeriod: enumOf(['MONTH', 'YEAR'] as const),
    validIn: Type.Array(Type.String()),
    cancellationDeadlineDay: Type.Integer({ minimum: 1, maximum: 31 }),
    requiresIdentification: Type.Boolean(),
    requiresPin: Type.Boolean(),
    available: Type.Boolean(),
  },
  { title: 'SubscriptionProduct' },
)

/** A subscription's traveller: a Person whose date of birth is required, with an identification where the product needs one. */
export const SubscriptionTraveller = Type.Object(
  {
    ...Person.properties,
    dateOfBirth: Type.String({ format: 'date', description: 'YYYY-MM-DD, before today' }),
    identification: Type.Optional(
      Type.Object(
        {
          type: enumOf(['ID_CARD', 'PASSPORT', 'DRIVING_LICENSE'] as const),
          number: Type.String({ minLength: 1, maxLength: 40 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'SubscriptionTraveller' },
)

export const SubscriptionCreate = Type.Object(
  {
    productId: Type.String({ minLength: 1, maxLength: 100 }),
    provider: Type.Optional(
      Type.String({ maxLength: 100, description: 'Needed only when several providers sell the product' }),
    ),
    traveller: Type.Optional({
      ...SubscriptionTraveller,
      description: 'Who travels on the subscription. Required (or its old name `holder`)',
    }),
    holder: Type.Optional(deprecatedAlias(SubscriptionTraveller, 'traveller')),
    startDate: Type.String({ format: 'date', description: 'First day of a month' }),
    pin: Type.Optional(Type.String({ maxLength: 12 })),
  },
  {
    additionalProperties: false,
    title: 'SubscriptionRequest',
    description: 'Exactly one of `traveller` and its deprecated old name `holder` (400 INVALID_REQUEST otherwise).',
  },
)
export type SubscriptionCreate = Static<typeof SubscriptionCreate>

export const Subscription = Type.Object(
  {
    subscriptionId: Type.String(),
    status: enumOf(['PENDING', 'ACTIVE', 'CANCELLED', 'EXPIRED'] as const),
    provider: ProviderRef,
    providerReference: Type.String(),
    productId: Type.String(),
    productName: Type.String(),
    traveller: SubscriptionTraveller,
    holder: deprecatedAlias(SubscriptionTraveller, 'traveller'),
    price: Price,
    startDate: Type.String({ format: 'date' }),
    endDate: Type.Optional(Type.String({ format: 'date' })),
    nextBillingDate: Type.Optional(Type.String({ format: 'date' })),
    cancelledAt: Type.Optional(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'Subscription' },
)
export type Subscription = Static<typeof Subscription>
