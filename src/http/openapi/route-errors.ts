import type { ErrorCode } from '../../contract/errors.ts'
import type { RouteAccess } from '../context.ts'
import { statusFor } from '../errors.ts'

/**
 * The errors one route can answer, by status, for the API document. A route names the codes its use case raises
 * (`config.errors`); everything else comes from what the route declares anyway and the tables the service answers
 * with, so the document cannot say one thing while the service does another:
 * - every route: INVALID_REQUEST (a malformed URL or body, a media type other than JSON), INTERNAL_ERROR, and
 *   SERVICE_UNAVAILABLE (shutting down, overloaded, the store unreachable);
 * - a route with a permission (API key): AUTHENTICATION_REQUIRED, UNAUTHORIZED, FORBIDDEN and RATE_LIMIT_EXCEEDED,
 *   as the authentication hook answers them; an operator route: the admin token's codes and NOT_FOUND (ADMIN_TOKEN
 *   unset);
 * - `locationFields` and `dateFields`: INVALID_LOCATION and INVALID_DATE_RANGE (the validation of those fields);
 * - `statusOverrides` (spec 7.2): those codes, at the route's status;
 * - the status of each code from ERROR_STATUS (src/http/errors.ts), unless the route gives one: `['INTERNAL_ERROR',
 *   409]` for the answers a use case gives with a status of its own (a prebook already running).
 */
export type RouteError = ErrorCode | readonly [ErrorCode, number]

/** What answers a request that carries a key, before any route runs (src/http/auth.ts). */
const KEY_ERRORS: ErrorCode[] = ['AUTHENTICATION_REQUIRED', 'UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED']
/** The operator API: no such route without ADMIN_TOKEN, then the token, then the throttle of failed attempts. */
const ADMIN_ERRORS: ErrorCode[] = ['AUTHENTICATION_REQUIRED', 'UNAUTHORIZED', 'NOT_FOUND', 'RATE_LIMIT_EXCEEDED']
/** Any route at all. */
const ANY_ROUTE: ErrorCode[] = ['INVALID_REQUEST', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']

/** Status → the codes answered with it, statuses and codes in a stable order (status, then the order given). */
export function routeErrors(config: RouteAccess | undefined, method?: string | string[]): Map<number, ErrorCode[]> {
  const pairs: [ErrorCode, number][] = []
  const add = (code: ErrorCode, status = statusFor(code, config?.statusOverrides)) => {
    if (!pairs.some(([c, s]) => c === code && s === status)) pairs.push([code, status])
  }
  for (const code of ANY_ROUTE) add(code)
  if (config?.permission) for (const code of KEY_ERRORS) add(code)
  // Writes with a key take an Idempotency-Key (src/http/idempotency.ts): reused for another request, 422
  // INVALID_REQUEST (IDEMPOTENCY_KEY_REUSED); while its first request runs, 409 INTERNAL_ERROR (IN_PROGRESS).
  if (config?.permission && [method ?? []].flat().some((m) => m === 'POST' || m === 'PATCH')) {
    add('INVALID_REQUEST', 422)
    add('INTERNAL_ERROR', 409)
  }
  if (config?.admin) for (const code of ADMIN_ERRORS) add(code)
  if (config?.locationFields) add('INVALID_LOCATION')
  if (config?.dateFields) add('INVALID_DATE_RANGE')
  for (const code of Object.keys(config?.statusOverrides ?? {}) as ErrorCode[]) add(code)
  for (const entry of config?.errors ?? []) {
    if (typeof entry === 'string') add(entry)
    else add(entry[0], entry[1])
  }
  const byStatus = new Map<number, ErrorCode[]>()
  for (const [code, status] of pairs.sort((a, b) => a[1] - b[1])) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return byStatus
}

/**
 * A use case that asks one provider (an offer, a booking, a trip): the provider's failure and its deadline; the
 * breaker and the bulkhead answer SERVICE_UNAVAILABLE, as every route may.
 */
export const PROVIDER_CALL = ['PROVIDER_ERROR', 'TIMEOUT'] as const satisfies readonly RouteError[]
