/**
 * The benchmark suite: `npm run bench` runs every benchmark in order, `npm run bench -- <name> ...` only those.
 *
 *   BENCH_DURATION  measured seconds per load run (default 8)
 *   BENCH_WARMUP    warm-up seconds before each load run, not counted (default 2)
 *   BENCH_SERVICE_NODE_OPTIONS  extra node flags for the service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 *
 * Exit code 0 when every benchmark ran, even if targets are missed (the summary says PASS or MISS per target);
 * 1 when a benchmark failed to run or its figures are unreliable (errors, non-2xx answers); 2 on bad arguments.
 */
import { availableParallelism, cpus } from 'node:os'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  cleanUpEverything,
  secondsFromEnv,
  table,
} from './support.ts'

/** In running order. Append new benchmarks here (car search, micromobility radius search, GTFS, ...). */
const BENCHMARKS: { name: string; load: () => Promise<{ default: Benchmark }> }[] = [
  { name: 'auth-check', load: () => import('./auth-check.ts') },
  { name: 'car-search', load: () => import('./car-search.ts') },
  { name: 'micro-index', load: () => import('./micro-index.ts') },
  { name: 'micro-search', load: () => import('./micro-search.ts') },
  { name: 'gtfs', load: () => import('./gtfs.ts') },
  { name: 'gtfs-10m', load: () => import('./gtfs-country.ts') },
  { name: 'workers', load: () => import('./workers.ts') },
  { name: 'webhooks', load: () => import('./webhooks.ts') },
  { name: 'start-memory', load: () => import('./start-memory.ts') },
]

interface Ran {
  name: string
  outcome?: BenchOutcome
  failure?: string
}

let interrupted = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130)
    interrupted = true
    process.stderr.write(`\n${signal}: stopping the child processes ...\n`)
    void cleanUpEverything().finally(() => process.exit(130))
  })
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2).filter((arg) => arg !== '--')
  const unknown = wanted.filter((name) => !BENCHMARKS.some((b) => b.name === name))
  if (unknown.length > 0) {
    process.stderr.write(
      `Unknown benchmark: ${unknown.join(', ')}. Available: ${BENCHMARKS.map((b) => b.name).join(', ')}\n`,
    )
    return 2
  }
  const selected = wanted.length > 0 ? BENCHMARKS.filter((b) => wanted.includes(b.name)) : BENCHMARKS

  let durationSec: number
  let warmupSec: number
  try {
    durationSec = secondsFromEnv('BENCH_DURATION', 8, 1)
    warmupSec = secondsFromEnv('BENCH_WARMUP', 2, 0)
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`)
    return 2
  }

  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  process.stdout.write(
    `Benchmarks on node ${process.version}, ${availableParallelism()} × ${cpu}; ` +
      `${warmupSec} s warm-up + ${durationSec} s measured per load run\n`,
  )

  const ran: Ran[] = []
  for (const entry of selected) {
    if (interrupted) break
    process.stdout.write(`\n== ${entry.name} ==\n`)
    const ctx: BenchContext = {
      durationSec,
      warmupSec,
      log: (line) => process.stdout.write(`  ${line}\n`),
    }
    try {
      const benchmark = (await entry.load()).default
      ctx.log(benchmark.description)
      const outcome = await benchmark.run(ctx)
      ran.push({ name: entry.name, outcome })
      process.stdout.write('\n')
      for (const line of outcome.report) ctx.log(line)
      for (const error of outcome.errors) ctx.log(`ERROR ${error}`)
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
      ran.push({ name: entry.name, failure: message })
      process.stdout.write(`  FAILED ${message}\n`)
    } finally {
      await cleanUpEverything()
    }
  }

  const rows = [['benchmark', 'target', 'measured', 'result']]
  for (const { name, outcome, failure } of ran) {
    if (!outcome) {
      rows.push([name, '(did not run to the end)', (failure ?? '').split('\n')[0].slice(0, 60), 'ERROR'])
      continue
    }
    for (const target of outcome.targets) {
      const result =
        outcome.errors.length > 0
          ? `${target.pass ? 'PASS' : 'MISS'} (unreliable: errors)`
          : target.pass
            ? 'PASS'
            : 'MISS'
      rows.push([name, target.name, target.measured, result])
    }
    for (const info of outcome.info ?? []) {
      rows.push([name, info.name, info.measured, outcome.errors.length > 0 ? 'info (unreliable: errors)' : 'info'])
    }
  }
  const lines = table(rows)
  const rule = '-'.repeat(Math.max(...lines.map((l) => l.length)))
  process.stdout.write(`\nSummary\n${rule}\n${lines[0]}\n${rule}\n${lines.slice(1).join('\n')}\n${rule}\n`)

  const targets = ran.flatMap((r) => r.outcome?.targets ?? [])
  const passed = targets.filter((t) => t.pass).length
  const broken = ran.filter((r) => !r.outcome || r.outcome.errors.length > 0).length
  process.stdout.write(
    `${passed}/${targets.length} targets met` +
      (broken > 0 ? `; ${broken} benchmark(s) failed or reported errors\n` : '\n'),
  )
  return broken > 0 || interrupted ? 1 : 0
}

main().then(
  async (code) => {
    await cleanUpEverything()
    process.exit(interrupted ? 130 : code)
  },
  async (error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    await cleanUpEverything()
    process.exit(1)
  },
)
