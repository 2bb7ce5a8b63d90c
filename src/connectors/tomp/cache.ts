import { ApiError } from '../../contract/errors.ts'

/**
 * One answer of the operator kept between reads: read again on the first use after `refreshMs`, or after
 * `invalidate()` (the connector changed something there, such as a reservation), one read at a time however many
 * callers wait. When a read fails, callers get the last good answer while it is younger than `maxStaleMs` (an operator
 * hiccup does not empty the map), the failure otherwise. Ages follow the service's clock, so tests can move them.
 */

export interface RefreshingOptions<T> {
  load(): Promise<T>
  clock: () => Date
  refreshMs: number
  maxStaleMs: number
  /** A failed read answered from the last good copy. */
  onStale?(error: unknown): void
}

const abandoned = () => new ApiError('TIMEOUT', 'The caller gave up waiting for the operator', { reason: 'ABORTED' })

/** Waits for `promise` until `signal` aborts (the read itself goes on for the next caller). */
export function within<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(abandoned())
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(abandoned())
    signal.addEventListener('abort', abort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort)
        reject(error)
      },
    )
  })
}

export function refreshing<T>(options: RefreshingOptions<T>) {
  let value: { value: T; at: number; generation: number } | undefined
  let reading: { promise: Promise<T>; generation: number } | undefined
  // Moves with every invalidate(): a read that started before it may predate the change, so it does not count.
  let generation = 0

  function read(): Promise<T> {
    if (reading && reading.generation === generation) return reading.promise
    const started = { generation, at: options.clock().getTime() }
    const promise = options.load().then((result) => {
      if (!value || value.generation <= started.generation) value = { value: result, ...started }
      return result
    })
    const current = { promise, generation }
    reading = current
    const done = () => {
      if (reading === current) reading = undefined
    }
    promise.then(done, done)
    return promise
  }

  return {
    async get(signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) throw abandoned()
      const now = options.clock().getTime()
      if (value && value.generation === generation && now - value.at < options.refreshMs) return value.value
      try {
        return await within(read(), signal)
      } catch (error) {
        if (signal?.aborted || !value || now - value.at >= options.maxStaleMs) throw error
        options.onStale?.(error)
        return value.value
      }
    },
    invalidate(): void {
      generation++
    },
    /** The last good answer, if any, without reading. */
    peek: (): T | undefined => value?.value,
  }
}

export type Refreshing<T> = ReturnType<typeof refreshing<T>>
