import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'

/** One registry per app (no global state), so tests and several apps in one process stay apart. */
export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25],
    registers: [registry],
  })
  // Labelled children are looked up once per method/route/status, not hashed on every request.
  const children = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>()
  return {
    registry,
    requests,
    latency,
    observeRequest(method: string, route: string, status: number, elapsedMs: number) {
      const id = `${method} ${route} ${status}`
      let child = children.get(id)
      if (!child) {
        child = { count: requests.labels(method, route, String(status)), time: latency.labels(method, route) }
        children.set(id, child)
      }
      child.count.inc()
      child.time.observe(elapsedMs / 1000)
    },
    providerCalls: new Counter({
      name: 'provider_calls_total',
      help: 'Calls to providers by provider, operation and outcome (ok, refused, error, timeout, open, rejected)',
      labelNames: ['provider', 'operation', 'outcome'] as const,
      registers: [registry],
    }),
    providerLatency: new Histogram({
      name: 'provider_call_duration_seconds',
      help: 'Latency of provider calls',
      labelNames: ['provider', 'operation'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers: [registry],
    }),
  }
}

export type Metrics = ReturnType<typeof createMetrics>
