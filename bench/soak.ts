/**
 * `npm run soak`: car searches at the machine's capacity against the embedded shape, for a long time, printing the
 * service's memory as it goes. Not part of CI (it runs for half an hour by default).
 *
 * The service runs in a child process over 20 sandbox car providers answering after 100 ms (as the car-search
 * benchmark has it); autocannon keeps SOAK_CONNECTIONS searches in flight. Each connection sends three first pages
 * of searches picked at random from 24 (other pickup times), then the second page of the last one with its cursor:
 * sessions pile up as they do under real traffic, and a cursor whose session was evicted shows as INVALID_CURSOR
 * (SESSION_EVICTED). Every SOAK_SAMPLE_SECONDS one line: the service's RSS (from /proc), V8 heap used and the search
 * sessions it holds (from /metrics), searches per second and the answers by status. At the end: the verdict against
 * SOAK_LIMIT_MB of RSS (1024 by default) and how fast RSS still grew over the second half of the run.
 *
 *   SOAK_MINUTES          how long (default 30)
 *   SOAK_CONNECTIONS      concurrent searches (default 100)
 *   SOAK_SAMPLE_SECONDS   seconds between report lines (default 30)
 *   SOAK_LIMIT_MB         the RSS the service must stay under (default 1024)
 *   SOAK_HEAP_MB          the service's V8 heap limit (--max-old-space-size), as a container of some memory would
 *                         give it; default: what Node picks for this machine
 *   SOAK_SERVICE          the service's entry file (default src/main.ts; another checkout's, to compare)
 * The service inherits the rest of the environment (SEARCH_SESSIONS_MAX_MB, HEAP_LIMIT_PERCENT, ...).
 *
 * Exit code 0 when the service stayed up and under the limit, 1 when not, 2 on bad variables.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon, { type Context, type Request } from 'autocannon'
import {
  cleanUpEverything,
  createTenantKey,
  fmtInt,
  makeTempDir,
  processRssBytes,
  type Service,
  secondsFromEnv,
  startService,
  table,
} from './support.ts'

const PROVIDERS = 20
const PROVIDER_LATENCY_MS = 100
const SEARCHES = 24
const PATH = '/mobility-api/v2/cars'
const MiB = 1024 * 1024

let minutes: number
let connections: number
let sampleSec: number
let limitMb: number
try {
  minutes = secondsFromEnv('SOAK_MINUTES', 30, 0.1)
  connections = Math.round(secondsFromEnv('SOAK_CONNECTIONS', 100, 1))
  sampleSec = secondsFromEnv('SOAK_SAMPLE_SECONDS', 30, 1)
  limitMb = secondsFromEnv('SOAK_LIMIT_MB', 1024, 16)
} catch (error) {
  process.stderr.write(`${(error as Error).message.replace('(seconds)', '')}\n`)
  process.exit(2)
}
const entry = process.env.SOAK_SERVICE?.trim() || 'src/main.ts'
const heapMb = process.env.SOAK_HEAP_MB?.trim()
if (heapMb) {
  if (!/^[1-9]\d*$/.test(heapMb)) {
    process.stderr.write(`SOAK_HEAP_MB must be a whole number of MiB, got "${heapMb}"\n`)
    process.exit(2)
  }
  // startService passes these flags to the service's node.
  process.env.BENCH_SERVICE_NODE_OPTIONS = `${process.env.BENCH_SERVICE_NODE_OPTIONS ?? ''} --max-old-space-size=${heapMb}`
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    process.stderr.write(`\n${signal}: stopping the service ...\n`)
    void cleanUpEverything().finally(() => process.exit(130))
  })
}

function writeProvidersFile(): string {
  const file = join(makeTempDir('mas-soak-'), 'providers.json')
  const providers = Array.from({ length: PROVIDERS }, (_, i) => ({
    id: `soak-car-${String(i + 1).padStart(2, '0')}`,
    name: `Soak Car ${i + 1}`,
    connector: 'sandbox',
    environments: ['live'],
    options: { profile: i % 2 === 0 ? 'rent' : 'share', latencyMs: PROVIDER_LATENCY_MS },
  }))
  writeFileSync(file, JSON.stringify({ providers }))
  return file
}

/** Searches that differ in pickup time (so in offers and sessions), over the whole run. */
function searchBodies(): Record<string, unknown>[] {
  const base = new Date(Date.now() + 3 * 86_400_000)
  base.setUTCMinutes(0, 0, 0)
  return Array.from({ length: SEARCHES }, (_, i) => {
    const start = new Date(base.getTime() + i * 5 * 3600_000)
    return {
      pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 3000 },
      dates: { start: start.toISOString(), end: new Date(start.getTime() + 2 * 86_400_000).toISOString() },
      limit: 20,
    }
  })
}

/** Sum of the samples of `name` in Prometheus text. */
function metric(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined
  let sum: number | undefined
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue
    const value = Number(line.slice(line.lastIndexOf(' ') + 1))
    if (Number.isFinite(value)) sum = (sum ?? 0) + value
  }
  return sum
}

async function scrape(service: Service): Promise<string | undefined> {
  try {
    const res = await service.request('GET', '/metrics', { key: service.adminToken })
    return res.status === 200 ? res.text : undefined
  } catch {
    return undefined
  }
}

const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / MiB).toFixed(1)} MiB`)
const clock = (sec: number) => `${Math.floor(sec / 60)}:${String(Math.round(sec % 60)).padStart(2, '0')}`

/** Least-squares slope of `ys` over `xs`. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my)
    den += (xs[i] - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

interface Sample {
  sec: number
  rss?: number
  heap?: number
  heapTotal?: number
  sessions?: number
  sessionBytes?: number
  evicted?: number
  rate: number
  statuses: Record<string, number>
}

async function main(): Promise<number> {
  const log = (line: string) => process.stdout.write(`${line}\n`)
  log(
    `soak: ${minutes} min of car searches, ${connections} concurrent, ${PROVIDERS} sandbox car providers at ` +
      `${PROVIDER_LATENCY_MS} ms, embedded shape (${entry}); a line every ${sampleSec} s; limit ${limitMb} MiB RSS`,
  )
  const settings = ['SEARCH_SESSIONS_MAX', 'SEARCH_SESSIONS_MAX_MB', 'HEAP_LIMIT_PERCENT', 'MEMORY_LIMIT_MB']
    .filter((name) => process.env[name])
    .map((name) => `${name}=${process.env[name]}`)
  if (process.env.BENCH_SERVICE_NODE_OPTIONS?.trim())
    settings.push(`node ${process.env.BENCH_SERVICE_NODE_OPTIONS.trim()}`)
  log(`  service settings: ${settings.length > 0 ? settings.join(', ') : 'the defaults'}`)
  const service = await startService({ PROVIDERS_FILE: writeProvidersFile() }, entry)
  const pid = service.child.proc.pid
  const { secret } = await createTenantKey(service, {
    type: 'secret',
    environment: 'live',
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
  })
  const bodies = searchBodies()
  const idle = await scrape(service)
  log(
    `  idle after start: RSS ${mib(processRssBytes(pid))}, heap used ${mib(metric(idle, 'nodejs_heap_size_used_bytes'))}` +
      ` of ${mib(metric(idle, 'nodejs_heap_size_total_bytes'))}, outside the heap (the embedded database's` +
      ` WebAssembly memory, buffers) ${mib(metric(idle, 'nodejs_external_memory_bytes'))}`,
  )
  const probe = await service.request('POST', PATH, { key: secret, body: bodies[0] })
  if (probe.status !== 200) throw new Error(`POST ${PATH} answered ${probe.status}: ${probe.text.slice(0, 500)}`)
  const pick = (context: Context) => {
    context.search = Math.floor(Math.random() * SEARCHES)
    return JSON.stringify(bodies[context.search as number])
  }
  const reasons: Record<string, number> = {}
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }
  const first: Request = { method: 'POST', path: PATH, headers, setupRequest: (r, c) => ({ ...r, body: pick(c) }) }
  const requests: Request[] = [
    first,
    first,
    {
      ...first,
      onResponse: (status, body, context) => {
        context.cursor = status === 200 ? /"nextCursor":"([^"]+)"/.exec(body)?.[1] : undefined
      },
    },
    {
      method: 'POST',
      path: PATH,
      headers,
      setupRequest: (r, c) =>
        c.cursor ? { ...r, body: JSON.stringify({ ...bodies[c.search as number], cursor: c.cursor }) } : undefined,
      onResponse: (status, body) => {
        const reason = status === 200 ? 'next page 200' : `next page ${status} ${/"reason":"(\w+)"/.exec(body)?.[1]}`
        reasons[reason] = (reasons[reason] ?? 0) + 1
      },
    },
  ]

  const started = performance.now()
  const instance = autocannon({
    url: service.baseUrl,
    connections,
    duration: Math.round(minutes * 60),
    requests,
    timeout: 30,
  })
  let statuses: Record<string, number> = {}
  let responses = 0
  instance.on('response', (_client: unknown, status: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1
    responses++
  })
  const samples: Sample[] = []
  const rows: string[][] = [
    ['time', 'RSS', 'heap used', 'heap total', 'sessions', 'session bytes', 'evicted', 'req/s', 'answers'],
  ]
  let lastAt = started
  const take = async () => {
    const now = performance.now()
    const text = await scrape(service)
    const sample: Sample = {
      sec: (now - started) / 1000,
      rss: processRssBytes(pid),
      heap: metric(text, 'nodejs_heap_size_used_bytes'),
      heapTotal: metric(text, 'nodejs_heap_size_total_bytes'),
      sessions: metric(text, 'search_sessions'),
      sessionBytes: metric(text, 'search_session_bytes'),
      evicted: metric(text, 'search_sessions_evicted'),
      rate: responses / ((now - lastAt) / 1000),
      statuses,
    }
    statuses = {}
    responses = 0
    lastAt = now
    samples.push(sample)
    const row = [
      clock(sample.sec),
      mib(sample.rss),
      mib(sample.heap),
      mib(sample.heapTotal),
      sample.sessions === undefined ? 'n/a' : fmtInt(sample.sessions),
      mib(sample.sessionBytes),
      sample.evicted === undefined ? 'n/a' : fmtInt(sample.evicted),
      fmtInt(sample.rate),
      Object.entries(sample.statuses)
        .map(([code, n]) => `${code}×${n}`)
        .join(' '),
    ]
    rows.push(row)
    log(`  ${row.join('  ')}`)
  }
  const timer = setInterval(() => void take(), sampleSec * 1000)
  let died: string | undefined
  void service.child.exited.then(({ code, signal }) => {
    died = `the service exited (code ${code}, signal ${signal})`
    instance.stop()
  })
  const result = await instance
  clearInterval(timer)
  if (!died && performance.now() - lastAt > 2000) await take()
  // Stopping the service below ends it too: only an exit before that counts.
  const diedDuringRun = died

  const tail = service.child
    .output()
    .split('\n')
    .filter((line) => /heap|memory|fatal|load shedding/i.test(line))
    .slice(-3)
  await service.stop()

  log('')
  for (const line of table(rows, [1, 2, 3, 4, 5, 6, 7])) log(`  ${line}`)
  const rss = samples.map((s) => s.rss).filter((v): v is number => v !== undefined)
  const peak = rss.length > 0 ? Math.max(...rss) : undefined
  const half = samples.filter((s) => s.rss !== undefined && s.sec >= samples[samples.length - 1].sec / 2)
  const growth =
    half.length >= 2
      ? slope(
          half.map((s) => s.sec / 60),
          half.map((s) => s.rss! / MiB),
        )
      : undefined
  log('')
  log(
    `searches ${fmtInt(result.requests.total)} in ${result.duration} s (${fmtInt(result.requests.total / Math.max(1, result.duration))}/s);` +
      ` answers ${JSON.stringify(Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count])))};` +
      ` errors ${result.errors}, timeouts ${result.timeouts}`,
  )
  log(`second pages: ${JSON.stringify(reasons)}`)
  log(
    `RSS: peak ${mib(peak)}; over the second half ${growth === undefined ? 'n/a' : `${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB/min`}`,
  )
  if (tail.length > 0) log(`service log: ${tail.join(' | ').slice(0, 600)}`)
  const pass = !diedDuringRun && peak !== undefined && peak < limitMb * MiB
  log(
    `verdict: ${pass ? 'PASS' : 'FAIL'} (${diedDuringRun ?? `peak RSS ${mib(peak)} ${pass ? '<' : '≥'} ${limitMb} MiB`} after ${clock(result.duration)})`,
  )
  return pass ? 0 : 1
}

main()
  .then(async (code) => {
    await cleanUpEverything()
    process.exit(code)
  })
  .catch(async (error) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    await cleanUpEverything()
    process.exit(1)
  })
