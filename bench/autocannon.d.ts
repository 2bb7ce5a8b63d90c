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
    requests?: Request[]
    /** Seconds before a request counts as a timeout. */
    timeout?: number
    title?: string
  }

  /** Per-connection state kept between its requests. */
  export type Context = Record<string, unknown>

  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    /** Changes the request before it is sent; a falsy answer starts the connection's list over. */
    setupRequest?: (request: Request, context: Context) => Request | undefined
    /** Sees the answer (autocannon then collects the body). */
    onResponse?: (status: number, body: string, context: Context, headers: Record<string, string>) => void
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
