/**
 * The GTFS connector in-process (no service) over a synthetic city of more than 1,000,000 stop times.
 *
 * The feed comes from `generateCityFeed` (deterministic, seeded) in a temp dir: 6,400 stops on a jittered 80 × 80
 * grid 400 m apart (32 km across, around Berlin), 400 lines of up to 30 stops wandering across it, 100 trips per line
 * (both directions, from about 05:00 until past midnight: a departure every ~23 min each way), a daily and a
 * weekday service. Generating it is not part of the load and is timed on its own.
 *
 * Load: `createGtfsConnector` with a `file:` folder URL and `start()`, twice: once in a child node process
 * (bench/gtfs-load.ts) so that its peak RSS (VmHWM) and retained memory hold nothing but the load, and once in
 * this process, where the connector then answers the queries. Memory: process.memoryUsage() sampled every 50 ms
 * during the load, VmHWM (reset just before the load), and heap / ArrayBuffers / RSS after a full GC before and
 * after.
 *
 * Queries, on a Tuesday service day (both services run), each timed on its own with process.hrtime.bigint(),
 * after an uncounted warm-up; stops and times from a seeded PRNG:
 * - departures: 5,000 boards (limit 20) at random served stops, at random times over the whole day;
 * - journeys across the city (limit 3), departing at random times 06:00–22:00: 200 between random stops at least
 *   10 km apart (straight line), 100 between random points of the city at least 10 km apart (walking up to the
 *   connector's maxWalkToStopMeters, 800 m, to and from stops).
 *
 * Targets: departures p99 < 5 ms; journeys p50 ≤ 5 ms and p99 ≤ 20 ms (issue 17). The load of a country-sized feed
 * (10M stop times) is the `gtfs-10m` benchmark (bench/gtfs-country.ts).
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { GtfsConnector } from '../src/connectors/gtfs/index.ts'
import { generateCityFeed } from '../src/connectors/gtfs/synthetic.ts'
import type { CallContext } from '../src/connectors/types/common.ts'
import type { JourneyEnd, TransitStop } from '../src/connectors/types/public-transport.ts'
import { distanceMeters } from '../src/platform/geo.ts'
import { type LoadFigures, type Memory, measureLoad } from './gtfs-load.ts'
import {
  type BenchContext,
  type Benchmark,
  type BenchOutcome,
  fmtInt,
  makeTempDir,
  median,
  removeTempDir,
  spawnChild,
  table,
} from './support.ts'

const CENTRE = { latitude: 52.52, longitude: 13.405 }
const CITY = {
  stops: 6400,
  routes: 400,
  stopsPerRoute: 30,
  tripsPerRoute: 100,
  spacingMeters: 400,
  center: CENTRE,
  seed: 0x6cf5_2026,
}
const MIN_STOP_TIMES = 1_000_000
/** A Tuesday, midnight in Europe/Berlin (the feed's agency_timezone; summer time, UTC+2). */
const SERVICE_DAY_LABEL = '2026-06-02'
const SERVICE_DAY = new Date(`${SERVICE_DAY_LABEL}T00:00:00+02:00`)
const SEED = 0x0b5e_55ed

const DEPARTURE_QUERIES = 5000
const DEPARTURE_WARMUP = 500
const DEPARTURE_LIMIT = 20
const DEPARTURE_TARGET_P99_MS = 5

const JOURNEY_STOP_QUERIES = 200
const JOURNEY_POINT_QUERIES = 100
const JOURNEY_WARMUP = 20
const JOURNEY_LIMIT = 3
const JOURNEY_MIN_METERS = 10_000
/** Departure times of the journeys: from 06:00 to 22:00. */
const JOURNEY_HOURS = [6, 22] as const
const JOURNEY_TARGET_P50_MS = 5
const JOURNEY_TARGET_P99_MS = 20

const CHILD_TIMEOUT_MS = 120_000

/** mulberry32: a small, fast, seeded PRNG in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const MiB = 1024 * 1024
const fmtMiB = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`
const fmtDelta = (bytes: number) => `${bytes < 0 ? '−' : '+'}${fmtMiB(Math.abs(bytes))}`
const fmtSec = (seconds: number) => `${seconds.toFixed(2)} s`
const fmtMs = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`)
const elapsedMs = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6

/** Exact percentile of sorted values (nearest rank). */
const at = (sorted: Float64Array, q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]

const sortedTimes = (times: number[]) => Float64Array.from(times).sort()

function ctxAt(now: Date): CallContext {
  return {
    signal: new AbortController().signal,
    now,
    language: 'en',
    tenantId: 'bench',
    environment: 'live',
    scenarios: [],
  }
}

function folderBytes(dir: string): number {
  let total = 0
  for (const file of readdirSync(dir)) total += statSync(join(dir, file)).size
  return total
}

/** The memory lines of one load. */
function memoryLines(f: LoadFigures): string[] {
  const hwm =
    f.vmHwm === undefined
      ? 'VmHWM not available'
      : `peak RSS (VmHWM${f.vmHwmReset ? ', reset before the load' : ', whole process'}) ${fmtMiB(f.vmHwm)}`
  const delta = (key: keyof Memory) => fmtDelta(f.after[key] - f.before[key])
  return [
    `  memory: ${hwm}, from ${fmtMiB(f.before.rss)} before;` +
      ` sampled peaks (${f.sampledPeak.samples} samples) RSS ${fmtMiB(f.sampledPeak.rss)},` +
      ` heap used ${fmtMiB(f.sampledPeak.heapUsed)}, ArrayBuffers ${fmtMiB(f.sampledPeak.arrayBuffers)}`,
    `  retained after GC: heap used ${delta('heapUsed')} (${fmtMiB(f.after.heapUsed)}),` +
      ` ArrayBuffers ${delta('arrayBuffers')} (${fmtMiB(f.after.arrayBuffers)}), RSS ${delta('rss')}` +
      ` (${fmtMiB(f.after.rss)}); the timetable's typed arrays ${fmtMiB(f.stats.arrayBytes ?? 0)}`,
  ]
}

/** The load in a fresh node process: memory figures of the load alone. */
export async function loadInChild(dir: string, timeoutMs = CHILD_TIMEOUT_MS): Promise<LoadFigures> {
  const child = spawnChild('gtfs-load', ['bench/gtfs-load.ts', dir], { ...process.env })
  try {
    const match = await child.waitForLine(/^RESULT (.+)$/, timeoutMs)
    const { code, signal } = await child.exited
    if (code !== 0) throw new Error(`gtfs-load exited with code ${code} (signal ${signal})\n${child.output()}`)
    return JSON.parse(match[1]) as LoadFigures
  } finally {
    await child.stop()
  }
}

interface Stop {
  id: string
  latitude: number
  longitude: number
}

interface DepartureRun {
  times: Float64Array
  empty: number
  full: number
  answered: number
}

async function runDepartures(
  connector: GtfsConnector,
  stops: Stop[],
  random: () => number,
  n: number,
  errors: string[],
): Promise<DepartureRun> {
  const times: number[] = []
  let empty = 0
  let full = 0
  let answered = 0
  const ctx = ctxAt(SERVICE_DAY)
  for (let q = 0; q < n; q++) {
    const stop = stops[Math.floor(random() * stops.length)]
    const from = new Date(SERVICE_DAY.getTime() + Math.floor(random() * 24 * 3600) * 1000)
    const started = process.hrtime.bigint()
    try {
      const found = await connector.departures(stop.id, from, DEPARTURE_LIMIT, ctx)
      times.push(elapsedMs(started))
      answered += found.length
      if (found.length === 0) empty++
      if (found.length === DEPARTURE_LIMIT) full++
    } catch (error) {
      if (errors.length < 10) errors.push(`departures ${stop.id} at ${from.toISOString()}: ${(error as Error).message}`)
    }
  }
  return { times: sortedTimes(times), empty, full, answered }
}

interface JourneyCase {
  kind: 'stop → stop' | 'point → point'
  origin: JourneyEnd
  destination: JourneyEnd
  meters: number
  departAt: Date
}

function journeyCases(stops: Stop[], random: () => number, nStops: number, nPoints: number): JourneyCase[] {
  const cases: JourneyCase[] = []
  const departAt = () =>
    new Date(
      SERVICE_DAY.getTime() +
        Math.floor((JOURNEY_HOURS[0] + random() * (JOURNEY_HOURS[1] - JOURNEY_HOURS[0])) * 3600) * 1000,
    )
  const farApart = <T extends { latitude: number; longitude: number }>(pick: () => T): [T, T, number] => {
    for (;;) {
      const a = pick()
      const b = pick()
      const meters = distanceMeters(a, b)
      if (meters >= JOURNEY_MIN_METERS) return [a, b, meters]
    }
  }
  for (let q = 0; q < nStops; q++) {
    const [a, b, meters] = farApart(() => stops[Math.floor(random() * stops.length)])
    cases.push({
      kind: 'stop → stop',
      origin: { stopId: a.id },
      destination: { stopId: b.id },
      meters,
      departAt: departAt(),
    })
  }
  // Points anywhere within the served area's bounding box.
  const lat = stops.map((s) => s.latitude)
  const lon = stops.map((s) => s.longitude)
  const box = { minLat: Math.min(...lat), maxLat: Math.max(...lat), minLon: Math.min(...lon), maxLon: Math.max(...lon) }
  const point = () => ({
    latitude: box.minLat + random() * (box.maxLat - box.minLat),
    longitude: box.minLon + random() * (box.maxLon - box.minLon),
  })
  for (let q = 0; q < nPoints; q++) {
    const [a, b, meters] = farApart(point)
    cases.push({
      kind: 'point → point',
      origin: { ...a, name: 'From' },
      destination: { ...b, name: 'To' },
      meters,
      departAt: departAt(),
    })
  }
  return cases
}

interface JourneyResult {
  c: JourneyCase
  ms: number
  /** CPU time of the process during the query (user + system): on a loaded machine, less noisy than `ms`. */
  cpuMs: number
  found: number
  /** Of the first journey: transfers and minutes from the wanted departure to the arrival. */
  transfers?: number
  minutes?: number
}

async function runJourneys(connector: GtfsConnector, cases: JourneyCase[], errors: string[]): Promise<JourneyResult[]> {
  const ctx = ctxAt(SERVICE_DAY)
  const results: JourneyResult[] = []
  for (const c of cases) {
    const started = process.hrtime.bigint()
    const cpu = process.cpuUsage()
    try {
      const journeys = await connector.journeys(
        { origin: c.origin, destination: c.destination, departAt: c.departAt, limit: JOURNEY_LIMIT },
        ctx,
      )
      const ms = elapsedMs(started)
      const used = process.cpuUsage(cpu)
      const first = journeys[0]
      results.push({
        c,
        ms,
        cpuMs: (used.user + used.system) / 1000,
        found: journeys.length,
        ...(first
          ? { transfers: first.transfers, minutes: (first.arrival.getTime() - c.departAt.getTime()) / 60_000 }
          : {}),
      })
    } catch (error) {
      if (errors.length < 10)
        errors.push(
          `journey ${JSON.stringify(c.origin)} → ${JSON.stringify(c.destination)}: ${(error as Error).message}`,
        )
    }
  }
  return results
}

function journeyRow(label: string, results: JourneyResult[]): string[] {
  const times = sortedTimes(results.map((r) => r.ms))
  const found = results.filter((r) => r.found > 0)
  return [
    label,
    fmtInt(results.length),
    `${fmtInt(found.length)} (${results.length ? Math.round((found.length / results.length) * 100) : 0}%)`,
    found.length ? (found.reduce((n, r) => n + r.found, 0) / found.length).toFixed(2) : '-',
    `${(median(results.map((r) => r.c.meters)) / 1000).toFixed(1)} km`,
    found.length ? fmtInt(median(found.map((r) => r.minutes ?? 0))) : '-',
    found.length ? String(median(found.map((r) => r.transfers ?? 0))) : '-',
    fmtMs(at(times, 0.5)),
    fmtMs(at(times, 0.9)),
    fmtMs(at(times, 0.99)),
    fmtMs(at(times, 1)),
  ]
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const errors: string[] = []
  const report: string[] = []
  const dir = makeTempDir('mas-bench-gtfs-')
  try {
    // Generation (not the load).
    let started = performance.now()
    const feed = await generateCityFeed({ dir, ...CITY })
    const generateSec = (performance.now() - started) / 1000
    const feedLine =
      `feed: ${fmtInt(feed.stops)} stops, ${fmtInt(feed.routes)} routes, ${fmtInt(feed.trips)} trips,` +
      ` ${fmtInt(feed.stopTimes)} stop_times, ${fmtMiB(folderBytes(dir))} of CSV;` +
      ` generated in ${fmtSec(generateSec)} (not part of the load)`
    ctx.log(feedLine)
    report.push(feedLine)
    if (feed.stopTimes < MIN_STOP_TIMES) {
      errors.push(`the feed has ${fmtInt(feed.stopTimes)} stop_times, fewer than ${fmtInt(MIN_STOP_TIMES)}`)
    }

    // Load in a fresh process: memory of the load alone.
    ctx.log('loading in a child process ...')
    const own = await loadInChild(dir)
    const checkLoad = (where: string, f: LoadFigures) => {
      if (f.stats.stopTimes !== feed.stopTimes) {
        errors.push(`${where}: loaded ${f.stats.stopTimes} stop_times of the ${feed.stopTimes} generated`)
      }
      for (const problem of f.problems.slice(0, 5)) errors.push(`${where}: feed problem: ${problem}`)
    }
    checkLoad('child load', own)
    const s = own.stats
    report.push(
      `load in its own process: ${fmtSec(own.seconds)} (connector's loadSeconds ${s.loadSeconds});` +
        ` ${fmtInt(s.stopTimes ?? 0)} stop times, ${fmtInt(s.trips ?? 0)} trips, ${fmtInt(s.patterns ?? 0)} patterns,` +
        ` ${fmtInt(s.footpaths ?? 0)} footpaths`,
      ...memoryLines(own),
    )

    // Load here: the connector that answers the queries.
    ctx.log('loading in-process ...')
    const here = await measureLoad(dir)
    const { connector, kv } = here
    try {
      checkLoad('in-process load', here.figures)
      report.push(
        `load in-process (the suite's process): ${fmtSec(here.figures.seconds)}`,
        ...memoryLines(here.figures),
      )

      const qctx = ctxAt(SERVICE_DAY)
      const all: (TransitStop & { distanceMeters: number })[] = await connector.stopsNear(
        CENTRE.latitude,
        CENTRE.longitude,
        100_000,
        feed.stops,
        qctx,
      )
      const stops: Stop[] = all
        .filter((stop) => stop.modes.length > 0)
        .map(({ id, latitude, longitude }) => ({ id, latitude, longitude }))
      report.push(`served stops (with departures): ${fmtInt(stops.length)} of ${fmtInt(all.length)}`)
      if (stops.length < 100) throw new Error(`only ${stops.length} served stops found`)

      const random = prng(SEED)

      // Departures.
      await runDepartures(connector, stops, prng(SEED ^ 1), DEPARTURE_WARMUP, errors)
      ctx.log(`${fmtInt(DEPARTURE_QUERIES)} departure boards ...`)
      const dep = await runDepartures(connector, stops, random, DEPARTURE_QUERIES, errors)
      const depP99 = at(dep.times, 0.99)
      report.push(
        '',
        `departures: ${fmtInt(dep.times.length)} boards (limit ${DEPARTURE_LIMIT}) at random served stops, random` +
          ` times over ${SERVICE_DAY_LABEL} (a Tuesday); ${DEPARTURE_WARMUP} warm-up not counted`,
        `  p50 ${fmtMs(at(dep.times, 0.5))}, p90 ${fmtMs(at(dep.times, 0.9))}, p99 ${fmtMs(depP99)},` +
          ` max ${fmtMs(at(dep.times, 1))}; ${(dep.answered / Math.max(1, dep.times.length)).toFixed(1)} departures` +
          ` per board, ${fmtInt(dep.full)} full (${DEPARTURE_LIMIT}), ${fmtInt(dep.empty)} empty` +
          `  → ${depP99 < DEPARTURE_TARGET_P99_MS ? 'PASS' : 'MISS'} p99 < ${DEPARTURE_TARGET_P99_MS} ms`,
      )

      // Journeys.
      await runJourneys(connector, journeyCases(stops, prng(SEED ^ 2), JOURNEY_WARMUP, 0), errors)
      const cases = journeyCases(stops, random, JOURNEY_STOP_QUERIES, JOURNEY_POINT_QUERIES)
      ctx.log(`${cases.length} journeys across the city ...`)
      started = performance.now()
      const results = await runJourneys(connector, cases, errors)
      const journeySec = (performance.now() - started) / 1000
      const times = sortedTimes(results.map((r) => r.ms))
      const found = results.filter((r) => r.found > 0).length
      const p50 = at(times, 0.5)
      const p99 = at(times, 0.99)
      const cpuTimes = sortedTimes(results.map((r) => r.cpuMs))
      report.push(
        '',
        `journeys (limit ${JOURNEY_LIMIT}) between ends ≥ ${JOURNEY_MIN_METERS / 1000} km apart, departing` +
          ` ${JOURNEY_HOURS[0]}:00–${JOURNEY_HOURS[1]}:00; ${JOURNEY_WARMUP} warm-up not counted; ${fmtSec(journeySec)} in all`,
        ...table(
          [
            [
              'ends',
              'queries',
              'found',
              'journeys/answer',
              'distance',
              'min to arrival',
              'transfers',
              'p50',
              'p90',
              'p99',
              'max',
            ],
            journeyRow(
              'stop → stop',
              results.filter((r) => r.c.kind === 'stop → stop'),
            ),
            journeyRow(
              'point → point',
              results.filter((r) => r.c.kind === 'point → point'),
            ),
            journeyRow('all', results),
          ],
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        ).map((line) => `  ${line}`),
        '  (distance: median straight line; min to arrival and transfers: medians of the first journey found)',
        `  → ${p50 <= JOURNEY_TARGET_P50_MS ? 'PASS' : 'MISS'} p50 ≤ ${JOURNEY_TARGET_P50_MS} ms,` +
          ` ${p99 <= JOURNEY_TARGET_P99_MS ? 'PASS' : 'MISS'} p99 ≤ ${JOURNEY_TARGET_P99_MS} ms`,
      )
      if (results.length > 0 && found < results.length / 2) {
        errors.push(`only ${found} of ${results.length} journey queries found a journey; the timings mean little`)
      }

      return {
        report,
        targets: [
          {
            name: `departures p99 < ${DEPARTURE_TARGET_P99_MS} ms (${fmtInt(feed.stopTimes)} stop times)`,
            measured: `${fmtMs(depP99)} (p50 ${fmtMs(at(dep.times, 0.5))})`,
            pass: depP99 < DEPARTURE_TARGET_P99_MS,
          },
          {
            name: `journeys across the city p50 ≤ ${JOURNEY_TARGET_P50_MS} ms`,
            measured: `${fmtMs(p50)} (p90 ${fmtMs(at(times, 0.9))}); found ${found}/${results.length}`,
            pass: p50 <= JOURNEY_TARGET_P50_MS,
          },
          {
            name: `journeys across the city p99 ≤ ${JOURNEY_TARGET_P99_MS} ms`,
            measured: `${fmtMs(p99)} (max ${fmtMs(at(times, 1))})`,
            pass: p99 <= JOURNEY_TARGET_P99_MS,
          },
        ],
        info: [
          {
            name: 'journeys: CPU time per query (less noisy when the machine is loaded)',
            measured: `p50 ${fmtMs(at(cpuTimes, 0.5))}, p99 ${fmtMs(at(cpuTimes, 0.99))}`,
          },
          {
            name: `load ${fmtInt(own.stats.stopTimes ?? 0)} stop times (own process)`,
            measured:
              `${fmtSec(own.seconds)}, peak RSS ${own.vmHwm === undefined ? '?' : fmtMiB(own.vmHwm)},` +
              ` retained heap ${fmtDelta(own.after.heapUsed - own.before.heapUsed)}` +
              ` + ArrayBuffers ${fmtDelta(own.after.arrayBuffers - own.before.arrayBuffers)}`,
          },
        ],
        errors,
      }
    } finally {
      await connector.stop?.()
      await kv.close()
    }
  } finally {
    removeTempDir(dir)
  }
}

const benchmark: Benchmark = {
  name: 'gtfs',
  description:
    `GTFS connector over a synthetic city of ≥ ${fmtInt(MIN_STOP_TIMES)} stop times: load (seconds, memory),` +
    ` ${fmtInt(DEPARTURE_QUERIES)} departure boards, ${JOURNEY_STOP_QUERIES + JOURNEY_POINT_QUERIES} journeys (in-process)`,
  run,
}
export default benchmark
