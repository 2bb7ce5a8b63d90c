import { Type } from 'typebox'

export const TripParams = Type.Object({ tripId: Type.String({ minLength: 1, maxLength: 100 }) })
export const doc = (summary: string, description?: string) => ({
  tags: ['Micro Mobility'],
  summary,
  ...(description ? { description } : {}),
  security: [{ apiKey: [] }],
})
export const TRIP_STATES =
  'Trip states (spec 3.1): RESERVE → RESERVED; START (tripId, or vehicleToken without reservation) → ACTIVE; LOCK → PAUSED, UNLOCK → ACTIVE (paused minutes are billed like active ones); end → COMPLETED with priceBreakdown; cancel only from RESERVED → CANCELLED; a reservation that runs out → CANCELLED with cancellationReason RESERVATION_EXPIRED. A request that does not fit the state answers 400 INVALID_REQUEST with details.reason INVALID_TRIP_STATE; any operation on a trip that already ended answers 500 PROVIDER_ERROR (spec 7.1) with details.reason TRIP_ENDED and details.retryable false (retrying cannot change it).'
