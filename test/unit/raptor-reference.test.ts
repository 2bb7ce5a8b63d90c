import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { openFeed } from '../../src/connectors/gtfs/client.ts'
import { loadTimetable } from '../../src/connectors/gtfs/engine/load.ts'
import { type RaptorDay, type RaptorQuery, raptor } from '../../src/connectors/gtfs/engine/raptor.ts'
import { NO_DROP_OFF, NO_PICKUP, type Timetable } from '../../src/connectors/gtfs/engine/timetable.ts'
import { generateCityFeed } from '../../src/connectors/gtfs/synthetic.ts'

/**
 * The optimised RAPTOR (pruning, reused workspace, trip search by bisection) against a plain reference that tries
 * every trip of every pattern on every day in every round: on random queries over a small generated city, with
 * random cancelled trips and skipped stops, both must give the same Pareto set of (trips, arrival).
 *
 * The reference follows RAPTOR's model: one footpath after each round, from the stops a trip of that round reached
 * sooner than ever before (and, for stop origins, from the source). The generated feed has no transfers.txt, so
 * there is no minimum change time.
 */

const INF = Number.POSITIVE_INFINITY

function reference(tt: Timetable, q: RaptorQuery): { trips: number; arrival: number }[] {
  const n = tt.stopCount
  let tau = new Float64Array(n).fill(INF)
  for (const { stop, time } of q.sources) tau[stop] = Math.min(tau[stop], time)
  if (q.walkFromSources) {
    for (const { stop } of q.sources) {
      for (let f = tt.fpStart[stop]; f < tt.fpStart[stop + 1]; f++) {
        const v = tt.fpTo[f]
        tau[v] = Math.min(tau[v], tau[stop] + tt.fpSeconds[f])
      }
    }
  }
  const atTarget = (labels: Float64Array) => {
    let best = INF
    for (const [s, egress] of q.targets) best = Math.min(best, labels[s] + egress)
    return best
  }
  const out: { trips: number; arrival: number }[] = []
  let previous = atTarget(tau)
  for (let k = 1; k <= q.maxRounds; k++) {
    const transit = new Float64Array(n).fill(INF)
    for (const p of tt.patterns) {
      const len = p.stops.length
      for (const d of q.days) {
        for (let slot = 0; slot < p.trips.length; slot++) {
          const trip = p.trips[slot]
          if (!d.active[tt.tripService[trip]] || d.cancelled?.has(trip)) continue
          const skipped = d.skipped?.get(trip)
          let boarded = false
          for (let i = 0; i < len; i++) {
            const s = p.stops[i]
            if (skipped?.[i]) continue
            if (boarded && !(p.flags[i] & NO_DROP_OFF)) {
              const t = p.times[(slot * len + i) * 2] + d.offset
              if (t <= q.horizon) transit[s] = Math.min(transit[s], t)
            }
            if (!boarded && !(p.flags[i] & NO_PICKUP) && tau[s] <= p.times[(slot * len + i) * 2 + 1] + d.offset) {
              boarded = true
            }
          }
        }
      }
    }
    const next = tau.slice()
    for (let s = 0; s < n; s++) next[s] = Math.min(next[s], transit[s])
    for (let s = 0; s < n; s++) {
      if (!(transit[s] < tau[s])) continue
      for (let f = tt.fpStart[s]; f < tt.fpStart[s + 1]; f++) {
        const v = tt.fpTo[f]
        next[v] = Math.min(next[v], transit[s] + tt.fpSeconds[f])
      }
    }
    tau = next
    const arrival = atTarget(tau)
    if (arrival < previous) {
      out.push({ trips: k, arrival })
      previous = arrival
    }
  }
  return out
}

/** mulberry32 */
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

describe('RAPTOR against a plain reference (random queries over a generated city)', () => {
  let dir: string
  let tt: Timetable
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mas-raptor-'))
    await generateCityFeed({ dir, stops: 225, routes: 24, stopsPerRoute: 9, tripsPerRoute: 24, seed: 11 })
    const source = await openFeed(new URL(pathToFileURL(dir).href), { timeoutMs: 10_000, maxBytes: 1e8 })
    tt = await loadTimetable(source, {
      transferWalkMeters: 500,
      report: (file, message) => assert.fail(`${file}: ${message}`),
    })
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('gives the same (trips, arrival) Pareto set on 300 random queries, with cancellations and skipped stops', () => {
    const random = prng(2026)
    const pick = <T>(list: ArrayLike<T>) => list[Math.floor(random() * list.length)]
    const routable = tt.routableStops
    assert.ok(tt.fpTo.length > 0, 'the feed has footpaths')
    const day = Math.floor(Date.UTC(2025, 5, 3) / 86_400_000) // a Tuesday
    const base = tt.clock.base(day)
    let found = 0
    let multi = 0
    for (let run = 0; run < 300; run++) {
      const days: RaptorDay[] = [-1, 0, 1].map((delta) => ({
        day: day + delta,
        offset: Math.round((tt.clock.base(day + delta) - base) / 1000),
        active: tt.calendar.active(day + delta),
      }))
      if (run % 3 === 0) {
        const cancelled = new Set<number>()
        const skipped = new Map<number, Uint8Array>()
        for (let c = 0; c < 40; c++) cancelled.add(Math.floor(random() * tt.tripCount))
        for (let c = 0; c < 40; c++) {
          const trip = Math.floor(random() * tt.tripCount)
          const stops = new Uint8Array(tt.tripLen[trip])
          stops[Math.floor(random() * stops.length)] = 1
          skipped.set(trip, stops)
        }
        days[1].cancelled = cancelled
        days[1].skipped = skipped
      }
      const start = Math.floor((4 + random() * 21) * 3600)
      // A stop origin walks from its stop; a point origin reaches a few stops on foot.
      const fromStop = random() < 0.5
      const sources = fromStop
        ? [{ stop: pick(routable), time: start }]
        : Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
            stop: pick(routable),
            time: start + Math.floor(random() * 600),
          }))
      const targets = new Map<number, number>()
      for (let t = 0, count = 1 + Math.floor(random() * 3); t < count; t++) {
        targets.set(pick(routable), Math.floor(random() * 400))
      }
      const q: RaptorQuery = {
        days,
        sources,
        targets,
        maxRounds: 1 + Math.floor(random() * 5),
        horizon: start + 86_400,
        walkFromSources: fromStop,
      }
      const expected = reference(tt, q)
      const got = raptor(tt, q).map((j) => ({ trips: j.trips, arrival: j.arrival }))
      assert.deepEqual(got, expected, `query ${run}: ${JSON.stringify({ sources, targets: [...targets], start })}`)
      if (expected.length > 0) found++
      if (expected.length > 1) multi++
    }
    // The queries are not all trivial: most find a journey, some more than one.
    assert.ok(found > 150, `${found} queries found a journey`)
    assert.ok(multi > 10, `${multi} queries found more than one`)
  })
})
