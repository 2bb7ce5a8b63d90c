/**
 * When a delivery is tried again (Standard Webhooks' suggested schedule, stretched past the three days after which a
 * failing endpoint is disabled): 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h. The last retry comes about 87 hours
 * after the first attempt, so a delivery is tried for more than 24 hours and an endpoint that fails all that time is
 * disabled by it.
 */
const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  ...Array<number>(8).fill(10 * HOUR),
]

/** Attempts a delivery gets at most: the first and one per retry delay. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1

/** An endpoint whose deliveries have failed without a success in between for this long is disabled. */
export const DISABLE_AFTER_MS = 72 * HOUR

/** How long one attempt may take, answer included; a 2xx within it counts as delivered. */
export const ATTEMPT_TIMEOUT_MS = 10 * SECOND

/** Retries up to this delay run from a timer of the instance that failed, not from the next poll. */
export const SHORT_RETRY_MS = 60 * SECOND

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed; undefined when no attempt is left.
 * Delays of 5 minutes and more lose up to a tenth at random, so endpoints that fail together (a receiver's outage) are
 * not all retried in the same second.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attempt - 1]
  if (base === undefined) return undefined
  if (base < 5 * MINUTE) return base
  const r = random()
  const jitter = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0
  return Math.round(base * (1 - 0.1 * jitter))
}
