// The error class has no dependencies of its own; it is the contract's one error type (ARCHITECTURE: contract/).
import { ApiError } from '../contract/errors.ts'

/** The shared servers of the distributed shape. An outage of one answers 503 naming it, never 500 and never a hang. */
export type Dependency = 'REDIS' | 'DATABASE'

export const OUTAGE_REASONS = { REDIS: 'REDIS_UNAVAILABLE', DATABASE: 'DATABASE_UNAVAILABLE' } as const

/**
 * What an outage answer tells the client to wait: reconnects are tried at least every second, so a server that is back
 * is in use again by then.
 */
export const OUTAGE_RETRY_AFTER_SECONDS = 2

/** SERVICE_UNAVAILABLE naming the dependency (`details.reason`), with Retry-After. The cause stays out: it names hosts. */
export function unavailable(dependency: Dependency): ApiError {
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    `${dependency === 'REDIS' ? 'Redis' : 'The database'} is unavailable; try again shortly`,
    { reason: OUTAGE_REASONS[dependency], retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS },
    { headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) } },
  )
}

const REASONS: readonly string[] = Object.values(OUTAGE_REASONS)

/** Whether `error` is the answer to an outage of Redis or the database (not a provider's failure). */
export const isOutage = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.code === 'SERVICE_UNAVAILABLE' && REASONS.includes(error.details?.reason as string)

/**
 * The outage behind `error`, also when a library wrapped it (drizzle wraps a driver's error in its own, with the
 * original as `cause`).
 */
export function outageIn(error: unknown): ApiError | undefined {
  let current = error
  for (let depth = 0; depth < 5 && current; depth++) {
    if (isOutage(current)) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
