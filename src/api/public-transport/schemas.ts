import { type Static, Type } from 'typebox'
import { CursorPagination, DateTime } from '../../http/schemas.ts'
import { enumOf, LocationSearch, Price } from '../shared/schemas.ts'

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
    provider: Type.Object({ id: Type.String(), name: Type.String() }),
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
    radiusMeters: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50_000, default: 1000 })),
    query: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Text search (case- and diacritics-insensitive)' }),
    ),
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

export const Place = Type.Object({
  stopId: Type.Optional(Type.String()),
  name: Type.String(),
  location: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }),
})

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
    provider: Type.Object({ id: Type.String(), name: Type.String() }),
  },
  { title: 'TicketOffer' },
)
export type TicketOffer = Static<typeof TicketOffer>

export const Journey = Type.Object(
  {
    journeyId: Type.String(),
    provider: Type.Object({ id: Type.String(), name: Type.String() }),
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
  { additionalProperties: false },
)

export const JourneyRequest = Type.Object(
  {
    origin: Type.Union([StopPlace, LocationSearch]),
    destination: Type.Union([StopPlace, LocationSearch]),
    departAt: Type.Optional(DateTime),
    arriveBy: Type.Optional(DateTime),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 5 })),
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

export const StopList = Type.Object({ stops: Type.Array(Stop), pagination: CursorPagination })
