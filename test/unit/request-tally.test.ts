import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { Counter, Histogram, Registry } from 'prom-client'
import { readsRouteContext, routeConfig } from '../../src/http/route-context.ts'
import { requestTally } from '../../src/platform/request-tally.ts'

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25]

/** The two request metrics as prom-client's own labelled observations export them, and as the tally does. */
function registries() {
  const plain = new Registry()
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'h',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [plain],
  })
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'h',
    labelNames: ['method', 'route'] as const,
    buckets: BUCKETS,
    registers: [plain],
  })
  const tallied = new Registry()
  const tally = requestTally(BUCKETS)
  new Counter({
    name: 'http_requests_total',
    help: 'h',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [tallied],
    collect() {
      tally.flushCounts(this)
    },
  })
  new Histogram({
    name: 'http_request_duration_seconds',
    help: 'h',
    labelNames: ['method', 'route'] as const,
    buckets: BUCKETS,
    registers: [tallied],
    collect() {
      tally.writeLatency(this)
    },
  })
  const observe = (method: string, route: string, status: number, seconds: number) => {
    requests.labels(method, route, String(status)).inc()
    latency.labels(method, route).observe(seconds)
    tally.observe(method, route, status, seconds)
  }
  return { plain, tallied, observe }
}

test('request tally: the same Prometheus text as prom-client’s own observations, scrape after scrape', async () => {
  const { plain, tallied, observe } = registries()
  assert.equal(await tallied.metrics(), await plain.metrics())
  const routes = ['/mobility-api/v2/auth/check', 'unmatched', '/mobility-api/v2/cars/search']
  for (let i = 0; i < 500; i++) {
    observe(i % 7 ? 'GET' : 'POST', routes[i % 3], [200, 401, 404, 429][i % 4], (i % 50) * 0.0007 + (i % 11) * 0.3)
    if (i % 97 === 0) assert.equal(await tallied.metrics(), await plain.metrics())
  }
  observe('GET', '/slow', 200, 30)
  observe('GET', '/edge', 200, 0.001)
  assert.equal(await tallied.metrics(), await plain.metrics())
  assert.deepEqual(await tallied.getMetricsAsJSON(), await plain.getMetricsAsJSON())
})

test('route context: the route config, url and method Fastify keeps, as request.routeOptions gives them', async () => {
  assert.ok(readsRouteContext, 'Fastify moved its route context key: routeConfig falls back to request.routeOptions')
  const app = Fastify()
  const seen: unknown[][] = []
  app.addHook('onRequest', (request, _reply, done) => {
    const config = routeConfig(request)
    const options = request.routeOptions
    seen.push([config.url, options.url, config.method, options.method, config.permission, options.config.permission])
    done()
  })
  app.get('/a/:id', { config: { permission: 'account:read' } }, async () => ({}))
  await app.inject({ method: 'GET', url: '/a/1' })
  await app.inject({ method: 'GET', url: '/nowhere' })
  assert.deepEqual(seen, [
    ['/a/:id', '/a/:id', 'GET', 'GET', 'account:read', 'account:read'],
    [undefined, undefined, ...seen[1].slice(2, 4), undefined, undefined],
  ])
})
