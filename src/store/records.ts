import type { Booking } from '../contract/car-bookings.ts'
import type { PricingPlan, Trip } from '../contract/micromobility.ts'

/**
 * What the jsonb columns hold, as the domain reads and writes them: the table definitions (schema.ts) carry these
 * types, so rows come out of the repositories typed and nothing is cast on either side.
 */

/** What a trip keeps besides its status and times (`micromobility_trips.details`). */
export interface TripDetails {
  providerName: string
  vehicle: Trip['vehicle']
  qrCode?: string
  pricingPlan?: PricingPlan
  reservedAt?: string
  startLocation?: { latitude: number; longitude: number }
  /** Where the vehicle reported itself at start (kept after the rider's location is erased). */
  vehicleStartLocation?: { latitude: number; longitude: number }
  endLocation?: { latitude: number; longitude: number }
  endLocationSource?: Trip['endLocationSource']
  cancelledAt?: string
  cancellationReason?: Trip['cancellationReason']
  /** `retryable: false` (kept, not shown) when the vehicle's refusal was definitive, for the waiting request's answer. */
  lastAction?: Trip['lastAction'] & { retryable?: false }
  priceBreakdown?: Trip['priceBreakdown']
}

/** A car booking as answered to the client when it was recorded (`car_bookings.record`). */
export type CarBookingRecord = Booking
