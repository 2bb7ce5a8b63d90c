import type {
  BookingChange,
  CancellationPolicy,
  ChangeTypePolicy,
  Driver,
  PickupRequirement,
  RequiredField,
} from '../../contract/car-bookings.ts'
import type {
  BookingStatus,
  InsuranceCoverage,
  MileageAllowance,
  PricedUpsell,
  RefillPolicy,
  UpsellSummary,
  Vehicle,
  VehicleAction,
} from '../../contract/cars.ts'
import type { Coordinates, DetailedPrice, LocationDetails, Price, Warning } from '../../contract/shared.ts'
import type { CallContext, Connector, GeoArea } from './common.ts'

// Cars (car rental and car sharing): the connector contract and what it answers.

export interface CarSearchQuery {
  pickup: GeoArea
  /** One-way rentals: where the car is returned. */
  dropoff?: GeoArea
  start: Date
  end: Date
  driverAge?: number
  estimatedKilometers?: number
}

/** A car offer as a provider makes it; the service adds tokens, recommendation and display. */
export interface ProviderCarOffer {
  /** The provider's handle for this offer; opaque to the service, round-tripped through the offer token. */
  offerRef: string
  vehicle: Vehicle
  pickupLocation: LocationDetails
  dropoffLocation: LocationDetails
  rentalPeriod: { start: string; end: string }
  /** Always computed; shown to clients only when estimatedKilometers was sent. */
  price: DetailedPrice
  pricePerDay: Price
  insurance: InsuranceCoverage
  refillPolicy: RefillPolicy
  mileageAllowance: MileageAllowance
  /** Distance from the searched point to the pickup location, meters. */
  distanceMeters: number
  deepLinks?: { android?: string; ios?: string; web?: string }
  availableUpsells?: UpsellSummary[]
  warnings?: Warning[]
}

export interface CarSearchAnswer {
  offers: ProviderCarOffer[]
  /** The period actually searched (a provider may round times). */
  searchedPeriod: { start: string; end: string }
  warnings: Warning[]
}

export interface ProviderStation extends LocationDetails {
  stationType: 'AIRPORT' | 'RAILWAY_STATION' | 'CITY' | 'HOTEL'
  distanceMeters: number
}

export interface OfferTerms {
  cancellationPolicy: CancellationPolicy
  changePolicies: ChangeTypePolicy[]
  pickupRequirements: PickupRequirement[]
  upsells: PricedUpsell[]
}

export interface PrebookAnswer {
  prebookRef: string
  offer: ProviderCarOffer
  terms: OfferTerms
  /** Fields the booking will ask for through MISSING_REQUIRED_FIELD (for example flightNumber at airports). */
  requiredFields: RequiredField[]
  appAccessAvailable: boolean
  /** PRICE_CHANGED / PRICE_INCREASED / PRICE_DECREASED with original and new value, and the like. */
  warnings: Warning[]
}

export interface ProviderBooking {
  reference: string
  status: BookingStatus
  vehicle: Vehicle
  pickupLocation: LocationDetails
  dropoffLocation: LocationDetails
  rentalPeriod: { start: string; end: string }
  price: DetailedPrice
  /** What the provider charges (after changes and cancellation fees). */
  chargedRate: Price
  insurance: ProviderCarOffer['insurance']
  refillPolicy: ProviderCarOffer['refillPolicy']
  mileageAllowance: MileageAllowance
  upsells: PricedUpsell[]
  terms: OfferTerms
  accessMethod?: 'APP'
  /** The account the booking runs on at the provider (what retention NONE reports as driver). */
  operatorAccount: Driver
  cancellation?: { cancelledAt: string; fee: Price; refund: Price; reason?: string }
}

export interface BookInput {
  driver: Driver
  accessMethod?: 'APP'
  additionalFields: Record<string, string | boolean>
}

/**
 * The car contract. Failures are thrown as ApiError with the spec's codes: OFFER_EXPIRED (sold out / stale offer),
 * NO_AVAILABLE_CARD (details.reason VEHICLE_NOT_AVAILABLE when other bookings took the cars), MISSING_REQUIRED_FIELD
 * (details.requiredFields), APP_ACCESS_NOT_AVAILABLE, BOOKING_FAILED, NOT_FOUND (unknown reference),
 * OPERATION_NOT_SUPPORTED, PROVIDER_ERROR (anything else the provider did wrong; `retryable: false` when it is the
 * provider's definitive answer, see `classifyFailure`).
 */
export interface CarConnector extends Connector {
  searchCars(query: CarSearchQuery, ctx: CallContext): Promise<CarSearchAnswer>
  stations(area: GeoArea, ctx: CallContext): Promise<ProviderStation[]>
  offerDetails(offerRef: string, ctx: CallContext): Promise<{ offer: ProviderCarOffer; terms: OfferTerms }>
  prebook(
    offerRef: string,
    input: { accessMethod?: 'APP'; upsells: string[] },
    ctx: CallContext,
  ): Promise<PrebookAnswer>
  book(prebookRef: string, input: BookInput, ctx: CallContext): Promise<ProviderBooking>
  getBooking(reference: string, ctx: CallContext): Promise<ProviderBooking>
  changeBooking(reference: string, change: BookingChange, ctx: CallContext): Promise<ProviderBooking>
  cancelBooking(reference: string, input: { reason?: string }, ctx: CallContext): Promise<ProviderBooking>
  vehicleAction(
    reference: string,
    action: VehicleAction,
    ctx: CallContext,
  ): Promise<{ status: 'COMPLETED' | 'FAILED'; vehicleLocation?: Coordinates }>
}

export const isCarConnector = (connector: Connector | undefined): connector is CarConnector =>
  !!connector &&
  (connector.capabilities.modalities.includes('CAR_RENTAL') ||
    connector.capabilities.modalities.includes('CAR_SHARING')) &&
  typeof (connector as CarConnector).searchCars === 'function'
