/**
 * What every benchmark needs: the service and the bare baseline as child processes (always cleaned up), a tenant
 * and key through the admin API, load from autocannon with exact latency percentiles, and formatting.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'

export const ROOT = join(import.meta.dirname, '..')

// ---------------------------------------------------------------------------------------------------------------
// Benchmark modules

export interface BenchContext {
  /** Measured seconds per load run (BENCH_DURATION). */
  durationSec: number
  /** Warm-up seconds before each measured run, not counted (BENCH_WARMUP). */
  warmupSec: number
  /** One line of progress output. */
  log(line: string): void
}

export interface Target {
  /** What is promised, e.g. "req/s ratio service/bare ≥ 0.5". */
  name: string
  /** What was measured, formatted. */
  measured: string
  pass: boolean
}

export interface BenchOutcome {
  /** Result lines printed under the benchmark (already formatted). */
  report: string[]
  targets: Target[]
  /** Figures without a target, listed in the summary as "info" and not counted as targets. */
  info?: { name: string; measured: string }[]
  /** Problems that make the figures untrustworthy (non-2xx answers, socket errors, ...). */
  errors: string[]
}

export interface Benchmark {
  name: string
  description: string
  run(ctx: BenchContext): Promise<BenchOutcome>
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes and temp dirs: killed and removed on every way out.

const children = new Set<ChildProcess>()
const stoppers = new Set<() => Promise<void>>()
const tempDirs = new Set<string>()

const alive = (proc: ChildProcess) => proc.exitCode === null && proc.signalCode === null

process.on('exit', () => {
  for (const proc of children) if (alive(proc)) proc.kill('SIGKILL')
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

/** Stops every child (SIGTERM, then SIGKILL) and removes the temp dirs. */
export async function cleanUpEverything(): Promise<void> {
  await Promise.all([...stoppers].map((stop) => stop()))
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
  tempDirs.clear()
}

export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
  tempDirs.delete(dir)
}

export interface Child {
  name: string
  proc: ChildProcess
  /** The last 64 KiB of stdout and stderr, interleaved. */
  output(): string
  /** Resolves with the next stdout line matching `pattern`; rejects if the process exits first or after `ms`. */
  waitForLine(pattern: RegExp, ms: number): Promise<RegExpExecArray>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

const OUTPUT_KEEP = 64 * 1024

export function spawnChild(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
  children.add(proc)
  let output = ''
  let lineBuffer = ''
  const lineWaiters = new Set<(line: string) => void>()
  const keep = (chunk: Buffer) => {
    output += chunk.toString()
    if (output.length > OUTPUT_KEEP) output = output.slice(-OUTPUT_KEEP)
  }
  proc.stdout!.on('data', (chunk: Buffer) => {
    keep(chunk)
    lineBuffer += chunk.toString()
    let newline = lineBuffer.indexOf('\n')
    while (newline >= 0) {
      const line = lineBuffer.slice(0, newline)
      lineBuffer = lineBuffer.slice(newline + 1)
      for (const waiter of lineWaiters) waiter(line)
      newline = lineBuffer.indexOf('\n')
    }
  })
  proc.stderr!.on('data', keep)
  // The child may exit before reading stdin; never let EPIPE crash the bench.
  proc.stdin!.on('error', () => {})
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on('exit', (code, signal) => {
      children.delete(proc)
      resolve({ code, signal })
    })
  })

  const child: Child = {
    name,
    proc,
    output: () => output,
    exited,
    waitForLine: (pattern, ms) =>
      new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer)
          lineWaiters.delete(onLine)
        }
        const onLine = (line: string) => {
          const match = pattern.exec(line)
          if (match) {
            done()
            resolve(match)
          }
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`${name}: no line matching ${pattern} within ${ms} ms\n${indent(output)}`))
        }, ms)
        lineWaiters.add(onLine)
        void exited.then(({ code, signal }) => {
          done()
          reject(new Error(`${name} exited (code ${code}, signal ${signal}) before it was ready\n${indent(output)}`))
        })
      }),
    stop: async (graceMs = 10_000) => {
      stoppers.delete(child.stop)
      if (!alive(proc)) return
      proc.kill('SIGTERM')
      const timer = setTimeout(() => {
        if (alive(proc)) proc.kill('SIGKILL')
      }, graceMs)
      await exited
      clearTimeout(timer)
    },
  }
  stoppers.add(child.stop)
  return child
}

function indent(text: string): string {
  const lines = text.trimEnd().split('\n').slice(-40)
  return lines.map((line) => `    | ${line}`).join('\n')
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------------------------
// The service (embedded shape: PGlite in a fresh DATA_DIR, in-memory KV and rate limiter).

export interface HttpResult<T = unknown> {
  status: number
  headers: Headers
  text: string
  body: T
}

export interface Service {
  baseUrl: string
  adminToken: string
  child: Child
  request<T = unknown>(method: string, path: string, options?: { key?: string; body?: unknown }): Promise<HttpResult<T>>
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>
  stop(): Promise<void>
}

/** Variables that would switch the service to another shape or configuration; never inherited. */
const SHAPE_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'TOKEN_KEYS', 'PROVIDERS_FILE', 'SMTP_URL', 'BODY_LIMIT_BYTES']

/**
 * Starts `node src/main.ts` (or another `entry`, e.g. another checkout's, to compare) in the embedded shape and waits
 * until GET /health answers 200.
 * BENCH_SERVICE_NODE_OPTIONS adds flags to the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export async function startService(extraEnv: Record<string, string> = {}, entry = 'src/main.ts'): Promise<Service> {
  const dataDir = makeTempDir('mas-bench-')
  const port = await freePort()
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of SHAPE_VARIABLES) delete env[name]
  Object.assign(env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  })
  const nodeFlags = (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)
  const child = spawnChild('service', [...nodeFlags, entry], env)
  const baseUrl = `http://127.0.0.1:${port}`

  const request = async <T>(
    method: string,
    path: string,
    options: { key?: string; body?: unknown } = {},
  ): Promise<HttpResult<T>> => {
    const headers: Record<string, string> = {}
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(10_000),
    })
    const text = await response.text()
    let body: unknown
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, text, body: body as T }
  }

  const stop = async () => {
    await child.stop()
    removeTempDir(dataDir)
  }

  try {
    const deadline = Date.now() + 90_000
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
    void child.exited.then((e) => {
      exited = e
    })
    for (;;) {
      if (exited) {
        throw new Error(
          `service exited (code ${exited.code}, signal ${exited.signal}) during start-up\n${indent(child.output())}`,
        )
      }
      if (Date.now() > deadline)
        throw new Error(`service did not answer GET /health within 90 s\n${indent(child.output())}`)
      try {
        const health = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) })
        await health.arrayBuffer()
        if (health.status === 200) break
      } catch {
        // not listening yet
      }
      await sleep(100)
    }
  } catch (error) {
    await stop()
    throw error
  }

  return {
    baseUrl,
    adminToken,
    child,
    request,
    admin: (method, path, body) => request(method, `/admin/v1${path}`, { key: adminToken, body }),
    stop,
  }
}

/** A new tenant and one key of it, through the admin API; returns the key's secret. */
export async function createTenantKey(
  service: Service,
  key: Record<string, unknown>,
  tenant: Record<string, unknown> = { name: 'bench' },
): Promise<{ tenantId: string; secret: string }> {
  const created = await service.admin<{ data: { tenant: { id: string } } }>('POST', '/tenants', tenant)
  if (created.status !== 201) throw new Error(`tenant creation answered ${created.status}: ${created.text}`)
  const tenantId = created.body.data.tenant.id
  const res = await service.admin<{ data: { key: { secret: string } } }>('POST', `/tenants/${tenantId}/keys`, key)
  if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${res.text}`)
  return { tenantId, secret: res.body.data.key.secret }
}

// ---------------------------------------------------------------------------------------------------------------
// The bare baseline

export interface Bare {
  url: string
  child: Child
  stop(): Promise<void>
}

/** Starts bench/bare-server.ts in a child process answering every request with `body`, after `delayMs` if given. */
export async function startBare(body: string, contentType: string, delayMs = 0): Promise<Bare> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BARE_BODY: body,
    BARE_CONTENT_TYPE: contentType,
    BARE_DELAY_MS: String(delayMs),
    PORT: '0',
  }
  const child = spawnChild('bare server', ['bench/bare-server.ts'], env)
  try {
    const [, port] = await child.waitForLine(/^listening (\d+)$/, 15_000)
    return { url: `http://127.0.0.1:${port}`, child, stop: () => child.stop(3000) }
  } catch (error) {
    await child.stop(1000)
    throw error
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Load

export interface LoadOptions {
  url: string
  connections: number
  durationSec: number
  /** Run the same load this long first, not counted. */
  warmupSec: number
  method?: string
  headers?: Record<string, string>
  body?: string
  /**
   * Requests each connection sends in turn (autocannon's `requests`), e.g. to vary the body; fields left out come
   * from `method`, `headers` and `body`. Built once, so they cost the load generator nothing per request.
   */
  requests?: { method?: string; path?: string; headers?: Record<string, string>; body?: string }[]
  /** The server's process id, to report its CPU use (Linux only). */
  serverPid?: number
}

export interface LoadResult {
  requestsPerSecond: number
  requests: number
  durationSec: number
  /** Exact percentiles in milliseconds (autocannon's own histogram has 1 ms resolution). */
  latency: { mean: number; p50: number; p90: number; p99: number; max: number }
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  /**
   * CPU time of the server and of the load generator (this process) during the measured run, as a share of one
   * core, and the server's CPU microseconds per request: less sensitive to a noisy machine than requests/s.
   * Undefined where /proc is not available.
   */
  cpu: {
    server?: number
    client: number
    serverMicrosPerRequest?: number
    /**
     * Of serverMicrosPerRequest, the part spent in the kernel (system time): the socket reads and writes, and on a
     * virtual machine the wake-up of a load generator that sleeps between answers (see README, Benchmarks).
     */
    serverKernelMicrosPerRequest?: number
  }
}

/** utime and stime of a process in seconds, from /proc (Linux; USER_HZ is 100 there). */
function processCpuSeconds(pid: number | undefined): { user: number; system: number } | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 of proc(5), counted from the state field (3).
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 }
  } catch {
    return undefined
  }
}

/** Resident set size of a process in bytes, from /proc/<pid>/status VmRSS (Linux); undefined elsewhere. */
export function processRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Drives `url` with autocannon: `warmupSec` not counted, then `durationSec` measured. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const base = {
    url: options.url,
    connections: options.connections,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    ...(options.requests ? { requests: options.requests } : {}),
    timeout: 10,
  }
  if (options.warmupSec > 0) await autocannon({ ...base, duration: options.warmupSec })

  let latencies = new Float64Array(1 << 16)
  let count = 0
  const serverBefore = processCpuSeconds(options.serverPid)
  const clientBefore = process.cpuUsage()
  const started = performance.now()
  const instance = autocannon({ ...base, duration: options.durationSec })
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2)
      bigger.set(latencies)
      latencies = bigger
    }
    latencies[count++] = ms
  })
  const result = await instance
  const wallSec = (performance.now() - started) / 1000
  const clientUsage = process.cpuUsage(clientBefore)
  const serverAfter = processCpuSeconds(options.serverPid)
  const serverSec =
    serverBefore !== undefined && serverAfter !== undefined
      ? serverAfter.user + serverAfter.system - serverBefore.user - serverBefore.system
      : undefined
  const kernelSec =
    serverBefore !== undefined && serverAfter !== undefined ? serverAfter.system - serverBefore.system : undefined

  const sorted = latencies.subarray(0, count).sort()
  const at = (q: number) =>
    count === 0 ? Number.NaN : sorted[Math.min(count - 1, Math.max(0, Math.ceil(q * count) - 1))]
  let sum = 0
  for (const ms of sorted) sum += ms
  const statusCodes: Record<string, number> = {}
  for (const [code, { count: n }] of Object.entries(result.statusCodeStats)) statusCodes[code] = n
  return {
    requestsPerSecond: result.duration > 0 ? result.requests.total / result.duration : 0,
    requests: result.requests.total,
    durationSec: result.duration,
    latency: { mean: count ? sum / count : Number.NaN, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    cpu: {
      server: serverSec === undefined ? undefined : serverSec / wallSec,
      client: (clientUsage.user + clientUsage.system) / 1e6 / wallSec,
      serverMicrosPerRequest:
        serverSec === undefined || result.requests.total === 0 ? undefined : (serverSec * 1e6) / result.requests.total,
      serverKernelMicrosPerRequest:
        kernelSec === undefined || result.requests.total === 0 ? undefined : (kernelSec * 1e6) / result.requests.total,
    },
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Figures and tables

/**
 * A service's CPU per request as a multiple of a baseline's measured in the same run, each with its kernel part:
 * `7.1 × (981 µs, kernel 105 µs; floor 139 µs, kernel 39 µs)`. The machine's speed cancels out of the multiple, so
 * it compares between sittings where the µs do not.
 */
export function cpuMultiple(
  service: { micros?: number; kernel?: number },
  baseline: { micros?: number; kernel?: number },
  baselineName: string,
): string {
  if (service.micros === undefined || baseline.micros === undefined) return 'n/a'
  if (Number.isNaN(service.micros) || Number.isNaN(baseline.micros)) return 'n/a'
  const part = (x: { micros?: number; kernel?: number }) =>
    `${fmtInt(x.micros ?? Number.NaN)} µs${x.kernel === undefined || Number.isNaN(x.kernel) ? '' : `, kernel ${fmtInt(x.kernel)} µs`}`
  return `${(service.micros / baseline.micros).toFixed(1)} × (${part(service)}; ${baselineName} ${part(baseline)})`
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US')
export const fmtMs = (ms: number) => `${ms.toFixed(2)} ms`

/** Left-aligned columns; `right` lists the columns to right-align. */
export function table(rows: string[][], right: number[] = []): string[] {
  const widths: number[] = []
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length)
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (right.includes(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  )
}

/** Seconds from an environment variable (a positive number), or the fallback. */
export function secondsFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name]?.trim()
  if (!raw) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < min)
    throw new Error(`${name} must be a number ≥ ${min} (seconds), got "${raw}"`)
  return value
}

// ---------------------------------------------------------------------------------------------------------------
// Service vs bare node:http server

/** Each pair runs twice in alternating order and the medians count, because the machine is noisy. */
const BARE_ORDER = ['bare', 'service', 'service', 'bare'] as const

type Side = (typeof BARE_ORDER)[number]

/** Medians over one side's runs (`non2xx` is the sum). */
export interface SideSummary {
  rps: number
  p50: number
  p99: number
  non2xx: number
  /** Server CPU microseconds per request; NaN where /proc is not available. */
  micros: number
  /** Of `micros`, the kernel's (system time). */
  kernelMicros: number
  /** The load generator's CPU share. */
  client: number
}

export interface BareComparison {
  bare: SideSummary
  service: SideSummary
  /** Requests per second, service/bare. */
  ratio: number
  /** Runs per side. */
  runs: number
  connections: number
}

const fmtCpu = (r: LoadResult) =>
  `server ${r.cpu.server === undefined ? 'n/a' : `${Math.round(r.cpu.server * 100)}%`}` +
  ` (${r.cpu.serverMicrosPerRequest === undefined ? 'n/a' : `${r.cpu.serverMicrosPerRequest.toFixed(1)} µs/req`}` +
  `${r.cpu.serverKernelMicrosPerRequest === undefined ? '' : `, kernel ${r.cpu.serverKernelMicrosPerRequest.toFixed(1)}`}),` +
  ` load generator ${Math.round(r.cpu.client * 100)}%`

const summarize = (results: LoadResult[]): SideSummary => ({
  rps: median(results.map((r) => r.requestsPerSecond)),
  p50: median(results.map((r) => r.latency.p50)),
  p99: median(results.map((r) => r.latency.p99)),
  non2xx: results.reduce((n, r) => n + r.non2xx, 0),
  micros: median(results.map((r) => r.cpu.serverMicrosPerRequest ?? Number.NaN)),
  kernelMicros: median(results.map((r) => r.cpu.serverKernelMicrosPerRequest ?? Number.NaN)),
  client: median(results.map((r) => r.cpu.client)),
})

/**
 * Starts a bare node:http server answering `body`, then loads it and the service at `path` in alternating order
 * (bare, service, service, bare), logging each run; non-2xx answers, errors and timeouts go to `errors`.
 */
export async function compareWithBare(
  ctx: BenchContext,
  service: Service,
  options: {
    path: string
    /** What the bare server answers every request with. */
    body: string
    contentType: string
    connections: number
    /** How each request is sent (headers, method, body, requests). */
    request: Pick<LoadOptions, 'method' | 'headers' | 'body' | 'requests'>
    /** Appended to the line announcing the bare server. */
    bareNote?: string
    errors: string[]
  },
): Promise<BareComparison> {
  const bare = await startBare(options.body, options.contentType)
  ctx.log(`bare node:http server at ${bare.url}${options.bareNote ? ` ${options.bareNote}` : ''}`)
  const runs: Record<Side, LoadResult[]> = { bare: [], service: [] }
  try {
    for (const [i, side] of BARE_ORDER.entries()) {
      const target =
        side === 'bare'
          ? { url: bare.url, pid: bare.child.proc.pid }
          : { url: service.baseUrl, pid: service.child.proc.pid }
      const result = await load({
        url: `${target.url}${options.path}`,
        serverPid: target.pid,
        ...options.request,
        connections: options.connections,
        durationSec: ctx.durationSec,
        warmupSec: ctx.warmupSec,
      })
      runs[side].push(result)
      ctx.log(
        `[${i + 1}/${BARE_ORDER.length}] ${side.padEnd(7)} ${fmtInt(result.requestsPerSecond).padStart(7)} req/s` +
          `  p50 ${fmtMs(result.latency.p50)}  p99 ${fmtMs(result.latency.p99)}  max ${fmtMs(result.latency.max)}` +
          `  non-2xx ${result.non2xx}  errors ${result.errors}  timeouts ${result.timeouts}` +
          `  cpu ${fmtCpu(result)}`,
      )
      const problems = result.non2xx + result.errors + result.timeouts
      if (problems > 0) {
        options.errors.push(
          `${side} run ${i + 1}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts` +
            ` (status codes ${JSON.stringify(result.statusCodes)})`,
        )
      }
    }
  } finally {
    await bare.stop()
  }
  const b = summarize(runs.bare)
  const s = summarize(runs.service)
  return { bare: b, service: s, ratio: s.rps / b.rps, runs: runs.bare.length, connections: options.connections }
}

/**
 * The report lines of a comparison: a table of the medians, the ratio line (plus `ratioSuffix`), `extra` lines,
 * and a note when the load generator was the bare server's ceiling.
 */
export function bareComparisonReport(
  c: BareComparison,
  options: {
    fmtMicros: (us: number) => string
    /** Adds a non-2xx column. */
    non2xx?: boolean
    ratioSuffix?: string
    extra?: string[]
  },
): string[] {
  const { bare: b, service: s } = c
  const { fmtMicros } = options
  const row = (label: string, x: SideSummary) => [
    label,
    fmtInt(x.rps),
    fmtMs(x.p50),
    fmtMs(x.p99),
    ...(options.non2xx ? [String(x.non2xx)] : []),
    fmtMicros(x.micros),
    fmtMicros(x.kernelMicros),
  ]
  const header = ['', 'req/s', 'p50', 'p99', ...(options.non2xx ? ['non-2xx'] : []), 'server CPU/req', 'of it kernel']
  const report = [
    ...table(
      [
        [...header, `(medians of ${c.runs} runs, ${c.connections} connections)`],
        row('bare node:http', b),
        row('service', s),
      ],
      Array.from({ length: header.length - 1 }, (_, i) => i + 1),
    ),
    `ratio service/bare: ${c.ratio.toFixed(3)} (req/s)` +
      (Number.isNaN(s.micros / b.micros)
        ? ''
        : `; CPU per request: ${(b.micros / s.micros).toFixed(3)} (bare/service)`) +
      (options.ratioSuffix ?? ''),
    ...(options.extra ?? []),
  ]
  if (b.client >= 0.9) {
    report.push(
      `note: the load generator used ${Math.round(b.client * 100)}% of a core during the bare runs,` +
        " so the bare figure is (partly) its ceiling, not the bare server's",
    )
  }
  return report
}
