import { type Static, Type } from 'typebox'
import { CursorPagination, DateTime } from './common.ts'
import {
  DateRange,
  DeepLinks,
  DetailedPrice,
  enumOf,
  LocationDetails,
  LocationSearch,
  Price,
  ProviderDisplay,
  providerOutcome,
  Warning,
} from './shared.ts'

export const CAR_CATEGORIES = ['ECONOMY', 'COMPACT', 'MIDSIZE', 'FULLSIZE', 'LUXURY', 'SUV', 'VAN', 'SPORTS'] as const
export const FUEL_TYPES = [
  'PETROL',
  'DIESEL',
  'ELECTRIC',
  'HYBRID',
  'PLUGIN_HYBRID',
  'HYDROGEN',
  'LPG',
  'OTHER',
] as const
export const TRANSMISSIONS = ['MANUAL', 'AUTOMATIC'] as const
export const REFILL_POLICIES = ['FULL_TO_FULL', 'SAME_AS_PICKUP', 'FUEL_INCLUDED'] as const
export const INSURANCE_COVERAGES = ['BASIC', 'STANDARD', 'COMPREHENSIVE', 'FULL_COVERAGE', 'PREMIUM'] as const
export const CAR_FEATURES = [
  'AIR_CONDITIONING',
  'GPS_NAVIGATION',
  'BLUETOOTH',
  'USB_CHARGING',
  'WIFI_HOTSPOT',
  'APPLE_CARPLAY',
  'INFANT_SEAT',
  'CHILD_SEAT',
  'BOOSTER_SEAT',
  'ISOFIX',
  'SKI_RACK',
  'BIKE_RACK',
  'ROOF_LUGGAGE',
  'WINTER_TIRES',
  'FOUR_WHEEL_DRIVE',
  'ACCESSIBILITY_SUPPORT',
] as const
export const PICKUP_REQUIREMENT_TYPES = [
  'MINIMUM_AGE',
  'INTERNATIONAL_LICENSE',
  'CREDIT_CARD_REQUIRED',
  'PASSPORT_REQUIRED',
  'ADDITIONAL_DRIVER_FEE',
] as const
export const SORT_BY = ['PRICE_LOW_TO_HIGH', 'PRICE_HIGH_TO_LOW', 'DISTANCE', 'RECOMMENDED'] as const
export const REASON_CODES = ['BEST_OVERALL', 'LOWEST_PRICE', 'LOWEST_CO2', 'SHORTEST_DISTANCE'] as const
export const UPSELL_CATEGORIES = [
  'EXTRA_SERVICE',
  'EXTRA_COVERAGE',
  'CHILD_SEAT',
  'GPS_DEVICE',
  'WINTER_EQUIPMENT',
  'TRANSPORT_GEAR',
  'OTHER',
] as const
export const UPSELL_AVAILABILITY = ['ALWAYS_INCLUDED', 'INCLUDED', 'BOOKABLE', 'BOOKABLE_ON_PICKUP'] as const
export const POLICY_AVAILABILITY = ['AVAILABLE_VIA_API', 'REQUIRES_MANUAL_CONTACT', 'NOT_AVAILABLE'] as const
export const MANUAL_CONTACT_METHODS = ['PHONE', 'EMAIL', 'PROVIDER_WEBSITE', 'IN_PERSON'] as const
export const CHANGE_TYPES = [
  'RENTAL_TIMES',
  'DRIVER_INFO',
  'PICKUP_LOCATION',
  'DROPOFF_LOCATION',
  'VEHICLE_CATEGORY',
] as const
export const BOOKING_STATUSES = ['PENDING', 'CONFIRMED', 'FAILED', 'CANCELLED'] as const
export const VEHICLE_ACTIONS = ['UNLOCK', 'LOCK', 'HONK', 'FLASH_LIGHTS', 'LOCATE'] as const

export type CarCategory = (typeof CAR_CATEGORIES)[number]
export type FuelType = (typeof FUEL_TYPES)[number]
export type InsuranceCoverage = (typeof INSURANCE_COVERAGES)[number]
export type RefillPolicy = (typeof REFILL_POLICIES)[number]
export type SortBy = (typeof SORT_BY)[number]
export type ChangeType = (typeof CHANGE_TYPES)[number]
export type BookingStatus = (typeof BOOKING_STATUSES)[number]
export type VehicleAction = (typeof VEHICLE_ACTIONS)[number]

const arrayOf = <T extends string>(values: readonly T[]) =>
  Type.Array(enumOf(values), { uniqueItems: true, minItems: 1 })

export const CarFilters = Type.Object(
  {
    category: Type.Optional(arrayOf(CAR_CATEGORIES)),
    minSeats: Type.Optional(Type.Integer({ minimum: 1, maximum: 15 })),
    minDoors: Type.Optional(Type.Integer({ minimum: 1, maximum: 6 })),
    fuelType: Type.Optional(arrayOf(FUEL_TYPES)),
    transmission: Type.Optional(arrayOf(TRANSMISSIONS)),
    refillPolicy: Type.Optional(arrayOf(REFILL_POLICIES)),
    insuranceCoverage: Type.Optional(arrayOf(INSURANCE_COVERAGES)),
    unlimitedMileage: Type.Optional(Type.Boolean({ description: 'Only unlimited mileage when true' })),
    requiredFeatures: Type.Optional(arrayOf(CAR_FEATURES)),
    minLuggageCapacity: Type.Optional(Type.Integer({ minimum: 1, description: 'Standard carry-on bags' })),
    maxPricePerDay: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Minor units (cents)' })),
    maxTotalPrice: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Minor units (cents)' })),
  },
  { title: 'CarFilters', additionalProperties: false },
)
export type CarFilters = Static<typeof CarFilters>

export const Vehicle = Type.Object(
  {
    make: Type.String(),
    model: Type.String(),
    year: Type.Optional(Type.Integer()),
    category: enumOf(CAR_CATEGORIES),
    seats: Type.Integer({ minimum: 1 }),
    doors: Type.Integer({ minimum: 1 }),
    fuelType: enumOf(FUEL_TYPES),
    transmission: enumOf(TRANSMISSIONS),
    luggageCapacity: Type.Optional(Type.Integer({ minimum: 1 })),
    features: Type.Array(enumOf(CAR_FEATURES)),
    imageUrl: Type.Optional(Type.String({ format: 'uri' })),
    isConfirmed: Type.Boolean({ description: 'true: this exact vehicle; false: an example of the category' }),
    co2Emissions: Type.Optional(Type.Number({ description: 'g CO2e/km, well-to-wheel' })),
    co2Source: Type.Optional(enumOf(['CALCULATED', 'PROVIDER'] as const)),
  },
  { title: 'Vehicle' },
)
export type Vehicle = Static<typeof Vehicle>

export const MileageAllowance = Type.Object(
  { unlimited: Type.Boolean(), includedKilometers: Type.Optional(Type.Integer({ minimum: 1 })) },
  { title: 'MileageAllowance' },
)
export type MileageAllowance = Static<typeof MileageAllowance>

export const Recommendation = Type.Object(
  {
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    reasonCode: enumOf(REASON_CODES),
    reason: Type.String(),
    factors: Type.Object({
      cost: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      time: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Proximity' })),
      co2: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    }),
  },
  { title: 'Recommendation' },
)
export type Recommendation = Static<typeof Recommendation>

export const UpsellSummary = Type.Object(
  {
    referenceCode: Type.String(),
    category: enumOf(UPSELL_CATEGORIES),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    availability: enumOf(UPSELL_AVAILABILITY),
    hasPricing: Type.Boolean(),
  },
  { title: 'UpsellSummary' },
)
export type UpsellSummary = Static<typeof UpsellSummary>

export const PricedUpsell = Type.Intersect([UpsellSummary, Type.Object({ price: Type.Optional(Price) })], {
  title: 'PricedUpsell',
})
export type PricedUpsell = Static<typeof PricedUpsell>

export const CarOffer = Type.Object(
  {
    vehicle: Vehicle,
    pickupLocation: LocationDetails,
    dropoffLocation: LocationDetails,
    rentalPeriod: DateRange,
    price: Type.Optional(DetailedPrice),
    insurance: enumOf(INSURANCE_COVERAGES),
    refillPolicy: enumOf(REFILL_POLICIES),
    mileageAllowance: MileageAllowance,
    offerToken: Type.String({ description: 'Encrypted, single use; changes with each call: always use the latest' }),
    usableUntil: DateTime,
    distanceFromSearch: Type.Optional(Type.Number({ description: 'Meters' })),
    provider: ProviderDisplay,
    deepLinks: Type.Optional(DeepLinks),
    availableUpsells: Type.Optional(Type.Array(UpsellSummary)),
    recommendation: Type.Optional(Recommendation),
    warnings: Type.Optional(Type.Array(Warning)),
  },
  { title: 'CarOffer' },
)
export type CarOffer = Static<typeof CarOffer>

export const CarSearchRequest = Type.Object(
  {
    pickup: LocationSearch,
    dates: DateRange,
    dropoff: Type.Optional(LocationSearch),
    estimatedKilometers: Type.Optional(
      Type.Number({ minimum: 0, maximum: 100_000, description: 'Needed for pricing' }),
    ),
    driverAge: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 120,
        description: 'Years; providers offer nothing to drivers below their minimum age',
      }),
    ),
    filters: Type.Optional(CarFilters),
    sortBy: Type.Optional(enumOf(SORT_BY, 'Default RECOMMENDED')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { title: 'CarSearchRequest', additionalProperties: false },
)
export type CarSearchRequest = Static<typeof CarSearchRequest>

const SourceStatus = providerOutcome('offers', 'Offers this provider contributed on this page request')

export const CarSearchResult = Type.Object(
  {
    offers: Type.Array(CarOffer),
    searchedPeriod: DateRange,
    pagination: CursorPagination,
    providers: Type.Array(SourceStatus, {
      description:
        'Each provider asked for this page and how it answered; failed ones are asked again on the next page',
    }),
    warnings: Type.Array(Warning),
  },
  { title: 'CarSearchResult' },
)

export const Station = Type.Intersect(
  [
    LocationDetails,
    Type.Object({
      placeId: Type.String({ pattern: '^p_[a-z0-9]+$', description: 'Use as LocationSearch {type: "place"}' }),
      provider: ProviderDisplay,
      distanceFromSearch: Type.Number({ description: 'Meters' }),
      stationType: enumOf(['AIRPORT', 'RAILWAY_STATION', 'CITY', 'HOTEL'] as const),
    }),
  ],
  { title: 'Station' },
)
export type Station = Static<typeof Station>

export const StationQuery = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
    radiusMeters: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50_000 })),
    radius: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 50_000, description: 'Alias of radiusMeters' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
)
