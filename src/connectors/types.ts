import type {
  BookingChange,
  BookingStatus,
  CancellationPolicy,
  ChangeTypePolicy,
  Driver,
  InsuranceCoverage,
  MileageAllowance,
  PickupRequirement,
  PricedUpsell,
  RefillPolicy,
  RequiredField,
  UpsellSummary,
  Vehicle,
  VehicleAction,
} from '../api/cars/schemas.ts'
import type { PricingPlan, PropulsionType, TripAction, VehicleType, Zone } from '../api/micromobility/schemas.ts'
import type { TransitMode } from '../api/public-transport/schemas.ts'
import type { TransitOccupancy, TransitVehicleStatus } from '../api/public-transport/vehicle-schemas.ts'
import type { Coordinates, DetailedPrice, LocationDetails, Price, Warning } from '../api/shared/schemas.ts'
import type { Environment } from '../domain/tenants/permissions.ts'
import type { Kv } from '../platform/kv/types.ts'

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

export interface Capabilities {
  modalities: Modality[]
  operations: Operation[]
  stationBased: boolean
  freeFloating: boolean
  /** The provider needs a stored booking (for example subscriptions); excluded for tenants with retention NONE. */
  requiresStoredBooking: boolean
}

/** One entry of the providers file (DECISIONS "Providers file"). */
export interface ProviderEntry {
  id: string
  name: string
  connector: string
  environments: Environment[]
  countries?: string[]
  languages?: string[]
  websiteUrl?: string
  branding?: { logoUrl?: string; primaryColor?: string; secondaryColor?: string }
  contact?: { email?: string; phone?: string; url?: string }
  options?: Record<string, unknown>
}

/**
 * What every connector gives the service, whatever its protocol. The modality contracts (cars, micromobility,
 * public transport) extend this in their own files.
 */
export interface Connector {
  capabilities: Capabilities
  /** Starts background work (feed loading); a failure is reported, never thrown at start. */
  start?(): Promise<void>
  stop?(): Promise<void>
  /**
   * Seconds since the live data this provider serves was published (the stalest realtime feed), for connectors that
   * read feeds; undefined while nothing is loaded. Exported as `feed_age_seconds`.
   */
  feedAgeSeconds?(): number | undefined
}

/** Builds a connector from a provider entry; throws when the options are wrong (so start reports it). */
export type ConnectorFactory = (entry: ProviderEntry, deps: ConnectorDeps) => Connector

export interface Provider {
  entry: ProviderEntry
  /** Undefined when the provider could not be built; `error` says why. */
  connector?: Connector
  status: 'ACTIVE' | 'UNAVAILABLE'
  error?: string
}

// ---------------------------------------------------------------------------------------------------------------
// Cars (car rental and car sharing)

/** What a connector may use besides its options: shared state (a simulated provider keeps its bookings there). */
export interface ConnectorDeps {
  kv: Kv
  clock: () => Date
  /**
   * Where a connector reports what goes wrong while it runs (a feed that fails on refresh, bad records skipped), as
   * one line naming the connector and provider; `options.logger` of an entry takes its place.
   */
  logger?: { warn(message: string): void }
}

/** Per-call context the service gives every connector call. */
export interface CallContext {
  signal: AbortSignal
  now: Date
  language: string
  tenantId: string
  environment: Environment
  /** Parsed X-Sandbox-Scenario (test keys only; empty otherwise). Only the sandbox reads it. */
  scenarios: Scenario[]
}

/** One X-Sandbox-Scenario entry, e.g. `provider-error:sandbox-rent` → { name: 'provider-error', target: 'sandbox-rent' }. */
export interface Scenario {
  name: string
  target?: string
}

export interface GeoArea {
  coordinates: Coordinates
  radiusMeters: number
}

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

// ---------------------------------------------------------------------------------------------------------------
// Micromobility (scooters, bikes, mopeds)

/** A vehicle as a provider reports it. */
export interface ProviderMicroVehicle {
  vehicleId: string
  type: VehicleType
  propulsionType: PropulsionType
  name: string
  latitude: number
  longitude: number
  lastUpdated: string
  isAvailable: boolean
  batteryPercent?: number
  pricingPlan?: PricingPlan
  deepLinks?: { android?: string; ios?: string; web?: string }
  /** The content of the QR code on the vehicle (trip-capable providers). */
  qrCode?: string
  /** The station it is parked or docked at, one of the provider's `stations()`. */
  stationId?: string
}

/** A station (docks, or a virtual station: a marked parking area) as GBFS station_information and _status have it. */
export interface ProviderMicroStation {
  stationId: string
  name: string
  latitude: number
  longitude: number
  /** No docks: vehicles are parked inside `area`, or around the point. */
  isVirtual: boolean
  /** Where vehicles are parked (a virtual station's area). */
  area?: { type: 'MultiPolygon'; coordinates: [number, number][][][] }
  /** Places for vehicles (docks or parking spots), when known. */
  capacity?: number
  /** Free docks, when the provider counts them (docked stations). */
  docksAvailable?: number
  isInstalled: boolean
  isRenting: boolean
  isReturning: boolean
  /** When the station last reported its status (RFC 3339), when known. */
  lastReported?: string
}

/** The fleet at one moment; `version` changes whenever the fleet does, so the service can keep its spatial index. */
export interface FleetSnapshot {
  version: string
  vehicles: ProviderMicroVehicle[]
}

/** A zone as GBFS geofencing_zones has it: GeoJSON geometry with rules. */
export interface ProviderZone {
  id: string
  name?: string
  kind: Zone['kind']
  geometry: Zone['geometry']
  rules: Zone['rules']
}

export interface MicromobilityConnector extends Connector {
  /** The whole fleet, served from memory between refreshes. */
  fleet(ctx: CallContext): Promise<FleetSnapshot>
  zones(ctx: CallContext): Promise<ProviderZone[]>
  /** The provider's stations, for providers that have any (vehicles name theirs in `stationId`). */
  stations?(ctx: CallContext): Promise<ProviderMicroStation[]>
  /**
   * Trip-capable providers only (capability TRIPS). Failures are ApiErrors: refusals from `refusals.ts` (a vehicle
   * another trip holds, or in the workshop or flat: OFFER_EXPIRED with reason VEHICLE_NOT_AVAILABLE; what the
   * provider or vehicle definitively refuses: PROVIDER_ERROR with `retryable: false`), faults as PROVIDER_ERROR or
   * TIMEOUT. Only faults count towards the provider's breaker.
   */
  trips?: {
    /** Holds the vehicle (locked) for a reservation; NOT_FOUND (unknown vehicle) / OFFER_EXPIRED when it cannot be held. */
    reserve(
      vehicleId: string,
      rider: { email?: string; name?: string },
      ctx: CallContext,
    ): Promise<{ reference: string }>
    /** Unlocks the vehicle and starts the ride (after a reservation, `reference` is the reservation's). */
    start(
      vehicleId: string,
      reference: string | undefined,
      rider: { email?: string; name?: string },
      ctx: CallContext,
    ): Promise<{ reference: string; location: { latitude: number; longitude: number } }>
    command(reference: string, action: TripAction, ctx: CallContext): Promise<void>
    end(
      reference: string,
      endLocation: { latitude: number; longitude: number } | undefined,
      ctx: CallContext,
    ): Promise<{ location: { latitude: number; longitude: number } }>
    /** Releases a reserved vehicle. */
    release(reference: string, ctx: CallContext): Promise<void>
  }
}

export const isMicromobilityConnector = (connector: Connector | undefined): connector is MicromobilityConnector =>
  !!connector && typeof (connector as MicromobilityConnector).fleet === 'function'

// ---------------------------------------------------------------------------------------------------------------
// Public transport (GTFS timetables; ticketing where the provider sells tickets)

export interface TransitStop {
  /** The feed's stop_id (the service prefixes it with the provider id). */
  id: string
  name: string
  latitude: number
  longitude: number
  code?: string
  platform?: string
  parentStation?: string
  wheelchairBoarding?: 'UNKNOWN' | 'POSSIBLE' | 'NOT_POSSIBLE'
  modes: TransitMode[]
}

export interface TransitLine {
  routeId: string
  name: string
  mode: TransitMode
  color?: string
  textColor?: string
  agency?: string
}

/** One path of a line on a map. */
export interface TransitLinePath {
  /** `[longitude, latitude, longitude, latitude, …]`, simplified to about a metre. */
  coordinates: Float64Array
  /** The feed's shape_id; absent when the path joins the stops of a stop pattern (the feed has no shape for it). */
  shapeId?: string
}

/** A line with the distinct paths its trips take (shapes, or stop patterns where a trip has no shape). */
export interface TransitLineGeometry {
  line: TransitLine
  paths: TransitLinePath[]
}

/**
 * Every line of a provider, for maps. Built once per feed load; `version` changes whenever the lines do, so the
 * service builds its tile index once per version.
 */
export interface TransitLineSet {
  version: string
  lines: TransitLineGeometry[]
}

export interface TransitDeparture {
  tripId: string
  line: TransitLine
  headsign: string
  stopId: string
  stopName: string
  platform?: string
  scheduled: Date
  estimated?: Date
  delaySeconds?: number
  cancelled: boolean
  realtime: boolean
  /** Service alerts for this trip at this stop and time, in the call's language, most severe first. */
  alerts?: TransitAlert[]
}

export interface TransitLeg {
  mode: TransitMode
  from: { stopId?: string; name: string; latitude: number; longitude: number }
  to: { stopId?: string; name: string; latitude: number; longitude: number }
  departure: Date
  arrival: Date
  line?: TransitLine
  headsign?: string
  tripId?: string
  intermediateStops?: { stopId: string; name: string; arrival: Date; departure: Date }[]
  distanceMeters?: number
  /** Service alerts for the trip, its stops from boarding to alighting and its time (transit legs). */
  alerts?: TransitAlert[]
}

export interface TransitJourney {
  legs: TransitLeg[]
  departure: Date
  arrival: Date
  transfers: number
}

/** GTFS-Realtime Alert causes, effects and severities, by their names in gtfs-realtime.proto. */
export const ALERT_CAUSES = [
  'UNKNOWN_CAUSE',
  'OTHER_CAUSE',
  'TECHNICAL_PROBLEM',
  'STRIKE',
  'DEMONSTRATION',
  'ACCIDENT',
  'HOLIDAY',
  'WEATHER',
  'MAINTENANCE',
  'CONSTRUCTION',
  'POLICE_ACTIVITY',
  'MEDICAL_EMERGENCY',
  'SPECIAL_EVENT',
] as const
export type AlertCause = (typeof ALERT_CAUSES)[number]
export const ALERT_EFFECTS = [
  'NO_SERVICE',
  'REDUCED_SERVICE',
  'SIGNIFICANT_DELAYS',
  'DETOUR',
  'ADDITIONAL_SERVICE',
  'MODIFIED_SERVICE',
  'OTHER_EFFECT',
  'UNKNOWN_EFFECT',
  'STOP_MOVED',
  'NO_EFFECT',
  'ACCESSIBILITY_ISSUE',
] as const
export type AlertEffect = (typeof ALERT_EFFECTS)[number]
export const ALERT_SEVERITIES = ['UNKNOWN_SEVERITY', 'INFO', 'WARNING', 'SEVERE'] as const
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number]

/** What an alert is about (GTFS-Realtime EntitySelector): every field given must match; ids are the feed's. */
export interface TransitInformedEntity {
  agencyId?: string
  routeId?: string
  routeType?: number
  directionId?: number
  tripId?: string
  stopId?: string
}

/** A service alert, its texts in the call's language (or the feed's fallback). */
export interface TransitAlert {
  /** The feed's entity id (the service prefixes it with the provider id). */
  id: string
  header: string
  description?: string
  url?: string
  cause: AlertCause
  effect: AlertEffect
  severity: AlertSeverity
  /** When it applies; empty: as long as the feed has it. A missing start or end is open. */
  activePeriods: { start?: Date; end?: Date }[]
  informedEntities: TransitInformedEntity[]
}

export interface TransitAlertQuery {
  /** Alerts that departures at this stop (and its platforms) can carry. */
  stopId?: string
  /** Alerts that departures of this route can carry. */
  routeId?: string
  /** Active at some time from `from` to `until`. */
  from: Date
  until: Date
  /** Only alerts about the stop as a whole (no route, trip, direction or route type), for a departure board. */
  stopWide?: boolean
}

/** A journey end: a stop of this feed, or a point the traveller walks from or to (nearby stops are found by the connector). */
export type JourneyEnd = { stopId: string } | { latitude: number; longitude: number; name?: string }

export interface JourneyQuery {
  origin: JourneyEnd
  destination: JourneyEnd
  /** Earliest departure; or, with `arriveBy`, the latest arrival (one of the two). */
  departAt?: Date
  arriveBy?: Date
  limit: number
}

export type TravellerCategory = 'ADULT' | 'CHILD' | 'REDUCED'

/** A ticket the provider sells for a journey (TOMP-API "offer"). */
export interface ProviderTicketOffer {
  /** The provider's handle; round-tripped through the service's offer token. */
  offerRef: string
  productId: string
  name: string
  description?: string
  price: Price
  travellerCategory: TravellerCategory
  validFrom: Date
  validUntil: Date
  fareZones?: string[]
}

export interface ProviderTicket {
  ticketId: string
  status: 'PENDING' | 'ISSUED' | 'CANCELLED'
  productName: string
  travellerCategory: TravellerCategory
  holderName?: string
  validFrom: Date
  validUntil: Date
  /** Barcode format and payload once issued. */
  format?: 'QR' | 'AZTEC' | 'PDF417'
  data?: string
  issuedAt?: Date
}

export interface ProviderTicketBooking {
  reference: string
  status: 'PENDING' | 'CONFIRMED' | 'CANCELLED' | 'FAILED'
  offers: ProviderTicketOffer[]
  total: Price
  tickets: ProviderTicket[]
  cancellation?: { cancelledAt: Date; fee: Price; refund: Price }
}

/** A recurring product such as Germany's Deutschlandticket. */
export interface SubscriptionProduct {
  productId: string
  name: string
  description: string
  price: Price
  billingPeriod: 'MONTH' | 'YEAR'
  /** Where it is valid, e.g. ['DE'] or ['VBB-AB']. */
  validIn: string[]
  /** Must be cancelled by this day of the month to end with that month. */
  cancellationDeadlineDay: number
  requiresIdentification: boolean
  requiresPin: boolean
  available: boolean
}

export interface SubscriptionHolder {
  firstName: string
  lastName: string
  email: string
  dateOfBirth: string
  identification?: { type: 'ID_CARD' | 'PASSPORT' | 'DRIVING_LICENSE'; number: string }
}

export interface ProviderSubscription {
  reference: string
  productId: string
  status: 'PENDING' | 'ACTIVE' | 'CANCELLED' | 'EXPIRED'
  startDate: string
  endDate?: string
  nextBillingDate?: string
  price: Price
  cancelledAt?: Date
}

/**
 * Ticket sales of a public-transport provider (TOMP-API-like: offers, purchase, after-sales). Failures are ApiErrors:
 * OFFER_EXPIRED, BOOKING_FAILED, OPERATION_NOT_SUPPORTED, NOT_FOUND, PRODUCT_NOT_AVAILABLE, INVALID_IDENTIFICATION,
 * PIN_REQUIRED, SUBSCRIPTION_NOT_CANCELLABLE, SUBSCRIPTION_ALREADY_CANCELLED, SUBSCRIPTION_EXPIRED, TICKET_NOT_READY.
 */
export interface TransitTicketing {
  offers(journey: TransitJourney, travellers: TravellerCategory[], ctx: CallContext): Promise<ProviderTicketOffer[]>
  prebook(
    offerRefs: string[],
    ctx: CallContext,
  ): Promise<{ prebookRef: string; offers: ProviderTicketOffer[]; total: Price }>
  book(
    prebookRef: string,
    customer: { firstName: string; lastName: string; email: string },
    ctx: CallContext,
  ): Promise<ProviderTicketBooking>
  getBooking(reference: string, ctx: CallContext): Promise<ProviderTicketBooking>
  cancel(reference: string, ctx: CallContext): Promise<ProviderTicketBooking>
  products(ctx: CallContext): Promise<SubscriptionProduct[]>
  subscribe(
    productId: string,
    holder: SubscriptionHolder,
    startDate: string,
    pin: string | undefined,
    ctx: CallContext,
  ): Promise<ProviderSubscription>
  getSubscription(reference: string, ctx: CallContext): Promise<ProviderSubscription>
  cancelSubscription(reference: string, ctx: CallContext): Promise<ProviderSubscription>
}

/** A transit vehicle where it is now (GTFS-Realtime VehiclePosition, or the timetable's simulation). */
export interface TransitVehicle {
  /** The feed's vehicle id (the service prefixes it with the provider id). */
  id: string
  /** What riders read on the vehicle (a fleet number). */
  label?: string
  latitude: number
  longitude: number
  /** Degrees clockwise from true north, 0 to 360. */
  bearing?: number
  /** Meters per second. */
  speed?: number
  tripId?: string
  /** From the trip (or the route) in the static feed; absent when neither is known there. */
  line?: TransitLine
  headsign?: string
  /** The stop the vehicle is at or heading to, when the static feed knows it. */
  stop?: { id: string; name: string }
  currentStatus?: TransitVehicleStatus
  occupancy?: TransitOccupancy
  lastUpdated: Date
}

/** The vehicles at one moment; `version` changes whenever the list does, so the service can keep its spatial index. */
export interface TransitVehicleSnapshot {
  version: string
  vehicles: TransitVehicle[]
}

export interface PublicTransportConnector extends Connector {
  /** Providers that sell tickets (capabilities TICKETS / SUBSCRIPTIONS). */
  ticketing?: TransitTicketing
  /**
   * Live vehicles (capability VEHICLE_POSITIONS): all of them, served from memory between refreshes. A feed that
   * fails to read keeps its last good positions for a bounded time, then gives none; that alone fails no call.
   */
  vehicles?(ctx: CallContext): Promise<TransitVehicleSnapshot>
  stopsNear(
    latitude: number,
    longitude: number,
    radiusMeters: number,
    limit: number,
    ctx: CallContext,
  ): Promise<(TransitStop & { distanceMeters: number })[]>
  /** Case- and diacritics-insensitive, ranked (score 0..1, best first). */
  searchStops(text: string, limit: number, ctx: CallContext): Promise<(TransitStop & { score: number })[]>
  stopById(stopId: string, ctx: CallContext): Promise<TransitStop | undefined>
  /** Departures at the stop (and its child platforms) from `from`, in time order, realtime applied. NOT_FOUND for an unknown stop. */
  departures(stopId: string, from: Date, limit: number, ctx: CallContext): Promise<TransitDeparture[]>
  /** Earliest-arrival journeys with a few Pareto-optimal alternatives by number of transfers. */
  journeys(query: JourneyQuery, ctx: CallContext): Promise<TransitJourney[]>
  /**
   * Providers that publish service alerts (capability ALERTS): those active in the query's time that match its stop
   * and route, most severe first. NOT_FOUND for an unknown stop.
   */
  alerts?(query: TransitAlertQuery, ctx: CallContext): Promise<TransitAlert[]>
  /** The lines as drawn on a map (the `lines` tile layer); providers without geometry leave it out. */
  lineGeometries?(ctx: CallContext): Promise<TransitLineSet>
}

export const isPublicTransportConnector = (connector: Connector | undefined): connector is PublicTransportConnector =>
  !!connector && typeof (connector as PublicTransportConnector).departures === 'function'

export type TransitVehicleConnector = PublicTransportConnector & Required<Pick<PublicTransportConnector, 'vehicles'>>

export const isTransitVehicleConnector = (connector: Connector | undefined): connector is TransitVehicleConnector =>
  isPublicTransportConnector(connector) && typeof connector.vehicles === 'function'
