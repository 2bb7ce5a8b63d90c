import { type Static, Type } from 'typebox'
import {
  BOOKING_STATUSES,
  CAR_CATEGORIES,
  CarOffer,
  CHANGE_TYPES,
  INSURANCE_COVERAGES,
  MANUAL_CONTACT_METHODS,
  MileageAllowance,
  PICKUP_REQUIREMENT_TYPES,
  POLICY_AVAILABILITY,
  PricedUpsell,
  REFILL_POLICIES,
  VEHICLE_ACTIONS,
  Vehicle,
} from './cars.ts'
import { DateTime, Dictionary, FreeText } from './common.ts'
import { DateRange, DetailedPrice, enumOf, LocationDetails, Person, Price, ProviderDisplay, Warning } from './shared.ts'

/** Offer details, prebook, booking, change, cancel and vehicle actions: what follows a car search. */

const ManualContactInfo = Type.Object(
  {
    methods: Type.Array(enumOf(MANUAL_CONTACT_METHODS)),
    phone: Type.Optional(Type.String()),
    email: Type.Optional(Type.String({ format: 'email' })),
    url: Type.Optional(Type.String({ format: 'uri' })),
    instructions: Type.Optional(Type.String()),
  },
  { title: 'ManualContactInfo' },
)
const CancellationTerms = Type.Object(
  { fee: Type.Optional(Price), refund: Type.Optional(Price), description: Type.Optional(Type.String()) },
  { title: 'CancellationTerms' },
)
export const CancellationPolicy = Type.Object(
  {
    availability: enumOf(POLICY_AVAILABILITY),
    manualContact: Type.Optional(ManualContactInfo),
    deadlines: Type.Optional(Type.Array(Type.Object({ deadline: DateTime, terms: CancellationTerms }))),
    currentTerms: Type.Optional(CancellationTerms),
    conditions: Type.Optional(Type.Array(Type.String())),
    sections: Type.Optional(
      Type.Array(
        Type.Object({
          title: Type.String(),
          text: Type.String(),
          html: Type.Optional(Type.String()),
          order: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
      ),
    ),
    policyUrl: Type.Optional(Type.String({ format: 'uri' })),
  },
  { title: 'CancellationPolicy' },
)
export type CancellationPolicy = Static<typeof CancellationPolicy>

const ChangeTerms = Type.Object(
  { fee: Type.Optional(Price), description: Type.Optional(Type.String()) },
  { title: 'ChangeTerms' },
)
export const ChangeTypePolicy = Type.Object(
  {
    changeType: enumOf(CHANGE_TYPES),
    availability: enumOf(POLICY_AVAILABILITY),
    manualContact: Type.Optional(ManualContactInfo),
    deadlines: Type.Optional(Type.Array(Type.Object({ deadline: DateTime, terms: ChangeTerms }))),
    currentTerms: Type.Optional(ChangeTerms),
    conditions: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'ChangeTypePolicy' },
)
export type ChangeTypePolicy = Static<typeof ChangeTypePolicy>

export const PickupRequirement = Type.Object(
  {
    type: enumOf(PICKUP_REQUIREMENT_TYPES),
    description: Type.String(),
    value: Type.Optional(Type.Union([Type.String(), Type.Number()])),
  },
  { title: 'PickupRequirement' },
)
export type PickupRequirement = Static<typeof PickupRequirement>

export const OfferTokenBody = Type.Object(
  { offerToken: Type.String({ minLength: 1, maxLength: 8192 }) },
  { additionalProperties: false, title: 'CarOfferDetailsRequest' },
)

/**
 * The offer once, under `offer` (as prebook answers it), with its fresh token; its upsells once, priced, in `upsells`.
 * Until issue 21 the offer's fields also stood at the top and `offer.availableUpsells` repeated `upsells` unpriced.
 */
export const OfferDetails = Type.Object(
  {
    offer: Type.Omit(CarOffer, ['availableUpsells'], {
      description:
        'The offer with a fresh `offerToken` and `usableUntil` (the token sent stays usable: offer details consume nothing). Its upsells are in `upsells`, priced.',
    }),
    cancellationPolicy: CancellationPolicy,
    changePolicies: Type.Array(ChangeTypePolicy),
    pickupRequirements: Type.Array(PickupRequirement),
    upsells: Type.Array(PricedUpsell, {
      description: 'Every upsell of the offer with its availability and, where known, its price',
    }),
  },
  { title: 'OfferDetails' },
)
export type OfferDetails = Static<typeof OfferDetails>

export const PrebookRequest = Type.Object(
  {
    offerToken: Type.String({ minLength: 1, maxLength: 8192 }),
    accessMethod: Type.Optional(enumOf(['APP'] as const)),
    upsells: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        uniqueItems: true,
        description: 'referenceCode of BOOKABLE upsells',
      }),
    ),
  },
  { additionalProperties: false, title: 'CarPrebookRequest' },
)

export const RequiredField = Type.Object(
  {
    field: Type.String(),
    type: enumOf(['boolean', 'string'] as const),
    label: Type.String(),
    message: Type.String(),
  },
  { title: 'RequiredField' },
)
export type RequiredField = Static<typeof RequiredField>

export const PrebookResult = Type.Object(
  {
    prebookedOfferToken: Type.String(),
    usableUntil: DateTime,
    appAccessAvailable: Type.Boolean(),
    offer: Type.Omit(CarOffer, ['offerToken', 'usableUntil']),
    price: DetailedPrice,
    upsells: Type.Array(PricedUpsell),
    cancellationPolicy: CancellationPolicy,
    requiredFields: Type.Array(RequiredField, {
      description: 'Fields the booking will ask for (MISSING_REQUIRED_FIELD)',
    }),
    warnings: Type.Array(Warning),
  },
  { title: 'PrebookResult' },
)
export type PrebookResult = Static<typeof PrebookResult>

/** DECISIONS "Cars": a Person with the optional driving licence number. */
export const Driver = Type.Object(
  { ...Person.properties, licenseNumber: Type.Optional(Type.String({ maxLength: 50 })) },
  { title: 'Driver', additionalProperties: false },
)
export type Driver = Static<typeof Driver>

export const BookingCreate = Type.Object(
  {
    prebookedOfferToken: Type.String({ minLength: 1, maxLength: 8192 }),
    driver: Driver,
    accessMethod: Type.Optional(enumOf(['APP'] as const)),
    additionalFields: Type.Optional(
      Dictionary(Type.Union([Type.String({ maxLength: 500 }), Type.Boolean()]), {
        propertyNames: { maxLength: 100 },
        description: 'Answers to MISSING_REQUIRED_FIELD: each details.requiredFields[].field is a key',
      }),
    ),
  },
  { additionalProperties: false, title: 'CarBookingRequest' },
)
export type BookingCreate = Static<typeof BookingCreate>

export const StatusChange = Type.Object(
  { status: enumOf(BOOKING_STATUSES), time: DateTime, reason: Type.Optional(Type.String()) },
  { title: 'BookingStatusChange' },
)

export const Booking = Type.Object(
  {
    bookingId: Type.String({ description: '10 characters; under data retention NONE a zr1_ reference' }),
    status: enumOf(BOOKING_STATUSES),
    provider: ProviderDisplay,
    providerReference: Type.String(),
    vehicle: Vehicle,
    pickupLocation: LocationDetails,
    dropoffLocation: LocationDetails,
    rentalPeriod: DateRange,
    driver: Driver,
    accessMethod: Type.Optional(enumOf(['APP'] as const)),
    offerPrice: Price,
    chargedRate: Price,
    price: Type.Optional(DetailedPrice),
    insurance: enumOf(INSURANCE_COVERAGES),
    refillPolicy: enumOf(REFILL_POLICIES),
    mileageAllowance: MileageAllowance,
    upsells: Type.Array(PricedUpsell),
    additionalFields: Type.Optional(Dictionary(Type.Union([Type.String(), Type.Boolean()]))),
    cancellationPolicy: CancellationPolicy,
    changePolicies: Type.Array(ChangeTypePolicy),
    statusHistory: Type.Optional(Type.Array(StatusChange)),
    cancellation: Type.Optional(
      Type.Object({ cancelledAt: DateTime, fee: Price, refund: Price, reason: Type.Optional(Type.String()) }),
    ),
    fee: Type.Optional({
      ...Price,
      description: 'Cancelled bookings: the cancellation fee applied (as `cancellation.fee`)',
    }),
    refund: Type.Optional({
      ...Price,
      description: 'Cancelled bookings: the amount refunded (as `cancellation.refund`)',
    }),
    notes: Type.Optional(FreeText({ description: 'Free text kept with the booking (retention STANDARD only)' })),
    dataRetention: enumOf(['STANDARD', 'NONE'] as const),
    createdAt: Type.Optional(DateTime),
    updatedAt: Type.Optional(DateTime),
  },
  { title: 'CarBooking' },
)
export type Booking = Static<typeof Booking>

export const BookingChange = Type.Object(
  {
    rentalPeriod: Type.Optional(DateRange),
    driver: Type.Optional(Type.Partial(Driver, { additionalProperties: false })),
    pickupLocationId: Type.Optional(Type.String({ maxLength: 200 })),
    dropoffLocationId: Type.Optional(Type.String({ maxLength: 200 })),
    vehicleCategory: Type.Optional(enumOf(CAR_CATEGORIES)),
    notes: Type.Optional(FreeText({ maxLength: 2000 })),
  },
  { additionalProperties: false, minProperties: 1, title: 'BookingChange' },
)
export type BookingChange = Static<typeof BookingChange>

export const CancelRequest = Type.Object(
  { reason: Type.Optional(FreeText({ maxLength: 500 })) },
  { additionalProperties: false, title: 'CarCancelRequest' },
)

export const VehicleActionRequest = Type.Object(
  { action: enumOf(VEHICLE_ACTIONS) },
  { additionalProperties: false, title: 'CarVehicleActionRequest' },
)
export const VehicleActionResult = Type.Object(
  {
    bookingId: Type.String(),
    action: enumOf(VEHICLE_ACTIONS),
    status: enumOf(['COMPLETED', 'FAILED'] as const),
    completedAt: DateTime,
    vehicleLocation: Type.Optional(Type.Object({ latitude: Type.Number(), longitude: Type.Number() })),
  },
  { title: 'CarVehicleActionResult' },
)
