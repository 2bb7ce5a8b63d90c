import {
  BrokenCircuitError,
  BulkheadRejectedError,
  CircuitState,
  ExponentialBackoff,
  handleWhen,
  retry,
} from 'cockatiel'
import { ApiError, type ErrorCode } from '../contract/errors.ts'
import type { Metrics } from '../platform/metrics.ts'
import type { ProviderCallTally } from '../platform/provider-tally.ts'
import { Breaker, Bulkhead } from './policies.ts'

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
  /**
   * Calls of one group (one request's fan-out) that end at the same deadline share one signal, aborted when that
   * deadline passes with any of them still running: an AbortController and its signal per call were ~20 per car
   * search, alive through the providers' wait. A call's signal may then abort after the call itself answered (a
   * sibling ran out of time), so only callers whose connectors keep nothing running after answering pass a group.
   * Without a group, or with a live outer signal, every call has a signal of its own.
   */
  group?: object
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

/** Backoff of retried reads: the first retry after this, then doubling (with jitter), at most MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 50
const MAX_BACKOFF_MS = 500

/** Codes that, unless the provider said otherwise, mean it could not answer: down, overloaded, unreadable, too slow. */
const FAULT_CODES: ReadonlySet<ErrorCode> = new Set([
  'PROVIDER_ERROR',
  'TIMEOUT',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
])

/**
 * PROVIDER_ERROR reasons by which a provider, or one of its vehicles, answers one request: it works, and said no.
 * Connectors mark the definitive ones `retryable: false` as well; the list also holds those a later try may change
 * (a jammed lock rejects a command now and obeys later), which say nothing about the provider's health either.
 */
export const REFUSAL_REASONS: ReadonlySet<string> = new Set([
  'VEHICLE_NOT_AVAILABLE',
  'VEHICLE_REJECTED',
  'COMMAND_NOT_SUPPORTED',
  'RESERVATION_ENDED',
  'RESERVATION_MISMATCH',
  'RIDE_NOT_STARTED',
  'RIDE_IN_PROGRESS',
  'TRIP_ENDED',
  'OPERATOR_REJECTED',
  'CANCELLATION_REFUSED',
  // One trip or booking held by a concurrent request of the same client: contention on one record, which says
  // nothing about the provider (a client hammering its own trip must not open the breaker for every tenant).
  'TRIP_BUSY',
  'BOOKING_BUSY',
])

/**
 * How a failed provider call is judged: a `fault` says the provider is unwell (it timed out, failed, could not be
 * reached, or answered something unreadable); a `refusal` is the provider's answer about this one request (the
 * vehicle is taken, not found, sold out, the booking or cancellation refused, the request invalid, more data needed)
 * and says the provider works. Only faults count towards a provider's circuit breaker and are retried; a refusal
 * would be the same answer again, and one customer's refusals must never cut a provider off for everyone.
 *
 * - anything that is not an ApiError (a network error, an answer the connector could not read, a bug): fault;
 * - PROVIDER_ERROR, TIMEOUT, SERVICE_UNAVAILABLE, INTERNAL_ERROR: fault, unless `details.retryable` is false (the
 *   connector's mark of a definitive answer: a trip that already ended, an operator's 4xx) or `details.reason` is
 *   one of REFUSAL_REASONS (a vehicle that rejected the command);
 * - every other code (the 4xx codes, BOOKING_FAILED, OPERATION_NOT_SUPPORTED, ...): refusal.
 */
export function classifyFailure(error: unknown): 'fault' | 'refusal' {
  if (!(error instanceof ApiError)) return 'fault'
  if (!FAULT_CODES.has(error.code)) return 'refusal'
  const details = error.details
  if (details?.retryable === false) return 'refusal'
  return typeof details?.reason === 'string' && REFUSAL_REASONS.has(details.reason) ? 'refusal' : 'fault'
}

export const isProviderFault = (error: unknown) => classifyFailure(error) === 'fault'

const outcomeOf = (error: unknown): string => {
  if (error instanceof ApiError) {
    if (error.code === 'TIMEOUT') return 'timeout'
    if (error.details?.reason === 'CIRCUIT_OPEN') return 'open'
    if (error.details?.reason === 'BULKHEAD_FULL') return 'rejected'
  }
  return isProviderFault(error) ? 'error' : 'refused'
}

/**
 * Every connector call goes through here: a deadline from the request's budget (the caller never waits past it, even
 * when the connector ignores its signal), a circuit breaker and a bulkhead per provider, retries only for reads.
 * Failures come out as the one error type: TIMEOUT, SERVICE_UNAVAILABLE (breaker open, bulkhead full) or PROVIDER_ERROR.
 */
export function createResilience(options: ResilienceOptions) {
  const { metrics } = options
  const perProvider = new Map<string, { breaker: Breaker; bulkhead: Bulkhead }>()
  const policies = (provider: string) => {
    let p = perProvider.get(provider)
    if (!p) {
      p = {
        breaker: new Breaker(options.breakerThreshold ?? 5, options.halfOpenAfterMs ?? 10_000, isProviderFault),
        bulkhead: new Bulkhead(options.concurrency ?? 256, options.queue ?? 1024),
      }
      perProvider.set(provider, p)
    }
    return p
  }
  const deadlines = deadlineTimers()
  const retries = options.retries ?? 2
  // Retries after the first: a read that failed is asked again from the first backoff step on. The first attempt
  // runs outside the retry policy, so the common case (it answers) costs no retry bookkeeping.
  const retryReads =
    retries > 1
      ? retry(handleWhen(isProviderFault), {
          maxAttempts: retries - 1,
          backoff: new ExponentialBackoff({ initialDelay: 2 * FIRST_BACKOFF_MS, maxDelay: MAX_BACKOFF_MS }),
        })
      : undefined

  /** Whether a failed read is asked again (after FIRST_BACKOFF_MS, then by the retry policy). */
  const retried = (opts: CallOptions, signal: AbortSignal, error: unknown) =>
    opts.idempotent === true && retries >= 1 && !signal.aborted && isProviderFault(error)
  const again = <T>(attempt: () => Promise<T>, signal: AbortSignal): Promise<T> =>
    later(undefined, FIRST_BACKOFF_MS, signal).then(() =>
      retryReads ? retryReads.execute(attempt, signal) : attempt(),
    )

  function call<T>(opts: CallOptions, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const started = performance.now()
    // A signal aborted already never fires again: a listener on it would only sit there. Every POST shares one such
    // signal (src/http/caller.ts), and EventTarget looks through its listeners on each add, so 20 calls per car search
    // at 100 searches in flight made the adds quadratic (17 % of the car-search profile).
    const outer = opts.signal?.aborted ? undefined : opts.signal
    const controller =
      opts.group !== undefined && outer === undefined
        ? deadlines.controllerOf(opts.deadline, opts.group)
        : new AbortController()
    const { signal } = controller
    const onAbort = outer && (() => controller.abort(outer.reason))
    if (onAbort) outer.addEventListener('abort', onAbort, { once: true })
    const { breaker, bulkhead: limiter } = policies(opts.breakerKey ?? opts.provider)
    // Both provider metrics, counted in plain numbers (read at scrape time): no label hashing per call.
    const own = metrics.providerCall(opts.provider, opts.operation)
    // One promise for the answer or the deadline, whichever comes first; the caller never waits past the deadline.
    const c = new PendingCall<T>(opts, started, controller, outer, onAbort, own, deadlines)
    deadlines.arm(opts.deadline, c)
    const guarded = !opts.staged
    if ((!guarded || breaker.state === CircuitState.Closed) && limiter.enter()) {
      // The common case (breaker closed, a free slot): the breaker's and the bulkhead's bookkeeping in this one
      // pair of handlers, as their own execute() would do it, instead of a promise and handlers of each per call.
      let answer: Promise<T>
      try {
        answer = fn(signal)
      } catch (error) {
        answer = Promise.reject(error)
      }
      answer.then(
        (value) => {
          limiter.release()
          if (guarded) breaker.succeeded()
          c.succeed(value)
        },
        (error: unknown) => {
          limiter.release()
          if (!guarded) return c.fail(error)
          breaker.failed(error)
          if (retried(opts, signal, error))
            again(attemptOf(breaker, limiter, fn, signal), signal).then(
              (value) => c.succeed(value),
              (e: unknown) => c.fail(e),
            )
          else c.fail(error)
        },
      )
      return c.promise
    }
    const attempt = attemptOf(breaker, limiter, fn, signal)
    const run = guarded ? attempt() : limiter.execute(() => fn(signal))
    run.then(
      (value) => c.succeed(value),
      (error: unknown) => {
        if (guarded && retried(opts, signal, error))
          again(attempt, signal).then(
            (value) => c.succeed(value),
            (e: unknown) => c.fail(e),
          )
        else c.fail(error)
      },
    )
    return c.promise
  }

  /** Each breaker's key and state (cockatiel's CircuitState), for the metrics. */
  const breakerStates = () => [...perProvider].map(([key, p]) => ({ key, state: p.breaker.state }))

  return { call, breakerStates }
}

/** A call a deadline's timer ends unless it ended first. */
interface Expiring {
  expire(): void
}

type Deadlines = ReturnType<typeof deadlineTimers>

/** The resolving functions of the promise made last by `take` (a function made once, not an executor per call). */
let takenResolve: ((value: never) => void) | undefined
let takenReject: ((error: unknown) => void) | undefined
const take = (resolve: (value: never) => void, reject: (error: unknown) => void) => {
  takenResolve = resolve
  takenReject = reject
}

/**
 * One provider call until it ends: answered, failed or past its deadline, whichever comes first. One object with its
 * methods instead of four closures and an executor per call (20 per car search, alive through the providers' wait).
 */
class PendingCall<T> implements Expiring {
  readonly promise: Promise<T>
  private done = false
  private readonly resolve: (value: T) => void
  private readonly reject: (error: unknown) => void
  private readonly opts: CallOptions
  private readonly started: number
  private readonly controller: AbortController
  private readonly outer: AbortSignal | undefined
  private readonly onAbort: (() => void) | undefined
  private readonly own: ProviderCallTally
  private readonly deadlines: Deadlines

  constructor(
    opts: CallOptions,
    started: number,
    controller: AbortController,
    outer: AbortSignal | undefined,
    onAbort: (() => void) | undefined,
    own: ProviderCallTally,
    deadlines: Deadlines,
  ) {
    this.opts = opts
    this.started = started
    this.controller = controller
    this.outer = outer
    this.onAbort = onAbort
    this.own = own
    this.deadlines = deadlines
    this.promise = new Promise<T>(take)
    this.resolve = takenResolve as (value: T) => void
    this.reject = takenReject!
  }

  private finish() {
    this.done = true
    this.deadlines.disarm(this.opts.deadline, this)
    if (this.onAbort) this.outer?.removeEventListener('abort', this.onAbort)
  }

  fail(raw: unknown) {
    if (this.done) return
    this.finish()
    const error = toProviderError(raw, this.opts)
    this.own.observe(outcomeOf(error), (performance.now() - this.started) / 1000)
    this.reject(error)
  }

  succeed(value: T) {
    if (this.done) return
    this.finish()
    this.own.observe('ok', (performance.now() - this.started) / 1000)
    this.resolve(value)
  }

  expire() {
    this.controller.abort(new Error('deadline'))
    this.fail(new ApiError('TIMEOUT', undefined, { providerId: this.opts.provider, operation: this.opts.operation }))
  }
}

/**
 * Calls that end at the same deadline share one timer: a car search's ~20 provider calls get theirs from one
 * Date.now(), and a timer each (an object with async bookkeeping, alive through the call) was ~20 per search.
 * A deadline's timer fires as a call's own would (at the deadline, in the order the calls were armed), and is
 * cleared when its last call ends first.
 */
function deadlineTimers() {
  interface Bucket {
    timer: ReturnType<typeof setTimeout>
    calls: Set<Expiring>
    /** The groups (CallOptions.group) whose calls end at this deadline, and the controller each group's share. */
    groups: Map<object, AbortController> | undefined
    deadline: number
    /** In `buckets` still (not fired, not cleared). */
    live: boolean
  }
  const buckets = new Map<number, Bucket>()
  // The bucket used last: the ~20 calls of a search arm at one deadline, so most look-ups end here (a deadline is
  // not a small integer, and a map look-up of one hashes a heap number).
  let last: Bucket | undefined
  const fire = (deadline: number) => {
    const bucket = buckets.get(deadline)
    if (!bucket) return
    buckets.delete(deadline)
    bucket.live = false
    for (const call of bucket.calls) call.expire()
    forget(bucket)
  }
  // A spent bucket keeps nothing of its calls or their callers alive (it may stay `last` until the next arm).
  const forget = (bucket: Bucket) => {
    bucket.calls.clear()
    bucket.groups = undefined
    if (last === bucket) last = undefined
  }
  const bucketOf = (deadline: number): Bucket => {
    if (last !== undefined && last.deadline === deadline && last.live) return last
    let bucket = buckets.get(deadline)
    if (!bucket) {
      bucket = {
        timer: setTimeout(fire, Math.max(0, deadline - Date.now()), deadline),
        calls: new Set(),
        groups: undefined,
        deadline,
        live: true,
      }
      buckets.set(deadline, bucket)
    }
    last = bucket
    return bucket
  }
  return {
    /**
     * The controller the calls of `group` ending at `deadline` share (the caller arms its call right after, in the
     * same synchronous run, so the bucket made here never stays empty). Several searches often begin in the same
     * millisecond, so a deadline's bucket holds a controller per group.
     */
    controllerOf(deadline: number, group: object): AbortController {
      const bucket = bucketOf(deadline)
      bucket.groups ??= new Map()
      let controller = bucket.groups.get(group)
      if (controller === undefined) {
        controller = new AbortController()
        bucket.groups.set(group, controller)
      }
      return controller
    },
    arm(deadline: number, call: Expiring) {
      bucketOf(deadline).calls.add(call)
    },
    disarm(deadline: number, call: Expiring) {
      const bucket = last !== undefined && last.deadline === deadline && last.live ? last : buckets.get(deadline)
      if (!bucket?.calls.delete(call) || bucket.calls.size > 0) return
      clearTimeout(bucket.timer)
      buckets.delete(deadline)
      bucket.live = false
      forget(bucket)
    },
  }
}

/**
 * One try through the breaker and the bulkhead's own execute(), for a call that needs them (a breaker not closed, a
 * full bulkhead, a retry): made only then, here, so the common call makes no closure for it.
 */
const attemptOf =
  <T>(breaker: Breaker, limiter: Bulkhead, fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal) =>
  () =>
    breaker.execute(() => limiter.execute(() => fn(signal)))

/** `value` after `ms`, unless the signal aborts first (a backoff pause, a delayed answer). */
export const later = <T>(value: T, ms: number, signal: AbortSignal) =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(resolve, ms, value)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason ?? new Error('aborted'))
      },
      { once: true },
    )
  })

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
