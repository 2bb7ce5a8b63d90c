import { type Static, Type } from 'typebox'
import { CursorPagination, DateTime } from './common.ts'
import { Coordinates, DeepLinks, enumOf, Price, ProviderRef, providerOutcome } from './shared.ts'

export const VEHICLE_TYPES = ['SCOOTER', 'BICYCLE', 'CARGO_BICYCLE', 'MOPED', 'CAR', 'OTHER'] as const
export const PROPULSION_TYPES = ['HUMAN', 'ELECTRIC_ASSIST', 'ELECTRIC', 'COMBUSTION', 'HYBRID', 'OTHER'] as const
export const TRIP_STATUSES = ['RESERVED', 'ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED'] as const
export const TRIP_ACTIONS = ['LOCK', 'UNLOCK', 'HONK'] as const
export type VehicleType = (typeof VEHICLE_TYPES)[number]
export type PropulsionType = (typeof PROPULSION_TYPES)[number]
export type TripStatus = (typeof TRIP_STATUSES)[number]
export type TripAction = (typeof TRIP_ACTIONS)[number]

export const PricingPlan = Type.Object(
  { planId: Type.String(), name: Type.String(), currency: Type.String(), unlockFee: Price, perMinuteRate: Price },
  { title: 'PricingPlan' },
)
export type PricingPlan = Static<typeof PricingPlan>

export const MicroVehicle = Type.Object(
  {
    vehicleId: Type.String(),
    vehicle: Type.Object({
      type: enumOf(VEHICLE_TYPES),
      propulsionType: enumOf(PROPULSION_TYPES),
      name: Type.String(),
    }),
    location: Type.Object({ latitude: Type.Number(), longitude: Type.Number(), lastUpdated: DateTime }),
    isAvailable: Type.Boolean(),
    batteryPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    provider: ProviderRef,
    pricingPlan: Type.Optional(PricingPlan),
    vehicleToken: Type.Optional(Type.String({ description: 'Short-lived; only trip-capable providers' })),
    tokenValidUntil: Type.Optional(DateTime),
    distanceFromSearch: Type.Optional(Type.Number({ description: 'Meters' })),
    deepLinks: Type.Optional(DeepLinks),
  },
  { title: 'MicromobilityVehicle' },
)
export type MicroVehicle = Static<typeof MicroVehicle>

export const MicroSearchRequest = Type.Object(
  {
    location: Coordinates,
    radiusMeters: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 5000, default: 500 })),
    vehicleTypes: Type.Optional(Type.Array(enumOf(VEHICLE_TYPES), { uniqueItems: true, minItems: 1 })),
    providers: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), { uniqueItems: true, minItems: 1, maxItems: 100 }),
    ),
    minBatteryPercent: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false, title: 'MicromobilitySearchRequest' },
)
export type MicroSearchRequest = Static<typeof MicroSearchRequest>

export const MicroSearchResult = Type.Object(
  {
    results: Type.Array(MicroVehicle, { description: 'The vehicles, nearest first' }),
    pagination: CursorPagination,
    providers: Type.Array(providerOutcome('vehicles', 'Vehicles of this provider on this page')),
  },
  { title: 'MicromobilitySearchResult' },
)

export const UserLocation = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    accuracyMeters: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false, title: 'UserLocation' },
)

export const TripRequest = Type.Object(
  {
    action: enumOf(['RESERVE', 'START'] as const),
    vehicleToken: Type.Optional(Type.String({ maxLength: 4096 })),
    tripId: Type.Optional(Type.String({ maxLength: 100 })),
    scannedQrCode: Type.Optional(Type.String({ maxLength: 2000 })),
    userEmail: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    userName: Type.Optional(Type.String({ maxLength: 200 })),
    userLocation: Type.Optional(UserLocation),
  },
  { additionalProperties: false, title: 'TripRequest' },
)
export type TripRequest = Static<typeof TripRequest>

export const PriceBreakdown = Type.Object(
  {
    unlockFee: Price,
    perMinuteRate: Price,
    activeMinutes: Type.Integer({ minimum: 0 }),
    pausedMinutes: Type.Integer({ minimum: 0 }),
    timeCharge: Price,
    total: Price,
  },
  { title: 'PriceBreakdown', description: 'Paused minutes are billed like active ones' },
)

export const Trip = Type.Object(
  {
    tripId: Type.String(),
    status: enumOf(TRIP_STATUSES),
    provider: ProviderRef,
    vehicleId: Type.String(),
    vehicle: Type.Object({
      type: enumOf(VEHICLE_TYPES),
      propulsionType: enumOf(PROPULSION_TYPES),
      name: Type.String(),
    }),
    reservedAt: Type.Optional(DateTime),
    reservedUntil: Type.Optional(DateTime),
    startedAt: Type.Optional(DateTime),
    endedAt: Type.Optional(DateTime),
    cancelledAt: Type.Optional(DateTime),
    cancellationReason: Type.Optional(enumOf(['RESERVATION_EXPIRED', 'CANCELLED_BY_USER'] as const)),
    startLocation: Type.Optional(Type.Object({ latitude: Type.Number(), longitude: Type.Number() })),
    endLocation: Type.Optional(Type.Object({ latitude: Type.Number(), longitude: Type.Number() })),
    endLocationSource: Type.Optional(
      enumOf(
        ['REQUEST', 'VEHICLE'] as const,
        'Where `endLocation` came from: REQUEST (the end request sent `endLocation`) or VEHICLE (none sent: the position the vehicle reported at the end)',
      ),
    ),
    userLocation: Type.Optional(UserLocation),
    duration: Type.Object({ activeMinutes: Type.Integer(), pausedMinutes: Type.Integer() }),
    pricingPlan: Type.Optional(PricingPlan),
    lastAction: Type.Optional(
      Type.Object({
        action: enumOf(TRIP_ACTIONS),
        status: enumOf(['QUEUED', 'EXECUTED', 'FAILED'] as const),
        acceptedAt: DateTime,
        executedAt: Type.Optional(DateTime),
        error: Type.Optional(Type.String()),
      }),
    ),
    priceBreakdown: Type.Optional(PriceBreakdown),
  },
  { title: 'Trip' },
)
export type Trip = Static<typeof Trip>

export const TripActionRequest = Type.Object(
  { action: enumOf(TRIP_ACTIONS) },
  { additionalProperties: false, title: 'TripActionRequest' },
)
export const TripActionAccepted = Type.Object(
  { tripId: Type.String(), action: enumOf(TRIP_ACTIONS), acceptedAt: DateTime },
  { title: 'TripActionAccepted' },
)
export const TripEndRequest = Type.Object(
  { endLocation: Type.Optional(Coordinates) },
  { additionalProperties: false, title: 'TripEndRequest' },
)

export const ZoneRules = Type.Object(
  {
    rideStartAllowed: Type.Boolean(),
    rideEndAllowed: Type.Boolean(),
    rideThroughAllowed: Type.Boolean(),
    maximumSpeedKph: Type.Optional(Type.Number()),
    stationParking: Type.Optional(Type.Boolean()),
    vehicleTypes: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'ZoneRules' },
)
export const Zone = Type.Object(
  {
    id: Type.String(),
    name: Type.Optional(Type.String()),
    provider: ProviderRef,
    kind: enumOf(['SERVICE_AREA', 'NO_PARKING', 'PARKING', 'SLOW', 'NO_RIDING', 'OTHER'] as const),
    geometry: Type.Object(
      { type: enumOf(['Polygon', 'MultiPolygon'] as const), coordinates: Type.Array(Type.Unknown()) },
      { description: 'GeoJSON' },
    ),
    rules: Type.Array(ZoneRules),
  },
  { title: 'Zone' },
)
export type Zone = Static<typeof Zone>

export const ZoneQuery = Type.Object(
  {
    latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
    radiusMeters: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50_000 })),
    radius: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50_000, description: 'Alias of radiusMeters' })),
    bbox: Type.Optional(
      Type.String({ pattern: '^-?[0-9.]+,-?[0-9.]+,-?[0-9.]+,-?[0-9.]+$', description: 'minLon,minLat,maxLon,maxLat' }),
    ),
    provider: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
)

export const TripListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Array(enumOf(TRIP_STATUSES), {
        minItems: 1,
        maxItems: 10,
        description:
          'Only trips in these statuses. Repeat the parameter (`status=RESERVED&status=ACTIVE`) or separate values with commas',
        examples: [['RESERVED', 'ACTIVE', 'PAUSED']],
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, examples: [20] })),
    cursor: Type.Optional(
      Type.String({ maxLength: 4096, description: 'pagination.nextCursor of the page before; opaque' }),
    ),
  },
  { additionalProperties: false },
)

export const TripList = Type.Object(
  {
    trips: Type.Array(Trip, { description: 'Newest first' }),
    pagination: CursorPagination,
  },
  {
    title: 'TripList',
    examples: [
      {
        trips: [
          {
            tripId: 'trp_4kQ2x9TbZmP7wYcA',
            status: 'RESERVED',
            provider: { id: 'sandbox-scoot', name: 'Sandbox Scoot' },
            vehicleId: 'scoot-berlin-0042',
            vehicle: { type: 'SCOOTER', propulsionType: 'ELECTRIC', name: 'Sandbox E-Scooter' },
            reservedAt: '2026-06-01T08:00:00Z',
            reservedUntil: '2026-06-01T08:10:00Z',
            duration: { activeMinutes: 0, pausedMinutes: 0 },
          },
        ],
        pagination: { hasMore: true, nextCursor: 'AQJrMV7f...' },
      },
    ],
  },
)
