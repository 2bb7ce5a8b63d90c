import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { openFeed } from '../../src/connectors/gtfs/client.ts'
import { loadTimetable } from '../../src/connectors/gtfs/engine/load.ts'
import { destinationBounds } from '../../src/connectors/gtfs/engine/raptor-bounds.ts'
import { INF } from '../../src/connectors/gtfs/engine/raptor-state.ts'
import type { Timetable } from '../../src/connectors/gtfs/engine/timetable.ts'
import { generateCityFeed } from '../../src/connectors/gtfs/synthetic.ts'

/**
 * The lower bounds RAPTOR prunes with (raptor-bounds.ts) against plain computations over the same relaxed network:
 * the time bound is the shortest time (least ride between consecutive stops of a pattern, or a footpath), the trip
 * bound the fewest trips with free walking, capped at the rounds. Pruning is exact only if both are lower bounds and
 * consistent; being the exact shortest values of the relaxed network makes them so.
 */

function plainTimes(tt: Timetable, targets: Map<number, number>): number[] {
  const n = tt.stopCount
  const into: [number, number][][] = Array.from({ length: n }, () => [])
  for (const p of tt.patterns) {
    const len = p.stops.length
    for (let i = 0; i + 1 < len && p.trips.length > 0; i++) {
      let w = Number.POSITIVE_INFINITY
      for (let k = 0; k < p.trips.length; k++)
        w = Math.min(w, p.times[(k * len + i + 1) * 2] - p.times[(k * len + i) * 2 + 1])
      into[p.stops[i + 1]].push([p.stops[i], w])
    }
  }
  for (let u = 0; u < n; u++)
    for (let f = tt.fpStart[u]; f < tt.fpStart[u + 1]; f++) into[tt.fpTo[f]].push([u, tt.fpSeconds[f]])
  const d = new Array<number>(n).fill(Number.POSITIVE_INFINITY)
  const done = new Array<boolean>(n).fill(false)
  for (const [s, egress] of targets) d[s] = Math.min(d[s], egress)
  for (;;) {
    let v = -1
    for (let s = 0; s < n; s++) if (!done[s] && d[s] < Number.POSITIVE_INFINITY && (v < 0 || d[s] < d[v])) v = s
    if (v < 0) break
    done[v] = true
    for (const [u, w] of into[v]) d[u] = Math.min(d[u], d[v] + w)
  }
  return d
}

function plainTrips(tt: Timetable, targets: Map<number, number>, rounds: number): number[] {
  const need = new Array<number>(tt.stopCount).fill(rounds)
  const walk = () => {
    for (let changed = true; changed; ) {
      changed = false
      for (let u = 0; u < tt.stopCount; u++) {
        for (let f = tt.fpStart[u]; f < tt.fpStart[u + 1]; f++) {
          if (need[tt.fpTo[f]] < need[u]) {
            need[u] = need[tt.fpTo[f]]
            changed = true
          }
        }
      }
    }
  }
  for (const s of targets.keys()) need[s] = 0
  walk()
  for (let m = 1; m < rounds; m++) {
    const before = [...need]
    for (const p of tt.patterns) {
      for (let i = 0; i < p.stops.length; i++) {
        for (let j = i + 1; j < p.stops.length; j++) {
          if (before[p.stops[j]] <= m - 1) need[p.stops[i]] = Math.min(need[p.stops[i]], m)
        }
      }
    }
    walk()
  }
  return need
}

describe('RAPTOR lower bounds (time and trips to the destination)', () => {
  let dir: string
  let tt: Timetable
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mas-raptor-bounds-'))
    await generateCityFeed({ dir, stops: 225, routes: 24, stopsPerRoute: 9, tripsPerRoute: 24, seed: 7 })
    const source = await openFeed(new URL(pathToFileURL(dir).href), { timeoutMs: 10_000, maxBytes: 1e8 })
    tt = await loadTimetable(source, {
      transferWalkMeters: 500,
      report: (file, message) => assert.fail(`${file}: ${message}`),
    })
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('equal the shortest times and fewest trips of the relaxed network, for several destinations and rounds', () => {
    const routable = tt.routableStops
    let finite = 0
    for (let q = 0; q < 12; q++) {
      const targets = new Map<number, number>([[routable[(q * 37) % routable.length], 0]])
      if (q % 2 === 1) targets.set(routable[(q * 53 + 11) % routable.length], 90 + q * 10)
      const rounds = 1 + (q % 5)
      const b = destinationBounds(tt, targets, rounds)
      const times = plainTimes(tt, targets)
      const trips = plainTrips(tt, targets, rounds)
      for (let s = 0; s < tt.stopCount; s++) {
        assert.equal(
          b.time[s],
          times[s] === Number.POSITIVE_INFINITY ? INF : times[s],
          `time bound of stop ${s}, query ${q}`,
        )
        assert.equal(b.trips[s], trips[s], `trip bound of stop ${s}, query ${q}`)
        if (times[s] < Number.POSITIVE_INFINITY) finite++
      }
      // Per pattern position: the fewest trips needed from there or a later position.
      for (let p = 0; p < tt.patterns.length; p++) {
        const stops = tt.patterns[p].stops
        for (let i = 0; i < stops.length; i++) {
          const least = Math.min(...Array.from(stops.subarray(i), (s) => trips[s]))
          assert.equal(b.tripsAfter[b.offset[p] + i], least, `trips after position ${i} of pattern ${p}`)
        }
      }
    }
    assert.ok(finite > 12 * routable.length * 0.5, 'most stops reach the destinations')
  })
})
