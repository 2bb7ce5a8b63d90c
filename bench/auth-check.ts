/**
 * Authenticated, rate-limited GET /mobility-api/v2/auth/check against a bare node:http server answering the same
 * JSON, with the same load in one run (embedded shape).
 *
 * Target: service ≥ 0.5 × the bare server's requests per second, and service p99 under 5 ms, at 50 connections.
 * The pair runs twice in alternating order (bare, service, service, bare) and the medians count, because the
 * machine is noisy.
 *
 * Also printed: each server's CPU time per request (from /proc) and the load generator's CPU share. Both share two
 * cores with autocannon, so when the generator is near 100 % the bare figure is its ceiling; CPU per request is the
 * steadier figure for comparing changes.
 */
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  createTenantKey,
  fmtInt,
  fmtMs,
  type LoadResult,
  load,
  median,
  startBare,
  startService,
  table,
} from './support.ts'

const CONNECTIONS = 50
const MIN_RATIO = 0.5
const MAX_P99_MS = 5
const PATH = '/mobility-api/v2/auth/check'
/** High enough never to reject during the bench; the limiter still counts every request. */
const RATE_LIMIT = { limit: 1_000_000, windowSeconds: 60 }
const ORDER = ['bare', 'service', 'service', 'bare'] as const

type Server = (typeof ORDER)[number]

const fmtCpu = (r: LoadResult) =>
  `server ${r.cpu.server === undefined ? 'n/a' : `${Math.round(r.cpu.server * 100)}%`}` +
  ` (${r.cpu.serverMicrosPerRequest === undefined ? 'n/a' : `${r.cpu.serverMicrosPerRequest.toFixed(1)} µs/req`}),` +
  ` load generator ${Math.round(r.cpu.client * 100)}%`

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const errors: string[] = []
  ctx.log('starting the service (embedded shape) ...')
  const service = await startService()
  try {
    const { secret } = await createTenantKey(service, { type: 'secret', environment: 'live', rateLimit: RATE_LIMIT })
    const sample = await service.request<{ success?: boolean }>('GET', PATH, { key: secret })
    if (sample.status !== 200 || sample.body?.success !== true) {
      throw new Error(`GET ${PATH} answered ${sample.status}: ${sample.text}`)
    }
    if (sample.headers.get('x-ratelimit-limit') !== String(RATE_LIMIT.limit)) {
      errors.push(
        `GET ${PATH} carries x-ratelimit-limit ${sample.headers.get('x-ratelimit-limit')}, expected ${RATE_LIMIT.limit}: is the rate limiter running?`,
      )
    }
    const contentType = sample.headers.get('content-type') ?? 'application/json; charset=utf-8'
    ctx.log(`service at ${service.baseUrl}; body ${Buffer.byteLength(sample.text)} bytes, ${contentType}`)

    const bare = await startBare(sample.text, contentType)
    ctx.log(`bare node:http server at ${bare.url}`)
    const runs: Record<Server, LoadResult[]> = { bare: [], service: [] }
    try {
      const headers = { authorization: `Bearer ${secret}` }
      for (const [i, server] of ORDER.entries()) {
        const target =
          server === 'bare'
            ? { url: bare.url, pid: bare.child.proc.pid }
            : { url: service.baseUrl, pid: service.child.proc.pid }
        const result = await load({
          url: `${target.url}${PATH}`,
          serverPid: target.pid,
          headers,
          connections: CONNECTIONS,
          durationSec: ctx.durationSec,
          warmupSec: ctx.warmupSec,
        })
        runs[server].push(result)
        ctx.log(
          `[${i + 1}/${ORDER.length}] ${server.padEnd(7)} ${fmtInt(result.requestsPerSecond).padStart(7)} req/s` +
            `  p50 ${fmtMs(result.latency.p50)}  p99 ${fmtMs(result.latency.p99)}  max ${fmtMs(result.latency.max)}` +
            `  non-2xx ${result.non2xx}  errors ${result.errors}  timeouts ${result.timeouts}` +
            `  cpu ${fmtCpu(result)}`,
        )
        const problems = result.non2xx + result.errors + result.timeouts
        if (problems > 0) {
          errors.push(
            `${server} run ${i + 1}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts` +
              ` (status codes ${JSON.stringify(result.statusCodes)})`,
          )
        }
      }
    } finally {
      await bare.stop()
    }

    const summary = (results: LoadResult[]) => ({
      rps: median(results.map((r) => r.requestsPerSecond)),
      p50: median(results.map((r) => r.latency.p50)),
      p99: median(results.map((r) => r.latency.p99)),
      micros: median(results.map((r) => r.cpu.serverMicrosPerRequest ?? Number.NaN)),
      client: median(results.map((r) => r.cpu.client)),
    })
    const b = summary(runs.bare)
    const s = summary(runs.service)
    const ratio = s.rps / b.rps
    const fmtMicros = (us: number) => (Number.isNaN(us) ? 'n/a' : `${us.toFixed(1)} µs`)

    const report = [
      ...table(
        [
          [
            '',
            'req/s',
            'p50',
            'p99',
            'server CPU/req',
            `(medians of ${runs.bare.length} runs, ${CONNECTIONS} connections)`,
          ],
          ['bare node:http', fmtInt(b.rps), fmtMs(b.p50), fmtMs(b.p99), fmtMicros(b.micros)],
          ['service', fmtInt(s.rps), fmtMs(s.p50), fmtMs(s.p99), fmtMicros(s.micros)],
        ],
        [1, 2, 3, 4],
      ),
      `ratio service/bare: ${ratio.toFixed(3)} (req/s)` +
        (Number.isNaN(s.micros / b.micros)
          ? ''
          : `; CPU per request: ${(b.micros / s.micros).toFixed(3)} (bare/service)`),
    ]
    if (b.client >= 0.9) {
      report.push(
        `note: the load generator used ${Math.round(b.client * 100)}% of a core during the bare runs,` +
          " so the bare figure is (partly) its ceiling, not the bare server's",
      )
    }
    return {
      report,
      targets: [
        {
          name: `req/s service/bare ≥ ${MIN_RATIO}`,
          measured: `${ratio.toFixed(3)} (${fmtInt(s.rps)} / ${fmtInt(b.rps)} req/s)`,
          pass: ratio >= MIN_RATIO,
        },
        {
          name: `service p99 < ${MAX_P99_MS} ms at ${CONNECTIONS} connections`,
          measured: fmtMs(s.p99),
          pass: s.p99 < MAX_P99_MS,
        },
      ],
      errors,
    }
  } finally {
    await service.stop()
  }
}

const benchmark: Benchmark = {
  name: 'auth-check',
  description: `authenticated, rate-limited GET ${PATH} vs a bare node:http server (embedded shape)`,
  run,
}
export default benchmark
