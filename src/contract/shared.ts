import { type Static, Type } from 'typebox'

/** Shared types of spec 2.2, used by more than one area. */

export const enumOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })

export const Price = Type.Object(
  {
    amount: Type.Integer({ description: 'Smallest currency unit (cents for EUR; yen for JPY; fils for KWD)' }),
    currency: Type.String({ minLength: 3, maxLength: 3, pattern: '^[A-Z]{3}$', description: 'ISO 4217' }),
    description: Type.Optional(Type.String()),
  },
  { title: 'Price' },
)
export type Price = Static<typeof Price>

export const DetailedPrice = Type.Object(
  {
    totalPrice: Price,
    includedTaxes: Type.Array(Price),
    includedInsurances: Type.Array(Price),
    includedFees: Type.Array(Price),
    includedExtras: Type.Array(Price),
    estimatedFuel: Price,
  },
  { title: 'DetailedPrice' },
)
export type DetailedPrice = Static<typeof DetailedPrice>

export const Coordinates = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
  },
  { title: 'Coordinates', additionalProperties: false },
)
export type Coordinates = Static<typeof Coordinates>

export const ProviderDisplay = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    logoUrl: Type.Optional(Type.String({ format: 'uri' })),
    websiteUrl: Type.Optional(Type.String({ format: 'uri' })),
  },
  { title: 'ProviderDisplay' },
)
export type ProviderDisplay = Static<typeof ProviderDisplay>

/** The provider of an item in answers that name it only (vehicles, trips, stops, tickets, subscriptions). */
export const ProviderRef = Type.Object({ id: Type.String(), name: Type.String() }, { title: 'ProviderRef' })

export const DeepLinks = Type.Object(
  {
    android: Type.Optional(Type.String({ format: 'uri' })),
    ios: Type.Optional(Type.String({ format: 'uri' })),
    web: Type.Optional(Type.String({ format: 'uri' })),
  },
  { title: 'DeepLinks' },
)

export const WARNING_SEVERITIES = ['INFO', 'WARNING', 'ALERT', 'CRITICAL'] as const
export const Warning = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    severity: enumOf(WARNING_SEVERITIES),
    field: Type.Optional(Type.String()),
    details: Type.Optional(
      Type.Object({
        originalValue: Type.Optional(Type.Union([Type.String(), Type.Number()])),
        newValue: Type.Optional(Type.Union([Type.String(), Type.Number()])),
      }),
    ),
  },
  { title: 'Warning' },
)
export type Warning = Static<typeof Warning>

export const LocationDetails = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    address: Type.Object({
      street: Type.Optional(Type.String()),
      city: Type.String(),
      postalCode: Type.Optional(Type.String()),
      country: Type.String(),
      countryCode: Type.String({ minLength: 2, maxLength: 2 }),
    }),
    coordinates: Coordinates,
    additionalInfo: Type.Optional(Type.String()),
    operatingHours: Type.Optional(Type.String()),
  },
  { title: 'LocationDetails' },
)
export type LocationDetails = Static<typeof LocationDetails>

const Radius = Type.Number({
  exclusiveMinimum: 0,
  maximum: 50_000,
  description: 'Meters, > 0, at most 50000; not together with walkingTimeMinutes',
})
const Walking = Type.Number({
  exclusiveMinimum: 0,
  maximum: 60,
  description:
    'Minutes of walking, the alternative to radiusMeters: send one of the two (both answer 400 INVALID_REQUEST)',
})

export const LocationSearchBranches = [
  Type.Object(
    {
      type: Type.Literal('coordinates'),
      coordinates: Coordinates,
      radiusMeters: Type.Optional(Radius),
      walkingTimeMinutes: Type.Optional(Walking),
    },
    { additionalProperties: false, title: 'CoordinatesLocation' },
  ),
  Type.Object(
    {
      type: Type.Literal('address'),
      address: Type.String({ minLength: 1, maxLength: 300, description: 'Geocoded by the service' }),
      radiusMeters: Type.Optional(Radius),
      walkingTimeMinutes: Type.Optional(Walking),
    },
    { additionalProperties: false, title: 'AddressLocation' },
  ),
  Type.Object(
    {
      type: Type.Literal('place'),
      placeId: Type.String({ pattern: '^p_[a-z0-9]+$', description: 'From GET /cars/stations' }),
    },
    { additionalProperties: false, title: 'PlaceLocation' },
  ),
] as const
/** Discriminated by `type`; validation reports the errors of the chosen branch only. */
export const LocationSearch = Type.Unsafe<Static<(typeof LocationSearchBranches)[number]>>({
  title: 'LocationSearch',
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [...LocationSearchBranches],
})
export type LocationSearch = Static<typeof LocationSearch>

export const DateRange = Type.Object(
  {
    start: Type.String({
      format: 'date-time',
      description: 'ISO 8601; offsets are normalized to UTC; must be in the future',
    }),
    end: Type.String({ format: 'date-time' }),
  },
  { title: 'DateRange', additionalProperties: false },
)
export type DateRange = Static<typeof DateRange>

/**
 * The one shape of a person the service books for (issue 21): the car's `driver` (spec 4.1, DECISIONS) adds
 * `licenseNumber`, a ticket booking's and a subscription's `traveller` are this shape (a subscription also needs
 * `dateOfBirth` and takes `identification`).
 */
export const Person = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
    dateOfBirth: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD, before today' })),
  },
  { title: 'Person', additionalProperties: false },
)
export type Person = Static<typeof Person>

/**
 * A field renamed in issue 21, under its old name: accepted in requests (either name; both answer 400) and kept in
 * answers beside the new name until the deprecation period ends. Marked `deprecated: true` in the API document.
 */
export const deprecatedAlias = <T extends object>(schema: T, newName: string) =>
  ({
    ...schema,
    deprecated: true,
    description: `Deprecated: the old name of \`${newName}\` (same content). Requests may send either name, not both; answers carry both until the old name is removed. Use \`${newName}\`.`,
  }) as T

/** Why a provider failed in a list answer. */
export const ProviderError = Type.Object(
  { code: Type.String({ description: 'An ErrorCode (spec 7)' }), message: Type.String() },
  { title: 'ProviderError' },
)

/**
 * How one provider answered a list request (`providers[]` of search, stations, stops, journeys, vehicles, zones):
 * OK, FAILED or TIMEOUT, and why it failed. `count` names the field with the items it gave (`offers`, `stations`, ...).
 */
export const providerOutcome = <K extends string>(count: K, description: string, title?: string) =>
  Type.Object(
    {
      id: Type.String({ description: 'Provider id' }),
      name: Type.String(),
      status: enumOf(['OK', 'FAILED', 'TIMEOUT'] as const),
      ...({ [count]: Type.Integer({ minimum: 0, description }) } as Record<K, ReturnType<typeof Type.Integer>>),
      error: Type.Optional(ProviderError),
    },
    // One named shape per list (`StationsProviderOutcome`): the count field differs.
    { title: title ?? `${count.charAt(0).toUpperCase()}${count.slice(1)}ProviderOutcome` },
  )
