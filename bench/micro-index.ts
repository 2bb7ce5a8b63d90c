/**
 * The micromobility spatial index in-process (no service): `buildFleetIndex` (kdbush + `nearestWithin` of
 * src/platform/nearest.ts) over 1,000,000 synthetic vehicles around Berlin, against a linear scan with `distanceMeters` and a sort.
 *
 * The fleet is deterministic (seeded PRNG): 55 % spread evenly over a disc of 15 km radius (30 km across) around
 * the centre, 45 % in 24 dense clusters (Gaussian, σ 150–600 m). Query points: half anywhere in the disc, half near
 * a cluster, the same points for both methods.
 *
 * Measured: the build time (median of 3 builds, the first also shown) and its memory (V8 heap used, ArrayBuffers and
 * RSS after a full GC, before and after); then per radius (500 m, the service's default, 1000 m, 5000 m, the
 * maximum; 500 m with the predicate the service passes without a filter, which accepts every vehicle; 500 m with
 * vehicleTypes SCOOTER and minBatteryPercent 30) 20,000 index queries for the 100 nearest (the service asks each
 * provider for offset + limit + 1), and 200 linear scans at the first 200 of those points, each timed on its own
 * with process.hrtime.bigint().
 *
 * Target: index p99 < 1 ms at 500 m. Also checked: for every linear query, the index answers the same vehicles in
 * the same order (a different vehicle at a position counts only when both are at the same distance, a tie); any
 * other difference is reported as an error.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { FleetSnapshot, ProviderMicroVehicle } from '../src/connectors/types/micromobility.ts'
import { buildFleetIndex, type FleetIndex } from '../src/domain/micromobility/fleet-index.ts'
import { distanceMeters } from '../src/platform/geo.ts'
import { type BenchContext, type Benchmark, type BenchOutcome, fmtInt, median, table } from './support.ts'

const VEHICLES = 1_000_000
const CENTRE = { latitude: 52.52, longitude: 13.405 }
const AREA_RADIUS_M = 15_000
const CLUSTERS = 24
const CLUSTER_SHARE = 0.45
const SEED = 0x5eed_b1e5
const MAX_RESULTS = 100
const INDEX_QUERIES = 20_000
const LINEAR_QUERIES = 200
const WARMUP_QUERIES = 2_000
const BUILDS = 3
const TARGET_RADIUS_M = 500
const TARGET_P99_MS = 1
/** Two distances this close count as a tie (the index orders by its own haversine, rounding differs). */
const TIE_M = 1e-6

/** The predicate src/domain/micromobility/vehicles.ts builds for a search request. */
function serviceAccept(request: { vehicleTypes?: string[]; minBatteryPercent?: number }) {
  return (v: ProviderMicroVehicle) =>
    (!request.vehicleTypes || request.vehicleTypes.includes(v.type)) &&
    (request.minBatteryPercent === undefined || (v.batteryPercent ?? 100) >= request.minBatteryPercent)
}

interface Case {
  label: string
  radius: number
  accept?: (v: ProviderMicroVehicle) => boolean
}

const CASES: Case[] = [
  { label: '500 m', radius: 500 },
  { label: '1000 m', radius: 1000 },
  { label: '5000 m', radius: 5000 },
  // What the service passes when the request has no filter: a predicate that accepts every vehicle.
  { label: '500 m, accept all', radius: 500, accept: serviceAccept({}) },
  // The service's predicate with vehicleTypes and minBatteryPercent.
  {
    label: '500 m, filtered',
    radius: 500,
    accept: serviceAccept({ vehicleTypes: ['SCOOTER'], minBatteryPercent: 30 }),
  },
]

// ---------------------------------------------------------------------------------------------------------------
// Deterministic synthetic data

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

const M_PER_DEG_LAT = 111_320
const M_PER_DEG_LON = M_PER_DEG_LAT * Math.cos((CENTRE.latitude * Math.PI) / 180)

interface Point {
  latitude: number
  longitude: number
}

const offset = (from: Point, eastM: number, northM: number): Point => ({
  latitude: from.latitude + northM / M_PER_DEG_LAT,
  longitude: from.longitude + eastM / M_PER_DEG_LON,
})

function inDisc(random: () => number, radiusM: number): Point {
  const r = radiusM * Math.sqrt(random())
  const angle = 2 * Math.PI * random()
  return offset(CENTRE, r * Math.cos(angle), r * Math.sin(angle))
}

function gaussian(random: () => number, around: Point, sigmaM: number): Point {
  // Box-Muller
  const r = sigmaM * Math.sqrt(-2 * Math.log(1 - random()))
  const angle = 2 * Math.PI * random()
  return offset(around, r * Math.cos(angle), r * Math.sin(angle))
}

interface Cluster {
  centre: Point
  sigmaM: number
  /** Cumulative weight, for picking one. */
  upTo: number
}

function makeClusters(random: () => number): Cluster[] {
  const raw = Array.from({ length: CLUSTERS }, () => ({
    centre: inDisc(random, AREA_RADIUS_M * 0.8),
    sigmaM: 150 + 450 * random(),
    weight: 0.3 + random(),
  }))
  const total = raw.reduce((n, c) => n + c.weight, 0)
  let sum = 0
  return raw.map(({ centre, sigmaM, weight }) => {
    sum += weight / total
    return { centre, sigmaM, upTo: sum }
  })
}

const pickCluster = (clusters: Cluster[], random: () => number) => {
  const x = random()
  return clusters.find((c) => x < c.upTo) ?? clusters[clusters.length - 1]
}

const TYPES = ['SCOOTER', 'SCOOTER', 'SCOOTER', 'BICYCLE', 'MOPED'] as const
const NAMES: Record<(typeof TYPES)[number], string> = {
  SCOOTER: 'Bench Scooter',
  BICYCLE: 'Bench Bike',
  MOPED: 'Bench Moped',
}
const PLAN = {
  planId: 'bench',
  name: 'Bench',
  currency: 'EUR',
  unlockFee: { amount: 100, currency: 'EUR' },
  perMinuteRate: { amount: 25, currency: 'EUR' },
}

function makeSnapshot(clusters: Cluster[], random: () => number): FleetSnapshot {
  const lastUpdated = new Date(Date.UTC(2030, 0, 1)).toISOString()
  const vehicles: ProviderMicroVehicle[] = new Array(VEHICLES)
  for (let n = 0; n < VEHICLES; n++) {
    const spot =
      random() < CLUSTER_SHARE
        ? (() => {
            const c = pickCluster(clusters, random)
            return gaussian(random, c.centre, c.sigmaM)
          })()
        : inDisc(random, AREA_RADIUS_M)
    const type = TYPES[Math.floor(random() * TYPES.length)]
    vehicles[n] = {
      vehicleId: `bench-${String(n).padStart(7, '0')}`,
      type,
      propulsionType: type === 'BICYCLE' ? 'HUMAN' : 'ELECTRIC',
      name: NAMES[type],
      latitude: spot.latitude,
      longitude: spot.longitude,
      lastUpdated,
      isAvailable: random() < 0.95,
      ...(type === 'BICYCLE' ? {} : { batteryPercent: 5 + Math.floor(random() * 96) }),
      pricingPlan: PLAN,
    }
  }
  return { version: 'bench-1', vehicles }
}

function makeQueries(clusters: Cluster[], random: () => number, n: number): Point[] {
  return Array.from({ length: n }, () => {
    if (random() < 0.5) return inDisc(random, AREA_RADIUS_M)
    const c = pickCluster(clusters, random)
    return gaussian(random, c.centre, 2 * c.sigmaM)
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Memory and timing

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

interface Memory {
  heapUsed: number
  arrayBuffers: number
  rss: number
}

function memoryAfterGc(): Memory {
  gc()
  gc()
  const { heapUsed, arrayBuffers, rss } = process.memoryUsage()
  return { heapUsed, arrayBuffers, rss }
}

const MiB = 1024 * 1024
const fmtMiB = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`
const fmtDelta = (after: Memory, before: Memory) =>
  `heap used +${fmtMiB(after.heapUsed - before.heapUsed)}, ArrayBuffers +${fmtMiB(after.arrayBuffers - before.arrayBuffers)},` +
  ` RSS +${fmtMiB(after.rss - before.rss)}`

/** Exact percentile of sorted values (nearest rank). */
const at = (sorted: Float64Array, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]

const fmtUs = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`)

interface Hit {
  i: number
  d: number
}

/** What a service without the index would do: every vehicle's distance, those within the radius, sorted. */
function linearWithin(
  vehicles: ProviderMicroVehicle[],
  here: Point,
  radius: number,
  accept: ((v: ProviderMicroVehicle) => boolean) | undefined,
  max: number,
): { hits: Hit[]; total: number } {
  const hits: Hit[] = []
  for (let i = 0; i < vehicles.length; i++) {
    const v = vehicles[i]
    if (accept && !accept(v)) continue
    const d = distanceMeters(here, v)
    if (d <= radius) hits.push({ i, d })
  }
  const total = hits.length
  hits.sort((a, b) => a.d - b.d || a.i - b.i)
  if (hits.length > max) hits.length = max
  return { hits, total }
}

/**
 * Undefined when `got` (index) equals `want` (linear scan), allowing ties; otherwise what differs. The index takes
 * the Earth's radius as 6371 km (geokdbush's), distanceMeters 6371.0088 km, so a vehicle within ~1.4 ppm of the
 * radius may be in one answer and not the other: such a vehicle at the end is counted as a boundary case, not as a difference.
 */
function compare(
  vehicles: ProviderMicroVehicle[],
  here: Point,
  radius: number,
  got: number[],
  want: Hit[],
  max: number,
): { difference?: string; boundary: number } {
  const dGot = got.map((i) => distanceMeters(here, vehicles[i]))
  if (new Set(got).size !== got.length) return { difference: 'the index answered a vehicle twice', boundary: 0 }
  const boundaryBand = radius * 2e-6 + TIE_M
  let boundary = 0
  let n = got.length
  if (got.length !== want.length) {
    const longer = got.length > want.length ? dGot : want.map((h) => h.d)
    const shorter = Math.min(got.length, want.length)
    const extra = longer.slice(shorter)
    // Only a list cut short by `max` on one side and not the other, or vehicles on the boundary, may differ.
    if (extra.every((d) => Math.abs(d - radius) <= boundaryBand) && Math.max(got.length, want.length) <= max) {
      boundary = extra.length
      n = shorter
    } else {
      return {
        difference: `index ${got.length} vehicles, linear ${want.length} (extra at ${extra
          .slice(0, 3)
          .map((d) => d.toFixed(3))
          .join(', ')} m)`,
        boundary: 0,
      }
    }
  }
  for (let k = 0; k < n; k++) {
    if (got[k] === want[k].i) continue
    if (Math.abs(dGot[k] - want[k].d) <= TIE_M) continue
    return {
      difference:
        `position ${k}: index ${vehicles[got[k]].vehicleId} at ${dGot[k].toFixed(3)} m,` +
        ` linear ${vehicles[want[k].i].vehicleId} at ${want[k].d.toFixed(3)} m`,
      boundary,
    }
  }
  return { boundary }
}

// ---------------------------------------------------------------------------------------------------------------

interface CaseResult {
  label: string
  index: Float64Array
  linear: Float64Array
  hits: number
  truncated: number
  /** Vehicles within the radius (and passing the filter) at each linear query point, before the cap. */
  inRadius: number[]
  mismatches: string[]
  boundary: number
}

/**
 * Every case at every point, the cases interleaved so GC pauses and JIT effects fall on all of them alike. At each
 * step the cases query different points (case k starts k/CASES of the way into the list), so no query finds the
 * tree's nodes warm in the CPU cache from the query just before it at the same point.
 */
function runIndexQueries(fleet: FleetIndex, points: Point[]) {
  const n = points.length
  const stride = Math.floor(n / CASES.length)
  const times = CASES.map(() => new Float64Array(n))
  /** Answers at the first LINEAR_QUERIES points, for the comparison with the linear scan. */
  const answers: number[][][] = CASES.map(() => new Array(LINEAR_QUERIES))
  const hits = CASES.map(() => 0)
  const capped = CASES.map(() => 0)
  for (let q = 0; q < n; q++) {
    for (let k = 0; k < CASES.length; k++) {
      const c = CASES[k]
      const at = (q + k * stride) % n
      const { latitude, longitude } = points[at]
      const started = process.hrtime.bigint()
      const found = fleet.within(latitude, longitude, c.radius, c.accept, MAX_RESULTS)
      times[k][q] = Number(process.hrtime.bigint() - started) / 1e6
      hits[k] += found.length
      if (found.length === MAX_RESULTS) capped[k]++
      if (at < LINEAR_QUERIES) answers[k][at] = found
    }
  }
  return { times, answers, hits, capped }
}

function runCase(
  ctx: BenchContext,
  vehicles: ProviderMicroVehicle[],
  points: Point[],
  c: Case,
  measured: { index: Float64Array; answers: number[][]; hits: number; truncated: number },
): CaseResult {
  const { index, answers, hits, truncated } = measured
  const linear = new Float64Array(LINEAR_QUERIES)
  const inRadius: number[] = []
  const mismatches: string[] = []
  let boundary = 0
  for (let q = 0; q < LINEAR_QUERIES; q++) {
    const started = process.hrtime.bigint()
    const want = linearWithin(vehicles, points[q], c.radius, c.accept, MAX_RESULTS)
    linear[q] = Number(process.hrtime.bigint() - started) / 1e6
    inRadius.push(want.total)
    const verdict = compare(vehicles, points[q], c.radius, answers[q], want.hits, MAX_RESULTS)
    boundary += verdict.boundary
    if (verdict.difference) {
      const where = `${points[q].latitude.toFixed(5)}, ${points[q].longitude.toFixed(5)}`
      mismatches.push(`query ${q} (${where}): ${verdict.difference}`)
    }
  }
  index.sort()
  linear.sort()
  ctx.log(
    `${c.label.padEnd(17)} index p50 ${fmtUs(at(index, 0.5))} p99 ${fmtUs(at(index, 0.99))};` +
      ` linear p50 ${fmtUs(at(linear, 0.5))} p99 ${fmtUs(at(linear, 0.99))}; ${mismatches.length} mismatches`,
  )
  return { label: c.label, index, linear, hits, truncated, inRadius, mismatches, boundary }
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const errors: string[] = []
  const random = prng(SEED)
  const clusters = makeClusters(random)

  const base = memoryAfterGc()
  let started = performance.now()
  const snapshot = makeSnapshot(clusters, random)
  const snapshotMs = performance.now() - started
  const withSnapshot = memoryAfterGc()
  ctx.log(
    `synthetic fleet: ${fmtInt(VEHICLES)} vehicles in ${(snapshotMs / 1000).toFixed(1)} s` +
      ` (${fmtDelta(withSnapshot, base)})`,
  )

  const buildMs: number[] = []
  started = performance.now()
  const fleet = buildFleetIndex(snapshot)
  buildMs.push(performance.now() - started)
  const withIndex = memoryAfterGc()
  for (let b = 1; b < BUILDS; b++) {
    started = performance.now()
    buildFleetIndex(snapshot)
    buildMs.push(performance.now() - started)
  }
  ctx.log(
    `buildFleetIndex: ${buildMs.map((ms) => `${fmtInt(ms)} ms`).join(', ')} (${BUILDS} builds);` +
      ` memory ${fmtDelta(withIndex, withSnapshot)}`,
  )

  const points = makeQueries(clusters, random, INDEX_QUERIES)
  // Warm-up: JIT for both paths, not counted.
  const warmPoints = makeQueries(clusters, random, WARMUP_QUERIES)
  for (const [k, p] of warmPoints.entries()) {
    const c = CASES[k % CASES.length]
    fleet.within(p.latitude, p.longitude, c.radius, c.accept, MAX_RESULTS)
  }
  for (const c of CASES) linearWithin(snapshot.vehicles, warmPoints[0], c.radius, c.accept, MAX_RESULTS)
  memoryAfterGc()

  ctx.log(
    `${fmtInt(INDEX_QUERIES)} index queries and ${LINEAR_QUERIES} linear scans per case, ${MAX_RESULTS} nearest ...`,
  )
  const measured = runIndexQueries(fleet, points)
  const results = CASES.map((c, k) =>
    runCase(ctx, snapshot.vehicles, points, c, {
      index: measured.times[k],
      answers: measured.answers[k],
      hits: measured.hits[k],
      truncated: measured.capped[k],
    }),
  )

  for (const r of results) {
    for (const m of r.mismatches.slice(0, 3)) errors.push(`index ≠ linear scan at ${r.label}, ${m}`)
    if (r.mismatches.length > 3) errors.push(`... ${r.mismatches.length - 3} more mismatches at ${r.label}`)
  }

  const speedUp = (r: CaseResult) => at(r.linear, 0.5) / at(r.index, 0.5)
  const report = [
    `fleet: ${fmtInt(VEHICLES)} vehicles over ${(2 * AREA_RADIUS_M) / 1000} km, ${Math.round(CLUSTER_SHARE * 100)}%` +
      ` in ${CLUSTERS} clusters; memory of the vehicles ${fmtDelta(withSnapshot, base)}`,
    `buildFleetIndex: median ${fmtInt(median(buildMs))} ms (first ${fmtInt(buildMs[0])} ms, ${BUILDS} builds);` +
      ` memory ${fmtDelta(withIndex, withSnapshot)}`,
    '',
    ...table(
      [
        [
          'radius',
          'index p50',
          'p99',
          'max',
          'hits/query',
          '=100',
          'in radius (median)',
          'linear p50',
          'p99',
          'speed-up (p50)',
          'index = linear',
        ],
        ...results.map((r) => [
          r.label,
          fmtUs(at(r.index, 0.5)),
          fmtUs(at(r.index, 0.99)),
          fmtUs(at(r.index, 1)),
          (r.hits / r.index.length).toFixed(1),
          `${Math.round((r.truncated / r.index.length) * 100)}%`,
          fmtInt(median(r.inRadius)),
          fmtUs(at(r.linear, 0.5)),
          fmtUs(at(r.linear, 0.99)),
          `${fmtInt(speedUp(r))} ×`,
          r.mismatches.length === 0
            ? `yes (${LINEAR_QUERIES}/${LINEAR_QUERIES}${r.boundary > 0 ? `, ${r.boundary} on the boundary` : ''})`
            : `NO (${r.mismatches.length} of ${LINEAR_QUERIES})`,
        ]),
      ],
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    ),
    `(${fmtInt(INDEX_QUERIES)} index queries and ${LINEAR_QUERIES} linear scans per row, the ${MAX_RESULTS} nearest;` +
      ' "=100": share of index queries that hit the cap;' +
      ` "in radius": vehicles within the radius at the linear scans' points, before the cap)`,
  ]

  const target = results.find((r) => r.label === `${TARGET_RADIUS_M} m`)!
  const p99 = at(target.index, 0.99)
  return {
    report,
    targets: [
      {
        name: `index p99 < ${TARGET_P99_MS} ms at ${TARGET_RADIUS_M} m, ${fmtInt(VEHICLES)} vehicles`,
        measured: `${fmtUs(p99)} (p50 ${fmtUs(at(target.index, 0.5))}, ${fmtInt(speedUp(target))} × linear)`,
        pass: p99 < TARGET_P99_MS,
      },
    ],
    errors,
  }
}

const benchmark: Benchmark = {
  name: 'micro-index',
  description:
    `buildFleetIndex + within() over ${fmtInt(VEHICLES)} synthetic vehicles vs a linear scan with distanceMeters` +
    ' (in-process)',
  run,
}
export default benchmark
