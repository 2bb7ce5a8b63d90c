/**
 * POST /mobility-api/v2/micromobility over two sandbox micromobility providers of 10,000 vehicles each
 * (`sandbox-scoot`, trip-capable: every available vehicle on the page gets a sealed vehicleToken; `sandbox-bike`,
 * search-only: deep links), answering at once (latencyMs 0), against a bare node:http server answering the same
 * JSON, with the same load in one run (embedded shape).
 *
 * Each connection cycles through 64 fixed search points within about 500 m of the centre of Berlin (radius 1000 m,
 * limit 20), so the page differs from request to request; the bare server answers the page of the first point.
 * The pair runs twice in alternating order (bare, service, service, bare) and the medians count, as in auth-check.
 *
 * No target: the ratio service/bare, the service's CPU time per search and its latency are reported as info.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  createTenantKey,
  fmtInt,
  fmtMs,
  type LoadResult,
  load,
  makeTempDir,
  median,
  startBare,
  startService,
  table,
} from './support.ts'

const CONNECTIONS = 50
const PATH = '/mobility-api/v2/micromobility'
const RATE_LIMIT = { limit: 1_000_000, windowSeconds: 60 }
const FLEET_SIZE = 10_000
const CENTRE = { latitude: 52.52, longitude: 13.405 }
const RADIUS_M = 1000
const LIMIT = 20
const POINTS = 64
/** Points lie within this distance (meters) of the centre, north-south and east-west. */
const SPREAD_M = 500
/** Sequential searches without load, for the floor of one search. */
const SINGLE_SEARCHES = 50
const ORDER = ['bare', 'service', 'service', 'bare'] as const

type Server = (typeof ORDER)[number]

const PROVIDERS = [
  { id: 'sandbox-scoot', name: 'Sandbox Scoot', profile: 'scoot' },
  { id: 'sandbox-bike', name: 'Sandbox Bike', profile: 'bike' },
]

interface SearchResult {
  success?: boolean
  data?: {
    vehicles: { vehicleId: string; provider: { id: string }; vehicleToken?: string; distanceFromSearch?: number }[]
    pagination: { hasMore: boolean; nextCursor?: string }
    providers: { id: string; status: string; vehicles: number }[]
  }
}

function writeProvidersFile(): string {
  const dir = makeTempDir('mas-bench-micro-')
  const file = join(dir, 'providers.json')
  const providers = PROVIDERS.map(({ id, name, profile }) => ({
    id,
    name,
    connector: 'sandbox',
    environments: ['live'],
    options: { profile, fleetSize: FLEET_SIZE, latencyMs: 0 },
  }))
  writeFileSync(file, JSON.stringify({ providers }, null, 2))
  return file
}

/** Deterministic search points around the centre; the first is the centre itself. */
function searchBodies(): string[] {
  let a = 0x6d1c_0b17
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const mPerDegLon = 111_320 * Math.cos((CENTRE.latitude * Math.PI) / 180)
  return Array.from({ length: POINTS }, (_, i) => {
    const north = i === 0 ? 0 : (2 * random() - 1) * SPREAD_M
    const east = i === 0 ? 0 : (2 * random() - 1) * SPREAD_M
    const location = {
      latitude: Number((CENTRE.latitude + north / 111_320).toFixed(6)),
      longitude: Number((CENTRE.longitude + east / mPerDegLon).toFixed(6)),
    }
    return JSON.stringify({ location, radiusMeters: RADIUS_M, limit: LIMIT })
  })
}

const fmtCpu = (r: LoadResult) =>
  `server ${r.cpu.server === undefined ? 'n/a' : `${Math.round(r.cpu.server * 100)}%`}` +
  ` (${r.cpu.serverMicrosPerRequest === undefined ? 'n/a' : `${r.cpu.serverMicrosPerRequest.toFixed(1)} µs/req`}),` +
  ` load generator ${Math.round(r.cpu.client * 100)}%`

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const errors: string[] = []
  const providersFile = writeProvidersFile()
  ctx.log(
    `starting the service (embedded shape) with ${PROVIDERS.map((p) => p.id).join(' and ')}` +
      ` (${fmtInt(FLEET_SIZE)} vehicles each, latency 0) ...`,
  )
  const service = await startService({ PROVIDERS_FILE: providersFile })
  try {
    const { secret } = await createTenantKey(service, { type: 'secret', environment: 'live', rateLimit: RATE_LIMIT })
    const bodies = searchBodies()

    // One search first: 200, both providers OK, a full page.
    const first = performance.now()
    const sample = await service.request<SearchResult>('POST', PATH, { key: secret, body: JSON.parse(bodies[0]) })
    const firstMs = performance.now() - first
    if (sample.status !== 200 || sample.body?.success !== true || !sample.body.data) {
      throw new Error(`POST ${PATH} answered ${sample.status}: ${sample.text.slice(0, 2000)}`)
    }
    const { data } = sample.body
    const notOk = PROVIDERS.filter(({ id }) => !data.providers.some((p) => p.id === id && p.status === 'OK'))
    if (notOk.length > 0) {
      throw new Error(
        `POST ${PATH}: providers not OK: ${notOk.map((p) => p.id).join(', ')}: ${JSON.stringify(data.providers)}`,
      )
    }
    if (data.vehicles.length !== LIMIT) {
      errors.push(`the first search answered ${data.vehicles.length} vehicles, expected a full page of ${LIMIT}`)
    }
    const byProvider = PROVIDERS.map(({ id }) => `${data.vehicles.filter((v) => v.provider.id === id).length} ${id}`)
    const tokens = data.vehicles.filter((v) => v.vehicleToken).length
    const farthest = Math.max(...data.vehicles.map((v) => v.distanceFromSearch ?? 0))
    const contentType = sample.headers.get('content-type') ?? 'application/json; charset=utf-8'
    ctx.log(
      `service at ${service.baseUrl}; first search (builds fleets and indexes) ${fmtMs(firstMs)}:` +
        ` ${data.vehicles.length} vehicles (${byProvider.join(', ')}; ${tokens} vehicleTokens; farthest ${farthest} m),` +
        ` hasMore ${data.pagination.hasMore}, providers ${data.providers.map((p) => `${p.id} ${p.status} ${p.vehicles}`).join(', ')},` +
        ` body ${fmtInt(Buffer.byteLength(sample.text))} bytes`,
    )

    const single: number[] = []
    for (let i = 0; i < SINGLE_SEARCHES; i++) {
      const started = performance.now()
      const res = await service.request('POST', PATH, { key: secret, body: JSON.parse(bodies[i % bodies.length]) })
      single.push(performance.now() - started)
      if (res.status !== 200) errors.push(`single search ${i + 1} answered ${res.status}: ${res.text.slice(0, 300)}`)
    }
    const singleMedian = median(single)
    ctx.log(
      `one search at a time (${SINGLE_SEARCHES} sequential, fetch): median ${fmtMs(singleMedian)},` +
        ` min ${fmtMs(Math.min(...single))}, max ${fmtMs(Math.max(...single))}`,
    )

    const bare = await startBare(sample.text, contentType)
    ctx.log(`bare node:http server at ${bare.url} answering the first search's body`)
    const runs: Record<Server, LoadResult[]> = { bare: [], service: [] }
    try {
      const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }
      const requests = bodies.map((body) => ({ body }))
      for (const [i, server] of ORDER.entries()) {
        const target =
          server === 'bare'
            ? { url: bare.url, pid: bare.child.proc.pid }
            : { url: service.baseUrl, pid: service.child.proc.pid }
        const result = await load({
          url: `${target.url}${PATH}`,
          serverPid: target.pid,
          method: 'POST',
          headers,
          body: bodies[0],
          requests,
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

    const { exitCode, signalCode } = service.child.proc
    if (exitCode !== null || signalCode !== null) {
      errors.push(`the service exited during the run (code ${exitCode}, signal ${signalCode})`)
    }

    const summary = (results: LoadResult[]) => ({
      rps: median(results.map((r) => r.requestsPerSecond)),
      p50: median(results.map((r) => r.latency.p50)),
      p99: median(results.map((r) => r.latency.p99)),
      non2xx: results.reduce((n, r) => n + r.non2xx, 0),
      micros: median(results.map((r) => r.cpu.serverMicrosPerRequest ?? Number.NaN)),
      client: median(results.map((r) => r.cpu.client)),
    })
    const b = summary(runs.bare)
    const s = summary(runs.service)
    const ratio = s.rps / b.rps
    const fmtMicros = (us: number) => (Number.isNaN(us) ? 'n/a' : `${fmtInt(us)} µs`)

    const report = [
      ...table(
        [
          [
            '',
            'req/s',
            'p50',
            'p99',
            'non-2xx',
            'server CPU/req',
            `(medians of ${runs.bare.length} runs, ${CONNECTIONS} connections)`,
          ],
          ['bare node:http', fmtInt(b.rps), fmtMs(b.p50), fmtMs(b.p99), String(b.non2xx), fmtMicros(b.micros)],
          ['service', fmtInt(s.rps), fmtMs(s.p50), fmtMs(s.p99), String(s.non2xx), fmtMicros(s.micros)],
        ],
        [1, 2, 3, 4, 5],
      ),
      `ratio service/bare: ${ratio.toFixed(3)} (req/s)` +
        (Number.isNaN(s.micros / b.micros)
          ? ''
          : `; CPU per request: ${(b.micros / s.micros).toFixed(3)} (bare/service)`) +
        (Number.isNaN(s.micros) ? '' : `; one core's ceiling ≈ ${fmtInt(1e6 / s.micros)} searches/s`),
      `one search without load: median ${fmtMs(singleMedian)}; page of ${LIMIT} vehicles,` +
        ` body ${fmtInt(Buffer.byteLength(sample.text))} bytes`,
    ]
    if (b.client >= 0.9) {
      report.push(
        `note: the load generator used ${Math.round(b.client * 100)}% of a core during the bare runs,` +
          " so the bare figure is (partly) its ceiling, not the bare server's",
      )
    }
    return {
      report,
      targets: [],
      info: [
        {
          name: `req/s service/bare, ${CONNECTIONS} conn.`,
          measured: `${ratio.toFixed(3)} (${fmtInt(s.rps)} / ${fmtInt(b.rps)} req/s)`,
        },
        {
          name: `service p50 / p99, ${CONNECTIONS} conn.`,
          measured: `${fmtMs(s.p50)} / ${fmtMs(s.p99)}; ${fmtMicros(s.micros)} CPU/search`,
        },
      ],
      errors,
    }
  } finally {
    await service.stop()
  }
}

const benchmark: Benchmark = {
  name: 'micro-search',
  description:
    `POST ${PATH} (radius ${RADIUS_M} m, limit ${LIMIT}) over 2 sandbox providers of ${fmtInt(FLEET_SIZE)} vehicles` +
    ` at latency 0 vs a bare node:http server, ${CONNECTIONS} connections (embedded shape)`,
  run,
}
export default benchmark
