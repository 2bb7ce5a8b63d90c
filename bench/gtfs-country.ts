/**
 * A country-sized GTFS feed: loading 10 million stop times (issue 17: ≤ 6 s and ≤ 800 MiB peak RSS).
 *
 * The feed comes from `generateCityFeed` (deterministic, seeded) in a temp dir: 25,600 stops on a jittered 160 × 160
 * grid 400 m apart (64 km across), 3,340 lines of up to 30 stops, 100 trips per line: about 10.0M stop_times and
 * 400 MB of CSV. Generating it takes a minute or more and is not part of the load.
 *
 * Each load runs in a fresh node process (bench/gtfs-load.ts: `createGtfsConnector` + `start()` over the `file:`
 * folder), so that its peak RSS (VmHWM, reset just before the load) holds nothing but the load. The load runs
 * BENCH_GTFS_LOADS times (default 3); the targets are judged on the medians.
 */
import { generateCityFeed } from '../src/connectors/gtfs/synthetic.ts'
import { loadInChild } from './gtfs.ts'
import type { LoadFigures } from './gtfs-load.ts'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  fmtInt,
  makeTempDir,
  median,
  removeTempDir,
} from './support.ts'

const COUNTRY = {
  stops: 25_600,
  routes: 3_340,
  stopsPerRoute: 30,
  tripsPerRoute: 100,
  spacingMeters: 400,
  center: { latitude: 51.0, longitude: 10.4 },
  seed: 0x6cf5_2026,
}
const MIN_STOP_TIMES = 10_000_000
const TARGET_SECONDS = 6
const TARGET_PEAK_MIB = 800
/** A load takes seconds on a quiet machine; minutes when it is shared and loaded. */
const CHILD_TIMEOUT_MS = 600_000

const MiB = 1024 * 1024
const fmtSec = (seconds: number) => `${seconds.toFixed(2)} s`

function loadsFromEnv(): number {
  const value = Number(process.env.BENCH_GTFS_LOADS ?? 3)
  if (!Number.isInteger(value) || value < 1 || value > 20) throw new Error('BENCH_GTFS_LOADS must be 1..20')
  return value
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const errors: string[] = []
  const report: string[] = []
  const loads = loadsFromEnv()
  const dir = makeTempDir('mas-bench-gtfs-10m-')
  try {
    const started = performance.now()
    const feed = await generateCityFeed({ dir, ...COUNTRY })
    const feedLine =
      `feed: ${fmtInt(feed.stops)} stops, ${fmtInt(feed.routes)} routes, ${fmtInt(feed.trips)} trips,` +
      ` ${fmtInt(feed.stopTimes)} stop_times; generated in ${fmtSec((performance.now() - started) / 1000)}` +
      ' (not part of the load)'
    ctx.log(feedLine)
    report.push(feedLine)
    if (feed.stopTimes < MIN_STOP_TIMES) errors.push(`the feed has ${fmtInt(feed.stopTimes)} stop_times`)

    const runs: LoadFigures[] = []
    for (let i = 0; i < loads; i++) {
      ctx.log(`load ${i + 1} of ${loads} in a child process ...`)
      const figures = await loadInChild(dir, CHILD_TIMEOUT_MS)
      if (figures.stats.stopTimes !== feed.stopTimes) {
        errors.push(`loaded ${figures.stats.stopTimes} stop_times of the ${feed.stopTimes} generated`)
      }
      for (const problem of figures.problems.slice(0, 5)) errors.push(`feed problem: ${problem}`)
      runs.push(figures)
      report.push(
        `load ${i + 1}: ${fmtSec(figures.seconds)}, peak RSS ${figures.vmHwm === undefined ? '?' : `${(figures.vmHwm / MiB).toFixed(0)} MiB`}` +
          ` (from ${(figures.before.rss / MiB).toFixed(0)} MiB before), retained RSS ${(figures.after.rss / MiB).toFixed(0)} MiB,` +
          ` the timetable's typed arrays ${((figures.stats.arrayBytes ?? 0) / MiB).toFixed(0)} MiB`,
      )
    }
    const seconds = median(runs.map((r) => r.seconds))
    const peaks = runs.map((r) => r.vmHwm).filter((v): v is number => v !== undefined)
    const peak = peaks.length > 0 ? median(peaks) : Number.NaN
    return {
      report,
      targets: [
        {
          name: `load ${fmtInt(feed.stopTimes)} stop times ≤ ${TARGET_SECONDS} s (median of ${loads})`,
          measured: `${fmtSec(seconds)} (${runs.map((r) => r.seconds.toFixed(1)).join(', ')})`,
          pass: seconds <= TARGET_SECONDS,
        },
        {
          name: `load ${fmtInt(feed.stopTimes)} stop times, peak RSS ≤ ${TARGET_PEAK_MIB} MiB (median)`,
          measured: Number.isNaN(peak) ? 'VmHWM not available' : `${(peak / MiB).toFixed(0)} MiB`,
          pass: peak <= TARGET_PEAK_MIB * MiB,
        },
      ],
      errors,
    }
  } finally {
    removeTempDir(dir)
  }
}

const benchmark: Benchmark = {
  name: 'gtfs-10m',
  description: `GTFS load of a country-sized synthetic feed (≥ ${fmtInt(MIN_STOP_TIMES)} stop times), each load in its own process`,
  run,
}
export default benchmark
