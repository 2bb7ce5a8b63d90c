import type { Trip } from '../../contract/micromobility.ts'
import type { EventType } from '../../contract/webhooks.ts'
import type { TripRow } from '../../store/schema.ts'
import { presentTrip } from './trip-view.ts'

const STATUS_EVENTS: Record<string, EventType | undefined> = {
  'RESERVED>ACTIVE': 'micromobility.trip.started',
  'ACTIVE>PAUSED': 'micromobility.trip.paused',
  'PAUSED>ACTIVE': 'micromobility.trip.resumed',
}

const lastActionOf = (row: TripRow) => row.details.lastAction

/**
 * The events a recorded change of a trip announces: its new status (started, paused, resumed, completed, cancelled,
 * a reservation that ran out included) and a vehicle command that failed.
 */
export function tripEvents(before: TripRow, after: TripRow): EventType[] {
  const events: EventType[] = []
  if (before.status !== after.status) {
    const type =
      after.status === 'COMPLETED'
        ? 'micromobility.trip.completed'
        : after.status === 'CANCELLED'
          ? 'micromobility.trip.cancelled'
          : STATUS_EVENTS[`${before.status}>${after.status}`]
    if (type) events.push(type)
  }
  const was = lastActionOf(before)
  const now = lastActionOf(after)
  const newlyFailed =
    now?.status === 'FAILED' &&
    !(was?.status === 'FAILED' && was.acceptedAt === now.acceptedAt && was.action === now.action)
  if (newlyFailed) events.push('micromobility.action.failed')
  return events
}

/**
 * An event's `data`: the trip as the API answers it (the price breakdown once completed, as the end of a ride
 * answers); for a failed command also the `action` and its `error` (`code`, e.g. PROVIDER_ERROR, and `reason`).
 */
export function tripEventData(type: EventType, row: TripRow, now: Date): Trip & Record<string, unknown> {
  const trip = presentTrip(row, now, type === 'micromobility.trip.completed')
  const last = lastActionOf(row)
  if (type !== 'micromobility.action.failed' || !last) return trip
  // Recorded as "<CODE>: <reason>" (see the vehicle-action job).
  const [code, ...reason] = (last.error ?? 'PROVIDER_ERROR').split(':')
  return {
    ...trip,
    action: last.action,
    error: { code: code.trim(), ...(reason.length ? { reason: reason.join(':').trim() } : {}) },
  }
}
