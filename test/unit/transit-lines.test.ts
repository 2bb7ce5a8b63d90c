import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { Readable } from 'node:stream'
import { after, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { openFeed } from '../../src/connectors/gtfs/client.ts'
import { buildLinePaths, simplifyPath } from '../../src/connectors/gtfs/engine/lines.ts'
import { loadTimetable, parseFeed } from '../../src/connectors/gtfs/engine/load.ts'
import { buildPatterns, expandTrips, sortStopTimes } from '../../src/connectors/gtfs/engine/trips.ts'
import { createGtfsConnector, type GtfsConnector } from '../../src/connectors/gtfs/index.ts'
import type { CallContext } from '../../src/connectors/types/common.ts'
import type { TransitLineGeometry } from '../../src/connectors/types/public-transport.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { LINE_STOPS, SH_BACK, SH_OUT, writeLineFeed } from '../helpers/line-feed.ts'

const ctx = { signal: AbortSignal.timeout(30_000) } as CallContext
const dirs: string[] = []
const connectors: GtfsConnector[] = []
after(async () => {
  await Promise.all(connectors.map((c) => c.stop?.()))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function loaded(changes: Record<string, string | undefined> = {}) {
  const dir = writeLineFeed(changes)
  dirs.push(dir)
  const connector = createGtfsConnector(
    {
      id: 'lines',
      name: 'Lines',
      connector: 'gtfs',
      environments: ['test'],
      options: { url: pathToFileURL(dir).href },
    },
    { kv: memoryKv(), clock: () => new Date() },
  )
  connectors.push(connector)
  await connector.start?.()
  const set = await connector.lineGeometries?.(ctx)
  assert.ok(set)
  const byRoute = new Map(set.lines.map((l) => [l.line.routeId, l]))
  return { connector, set, byRoute, problems: connector.problems().filter((p) => p.includes('shapes.txt')) }
}

const pairs = (coordinates: Float64Array) =>
  Array.from({ length: coordinates.length / 2 }, (_, i) => [coordinates[i * 2], coordinates[i * 2 + 1]])
const stop = (id: keyof typeof LINE_STOPS) => [LINE_STOPS[id][1], LINE_STOPS[id][0]]
const pathsOf = (line: TransitLineGeometry | undefined) =>
  (line?.paths ?? []).map((p) => ({ shapeId: p.shapeId, points: pairs(p.coordinates) }))

/** Distance in metres from a point to a polyline (flat projection; fine at city scale). */
function deviation(point: number[], line: number[][]): number {
  const kx = Math.cos((point[1] * Math.PI) / 180) * 111_320
  const ky = 110_574
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i + 1 < line.length; i++) {
    const [ax, ay] = [line[i][0] * kx, line[i][1] * ky]
    const [bx, by] = [line[i + 1][0] * kx, line[i + 1][1] * ky]
    const [px, py] = [point[0] * kx, point[1] * ky]
    const l2 = (bx - ax) ** 2 + (by - ay) ** 2
    const t = l2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / l2))
    best = Math.min(best, Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay))))
  }
  return best
}

/** A quarter circle of radius 1 km around Alexanderplatz, `n` points. */
function arc(n: number): [number, number][] {
  return Array.from({ length: n }, (_, i) => {
    const a = (i / (n - 1)) * (Math.PI / 2)
    return [
      13.4132 + (Math.cos(a) * 1000) / (111_320 * Math.cos((52.5219 * Math.PI) / 180)),
      52.5219 + (Math.sin(a) * 1000) / 110_574,
    ]
  })
}

describe('transit lines from a GTFS feed', () => {
  it('draws a route’s distinct shapes from shapes.txt, ordered by shape_pt_sequence, with the route’s colour', async () => {
    const { byRoute, set, problems, connector } = await loaded()
    const tram = byRoute.get('T1')
    assert.equal(tram?.line.name, 'T1')
    assert.equal(tram?.line.mode, 'TRAM')
    assert.equal(tram?.line.color, '#D81B60')
    // T1_plain runs the same stops as the shaped T1_out: it adds no path of its own.
    assert.deepEqual(pathsOf(tram), [
      { shapeId: 'SH_OUT', points: SH_OUT },
      { shapeId: 'SH_BACK', points: SH_BACK },
    ])
    assert.deepEqual(problems, [])
    assert.equal(connector.stats().lines, 3)
    assert.equal(connector.stats().linePaths, 4)
    // The same object until the feed is loaded again; then a new version.
    assert.equal(await connector.lineGeometries?.(ctx), set)
    await connector.reload()
    const again = await connector.lineGeometries?.(ctx)
    assert.notEqual(again?.version, set.version)
  })

  it('joins the stops where trips have no shape: one path per stop pattern, reverse and shorter runs folded in', async () => {
    const { byRoute } = await loaded()
    // B1 runs S1→S4, S4→S1 and a short S2→S3: one path.
    assert.deepEqual(pathsOf(byRoute.get('B1')), [
      { shapeId: undefined, points: [stop('S1'), stop('S2'), stop('S3'), stop('S4')] },
    ])
    // B2 stops at a different platform of station P each way: the path runs through the station, once.
    const b2 = byRoute.get('B2')
    assert.equal(b2?.line.name, 'Bus zwei über P')
    assert.deepEqual(pathsOf(b2), [{ shapeId: undefined, points: [stop('S1'), stop('P'), stop('S4')] }])
  })

  it('without shapes.txt draws every route along its stops, and says so when trips name shapes', async () => {
    const { byRoute, problems, connector } = await loaded({ 'shapes.txt': undefined })
    assert.deepEqual(pathsOf(byRoute.get('T1')), [
      { shapeId: undefined, points: [stop('S1'), stop('S2'), stop('S3'), stop('S4')] },
    ])
    assert.equal(problems.length, 1)
    assert.match(problems[0], /shapes\.txt: missing, though trips name shapes; lines are drawn along their stops/)
    assert.ok(connector.stats().loaded)
  })

  it('simplifies shapes with many points to within about a metre', async () => {
    const dense = arc(20_000)
    const rows = dense.map(([lon, lat], i) => `SH_OUT,${lat},${lon},${i}`)
    const { byRoute } = await loaded({
      'shapes.txt': ['shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence', ...rows].join('\n'),
    })
    const [path] = pathsOf(byRoute.get('T1')).filter((p) => p.shapeId === 'SH_OUT')
    assert.ok(path.points.length < 400, `${path.points.length} points left of 20000`)
    assert.ok(path.points.length > 10)
    assert.deepEqual(
      path.points[0],
      dense[0].map((v) => Math.round(v * 1e7) / 1e7),
    )
    assert.deepEqual(
      path.points.at(-1),
      dense.at(-1)?.map((v) => Math.round(v * 1e7) / 1e7),
    )
    const worst = Math.max(...dense.filter((_, i) => i % 7 === 0).map((p) => deviation(p, path.points)))
    assert.ok(worst <= 1.05, `every shape point within a metre of the drawn path (worst ${worst.toFixed(2)} m)`)
  })

  it('simplifyPath keeps corners and drops points on a straight run, whatever their number', () => {
    const straight = new Float64Array(10_000 * 2)
    for (let i = 0; i < 10_000; i++) {
      straight[i * 2] = 13.4 + i * 1e-5
      straight[i * 2 + 1] = 52.5 + i * 1e-5
    }
    assert.deepEqual(pairs(simplifyPath(straight, 1)), [
      [13.4, 52.5],
      [13.4 + 9_999e-5, 52.5 + 9_999e-5],
    ])
    const zigzag = Float64Array.from(SH_OUT.flat())
    assert.deepEqual(pairs(simplifyPath(zigzag, 1)), SH_OUT)
    // A loop (first point = last point) keeps its far side.
    const loop = Float64Array.from([13.4, 52.5, 13.41, 52.5, 13.41, 52.51, 13.4, 52.51, 13.4, 52.5])
    assert.equal(simplifyPath(loop, 1).length, loop.length)
  })

  it('skips a shapes.txt without a needed column, records the problem, and draws along the stops', async () => {
    const { byRoute, problems, connector } = await loaded({
      'shapes.txt': 'shape_id,shape_pt_lat,shape_pt_sequence\nSH_OUT,52.52,1\nSH_OUT,52.53,2',
    })
    assert.deepEqual(problems.length, 1)
    assert.match(problems[0], /shapes\.txt: no shape_pt_lon column; lines are drawn along their stops/)
    assert.ok(pathsOf(byRoute.get('T1')).every((p) => p.shapeId === undefined))
    const stops = await connector.stopsNear(52.52, 13.4, 200, 5, ctx)
    assert.ok(stops.length > 0, 'the timetable is served as before')
  })

  it('skips bad shape rows and shapes with fewer than two points, each reported; the rest is drawn', async () => {
    const { byRoute, problems } = await loaded({
      'shapes.txt': [
        'shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence',
        ...SH_OUT.map(([lon, lat], i) => `SH_OUT,${lat},${lon},${i}`),
        'SH_BACK,52.52,13.43,10',
        'SH_BACK,north,13.4,20',
        'SH_BACK,52.52,13.42,-1',
      ].join('\n'),
    })
    // SH_BACK keeps one usable point: its trip T1_back is drawn along its stops.
    assert.deepEqual(pathsOf(byRoute.get('T1')), [
      { shapeId: 'SH_OUT', points: SH_OUT },
      { shapeId: undefined, points: [stop('S4'), stop('S3'), stop('S2'), stop('S1')] },
    ])
    assert.ok(problems.some((p) => /shapes\.txt: row \d+: shape SH_BACK: position north,13\.4 is not usable/.test(p)))
    assert.ok(problems.some((p) => /shapes\.txt: row \d+: shape SH_BACK: shape_pt_sequence -1/.test(p)))
    assert.ok(
      problems.some((p) =>
        /shapes\.txt: shape SH_BACK: fewer than two distinct points; its trips are drawn along their stops/.test(p),
      ),
    )
  })

  it('skips a shapes.txt that cannot be read, records it, and still loads the feed', async () => {
    const dir = writeLineFeed()
    dirs.push(dir)
    const inner = await openFeed(new URL(pathToFileURL(dir).href), { timeoutMs: 10_000, maxBytes: 1e8 })
    const broken = {
      description: inner.description,
      close: () => inner.close(),
      open: async (name: string) =>
        name === 'shapes.txt'
          ? new Readable({
              read() {
                this.push('shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\nSH_OUT,52.52,13.4,1\n')
                this.destroy(new Error('invalid stored block lengths'))
              },
            })
          : inner.open(name),
    }
    const problems: string[] = []
    const tt = await loadTimetable(broken, { transferWalkMeters: 300, report: (f, m) => problems.push(`${f}: ${m}`) })
    assert.deepEqual(problems, [
      'shapes.txt: could not be read (invalid stored block lengths); lines are drawn along their stops',
    ])
    assert.equal(tt.stats.lines, 3)
    assert.ok(tt.lines.routes.every((r) => r.paths.every((p) => p.shapeId === undefined)))
    await inner.close()
  })

  it('caps the points of a feed: thins the shapes further, then leaves paths out and says so', async () => {
    const dense = arc(5_000)
    const dir = writeLineFeed({
      'shapes.txt': [
        'shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence',
        ...dense.map(([lon, lat], i) => `SH_OUT,${lat},${lon},${i}`),
        ...dense.map(([lon, lat], i) => `SH_BACK,${lat + 0.01},${lon},${i}`),
      ].join('\n'),
    })
    dirs.push(dir)
    const source = await openFeed(new URL(pathToFileURL(dir).href), { timeoutMs: 10_000, maxBytes: 1e8 })
    const problems: string[] = []
    const report = (f: string, m: string) => problems.push(`${f}: ${m}`)
    const raw = await parseFeed(source, report)
    await source.close()
    const st = sortStopTimes(raw, report)
    const trips = expandTrips(raw, st, report)
    const { patterns } = buildPatterns(st, trips)
    const roomy = buildLinePaths(raw, st, trips, patterns, report)
    const thinned = buildLinePaths(raw, st, trips, patterns, report, { toleranceMeters: 1, maxPoints: 60 })
    assert.ok(thinned.points <= 60 && thinned.points < roomy.points, `${thinned.points} < ${roomy.points}`)
    assert.equal(thinned.routes.flatMap((r) => r.paths).length, 4, 'every path kept, with fewer points')
    assert.deepEqual(problems, [])
    const cut = buildLinePaths(raw, st, trips, patterns, report, { toleranceMeters: 1, maxPoints: 8 })
    assert.ok(cut.points <= 8)
    assert.ok(cut.routes.flatMap((r) => r.paths).length < 4)
    assert.match(problems.at(-1) ?? '', /shapes\.txt: more than 8 points of lines; \d+ paths are left off the map/)
  })
})
