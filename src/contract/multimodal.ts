import { type Static, Type } from 'typebox'
import { ErrorEnvelope } from './common.ts'
import { MicroVehicle } from './micromobility.ts'
import { Departure, Stop } from './public-transport.ts'
import { Coordinates, enumOf, LocationDetails, ProviderDisplay, ProviderError, ProviderRef } from './shared.ts'

/** The sources one multimodal search combines (DECISIONS "Multimodal"). */
export const MULTIMODAL_SOURCES = ['PUBLIC_TRANSPORT', 'MICROMOBILITY', 'CARSHARING'] as const
export type MultimodalSource = (typeof MULTIMODAL_SOURCES)[number]

export const SOURCE_STATUSES = ['OK', 'FAILED', 'TIMEOUT'] as const
export type SourceStatus = (typeof SOURCE_STATUSES)[number]

export const MultimodalRequest = Type.Object(
  {
    location: Coordinates,
    radiusMeters: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 5000, default: 500, description: 'Meters, > 0, at most 5000' }),
    ),
    include: Type.Optional(
      Type.Array(enumOf(MULTIMODAL_SOURCES), {
        uniqueItems: true,
        minItems: 1,
        description: 'The sources to ask; default all three',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Results per source (not in total)' }),
    ),
  },
  { additionalProperties: false, title: 'MultimodalRequest' },
)
export type MultimodalRequest = Static<typeof MultimodalRequest>

/** A departure at a stop near the point: the departure's fields, with the whole stop and its distance. */
export const DepartureItem = Type.Object(
  {
    kind: Type.Literal('DEPARTURE'),
    ...Departure.properties,
    stop: Stop,
    provider: ProviderRef,
    distanceFromSearch: Type.Number({ description: "Meters to the departure's stop" }),
  },
  { title: 'MultimodalDeparture' },
)

/** A micromobility vehicle exactly as POST /micromobility answers it. */
export const VehicleItem = Type.Object(
  { kind: Type.Literal('VEHICLE'), ...MicroVehicle.properties },
  { title: 'MultimodalVehicle' },
)

/** A station of a car-sharing provider, as GET /cars/stations shows stations. */
export const CarsharingStationItem = Type.Object(
  {
    kind: Type.Literal('CARSHARING_STATION'),
    ...LocationDetails.properties,
    placeId: Type.String({
      pattern: '^p_[a-z0-9]+$',
      description: 'Use as LocationSearch {type: "place"} in POST /cars',
    }),
    stationType: enumOf(['AIRPORT', 'RAILWAY_STATION', 'CITY', 'HOTEL'] as const),
    provider: ProviderDisplay,
    distanceFromSearch: Type.Number({ description: 'Meters' }),
  },
  { title: 'MultimodalCarsharingStation' },
)

export const MultimodalItem = Type.Union([DepartureItem, VehicleItem, CarsharingStationItem], {
  title: 'MultimodalItem',
  description: 'Discriminated by `kind`',
  discriminator: { propertyName: 'kind' },
})
export type MultimodalItem = Static<typeof MultimodalItem>

export const SourceOutcome = Type.Object(
  {
    status: enumOf(
      SOURCE_STATUSES,
      'OK: every provider of the source answered; FAILED: at least one failed (`error`; `providers` says which; what the others found is still in `results`); TIMEOUT: the source missed its deadline, or every failure of its providers was a timeout',
    ),
    results: Type.Integer({ minimum: 0, description: 'Items of this source in `results`' }),
    error: Type.Optional(ProviderError),
    providers: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        status: enumOf(SOURCE_STATUSES),
        error: Type.Optional(ProviderError),
      }),
    ),
  },
  { title: 'MultimodalSourceOutcome' },
)
export type SourceOutcome = Static<typeof SourceOutcome>

export const MultimodalResult = Type.Object(
  {
    results: Type.Array(MultimodalItem, {
      description:
        'Grouped by source in the order PUBLIC_TRANSPORT, MICROMOBILITY, CARSHARING: departures by time, vehicles and stations nearest first',
    }),
    sources: Type.Object(
      {
        PUBLIC_TRANSPORT: Type.Optional(SourceOutcome),
        MICROMOBILITY: Type.Optional(SourceOutcome),
        CARSHARING: Type.Optional(SourceOutcome),
      },
      {
        additionalProperties: false,
        description: 'Each requested source by name (`sources.MICROMOBILITY.status`): how it answered, and why not',
      },
    ),
  },
  { title: 'MultimodalResult' },
)
export type MultimodalResult = Static<typeof MultimodalResult>

export const TileParams = Type.Object({
  z: Type.Integer({ minimum: 0, maximum: 22, description: 'Zoom level, 0 to 22' }),
  x: Type.Integer({ minimum: 0, description: 'Column, 0 to 2^z − 1' }),
  y: Type.Integer({ minimum: 0, description: 'Row (XYZ scheme, north at 0), 0 to 2^z − 1' }),
})
export type TileParams = Static<typeof TileParams>

export const TILE_CONTENT_TYPE = 'application/vnd.mapbox-vector-tile'

/** The tile route's answers: the binary tile, 304 for a matching If-None-Match, the envelope for errors. */
export const tileResponses = {
  200: {
    description:
      'Mapbox Vector Tile 2.1 (extent 4096) with the layers `vehicles`, `stations`, `stops` and `zones`; `ETag` and `Cache-Control` set',
    content: { [TILE_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
  },
  304: { description: 'Not modified: the tile still matches the ETag sent in If-None-Match', type: 'null' },
  '4xx': { description: 'The error envelope', content: { 'application/json': { schema: ErrorEnvelope } } },
  '5xx': { description: 'The error envelope', content: { 'application/json': { schema: ErrorEnvelope } } },
}
