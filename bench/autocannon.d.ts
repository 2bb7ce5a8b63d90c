// The part of autocannon's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Options {
    url: string
    connections?: number
    pipelining?: number
    /** Seconds. */
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    /** Sent in turn by every connection; what a request leaves out comes from the options above. */
    requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }[]
    /** Seconds before a request counts as a timeout. */
    timeout?: number
    title?: string
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
  }

  export interface Result {
    title?: string
    url: string
    connections: number
    /** Seconds. */
    duration: number
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    resets: number
    '1xx': number
    '2xx': number
    '3xx': number
    '4xx': number
    '5xx': number
    statusCodeStats: Record<string, { count: number }>
    /** Milliseconds, recorded as whole milliseconds. */
    latency: Histogram
    /** Per-second samples; `total` is the number of completed requests. */
    requests: Histogram & { sent: number }
    throughput: Histogram
  }

  /** Emits 'response' (client, statusCode, bytes, milliseconds) for every response. */
  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void
  }

  function autocannon(options: Options): Instance
  export default autocannon
}
