import { monitorEventLoopDelay } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'

/** What the guard judges, read once per sample. */
export interface LoadReading {
  /** V8 heap in use and the most it may grow to (`--max-old-space-size`), bytes. */
  heapUsed: number
  heapLimit: number
  /** Resident set size, bytes. */
  rss: number
  /** The event loop's 99th percentile delay since the previous reading, ms. */
  eventLoopDelayMs: number
}

export interface LoadGuardOptions {
  /**
   * Refuse work while the V8 heap in use is at or above this share of its limit (0 < x ≤ 1). Heap and RSS count as
   * the least of the last five readings, so a peak of garbage just before a collection refuses nothing.
   */
  heapFraction: number
  /** Refuse work while RSS is at or above this many bytes; undefined: no RSS limit. */
  rssLimitBytes?: number
  /** Refuse work while the event loop's p99 delay is above this many ms; 0: never for that reason. */
  eventLoopDelayLimitMs: number
  /** Where readings come from (tests inject their own); default: this process. */
  read?: () => LoadReading
  /** How often the reading is taken, ms; 0: only when `sample()` is called (tests). */
  intervalMs?: number
  /** Told when refusing starts (with the reading and the reason) and when it stops. */
  onChange?: (overloaded: boolean, reading: LoadReading, why: string | undefined) => void
}

export interface LoadGuard {
  /** Why work is refused now ('heap', 'rss', 'event-loop'), or undefined while the service has room. */
  overloaded(): string | undefined
  /** Takes a reading now (the timer does this every interval). */
  sample(): void
  close(): void
}

/**
 * Below this share of a threshold a refusing guard admits work again: without the gap a heap hovering at the
 * threshold would flip the service between answering and refusing at every sample.
 */
const RESUME_AT = 0.95
/** Readings whose least heap and RSS count (one a second: five seconds). */
const MEMORY_WINDOW = 5

/** This process's own figures; the event-loop histogram restarts at each reading. */
export function processReading(): { read: () => LoadReading; stop: () => void } {
  const loop = monitorEventLoopDelay({ resolution: 20 })
  loop.enable()
  const read = () => {
    const heap = getHeapStatistics()
    const delay = loop.count > 0 ? loop.percentile(99) / 1e6 : 0
    loop.reset()
    return {
      heapUsed: heap.used_heap_size,
      heapLimit: heap.heap_size_limit,
      rss: process.memoryUsage.rss(),
      eventLoopDelayMs: delay,
    }
  }
  return { read, stop: () => loop.disable() }
}

/**
 * Load shedding: a reading taken on a timer (never per request, so the hot path pays one property read) decides
 * whether requests are refused with 503 before memory runs out, rather than the process dying at V8's heap limit.
 */
export function createLoadGuard(options: LoadGuardOptions): LoadGuard {
  const own = options.read ? undefined : processReading()
  const read = options.read ?? own!.read
  let why: string | undefined
  // Memory is judged on the least of the last readings: garbage the collector has not reached yet comes and goes
  // between them, what is alive stays.
  const recent: LoadReading[] = []
  const judge = (reading: LoadReading): string | undefined => {
    // A guard already refusing needs the figures clearly below the thresholds to admit work again.
    const margin = why ? RESUME_AT : 1
    if (reading.heapUsed >= options.heapFraction * margin * reading.heapLimit) return 'heap'
    if (options.rssLimitBytes !== undefined && reading.rss >= options.rssLimitBytes * margin) return 'rss'
    if (options.eventLoopDelayLimitMs > 0 && reading.eventLoopDelayMs > options.eventLoopDelayLimitMs * margin)
      return 'event-loop'
    return undefined
  }
  const sample = () => {
    recent.push(read())
    if (recent.length > MEMORY_WINDOW) recent.shift()
    const latest = recent[recent.length - 1]
    const reading: LoadReading = {
      ...latest,
      heapUsed: Math.min(...recent.map((r) => r.heapUsed)),
      rss: Math.min(...recent.map((r) => r.rss)),
    }
    const next = judge(reading)
    if ((next === undefined) !== (why === undefined)) options.onChange?.(next !== undefined, reading, next)
    why = next
  }
  const intervalMs = options.intervalMs ?? 1000
  const timer = intervalMs > 0 ? setInterval(sample, intervalMs) : undefined
  timer?.unref()
  return {
    overloaded: () => why,
    sample,
    close: () => {
      clearInterval(timer)
      own?.stop()
    },
  }
}
