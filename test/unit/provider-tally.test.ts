import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Counter, Histogram, Registry } from 'prom-client'
import { createMetrics } from '../../src/platform/metrics.ts'
import { providerTally } from '../../src/platform/provider-tally.ts'

const BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20]

/** The two provider metrics as prom-client's own labelled observations export them (as before), and as the tally does. */
function registries() {
  const plain = new Registry()
  const calls = new Counter({
    name: 'provider_calls_total',
    help: 'h',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    registers: [plain],
  })
  const latency = new Histogram({
    name: 'provider_call_duration_seconds',
    help: 'h',
    labelNames: ['provider', 'operation'] as const,
    buckets: BUCKETS,
    registers: [plain],
  })
  const tallied = new Registry()
  const tally = providerTally(BUCKETS)
  new Counter({
    name: 'provider_calls_total',
    help: 'h',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    registers: [tallied],
    collect() {
      tally.flushCounts(this)
    },
  })
  new Histogram({
    name: 'provider_call_duration_seconds',
    help: 'h',
    labelNames: ['provider', 'operation'] as const,
    buckets: BUCKETS,
    registers: [tallied],
    collect() {
      tally.writeLatency(this)
    },
  })
  // As resilience.ts did before: the latency first, then the outcome, through labels() children.
  const observe = (provider: string, operation: string, outcome: string, seconds: number) => {
    latency.labels(provider, operation).observe(seconds)
    calls.labels(provider, operation, outcome).inc()
    tally.of(provider, operation).observe(outcome, seconds)
  }
  return { plain, tallied, observe, tally }
}

test('provider tally: the same Prometheus text as prom-client’s own observations, scrape after scrape', async () => {
  const { plain, tallied, observe, tally } = registries()
  // A tally asked for but never used lists nothing, as a labels() child that never observed.
  tally.of('unused', 'searchCars')
  assert.equal(await tallied.metrics(), await plain.metrics())
  const providers = ['sixt-sandbox', 'bench-car-01', 'gbfs-x']
  const operations = ['searchCars', 'book', 'searchVehicles', 'cancel']
  const outcomes = ['ok', 'refused', 'error', 'timeout', 'open', 'rejected']
  for (let i = 0; i < 600; i++) {
    const seconds = (i % 50) * 0.0031 + (i % 13) * 0.9 + (i % 5 === 0 ? 0.01 : 0)
    observe(providers[i % 3], operations[(i >> 2) % 4], outcomes[(i * 7) % 6 === 0 ? 0 : i % 6], seconds)
    if (i % 89 === 0) assert.equal(await tallied.metrics(), await plain.metrics())
  }
  observe('edge', 'searchCars', 'ok', 20)
  observe('edge', 'searchCars', 'ok', 25)
  observe('edge', 'searchCars', 'timeout', 0.01)
  observe('edge', 'searchCars', 'ok', 0)
  assert.equal(await tallied.metrics(), await plain.metrics())
  assert.deepEqual(await tallied.getMetricsAsJSON(), await plain.getMetricsAsJSON())
})

test('provider tally: the app’s metrics count provider calls through it', async () => {
  const metrics = createMetrics()
  metrics.providerCall('p1', 'searchCars').observe('ok', 0.1)
  metrics.providerCall('p1', 'searchCars').observe('ok', 0.02)
  metrics.providerCall('p1', 'searchCars').observe('timeout', 3)
  const text = await metrics.text()
  assert.match(text, /^provider_calls_total\{provider="p1",operation="searchCars",outcome="ok"\} 2$/m)
  assert.match(text, /^provider_calls_total\{provider="p1",operation="searchCars",outcome="timeout"\} 1$/m)
  assert.match(text, /^provider_call_duration_seconds_bucket\{le="0.025",provider="p1",operation="searchCars"\} 1$/m)
  assert.match(text, /^provider_call_duration_seconds_count\{provider="p1",operation="searchCars"\} 3$/m)
})
