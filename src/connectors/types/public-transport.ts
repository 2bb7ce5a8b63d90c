import type { TransitMode } from '../../contract/public-transport.ts'
import type { Price } from '../../contract/shared.ts'
import type { AlertCause, AlertEffect, AlertSeverity } from '../../contract/transit-alerts.ts'
import type { TransitOccupancy, TransitVehicleStatus } from '../../contract/transit-vehicles.ts'
import type { CallContext, Connector } from './common.ts'

// Public transport (GTFS timetables; ticketing where the provider sells tickets): the connector contract.

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
