import { type Static, Type } from 'typebox'
import { OffsetPagination } from './common.ts'

export const MODALITIES = ['CAR_RENTAL', 'CAR_SHARING', 'SCOOTER', 'BIKE', 'MOPED', 'PUBLIC_TRANSPORT'] as const
export type Modality = (typeof MODALITIES)[number]

export const OPERATIONS = [
  'SEARCH',
  'STATIONS',
  'OFFER_DETAILS',
  'PREBOOK',
  'BOOK',
  'CHANGE',
  'CANCEL',
  'VEHICLE_ACTIONS',
  'APP_ACCESS',
  'QR_LOOKUP',
  'TRIPS',
  'ZONES',
  'STOPS',
  'DEPARTURES',
  'JOURNEYS',
  'TICKETS',
  'SUBSCRIPTIONS',
  'ALERTS',
  'VEHICLE_POSITIONS',
] as const
export type Operation = (typeof OPERATIONS)[number]

const enumOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], description })

export const ProviderRecord = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('UNAVAILABLE')], {
      description: 'UNAVAILABLE when the provider could not be built or reached; see statusMessage',
    }),
    statusMessage: Type.Optional(Type.String()),
    modalities: Type.Array(enumOf(MODALITIES)),
    capabilities: Type.Object({
      operations: Type.Array(enumOf(OPERATIONS), { description: 'Operations this provider supports through the API' }),
      stationBased: Type.Boolean(),
      freeFloating: Type.Boolean(),
      appAccess: Type.Boolean({ description: 'Vehicles can be opened with the app (accessMethod APP)' }),
      requiresStoredBooking: Type.Boolean({
        description: 'Needs a stored booking; not available under data retention NONE',
      }),
    }),
    countries: Type.Array(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    languages: Type.Array(Type.String({ description: 'BCP 47' })),
    contact: Type.Object({
      email: Type.Optional(Type.String({ format: 'email' })),
      phone: Type.Optional(Type.String()),
      url: Type.Optional(Type.String({ format: 'uri' })),
    }),
    branding: Type.Object({
      logoUrl: Type.Optional(Type.String({ format: 'uri' })),
      primaryColor: Type.Optional(Type.String({ description: '#RRGGBB' })),
      secondaryColor: Type.Optional(Type.String({ description: '#RRGGBB' })),
    }),
    websiteUrl: Type.Optional(Type.String({ format: 'uri' })),
  },
  { title: 'MobilityProvider' },
)
export type ProviderRecord = Static<typeof ProviderRecord>

export const ProviderList = Type.Object(
  { providers: Type.Array(ProviderRecord), pagination: OffsetPagination },
  { title: 'MobilityProviderList' },
)
