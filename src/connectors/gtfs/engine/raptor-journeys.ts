import type { RaptorJourney, RaptorLeg, RaptorQuery } from './raptor.ts'
import { HOW_SOURCE, HOW_TRANSIT, HOW_WALK, INF, type Workspace } from './raptor-state.ts'
import type { Timetable } from './timetable.ts'

/** The journeys of a finished search, read back from the labels of its rounds. */

/** For each round that improves the arrival at the destination, the journey with that many trips. */
export function collect(tt: Timetable, ws: Workspace, q: RaptorQuery): RaptorJourney[] {
  const journeys: RaptorJourney[] = []
  let previous = INF
  for (let k = 1; k <= q.maxRounds; k++) {
    let bestArrival = INF
    let target = -1
    for (const [s, egress] of q.targets) {
      const t = ws.arr[k][s]
      if (t !== INF && t + egress < bestArrival) {
        bestArrival = t + egress
        target = s
      }
    }
    if (target < 0 || bestArrival >= previous) continue
    previous = bestArrival
    const journey = reconstruct(tt, ws, k, target)
    if (journey && journey.trips > 0) journeys.push({ ...journey, target, arrival: bestArrival })
  }
  return journeys
}

function reconstruct(tt: Timetable, ws: Workspace, k: number, target: number) {
  const legs: RaptorLeg[] = []
  let s = target
  let r = k
  for (let guard = 0; guard < 4 * (k + 1); guard++) {
    // The round in which the arrival at s was set (later rounds copy it).
    while (r > 0 && ws.arr[r - 1][s] === ws.arr[r][s]) r--
    const how = ws.how[r][s]
    if (how === HOW_SOURCE) break
    let u = s
    if (how === HOW_WALK) {
      u = ws.walkFrom[r][s]
      const f = ws.walkFp[r][s]
      legs.push({ kind: 'walk', from: u, to: s, seconds: tt.fpSeconds[f], meters: tt.fpMeters[f] })
      if (r === 0) {
        s = u
        break
      }
    } else if (how !== HOW_TRANSIT) {
      return undefined
    }
    const p = ws.tPattern[r][u]
    const board = ws.tBoard[r][u]
    legs.push({
      kind: 'transit',
      pattern: p,
      slot: ws.tSlot[r][u],
      day: ws.tDay[r][u],
      board,
      alight: ws.tAlight[r][u],
    })
    s = tt.patterns[p].stops[board]
    r--
  }
  legs.reverse()
  return { source: s, legs, trips: legs.filter((l) => l.kind === 'transit').length }
}
