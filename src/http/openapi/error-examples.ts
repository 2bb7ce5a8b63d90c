import type { ErrorCode } from '../../contract/errors.ts'
import { errorMessage } from '../../platform/i18n/index.ts'

/**
 * One realistic answer per error code, for the API document (`components.examples`, one per code, referred to by every
 * response that can carry the code). The `details` are those the service gives in such a case; the message is the one
 * it sends, from the same catalog (English).
 */
const DETAILS: Record<ErrorCode, Record<string, unknown> | undefined> = {
  INVALID_REQUEST: { limit: 'must be <= 100', 'filters.category[0]': 'must be one of ECONOMY, COMPACT, MIDSIZE' },
  INVALID_LOCATION: { 'pickup.coordinates.latitude': 'must be <= 90' },
  INVALID_DATE_RANGE: { 'dates.start': 'must be in the future' },
  INVALID_OFFER_TOKEN: { offerToken: 'is not a valid token for this key' },
  MISSING_REQUIRED_FIELD: {
    requiredFields: [
      { field: 'flightNumber', type: 'string', label: 'Flight number', message: 'Needed for an airport pickup' },
    ],
    usableUntil: '2026-01-15T10:20:00.000Z',
  },
  APP_ACCESS_NOT_AVAILABLE: { accessMethod: 'this provider hands keys over at the counter' },
  INVALID_CURSOR: { cursor: 'has expired', reason: 'CURSOR_EXPIRED' },
  GEOCODING_FAILED: { 'pickup.address': 'Nowhere Street 1, Atlantis' },
  INVALID_IDENTIFICATION: { reason: 'MISSING' },
  PIN_REQUIRED: { reason: 'MISSING' },
  UNAUTHORIZED: { reason: 'UNKNOWN_KEY' },
  AUTHENTICATION_REQUIRED: undefined,
  FORBIDDEN: { reason: 'MISSING_PERMISSION', requiredPermission: 'cars:booking:write' },
  DATA_RETENTION_NONE: undefined,
  POLICY_VIOLATION: undefined,
  NOT_FOUND: { resource: 'booking', bookingId: 'BK7Q2M4XZA' },
  NO_OFFERS_AVAILABLE: {
    providers: [{ id: 'sandbox-rent', name: 'Sandbox Rent', status: 'OK', offers: 0 }],
  },
  OFFER_EXPIRED: { offerToken: 'has expired', usableUntil: '2026-01-15T10:20:00.000Z' },
  SUBSCRIPTION_NOT_FOUND: { subscriptionId: 'SUB4K7Q2M9' },
  OFFER_TOKEN_ALREADY_USED: { offerToken: 'was already used' },
  NO_AVAILABLE_CARD: { reason: 'VEHICLE_NOT_AVAILABLE' },
  VEHICLE_MISMATCH: { scannedQrCode: 'belongs to another vehicle' },
  SUBSCRIPTION_ALREADY_CANCELLED: { subscriptionId: 'SUB4K7Q2M9' },
  TICKET_NOT_READY: { bookingId: 'PT3M8K2QXA', retryAfterSeconds: 2 },
  SUBSCRIPTION_NOT_CANCELLABLE: { reason: 'MINIMUM_TERM', earliestEnd: '2026-12-31' },
  SUBSCRIPTION_EXPIRED: { subscriptionId: 'SUB4K7Q2M9' },
  PRODUCT_NOT_AVAILABLE: { reason: 'UNKNOWN_PRODUCT', productId: 'unknown-product' },
  RATE_LIMIT_EXCEEDED: { limit: 100, windowSeconds: 60, retryAfterSeconds: 12 },
  INTERNAL_ERROR: undefined,
  PROVIDER_ERROR: { providerId: 'sandbox-rent', reason: 'STATION_BUSY' },
  BOOKING_FAILED: { providerId: 'sandbox-rent', reason: 'CANCELLATION_REFUSED' },
  OPERATION_NOT_SUPPORTED: { operation: 'PICKUP_LOCATION', availability: 'REQUIRES_MANUAL_CONTACT' },
  SERVICE_UNAVAILABLE: { reason: 'OVERLOADED' },
  TIMEOUT: { providerId: 'sandbox-rent', operation: 'offerDetails' },
}

/** The envelope the service answers with `code`, as an example. */
export function errorExample(code: ErrorCode, timestamp: string) {
  const details = DETAILS[code]
  return {
    success: false,
    error: { code, message: errorMessage('en', code, details?.reason), ...(details ? { details } : {}) },
    meta: { requestId: 'req_4k2m9q7x00001a', timestamp },
  }
}
