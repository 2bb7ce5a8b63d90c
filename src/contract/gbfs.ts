import { type TSchema, Type } from 'typebox'
import { ErrorEnvelope } from './common.ts'

/**
 * GBFS 3.0 files as the API document shows them: the GBFS envelope (`last_updated`, `ttl`, `version`, `data`) and the
 * fields the service writes. The authority is MobilityData's official JSON Schemas (the tests validate every served
 * file against them); these are the readable summary. GBFS files are not wrapped in the API's `{ success, data }`
 * envelope; errors are.
 */

const Localized = Type.Array(
  Type.Object({ text: Type.String(), language: Type.String({ pattern: '^[a-z]{2,3}(-[A-Z]{2})?$' }) }),
  { description: 'GBFS localized string: one entry per language' },
)

const gbfsFile = <T extends TSchema>(title: string, data: T, description: string) =>
  Type.Object(
    {
      last_updated: Type.String({
        format: 'date-time',
        description: 'When the service last read the provider (RFC 3339)',
      }),
      ttl: Type.Integer({
        minimum: 0,
        description: 'Seconds until the service reads the provider again (0: may change at any time)',
      }),
      version: Type.Literal('3.0'),
      data,
    },
    { title, description },
  )

export const GbfsManifest = gbfsFile(
  'GbfsManifest',
  Type.Object({
    datasets: Type.Array(
      Type.Object({
        system_id: Type.String({ description: 'The provider id' }),
        versions: Type.Array(
          Type.Object({ version: Type.Literal('3.0'), url: Type.String({ format: 'uri', description: 'gbfs.json' }) }),
        ),
      }),
    ),
  }),
  'GBFS 3.0 manifest.json: one dataset per micromobility provider enabled for the tenant in the key’s environment',
)

export const GbfsDiscovery = gbfsFile(
  'GbfsDiscovery',
  Type.Object({
    feeds: Type.Array(
      Type.Object({
        name: Type.String({ description: 'system_information, vehicle_types, vehicle_status, ...' }),
        url: Type.String({ format: 'uri' }),
      }),
    ),
  }),
  'GBFS 3.0 gbfs.json: the files this provider publishes, with absolute URLs',
)

const Rule = Type.Object({
  vehicle_type_ids: Type.Optional(Type.Array(Type.String())),
  ride_start_allowed: Type.Boolean(),
  ride_end_allowed: Type.Boolean(),
  ride_through_allowed: Type.Boolean(),
  maximum_speed_kph: Type.Optional(Type.Integer({ minimum: 0 })),
  station_parking: Type.Optional(Type.Boolean()),
})

const RentalUris = Type.Object({
  android: Type.Optional(Type.String({ format: 'uri' })),
  ios: Type.Optional(Type.String({ format: 'uri' })),
  web: Type.Optional(Type.String({ format: 'uri' })),
})

/** The `data` of each feed, by feed name. */
const FEED_DATA = {
  system_information: Type.Object({
    system_id: Type.String(),
    languages: Type.Array(Type.String()),
    name: Localized,
    operator: Type.Optional(Localized),
    opening_hours: Type.String({ description: 'OSM opening_hours' }),
    feed_contact_email: Type.String({ format: 'email' }),
    timezone: Type.String({ description: 'IANA time zone' }),
    manifest_url: Type.String({ format: 'uri' }),
    url: Type.Optional(Type.String({ format: 'uri' })),
    email: Type.Optional(Type.String({ format: 'email' })),
    phone_number: Type.Optional(Type.String({ description: 'E.164' })),
  }),
  vehicle_types: Type.Object({
    vehicle_types: Type.Array(
      Type.Object({
        vehicle_type_id: Type.String(),
        form_factor: Type.String(),
        propulsion_type: Type.String(),
        max_range_meters: Type.Optional(Type.Number({ description: 'Typical range of the form factor (see README)' })),
        name: Localized,
        default_pricing_plan_id: Type.Optional(Type.String()),
      }),
    ),
  }),
  vehicle_status: Type.Object({
    vehicles: Type.Array(
      Type.Object({
        vehicle_id: Type.String({ description: 'Rotated: changes after every trip, never the provider’s id' }),
        lat: Type.Number(),
        lon: Type.Number(),
        is_reserved: Type.Boolean(),
        is_disabled: Type.Boolean(),
        vehicle_type_id: Type.Optional(Type.String()),
        last_reported: Type.Optional(Type.String({ format: 'date-time' })),
        current_fuel_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        current_range_meters: Type.Optional(Type.Number({ minimum: 0 })),
        station_id: Type.Optional(Type.String()),
        pricing_plan_id: Type.Optional(Type.String()),
        rental_uris: Type.Optional(RentalUris),
      }),
    ),
  }),
  station_information: Type.Object({
    stations: Type.Array(
      Type.Object({
        station_id: Type.String(),
        name: Localized,
        lat: Type.Number(),
        lon: Type.Number(),
        is_virtual_station: Type.Optional(Type.Boolean()),
        station_area: Type.Optional(
          Type.Object({ type: Type.Literal('MultiPolygon'), coordinates: Type.Array(Type.Unknown()) }),
        ),
        capacity: Type.Optional(Type.Integer({ minimum: 0 })),
      }),
    ),
  }),
  station_status: Type.Object({
    stations: Type.Array(
      Type.Object({
        station_id: Type.String(),
        num_vehicles_available: Type.Integer({ minimum: 0 }),
        num_vehicles_disabled: Type.Optional(Type.Integer({ minimum: 0 })),
        vehicle_types_available: Type.Optional(
          Type.Array(Type.Object({ vehicle_type_id: Type.String(), count: Type.Integer({ minimum: 0 }) })),
        ),
        num_docks_available: Type.Optional(Type.Integer({ minimum: 0 })),
        is_installed: Type.Boolean(),
        is_renting: Type.Boolean(),
        is_returning: Type.Boolean(),
        last_reported: Type.String({ format: 'date-time' }),
      }),
    ),
  }),
  geofencing_zones: Type.Object({
    geofencing_zones: Type.Object({
      type: Type.Literal('FeatureCollection'),
      features: Type.Array(
        Type.Object({
          type: Type.Literal('Feature'),
          geometry: Type.Object({ type: Type.Literal('MultiPolygon'), coordinates: Type.Array(Type.Unknown()) }),
          properties: Type.Object({ name: Type.Optional(Localized), rules: Type.Array(Rule) }),
        }),
      ),
    }),
    global_rules: Type.Array(Rule),
  }),
  system_pricing_plans: Type.Object({
    plans: Type.Array(
      Type.Object({
        plan_id: Type.String(),
        name: Localized,
        currency: Type.String(),
        price: Type.Number({ description: 'Unlock fee, in major units' }),
        is_taxable: Type.Boolean(),
        description: Localized,
        per_min_pricing: Type.Optional(
          Type.Array(Type.Object({ start: Type.Number(), rate: Type.Number(), interval: Type.Number() })),
        ),
      }),
    ),
  }),
}

export const GbfsFeedFile = Type.Union(
  Object.entries(FEED_DATA).map(([name, data]) =>
    gbfsFile(`Gbfs_${name}`, data, `GBFS 3.0 ${name}.json (the feed named by the path)`),
  ),
  { title: 'GbfsFeed' },
)

export const GbfsParams = Type.Object({
  providerId: Type.String({ minLength: 1, maxLength: 100, description: 'A micromobility provider of the tenant' }),
})

export const GbfsFeedParams = Type.Object({
  providerId: Type.String({ minLength: 1, maxLength: 100, description: 'A micromobility provider of the tenant' }),
  feed: Type.String({
    minLength: 1,
    maxLength: 64,
    description: `The file's name without .json: ${Object.keys(FEED_DATA).join(', ')} (the ones gbfs.json lists)`,
  }),
})

/** GBFS answers: the GBFS file itself on success, the API's error envelope otherwise. */
export const gbfsResponses = <T extends TSchema>(file: T) => ({
  200: file,
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
})
