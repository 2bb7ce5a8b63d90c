/**
 * What `npm start` costs in memory with the demo providers: starts `node src/start.js` (the entry of `npm start`) on
 * a temp DATA_DIR, samples the RSS of the process and its children (the workers when WORKERS is set) every 50 ms
 * until GET /ready answers 200 and then while it idles, and reports:
 *
 * - peak while starting: the highest sample, or the kernel's VmHWM of the service's process when higher (a step that
 *   blocks for a moment between two samples is still counted);
 * - idle: the median of the samples over the last second of the idle time, nothing asked of the service.
 *
 * Each run starts twice on the same DATA_DIR: the first start creates the embedded database and the demo tenant, the
 * second opens what is there (a restart). The first start copies the database template that `npm ci` made
 * (.cache/pglite-template, see src/store/pglite-database.ts) or, without one, runs PGlite's initdb in a child; the
 * report says which. Targets (issue 17): idle ≤ 250 MiB and peak ≤ 400 MiB, each judged on the median over the runs
 * of the worse of the two kinds of start.
 *
 *   BENCH_START_RUNS          runs (default 3)
 *   BENCH_START_IDLE_SECONDS  seconds idle after /ready (default 5)
 *   BENCH_START_ENTRY         another checkout's src/start.js, to compare (default this checkout's)
 *   BENCH_SERVICE_NODE_OPTIONS  extra node flags for the service
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  freePort,
  makeTempDir,
  median,
  removeTempDir,
  secondsFromEnv,
  spawnChild,
  table,
} from './support.ts'

const MiB = 1_048_576
const SAMPLE_MS = 50
const TARGET_IDLE = 250 * MiB
const TARGET_PEAK = 400 * MiB
const READY_WITHIN_MS = 180_000
/** Variables that would switch the service to another shape or configuration; never inherited. */
const SHAPE_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'TOKEN_KEYS', 'PROVIDERS_FILE', 'SMTP_URL', 'DEMO_TENANT']

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/** The process and all its descendants (Linux: /proc/<pid>/task/<tid>/children). */
function tree(pid: number): number[] {
  const all = [pid]
  for (let i = 0; i < all.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${all[i]}/task`)) {
        const children = readFileSync(`/proc/${all[i]}/task/${task}/children`, 'utf8').trim()
        if (children) all.push(...children.split(/\s+/).map(Number))
      }
    } catch {
      // gone
    }
  }
  return all
}

interface Start {
  readyMs: number
  peak: number
  idle: number
}

async function startOnce(dataDir: string, entry: string, idleSec: number): Promise<Start> {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of SHAPE_VARIABLES) delete env[name]
  Object.assign(env, { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' })
  const nodeFlags = (process.env.BENCH_SERVICE_NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)
  const child = spawnChild('service', [...nodeFlags, entry], env)
  const pid = child.proc.pid as number
  const samples: { at: number; rss: number }[] = []
  const started = Date.now()
  const timer = setInterval(() => {
    const rss = tree(pid).reduce((sum, p) => sum + statusKb(p, 'VmRSS'), 0)
    if (rss > 0) samples.push({ at: Date.now(), rss })
  }, SAMPLE_MS)
  let exited = false
  void child.exited.then(() => {
    exited = true
  })
  try {
    let readyAt = 0
    while (!readyAt) {
      if (exited) throw new Error(`service exited during start-up\n${child.output()}`)
      if (Date.now() - started > READY_WITHIN_MS)
        throw new Error(`no 200 from GET /ready within 180 s\n${child.output()}`)
      try {
        const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2000) })
        await res.arrayBuffer()
        if (res.status === 200) readyAt = Date.now()
      } catch {
        // not listening yet
      }
      if (!readyAt) await sleep(SAMPLE_MS)
    }
    await sleep(idleSec * 1000)
    clearInterval(timer)
    // With workers the kernel's high-water marks of separate processes do not add up; samples only then.
    const hwm = tree(pid).length === 1 ? statusKb(pid, 'VmHWM') : 0
    const end = samples.at(-1)?.at ?? Date.now()
    const lastSecond = samples.filter((s) => s.at >= end - 1000).map((s) => s.rss)
    return {
      readyMs: readyAt - started,
      peak: Math.max(hwm, ...samples.map((s) => s.rss)),
      idle: median(lastSecond),
    }
  } finally {
    clearInterval(timer)
    await child.stop()
  }
}

const mib = (bytes: number) => `${Math.round(bytes / MiB)} MiB`

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const runs = Math.round(secondsFromEnv('BENCH_START_RUNS', 3, 1))
  const idleSec = secondsFromEnv('BENCH_START_IDLE_SECONDS', 5, 1)
  const entry = resolve(process.env.BENCH_START_ENTRY ?? 'src/start.js')
  const template = resolve(entry, '../../.cache/pglite-template')
  const creates = existsSync(resolve(template, 'stamp.json'))
    ? `the first start copies the database template ${template} (made by npm ci) when its stamp matches`
    : 'the first start runs initdb (no database template in that checkout)'
  const first: Start[] = []
  const again: Start[] = []
  for (let i = 0; i < runs; i++) {
    const dataDir = makeTempDir('mas-bench-start-')
    try {
      first.push(await startOnce(dataDir, entry, idleSec))
      again.push(await startOnce(dataDir, entry, idleSec))
    } finally {
      removeTempDir(dataDir)
    }
    const [a, b] = [first.at(-1) as Start, again.at(-1) as Start]
    ctx.log(
      `run ${i + 1}: first start ready in ${a.readyMs} ms, peak ${mib(a.peak)}, idle ${mib(a.idle)}; ` +
        `restart ready in ${b.readyMs} ms, peak ${mib(b.peak)}, idle ${mib(b.idle)}`,
    )
  }
  const med = (list: Start[], key: keyof Start) => median(list.map((s) => s[key]))
  const rows = [['start (median of runs)', 'ready', 'peak RSS', `idle RSS after ${idleSec} s`]]
  for (const [label, list] of [
    ['first (new DATA_DIR)', first],
    ['restart', again],
  ] as const) {
    rows.push([label, `${Math.round(med(list, 'readyMs'))} ms`, mib(med(list, 'peak')), mib(med(list, 'idle'))])
  }
  const peak = Math.max(med(first, 'peak'), med(again, 'peak'))
  const idle = Math.max(med(first, 'idle'), med(again, 'idle'))
  return {
    report: [`${entry}, ${runs} run(s), RSS sampled every ${SAMPLE_MS} ms`, creates, ...table(rows, [1, 2, 3])],
    targets: [
      { name: 'idle RSS after start ≤ 250 MiB', measured: mib(idle), pass: idle <= TARGET_IDLE },
      { name: 'peak RSS while starting ≤ 400 MiB', measured: mib(peak), pass: peak <= TARGET_PEAK },
    ],
    errors: [],
  }
}

const benchmark: Benchmark = {
  name: 'start-memory',
  description: '`npm start` with the demo providers: peak RSS while starting and idle RSS after /ready',
  run,
}
export default benchmark
