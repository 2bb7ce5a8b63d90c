import type { ErrorCode } from '../contract/errors.ts'

/**
 * The one table that gives each error code its HTTP status (spec 7.1), with the route-specific statuses of spec 7.2
 * declared by the routes themselves (see `statusOverrides`). The codes and the error type are the contract's
 * (`src/contract/errors.ts`); only this layer knows statuses.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_LOCATION: 400,
  INVALID_DATE_RANGE: 400,
  INVALID_OFFER_TOKEN: 400,
  MISSING_REQUIRED_FIELD: 400,
  APP_ACCESS_NOT_AVAILABLE: 400,
  INVALID_CURSOR: 400,
  GEOCODING_FAILED: 400,
  INVALID_IDENTIFICATION: 400,
  PIN_REQUIRED: 400,
  UNAUTHORIZED: 401,
  AUTHENTICATION_REQUIRED: 401,
  FORBIDDEN: 403,
  DATA_RETENTION_NONE: 403,
  POLICY_VIOLATION: 403,
  NOT_FOUND: 404,
  NO_OFFERS_AVAILABLE: 404,
  OFFER_EXPIRED: 404,
  SUBSCRIPTION_NOT_FOUND: 404,
  OFFER_TOKEN_ALREADY_USED: 409,
  NO_AVAILABLE_CARD: 409,
  VEHICLE_MISMATCH: 409,
  SUBSCRIPTION_ALREADY_CANCELLED: 409,
  TICKET_NOT_READY: 409,
  SUBSCRIPTION_NOT_CANCELLABLE: 422,
  SUBSCRIPTION_EXPIRED: 422,
  PRODUCT_NOT_AVAILABLE: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  PROVIDER_ERROR: 500,
  BOOKING_FAILED: 500,
  OPERATION_NOT_SUPPORTED: 501,
  SERVICE_UNAVAILABLE: 503,
  TIMEOUT: 504,
} as const satisfies Record<ErrorCode, number>

/** Route-specific statuses (spec 7.2): a route lists the codes whose status differs there. */
export type StatusOverrides = Partial<Record<ErrorCode, number>>

export function statusFor(code: ErrorCode, overrides?: StatusOverrides): number {
  return overrides?.[code] ?? ERROR_STATUS[code]
}
