/**
 * Webhook delivery latency (issue 16): from the moment an event is published to its arrival at the receiver, over
 * 1,000 events, in the distributed shape with two instances (WORKERS=2 on PostgreSQL, BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test: a database of its own is created and dropped; and a Redis of its own).
 *
 * The events are `webhook.test` events of POST /webhooks/{id}/test, which publishes through the same path as every
 * status change; the clock starts when the request is sent (so the figure includes the request's own handling) and
 * stops when the receiver, a node:http server on 127.0.0.1, has the request. Run once with one event at a time and
 * once with 10 in flight. Every event must arrive exactly once.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateTokenKeys } from '../src/platform/tokens.ts'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  createTenantKey,
  fmtMs,
  type Service,
  startService,
  table,
} from './support.ts'
import { freshDatabase, startRedis } from './workers.ts'

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000)

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

async function startReceiver() {
  const arrivals = new Map<string, number[]>()
  const server = createServer((req, res) => {
    const at = performance.now()
    const id = String(req.headers['webhook-id'])
    arrivals.set(id, [...(arrivals.get(id) ?? []), at])
    req.resume()
    req.on('end', () => res.end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => server.closeAllConnections()),
  }
}

async function measure(
  service: Service,
  key: string,
  webhookId: string,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  inFlight: number,
) {
  const sent = new Map<string, number>()
  const errors: string[] = []
  let next = 0
  const worker = async () => {
    while (next < EVENTS) {
      next++
      const started = performance.now()
      const res = await service.request<{ data: { delivery: { id: string } } }>(
        'POST',
        `/mobility-api/v2/webhooks/${webhookId}/test`,
        { key },
      )
      if (res.status !== 202) errors.push(`POST test answered ${res.status}: ${res.text.slice(0, 200)}`)
      else sent.set(res.body.data.delivery.id, started)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const deadline = Date.now() + 30_000
  while ([...sent.keys()].some((id) => !receiver.arrivals.has(id)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const latencies: number[] = []
  let missing = 0
  let twice = 0
  for (const [id, started] of sent) {
    const times = receiver.arrivals.get(id)
    if (!times) missing++
    else {
      if (times.length > 1) twice++
      latencies.push(times[0] - started)
    }
  }
  if (missing > 0) errors.push(`${missing} of ${sent.size} events did not arrive within 30 s`)
  if (twice > 0) errors.push(`${twice} events arrived more than once`)
  latencies.sort((a, b) => a - b)
  return { latencies, errors }
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const db = await freshDatabase()
  const redis = await startRedis()
  const receiver = await startReceiver()
  ctx.log('WORKERS=2 on PostgreSQL + Redis: starting ...')
  const service = await startService({
    WORKERS: '2',
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    TOKEN_KEYS: generateTokenKeys(),
  })
  try {
    const { secret } = await createTenantKey(service, {
      type: 'secret',
      environment: 'test',
      rateLimit: { limit: 1_000_000, windowSeconds: 60 },
    })
    const created = await service.request<{ data: { webhook: { id: string } } }>('POST', '/mobility-api/v2/webhooks', {
      key: secret,
      body: { url: receiver.url },
    })
    if (created.status !== 201) throw new Error(`webhook creation answered ${created.status}: ${created.text}`)
    const webhookId = created.body.data.webhook.id
    // Warm-up: connections, prepared statements, JIT.
    await measure(service, secret, webhookId, receiver, 4)
    const rows: string[][] = [['in flight', 'events', 'p50', 'p90', 'p99', 'max']]
    const info: { name: string; measured: string }[] = []
    const errors: string[] = []
    for (const inFlight of [1, 10]) {
      ctx.log(`${EVENTS} events, ${inFlight} in flight ...`)
      const result = await measure(service, secret, webhookId, receiver, inFlight)
      errors.push(...result.errors)
      const l = result.latencies
      rows.push([
        String(inFlight),
        String(l.length),
        fmtMs(quantile(l, 0.5)),
        fmtMs(quantile(l, 0.9)),
        fmtMs(quantile(l, 0.99)),
        fmtMs(l.at(-1) ?? 0),
      ])
      info.push({
        name: `webhook latency, ${inFlight} in flight`,
        measured: `p50 ${fmtMs(quantile(l, 0.5))}, p99 ${fmtMs(quantile(l, 0.99))}`,
      })
    }
    return { report: table(rows, [1, 2, 3, 4, 5]), targets: [], info, errors }
  } finally {
    await service.stop()
    await receiver.close()
    redis.stop()
    await db.drop()
  }
}

const benchmark: Benchmark = {
  name: 'webhooks',
  description: `webhook delivery latency, event to receiver, ${EVENTS} events, WORKERS=2 on PostgreSQL + Redis`,
  run,
}
export default benchmark
