/**
 * Car searches per second with WORKERS=1 and WORKERS=2 (issue 19): the distributed shape on this machine, on
 * PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test: a database of its own is created
 * and dropped) and a Redis of its own (redis-server on a free port, no persistence), 20 sandbox car providers that
 * answer after 100 ms, 200 concurrent searches.
 *
 * No target: what a second worker adds depends on the cores free on the machine (the load generator runs here too).
 * Printed: searches/s and latency per worker count, the ratio 2 workers / 1 worker, and the CPU of all service
 * processes (primary and workers) per search.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { generateTokenKeys } from '../src/platform/tokens.ts'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  createTenantKey,
  fmtInt,
  fmtMs,
  freePort,
  load,
  makeTempDir,
  startService,
  table,
} from './support.ts'

const PROVIDERS = 20
const PROVIDER_LATENCY_MS = 100
const CONNECTIONS = 200
const PATH = '/mobility-api/v2/cars'
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

function writeProvidersFile(): string {
  const file = join(makeTempDir('mas-bench-workers-'), 'providers.json')
  const providers = Array.from({ length: PROVIDERS }, (_, i) => ({
    id: `bench-car-${String(i + 1).padStart(2, '0')}`,
    name: `Bench Car ${i + 1}`,
    connector: 'sandbox',
    environments: ['live'],
    options: { profile: i % 2 === 0 ? 'rent' : 'share', latencyMs: PROVIDER_LATENCY_MS },
  }))
  writeFileSync(file, JSON.stringify({ providers }))
  return file
}

/** CPU seconds of a process and all its children (the primary and its workers), from /proc (Linux). */
function treeCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    let seconds = (Number(fields[11]) + Number(fields[12])) / 100
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
    for (const child of children ? children.split(' ') : []) seconds += treeCpuSeconds(Number(child)) ?? 0
    return seconds
  } catch {
    return undefined
  }
}

export async function startRedis(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort()
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  const until = Date.now() + 10_000
  for (;;) {
    const client = new (await import('ioredis')).Redis(port, '127.0.0.1', {
      lazyConnect: true,
      retryStrategy: () => null,
    })
    client.on('error', () => {})
    const up = await client.connect().then(
      () => true,
      () => false,
    )
    client.disconnect()
    if (up) break
    if (Date.now() > until) throw new Error('redis-server did not start')
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') }
}

export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mas_bench_workers_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(POSTGRES_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

function searchBody(): string {
  const start = new Date(Date.now() + 3 * 86_400_000)
  start.setUTCMinutes(0, 0, 0)
  return JSON.stringify({
    pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 3000 },
    dates: { start: start.toISOString(), end: new Date(start.getTime() + 2 * 86_400_000).toISOString() },
    limit: 20,
  })
}

async function measure(ctx: BenchContext, workers: number, providersFile: string, errors: string[]) {
  const db = await freshDatabase()
  const redis = await startRedis()
  ctx.log(`WORKERS=${workers}: starting the distributed shape ...`)
  const service = await startService({
    WORKERS: String(workers),
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    TOKEN_KEYS: generateTokenKeys(),
    PROVIDERS_FILE: providersFile,
  })
  try {
    // startService waits for /health, which the first worker answers; wait until every worker answers (the request
    // id's prefix names the instance; a fresh connection each time lets the primary choose).
    const seen = new Set<string>()
    const until = Date.now() + 60_000
    while (seen.size < workers) {
      if (Date.now() > until) throw new Error(`only ${seen.size} of ${workers} workers answered within 60 s`)
      const res = await fetch(`${service.baseUrl}/health`, { headers: { connection: 'close' } })
      await res.arrayBuffer()
      seen.add((res.headers.get('x-request-id') ?? '').slice(0, 12))
    }
    const { secret } = await createTenantKey(service, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 1_000_000, windowSeconds: 60 },
    })
    const cpuBefore = treeCpuSeconds(service.child.proc.pid)
    const started = performance.now()
    const result = await load({
      url: `${service.baseUrl}${PATH}`,
      connections: CONNECTIONS,
      durationSec: ctx.durationSec,
      warmupSec: ctx.warmupSec,
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: searchBody(),
    })
    const wall = (performance.now() - started) / 1000
    const cpuAfter = treeCpuSeconds(service.child.proc.pid)
    if (result.non2xx > 0 || result.errors > 0)
      errors.push(
        `WORKERS=${workers}: ${result.non2xx} non-2xx, ${result.errors} errors ${JSON.stringify(result.statusCodes)}`,
      )
    const cpu = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined
    ctx.log(`WORKERS=${workers}: ${fmtInt(result.requestsPerSecond)} searches/s, p50 ${fmtMs(result.latency.p50)}`)
    return {
      workers,
      result,
      cores: cpu === undefined ? undefined : cpu / wall,
      cpuMsPerSearch: cpu === undefined || result.requests === 0 ? undefined : (cpu * 1000) / result.requests,
    }
  } finally {
    await service.stop()
    redis.stop()
    await db.drop()
  }
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const errors: string[] = []
  const providersFile = writeProvidersFile()
  const runs = []
  for (const workers of [1, 2]) runs.push(await measure(ctx, workers, providersFile, errors))
  const [one, two] = runs
  const ratio = two.result.requestsPerSecond / one.result.requestsPerSecond
  const report = table(
    [
      ['WORKERS', 'searches/s', 'p50', 'p99', 'service CPU (cores)', 'CPU per search'],
      ...runs.map((r) => [
        String(r.workers),
        fmtInt(r.result.requestsPerSecond),
        fmtMs(r.result.latency.p50),
        fmtMs(r.result.latency.p99),
        r.cores === undefined ? 'n/a' : r.cores.toFixed(2),
        r.cpuMsPerSearch === undefined ? 'n/a' : fmtMs(r.cpuMsPerSearch),
      ]),
    ],
    [1, 2, 3, 4, 5],
  )
  report.push(`2 workers / 1 worker: ${ratio.toFixed(2)}× the searches per second`)
  return {
    report,
    targets: [],
    info: [
      { name: 'car searches/s, WORKERS=1', measured: fmtInt(one.result.requestsPerSecond) },
      { name: 'car searches/s, WORKERS=2', measured: `${fmtInt(two.result.requestsPerSecond)} (${ratio.toFixed(2)}×)` },
    ],
    errors,
  }
}

const benchmark: Benchmark = {
  name: 'workers',
  description: `car searches/s with WORKERS=1 and 2 (distributed shape, ${PROVIDERS} providers at ${PROVIDER_LATENCY_MS} ms, ${CONNECTIONS} concurrent)`,
  run,
}
export default benchmark
