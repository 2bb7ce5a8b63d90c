import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { ApiError } from '../contract/errors.ts'
import type { LoadGuard } from '../platform/load-guard.ts'

/** Probes and scrapes answer however loaded the service is: they are how operators see the overload. */
const EXEMPT = new Set(['/health', '/ready', '/metrics'])
/** Seconds a refused client waits: a few samples of the guard, time for the collector to catch up. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 5

/**
 * Refuses every other request with 503 SERVICE_UNAVAILABLE (`OVERLOADED`, `Retry-After`) while the guard says so.
 * Answers the check the app's first onRequest hook runs (one hook, not one per concern): the error to answer with,
 * or undefined to go on.
 */
export function loadShedding(log: FastifyBaseLogger, guard: LoadGuard): (request: FastifyRequest) => Error | undefined {
  let refusing = false
  return (request) => {
    const why = guard.overloaded()
    if (why === undefined) {
      if (refusing) log.warn('load shedding stopped: admitting requests again')
      refusing = false
      return undefined
    }
    if (!refusing) log.warn({ cause: why }, 'load shedding: refusing requests with 503 OVERLOADED')
    refusing = true
    const query = request.url.indexOf('?')
    if (EXEMPT.has(query < 0 ? request.url : request.url.slice(0, query))) return undefined
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      undefined,
      { reason: 'OVERLOADED' },
      { headers: { 'retry-after': String(OVERLOADED_RETRY_AFTER_SECONDS) } },
    )
  }
}
