/**
 * The one error type of the service and the one table that gives each code its HTTP status (spec 7.1),
 * with the route-specific statuses of spec 7.2 declared by the routes themselves (see `statusOverrides`).
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
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[]

/** Route-specific statuses (spec 7.2): a route lists the codes whose status differs there. */
export type StatusOverrides = Partial<Record<ErrorCode, number>>

export type ErrorDetails = Record<string, unknown>

export class ApiError extends Error {
  readonly code: ErrorCode
  readonly details?: ErrorDetails
  /** Message parameters for the localized catalog entry (for example `{ field: 'limit' }`). */
  readonly params?: Record<string, string | number>
  /** Extra response headers, such as `Retry-After` or `Allow`. */
  readonly headers?: Record<string, string>
  /** A status that differs from the table; only for transport-level answers decided by the HTTP layer. */
  readonly status?: number

  constructor(
    code: ErrorCode,
    message?: string,
    details?: ErrorDetails,
    extra: { params?: Record<string, string | number>; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(message ?? code)
    this.name = 'ApiError'
    this.code = code
    this.details = details
    this.params = extra.params
    this.headers = extra.headers
    this.status = extra.status
  }

  /** Whether `message` was given by the thrower (English, specific) rather than left to the catalog. */
  get hasCustomMessage(): boolean {
    return this.message !== this.code
  }
}

export function statusFor(code: ErrorCode, overrides?: StatusOverrides): number {
  return overrides?.[code] ?? ERROR_STATUS[code]
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError
