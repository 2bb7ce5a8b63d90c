import {
  BrokenCircuitError,
  BulkheadRejectedError,
  bulkhead,
  type CircuitBreakerPolicy,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  retry,
} from 'cockatiel'
import { ApiError, type ErrorCode } from '../http/errors.ts'
import type { Metrics } from '../platform/metrics.ts'

export interface CallOptions {
  provider: string
  operation: string
  /** Absolute deadline (ms since epoch, wall clock): the request's budget for this call. */
  deadline: number
  /** Reads may be retried; writes (book, cancel, start) never are. */
  idempotent?: boolean
  /** The caller's own signal (client went away). */
  signal?: AbortSignal
  /** Which breaker and bulkhead the call counts against (default: the provider): environments stay apart. */
  breakerKey?: string
  /**
   * The call runs under a test scenario (X-Sandbox-Scenario) that targets this provider: its failures were asked for
   * and say nothing about the provider's health, so no breaker counts them and they are not retried.
   */
  staged?: boolean
}

export interface ResilienceOptions {
  metrics: Metrics
  /** Consecutive failures that open a provider's breaker. */
  breakerThreshold?: number
  /** How long an open breaker rejects calls before it lets one through. */
  halfOpenAfterMs?: number
  /** Concurrent calls per provider, and how many may wait beyond that. */
  concurrency?: number
  queue?: number
  retries?: number
}

/** Failures that say something about the provider's health (and may be retried): not answers such as "sold out". */
const UNHEALTHY: ErrorCode[] = ['PROVIDER_ERROR', 'TIMEOUT', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']
const unhealthy = (error: unknown) => !(error instanceof ApiError) || UNHEALTHY.includes(error.code)

const outcomeOf = (error: unknown): string => {
  if (error instanceof ApiError) {
    if (error.code === 'TIMEOUT') return 'timeout'
    if (error.details?.reason === 'CIRCUIT_OPEN') return 'open'
    if (error.details?.reason === 'BULKHEAD_FULL') return 'rejected'
    return unhealthy(error) ? 'error' : 'ok'
  }
  return 'error'
}

/**
 * Every connector call goes through here: a deadline from the request's budget (the caller never waits past it, even
 * when the connector ignores its signal), a circuit breaker and a bulkhead per provider, retries only for reads.
 * Failures come out as the one error type: TIMEOUT, SERVICE_UNAVAILABLE (breaker open, bulkhead full) or PROVIDER_ERROR.
 */
export function createResilience(options: ResilienceOptions) {
  const { metrics } = options
  const perProvider = new Map<string, { breaker: CircuitBreakerPolicy; bulkhead: ReturnType<typeof bulkhead> }>()
  const policies = (provider: string) => {
    let p = perProvider.get(provider)
    if (!p) {
      p = {
        breaker: circuitBreaker(handleWhen(unhealthy), {
          halfOpenAfter: options.halfOpenAfterMs ?? 10_000,
          breaker: new ConsecutiveBreaker(options.breakerThreshold ?? 5),
        }),
        bulkhead: bulkhead(options.concurrency ?? 256, options.queue ?? 1024),
      }
      perProvider.set(provider, p)
    }
    return p
  }
  const retryReads = retry(handleWhen(unhealthy), {
    maxAttempts: options.retries ?? 2,
    backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 500 }),
  })

  async function call<T>(opts: CallOptions, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const started = performance.now()
    const remaining = opts.deadline - Date.now()
    const controller = new AbortController()
    const onAbort = () => controller.abort(opts.signal?.reason)
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          controller.abort(new Error('deadline'))
          reject(new ApiError('TIMEOUT', undefined, { providerId: opts.provider, operation: opts.operation }))
        },
        Math.max(0, remaining),
      )
    })
    const { breaker, bulkhead: limiter } = policies(opts.breakerKey ?? opts.provider)
    const attempt = () => breaker.execute(() => limiter.execute(() => fn(controller.signal)))
    const run = opts.staged
      ? limiter.execute(() => fn(controller.signal))
      : opts.idempotent
        ? retryReads.execute(attempt, controller.signal)
        : attempt()
    try {
      const value = await Promise.race([run, deadline])
      metrics.providerCalls.inc({ provider: opts.provider, operation: opts.operation, outcome: 'ok' })
      return value
    } catch (raw) {
      const error = toProviderError(raw, opts)
      metrics.providerCalls.inc({ provider: opts.provider, operation: opts.operation, outcome: outcomeOf(error) })
      throw error
    } finally {
      clearTimeout(timer)
      opts.signal?.removeEventListener('abort', onAbort)
      run.catch(() => {})
      metrics.providerLatency.observe(
        { provider: opts.provider, operation: opts.operation },
        (performance.now() - started) / 1000,
      )
    }
  }

  return { call }
}

const FIELD_CODES = new Set<ApiError['code']>(['INVALID_REQUEST', 'INVALID_LOCATION', 'INVALID_DATE_RANGE'])

export function toProviderError(error: unknown, opts: { provider: string; operation: string }): ApiError {
  const details = { providerId: opts.provider, operation: opts.operation }
  if (error instanceof ApiError) {
    // Validation codes keep details as a map of field path to message (spec 7.1), so nothing is added to them.
    if (error.details?.providerId || FIELD_CODES.has(error.code)) return error
    return new ApiError(
      error.code,
      undefined,
      { ...details, ...error.details },
      { params: error.params, headers: error.headers, status: error.status },
    )
  }
  if (error instanceof BrokenCircuitError)
    return new ApiError('SERVICE_UNAVAILABLE', undefined, { ...details, reason: 'CIRCUIT_OPEN' })
  if (error instanceof BulkheadRejectedError)
    return new ApiError('SERVICE_UNAVAILABLE', undefined, { ...details, reason: 'BULKHEAD_FULL' })
  return new ApiError('PROVIDER_ERROR', undefined, {
    ...details,
    cause: error instanceof Error ? error.message : String(error),
  })
}

export type Resilience = ReturnType<typeof createResilience>
