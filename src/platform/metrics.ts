import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { providerTally } from './provider-tally.ts'
import { requestTally } from './request-tally.ts'

/** 0 closed, 1 half-open, 2 open (`provider_circuit_state`). */
export type CircuitValue = 0 | 1 | 2

/**
 * Where the gauges read their values at scrape time, set once the runtime has built what they describe (breakers,
 * the jobs table, the providers' feeds). Each is optional: a missing one exports nothing.
 */
export interface MetricSources {
  breakers?: () => { provider: string; environment: string; state: CircuitValue }[]
  jobs?: () => Promise<{ pending: Record<string, number>; failed: Record<string, number> }>
  feedAges?: () => { provider: string; seconds: number }[]
}

/** A scrape never waits longer than this for the database; the previous job figures stay meanwhile. */
const JOBS_QUERY_TIMEOUT_MS = 1000

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25]
const PROVIDER_LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20]

/** One registry per app (no global state), so tests and several apps in one process stay apart. */
export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const tally = requestTally(LATENCY_BUCKETS)
  const providers = providerTally(PROVIDER_LATENCY_BUCKETS)
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    collect() {
      tally.flushCounts(this)
    },
  })
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
    collect() {
      tally.writeLatency(this)
    },
  })
  const rateLimited = new Counter({
    name: 'rate_limited_total',
    help: 'Requests refused with 429 (a key over its rate limit)',
    registers: [registry],
  })
  const authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Requests refused with 401 (no key, an unknown, revoked or expired key, a wrong admin token)',
    registers: [registry],
  })
  const sources: MetricSources = {}
  new Gauge({
    name: 'provider_circuit_state',
    aggregator: 'max',
    help: 'Circuit breaker per provider and environment: 0 closed, 1 half-open, 2 open (calls refused)',
    labelNames: ['provider', 'environment'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const b of sources.breakers?.() ?? [])
        this.set({ provider: b.provider, environment: b.environment }, b.state)
    },
  })
  new Gauge({
    name: 'feed_age_seconds',
    aggregator: 'max',
    help: 'Seconds since the live data of a feed-based provider was published (GBFS last_updated, GTFS-RT timestamp)',
    labelNames: ['provider'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const f of sources.feedAges?.() ?? []) this.set({ provider: f.provider }, Math.max(0, f.seconds))
    },
  })
  // One query per scrape serves both job metrics: prom-client collects them concurrently, so the second reuses the
  // query still in flight; the next scrape asks again.
  type Counts = Awaited<ReturnType<NonNullable<MetricSources['jobs']>>>
  let jobsInFlight: Promise<Counts | undefined> | undefined
  const jobCounts = () => {
    if (!jobsInFlight) {
      const query = sources.jobs?.()
      if (!query) return Promise.resolve(undefined)
      jobsInFlight = Promise.race([
        query.catch(() => undefined),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), JOBS_QUERY_TIMEOUT_MS).unref()),
      ]).finally(() => {
        jobsInFlight = undefined
      })
    }
    return jobsInFlight
  }
  new Gauge({
    name: 'jobs_pending',
    aggregator: 'first',
    help: 'Background jobs waiting or running, by kind (the shared table: the same on every instance)',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const counts = await jobCounts()
      if (!counts) return
      this.reset()
      for (const [kind, n] of Object.entries(counts.pending)) this.set({ kind }, n)
    },
  })
  new Counter({
    name: 'jobs_failed_total',
    aggregator: 'first',
    help: 'Background jobs given up as failed, by kind (the shared table: the same on every instance)',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const counts = await jobCounts()
      if (!counts) return
      this.reset()
      for (const [kind, n] of Object.entries(counts.failed)) this.inc({ kind }, n)
    },
  })

  return {
    registry,
    requests,
    latency,
    /** The Prometheus text of a scrape; a cluster worker replaces it with the merged metrics of every worker. */
    text: (): Promise<string> => registry.metrics(),
    /** Tells the gauges where to read (see MetricSources). */
    setSources(next: MetricSources) {
      Object.assign(sources, next)
    },
    mailsFailed: new Counter({
      name: 'mails_failed_total',
      help: 'Mail delivery attempts that failed (SMTP refused or unreachable, outbox not writable); retried as jobs',
      registers: [registry],
    }),
    connectionsRefused: new Counter({
      name: 'connections_refused_total',
      help: 'Connections closed at once because MAX_CONNECTIONS were open',
      registers: [registry],
    }),
    observeRequest(method: string, route: string, status: number, elapsedMs: number) {
      if (status === 429) rateLimited.inc()
      else if (status === 401) authFailures.inc()
      tally.observe(method, route, status, elapsedMs / 1000)
    },
    providerCalls: new Counter({
      name: 'provider_calls_total',
      help: 'Calls to providers by provider, operation and outcome (ok, refused, error, timeout, open, rejected)',
      labelNames: ['provider', 'operation', 'outcome'] as const,
      registers: [registry],
      collect() {
        providers.flushCounts(this)
      },
    }),
    providerLatency: new Histogram({
      name: 'provider_call_duration_seconds',
      help: 'Latency of provider calls',
      labelNames: ['provider', 'operation'] as const,
      buckets: PROVIDER_LATENCY_BUCKETS,
      registers: [registry],
      collect() {
        providers.writeLatency(this)
      },
    }),
    /** Where provider calls are counted (both provider metrics): one tally per provider and operation. */
    providerCall: providers.of,
  }
}

export type Metrics = ReturnType<typeof createMetrics>
