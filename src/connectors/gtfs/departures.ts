import type { TransitDeparture } from '../types/public-transport.ts'
import { NO_PICKUP, type Timetable } from './engine/timetable.ts'
import { headsignOf, mapLine } from './map.ts'
import type { RealtimeView } from './realtime.ts'

/** The first event at a stop departing at or after `seconds` (binary search over the stop's sorted events). */
export function firstEventFrom(tt: Timetable, stop: number, seconds: number): number {
  let lo = tt.evStart[stop]
  let hi = tt.evStart[stop + 1]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (tt.evDep[mid] < seconds) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The stop and, for a station, its platforms (and their boarding areas). */
export function stopFamily(tt: Timetable, stop: number): number[] {
  const family = [stop]
  for (let i = 0; i < family.length; i++) family.push(...(tt.stopChildren.get(family[i]) ?? []))
  return family
}

/**
 * The next departures at a stop and its platforms from `from`, ordered by estimated time. Service days from the
 * one `from` falls on back to the earliest whose trips still run then (times past 24:00); departures delayed into
 * the window are found by looking back by the largest delay of the realtime feed.
 */
export function departuresAt(
  tt: Timetable,
  rt: RealtimeView | undefined,
  stop: number,
  from: Date,
  limit: number,
): TransitDeparture[] {
  const fromMs = from.getTime()
  const today = tt.clock.dayOf(fromMs)
  const lookBack = rt?.maxDelay ?? 0
  const found: { departure: TransitDeparture; at: number }[] = []
  const stops = stopFamily(tt, stop)
  for (let day = today - Math.floor(tt.maxTime / 86_400); day <= today + 1; day++) {
    const base = tt.clock.base(day)
    const active = tt.calendar.active(day)
    const seconds = Math.floor((fromMs - base) / 1000)
    if (seconds > tt.maxTime + lookBack) continue
    for (const s of stops) {
      let taken = 0
      for (let e = firstEventFrom(tt, s, seconds - lookBack); e < tt.evStart[s + 1] && taken < limit; e++) {
        const trip = tt.evTrip[e]
        const pos = tt.evPos[e]
        if (!active[tt.tripService[trip]]) continue
        if (pos === tt.tripLen[trip] - 1) continue
        const row = tt.tripSt[trip] + pos
        if (tt.stFlags[row] & NO_PICKUP) continue
        const scheduled = base + tt.evDep[e] * 1000
        const state = rt?.state(trip, day)
        const delay = state ? state.departureDelay[pos] : Number.NaN
        const estimated = Number.isNaN(delay) ? undefined : scheduled + delay * 1000
        if ((estimated ?? scheduled) < fromMs) continue
        const cancelled = !!state && (state.cancelled || state.skipped[pos] === 1)
        const platform = tt.stopPlatform[s]
        found.push({
          at: estimated ?? scheduled,
          departure: {
            tripId: tt.tripIds[trip],
            line: mapLine(tt, tt.tripRoute[trip]),
            headsign: headsignOf(tt, trip, pos),
            stopId: tt.stopIds[s],
            stopName: tt.stopNames[s],
            ...(platform ? { platform } : {}),
            scheduled: new Date(scheduled),
            ...(estimated !== undefined ? { estimated: new Date(estimated), delaySeconds: Math.round(delay) } : {}),
            cancelled,
            realtime: estimated !== undefined || cancelled,
          },
        })
        // Past the window, enough events are in hand for this day and stop.
        if (scheduled >= fromMs) taken++
      }
    }
  }
  found.sort(
    (x, y) =>
      x.at - y.at ||
      x.departure.scheduled.getTime() - y.departure.scheduled.getTime() ||
      x.departure.line.name.localeCompare(y.departure.line.name) ||
      x.departure.tripId.localeCompare(y.departure.tripId),
  )
  return found.slice(0, limit).map((f) => f.departure)
}
