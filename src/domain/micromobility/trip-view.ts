import type { PricingPlan, Trip } from '../../contract/micromobility.ts'
import type { Price } from '../../contract/shared.ts'
import type { TripDetails } from '../../store/records.ts'
import type { TripRow } from '../../store/schema.ts'

export type { TripDetails } from '../../store/records.ts'

/** The last vehicle action as the API shows it (without the service's own `retryable` mark). */
const shownAction = ({ retryable: _r, ...shown }: NonNullable<TripDetails['lastAction']>) => shown

export const minutesOf = (row: TripRow, now: Date) => {
  if (!row.startedAt) return { activeMinutes: 0, pausedMinutes: 0 }
  const end = (row.endedAt ?? now).getTime()
  const total = Math.max(0, end - row.startedAt.getTime())
  const paused = row.pausedMs + (row.pausedSince ? Math.max(0, end - row.pausedSince.getTime()) : 0)
  const pausedMinutes = Math.floor(paused / 60_000)
  return { activeMinutes: Math.max(0, Math.ceil(total / 60_000) - pausedMinutes), pausedMinutes }
}

export function priceBreakdown(plan: PricingPlan, minutes: { activeMinutes: number; pausedMinutes: number }) {
  const price = (amount: number): Price => ({ amount, currency: plan.currency })
  const timeCharge = plan.perMinuteRate.amount * (minutes.activeMinutes + minutes.pausedMinutes)
  return {
    unlockFee: plan.unlockFee,
    perMinuteRate: plan.perMinuteRate,
    ...minutes,
    timeCharge: price(timeCharge),
    total: price(plan.unlockFee.amount + timeCharge),
  }
}

/** A stored trip as the API answers it; the price breakdown only where the spec shows it (the end of a ride). */
export function presentTrip(row: TripRow, now: Date, withPrice = false): Trip {
  const d = row.details
  const showLocation = row.userLocation && row.userLocationUntil && row.userLocationUntil.getTime() > now.getTime()
  return {
    tripId: row.id,
    status: row.status,
    provider: { id: row.providerId, name: d.providerName },
    vehicleId: row.vehicleId,
    vehicle: d.vehicle,
    ...(d.reservedAt ? { reservedAt: d.reservedAt } : {}),
    ...(row.reservedUntil ? { reservedUntil: row.reservedUntil.toISOString() } : {}),
    ...(row.startedAt ? { startedAt: row.startedAt.toISOString() } : {}),
    ...(row.endedAt ? { endedAt: row.endedAt.toISOString() } : {}),
    ...(d.cancelledAt ? { cancelledAt: d.cancelledAt, cancellationReason: d.cancellationReason } : {}),
    // The rider's position stands as start location only while it may be kept (24 hours).
    ...(showLocation || !d.vehicleStartLocation
      ? d.startLocation
        ? { startLocation: d.startLocation }
        : {}
      : { startLocation: d.vehicleStartLocation }),
    ...(d.endLocation ? { endLocation: d.endLocation } : {}),
    ...(d.endLocation && d.endLocationSource ? { endLocationSource: d.endLocationSource } : {}),
    ...(showLocation ? { userLocation: row.userLocation! } : {}),
    duration: minutesOf(row, now),
    ...(d.pricingPlan ? { pricingPlan: d.pricingPlan } : {}),
    ...(d.lastAction ? { lastAction: shownAction(d.lastAction) } : {}),
    ...(withPrice && d.priceBreakdown ? { priceBreakdown: d.priceBreakdown } : {}),
  }
}
