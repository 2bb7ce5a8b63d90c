import { ApiError, type ErrorDetails } from '../contract/errors.ts'

/**
 * The answers every connector gives when the provider works and says no, so that they read the same whichever
 * protocol gave them, and so that no circuit breaker takes them for a fault (see `classifyFailure` in resilience.ts).
 */

/**
 * The vehicle cannot be had: another trip holds it (the loser of a race for it), it is in the workshop or flat, or
 * the provider no longer offers it. The vehicle token was the offer, and that offer is sold out: 404 OFFER_EXPIRED
 * (spec 7.1: "offer token expired, or offer sold out"), which clients do not retry unchanged (spec 7.3); never a 5xx
 * that they would retry into the same answer.
 */
export const vehicleNotAvailable = (message?: string, details: ErrorDetails = {}) =>
  new ApiError('OFFER_EXPIRED', message ?? 'The vehicle is not available: someone else has taken it', {
    ...details,
    reason: 'VEHICLE_NOT_AVAILABLE',
  })

/**
 * A condition for which the spec prescribes PROVIDER_ERROR but that retrying cannot change (a trip that already
 * ended, a vehicle that rejected the command, an operator that refused the request): the spec's status, with
 * `details.retryable: false` so that clients following spec 7.3.1 do not retry it, and breakers do not count it.
 */
export const permanentProviderError = (reason: string, message?: string, details: ErrorDetails = {}) =>
  new ApiError('PROVIDER_ERROR', message, { reason, ...details, retryable: false })
