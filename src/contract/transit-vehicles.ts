import { type Static, Type } from 'typebox'
import { CursorPagination, DateTime } from './common.ts'
import { Line } from './public-transport.ts'
import { enumOf, providerOutcome } from './shared.ts'

/**
 * GET /public-transport/vehicles (DECISIONS "Real-time transit and GBFS out"): live transit vehicles. In a file of
 * their own beside public-transport.ts, which holds the timetable and ticket shapes.
 */

/** GTFS-Realtime VehiclePosition.OccupancyStatus, by name. */
export const TRANSIT_OCCUPANCY = [
  'EMPTY',
  'MANY_SEATS_AVAILABLE',
  'FEW_SEATS_AVAILABLE',
  'STANDING_ROOM_ONLY',
  'CRUSHED_STANDING_ROOM_ONLY',
  'FULL',
  'NOT_ACCEPTING_PASSENGERS',
  'NO_DATA_AVAILABLE',
  'NOT_BOARDABLE',
] as const
export type TransitOccupancy = (typeof TRANSIT_OCCUPANCY)[number]

/** GTFS-Realtime VehiclePosition.VehicleStopStatus, by name. */
export const TRANSIT_VEHICLE_STATUSES = ['INCOMING_AT', 'STOPPED_AT', 'IN_TRANSIT_TO'] as const
export type TransitVehicleStatus = (typeof TRANSIT_VEHICLE_STATUSES)[number]

export const MAX_VEHICLE_RADIUS_METERS = 5000

const EXAMPLE = {
  vehicleId: 'sandbox-transit:M10-0-WD-0929',
  provider: { id: 'sandbox-transit', name: 'Sandbox Transit' },
  location: { latitude: 52.509933, longitude: 13.452767, bearing: 217, speed: 4.7 },
  line: {
    id: 'M10',
    name: 'M10',
    mode: 'TRAM',
    color: '#D82020',
    textColor: '#FFFFFF',
    agency: 'Sandbox Transit Berlin',
  },
  tripId: 'M10-0-WD',
  headsign: 'S+U Warschauer Straße',
  stop: { stopId: 'sandbox-transit:900120004_TRAM', name: 'S+U Warschauer Straße' },
  currentStatus: 'IN_TRANSIT_TO',
  occupancy: 'MANY_SEATS_AVAILABLE',
  lastUpdated: '2031-06-03T08:00:20.000Z',
  distanceFromSearch: 412,
}

export const TransitVehicle = Type.Object(
  {
    vehicleId: Type.String({ description: 'Provider-scoped id: <providerId>:<the feed’s vehicle id>' }),
    provider: Type.Object({ id: Type.String(), name: Type.String() }),
    location: Type.Object({
      latitude: Type.Number(),
      longitude: Type.Number(),
      bearing: Type.Optional(Type.Number({ minimum: 0, maximum: 360, description: 'Degrees clockwise from north' })),
      speed: Type.Optional(Type.Number({ minimum: 0, description: 'Meters per second' })),
    }),
    line: Type.Optional({ ...Line, description: 'The line of the trip (or route) the vehicle serves, when known' }),
    tripId: Type.Optional(Type.String({ description: 'The GTFS trip_id, as departures show it' })),
    label: Type.Optional(Type.String({ description: 'What riders read on the vehicle (a fleet number)' })),
    headsign: Type.Optional(Type.String()),
    stop: Type.Optional(
      Type.Object(
        { stopId: Type.String(), name: Type.String() },
        { description: 'The stop the vehicle is at or heading to (see currentStatus)' },
      ),
    ),
    currentStatus: Type.Optional(enumOf(TRANSIT_VEHICLE_STATUSES, 'Where the vehicle is relative to `stop`')),
    occupancy: Type.Optional(enumOf(TRANSIT_OCCUPANCY, 'GTFS-Realtime occupancy status, when the feed gives it')),
    lastUpdated: { ...DateTime, description: 'When the position was measured (else when the feed was published)' },
    distanceFromSearch: Type.Integer({ minimum: 0, description: 'Meters from the searched point' }),
  },
  { title: 'TransitVehicle', examples: [EXAMPLE] },
)
export type TransitVehicle = Static<typeof TransitVehicle>

export const TransitVehicleQuery = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90, examples: [52.5219] }),
    longitude: Type.Number({ minimum: -180, maximum: 180, examples: [13.4132] }),
    radiusMeters: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_VEHICLE_RADIUS_METERS,
        default: 1000,
        description: `Default 1000, at most ${MAX_VEHICLE_RADIUS_METERS}`,
        examples: [1000],
      }),
    ),
    provider: Type.Optional(
      Type.String({ maxLength: 100, description: 'Only this provider', examples: ['sandbox-transit'] }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
)
export type TransitVehicleQuery = Static<typeof TransitVehicleQuery>

export const TransitVehicleList = Type.Object(
  {
    vehicles: Type.Array(TransitVehicle),
    pagination: CursorPagination,
    providers: Type.Array(
      providerOutcome('vehicles', 'Vehicles of this provider in this answer', 'TransitVehiclesProviderOutcome'),
    ),
  },
  {
    title: 'TransitVehicleList',
    examples: [
      {
        vehicles: [EXAMPLE],
        pagination: { hasMore: false },
        providers: [{ id: 'sandbox-transit', name: 'Sandbox Transit', status: 'OK', vehicles: 1 }],
      },
    ],
  },
)
export type TransitVehicleList = Static<typeof TransitVehicleList>
