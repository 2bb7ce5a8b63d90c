/**
 * The error codes of the API (spec 7) and the one error type of the service. Which HTTP status a code answers with is
 * not part of this layer: `src/http/errors.ts` holds that table (spec 7.1) and the routes' own statuses (spec 7.2).
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'INVALID_LOCATION',
  'INVALID_DATE_RANGE',
  'INVALID_OFFER_TOKEN',
  'MISSING_REQUIRED_FIELD',
  'APP_ACCESS_NOT_AVAILABLE',
  'INVALID_CURSOR',
  'GEOCODING_FAILED',
  'INVALID_IDENTIFICATION',
  'PIN_REQUIRED',
  'UNAUTHORIZED',
  'AUTHENTICATION_REQUIRED',
  'FORBIDDEN',
  'DATA_RETENTION_NONE',
  'POLICY_VIOLATION',
  'NOT_FOUND',
  'NO_OFFERS_AVAILABLE',
  'OFFER_EXPIRED',
  'SUBSCRIPTION_NOT_FOUND',
  'OFFER_TOKEN_ALREADY_USED',
  'NO_AVAILABLE_CARD',
  'VEHICLE_MISMATCH',
  'SUBSCRIPTION_ALREADY_CANCELLED',
  'TICKET_NOT_READY',
  'SUBSCRIPTION_NOT_CANCELLABLE',
  'SUBSCRIPTION_EXPIRED',
  'PRODUCT_NOT_AVAILABLE',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'PROVIDER_ERROR',
  'BOOKING_FAILED',
  'OPERATION_NOT_SUPPORTED',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

export type ErrorDetails = Record<string, unknown>

export class ApiError extends Error {
  readonly code: ErrorCode
  readonly details?: ErrorDetails
  /** Message parameters for the localized catalog entry (for example `{ field: 'limit' }`). */
  readonly params?: Record<string, string | number>
  /** Extra response headers, such as `Retry-After` or `Allow`. */
  readonly headers?: Record<string, string>
  /** A status that differs from the HTTP layer's table, for the few answers whose status is part of the decision. */
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

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError
