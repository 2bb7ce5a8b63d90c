import { BrokenCircuitError, BulkheadRejectedError, CircuitState } from 'cockatiel'

/** `fn()`, a synchronous throw included, as a promise. */
function settle<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return fn()
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * A circuit breaker that behaves as cockatiel's (ConsecutiveBreaker, a constant half-open delay, faults counted by
 * isProviderFault), on plain promises: cockatiel's three async layers were ~4 µs of every provider call (20 per car
 * search). Closed: consecutive faults open it (a success resets the count; a refusal leaves it). Open: calls fail with
 * BrokenCircuitError until the delay has passed; then one call tests the provider (half-open) while the others wait
 * for its outcome: a success closes the breaker, a fault opens it again, a refusal closes it.
 */
export class Breaker {
  state: CircuitState = CircuitState.Closed
  private failures = 0
  private openedAt = 0
  private test: Promise<unknown> | undefined

  private readonly threshold: number
  private readonly halfOpenAfterMs: number
  /** Whether a failure counts towards opening (resilience.ts: isProviderFault). */
  private readonly isFault: (error: unknown) => boolean

  constructor(threshold: number, halfOpenAfterMs: number, isFault: (error: unknown) => boolean) {
    this.isFault = isFault
    this.threshold = threshold
    this.halfOpenAfterMs = halfOpenAfterMs
  }

  /** A call made while closed answered. */
  succeeded() {
    this.failures = 0
  }

  /** A call made while closed failed: a fault counts towards opening. */
  failed(error: unknown) {
    if (this.isFault(error) && ++this.failures >= this.threshold) this.open()
  }

  execute<T>(fn: () => Promise<T>): Promise<T> {
    if (this.state === CircuitState.Closed) {
      return settle(fn).then(
        (value) => {
          this.succeeded()
          return value
        },
        (error: unknown) => {
          this.failed(error)
          throw error
        },
      )
    }
    if (this.state === CircuitState.HalfOpen) {
      return this.test!.catch(() => undefined).then(() => this.execute(fn))
    }
    if (Date.now() - this.openedAt < this.halfOpenAfterMs) return Promise.reject(new BrokenCircuitError())
    this.state = CircuitState.HalfOpen
    const test = settle(fn).then(
      (value) => {
        this.failures = 0
        this.close()
        return value
      },
      (error: unknown) => {
        if (this.isFault(error)) {
          this.failures++
          this.open()
        } else this.close()
        throw error
      },
    )
    this.test = test
    return test
  }

  private open() {
    if (this.state === CircuitState.Open) return
    this.state = CircuitState.Open
    this.openedAt = Date.now()
    this.test = undefined
  }

  private close() {
    if (this.state !== CircuitState.HalfOpen) return
    this.state = CircuitState.Closed
    this.test = undefined
  }
}

/**
 * Concurrent calls per provider, as cockatiel's bulkhead: up to `capacity` run, up to `queueCapacity` wait (first
 * come, first run), more fail with BulkheadRejectedError.
 */
export class Bulkhead {
  private active = 0
  private readonly queue: {
    fn: () => Promise<unknown>
    resolve(value: unknown): void
    reject(error: unknown): void
  }[] = []

  private readonly capacity: number
  private readonly queueCapacity: number

  constructor(capacity: number, queueCapacity: number) {
    this.capacity = capacity
    this.queueCapacity = queueCapacity
  }

  /** Takes a slot when one is free (the caller releases it when its call ends). */
  enter(): boolean {
    if (this.active >= this.capacity) return false
    this.active++
    return true
  }

  execute<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.capacity) {
      this.active++
      // Not `finally`: it makes two more promises per call.
      return settle(fn).then(
        (value) => {
          this.release()
          return value
        },
        (error: unknown) => {
          this.release()
          throw error
        },
      )
    }
    if (this.queue.length < this.queueCapacity) {
      return new Promise<T>((resolve, reject) => {
        this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      })
    }
    return Promise.reject(new BulkheadRejectedError(this.capacity, this.queueCapacity))
  }

  release() {
    this.active--
    this.dequeue()
  }

  private dequeue() {
    const item = this.queue.shift()
    if (!item) return
    Promise.resolve()
      .then(() => this.execute(item.fn))
      .then(item.resolve, item.reject)
  }
}
