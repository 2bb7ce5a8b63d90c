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
 * Targets (issue 17): the service's CPU time per search ≤ 150 µs (medians of the two service runs), and the first
 * page's bytes per vehicle ≤ 700 (the whole body, envelope, cursor and `providers` included, ÷ the vehicles on it; the
 * list is sent once, as `results`). The ratio service/bare, the latency, the vehicle entries' own average size and
 * the CPU per search as a multiple of the bare server's CPU per request (the machine's speed taken out; each with its
 * kernel part) are reported as info.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  bareComparisonReport,
  compareWithBare,
  cpuMultiple,
  createTenantKey,
  fmtInt,
  fmtMs,
  makeTempDir,
  median,
  startService,
} from './support.ts'

const CONNECTIONS = 50
const MAX_CPU_MICROS = 150
const MAX_BYTES_PER_VEHICLE = 700
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
const PROVIDERS = [
  { id: 'sandbox-scoot', name: 'Sandbox Scoot', profile: 'scoot' },
  { id: 'sandbox-bike', name: 'Sandbox Bike', profile: 'bike' },
]

interface SearchResult {
  success?: boolean
  data?: {
    results: { vehicleId: string; provider: { id: string }; vehicleToken?: string; distanceFromSearch?: number }[]
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
    if (data.results.length !== LIMIT) {
      errors.push(`the first search answered ${data.results.length} vehicles, expected a full page of ${LIMIT}`)
    }
    const byProvider = PROVIDERS.map(({ id }) => `${data.results.filter((v) => v.provider.id === id).length} ${id}`)
    const tokens = data.results.filter((v) => v.vehicleToken).length
    const farthest = Math.max(...data.results.map((v) => v.distanceFromSearch ?? 0))
    const contentType = sample.headers.get('content-type') ?? 'application/json; charset=utf-8'
    const bodyBytes = Buffer.byteLength(sample.text)
    const bytesPerVehicle = bodyBytes / Math.max(1, data.results.length)
    const entryBytes =
      data.results.reduce((n, v) => n + Buffer.byteLength(JSON.stringify(v)), 0) / Math.max(1, data.results.length)
    ctx.log(
      `service at ${service.baseUrl}; first search (builds fleets and indexes) ${fmtMs(firstMs)}:` +
        ` ${data.results.length} vehicles (${byProvider.join(', ')}; ${tokens} vehicleTokens; farthest ${farthest} m),` +
        ` hasMore ${data.pagination.hasMore}, providers ${data.providers.map((p) => `${p.id} ${p.status} ${p.vehicles}`).join(', ')},` +
        ` body ${fmtInt(bodyBytes)} bytes (${bytesPerVehicle.toFixed(1)} per vehicle; a vehicle's entry ${entryBytes.toFixed(1)})`,
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

    const c = await compareWithBare(ctx, service, {
      path: PATH,
      body: sample.text,
      contentType,
      connections: CONNECTIONS,
      request: {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: bodies[0],
        requests: bodies.map((body) => ({ body })),
      },
      bareNote: "answering the first search's body",
      errors,
    })

    const { exitCode, signalCode } = service.child.proc
    if (exitCode !== null || signalCode !== null) {
      errors.push(`the service exited during the run (code ${exitCode}, signal ${signalCode})`)
    }

    const { ratio, bare: b, service: s } = c
    const fmtMicros = (us: number) => (Number.isNaN(us) ? 'n/a' : `${fmtInt(us)} µs`)
    const report = bareComparisonReport(c, {
      fmtMicros,
      non2xx: true,
      ratioSuffix: Number.isNaN(s.micros) ? '' : `; one core's ceiling ≈ ${fmtInt(1e6 / s.micros)} searches/s`,
      extra: [
        `one search without load: median ${fmtMs(singleMedian)}; page of ${LIMIT} vehicles,` +
          ` body ${fmtInt(Buffer.byteLength(sample.text))} bytes`,
      ],
    })
    return {
      report,
      targets: [
        {
          name: `CPU per search ≤ ${MAX_CPU_MICROS} µs, ${CONNECTIONS} conn.`,
          measured: fmtMicros(s.micros),
          pass: s.micros <= MAX_CPU_MICROS,
        },
        {
          name: `bytes per vehicle ≤ ${MAX_BYTES_PER_VEHICLE} (first page of ${LIMIT}, whole body)`,
          measured: `${bytesPerVehicle.toFixed(1)} (${fmtInt(bodyBytes)} bytes ÷ ${data.results.length})`,
          pass: bytesPerVehicle <= MAX_BYTES_PER_VEHICLE,
        },
      ],
      info: [
        { name: "a vehicle's entry in `results`, average bytes", measured: entryBytes.toFixed(1) },
        {
          name: `req/s service/bare, ${CONNECTIONS} conn.`,
          measured: `${ratio.toFixed(3)} (${fmtInt(s.rps)} / ${fmtInt(b.rps)} req/s)`,
        },
        {
          name: `service p50 / p99, ${CONNECTIONS} conn.`,
          measured: `${fmtMs(s.p50)} / ${fmtMs(s.p99)}; ${fmtMicros(s.micros)} CPU/search`,
        },
        {
          // The machine's speed in the same run: CPU figures of two sittings compare through this ratio only.
          name: "CPU per search ÷ the bare server's per request (kernel part of each)",
          measured: cpuMultiple(
            { micros: s.micros, kernel: s.kernelMicros },
            { micros: b.micros, kernel: b.kernelMicros },
            'bare',
          ),
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
