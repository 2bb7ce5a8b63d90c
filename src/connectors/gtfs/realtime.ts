import GtfsRealtimeBindings from 'gtfs-realtime-bindings'
import { parseGtfsDate, parseGtfsTime } from './engine/calendar.ts'
import type { Timetable } from './engine/timetable.ts'

const { transit_realtime } = GtfsRealtimeBindings
type Rt = typeof transit_realtime
const TripRelationship = transit_realtime.TripDescriptor.ScheduleRelationship
const StopRelationship = transit_realtime.TripUpdate.StopTimeUpdate.ScheduleRelationship

/**
 * GTFS-Realtime TripUpdates: decoded into plain updates keyed by trip_id, then applied to the trips of a timetable
 * per service day. A delay at a stop holds for the later stops until the next update says otherwise; a CANCELED trip
 * cancels all its departures, a SKIPPED stop cancels the departure there.
 */

export interface StopUpdate {
  seq?: number
  stopId?: string
  arrivalDelay?: number
  /** Unix seconds. */
  arrivalTime?: number
  departureDelay?: number
  departureTime?: number
  skipped: boolean
  noData: boolean
}

export interface TripUpdate {
  tripId: string
  /** Day number of start_date. */
  startDate?: number
  /** start_time in seconds (frequency-based trips). */
  startTime?: number
  cancelled: boolean
  delay?: number
  stops: StopUpdate[]
}

export interface RealtimeSnapshot {
  /** The feed header's timestamp (else the time of the read), ms. */
  timestamp: number
  updates: Map<string, TripUpdate[]>
  tripUpdates: number
}

type Long = { toNumber(): number }
const num = (value: number | Long | null | undefined): number | undefined =>
  value === null || value === undefined ? undefined : typeof value === 'number' ? value : value.toNumber()
/** Decoded messages keep defaults on the prototype: only own properties were sent. */
const has = (object: object | null | undefined, key: string): boolean => !!object && Object.hasOwn(object, key)

export function decodeTripUpdates(bytes: Uint8Array, readAt: number, report: (message: string) => void) {
  let message: InstanceType<Rt['FeedMessage']>
  try {
    message = transit_realtime.FeedMessage.decode(bytes)
  } catch (error) {
    throw new Error(`not a GTFS-Realtime FeedMessage (${(error as Error).message})`)
  }
  const stamp = has(message.header, 'timestamp') ? num(message.header.timestamp) : undefined
  const snapshot: RealtimeSnapshot = {
    timestamp: stamp ? stamp * 1000 : readAt,
    updates: new Map(),
    tripUpdates: 0,
  }
  for (const entity of message.entity) {
    const update = entity.tripUpdate
    if (!update || entity.isDeleted) continue
    const trip = update.trip
    const tripId = trip?.tripId
    if (!tripId) {
      report(`entity ${entity.id}: a trip update without trip_id is not supported`)
      continue
    }
    const relationship = has(trip, 'scheduleRelationship') ? trip.scheduleRelationship : TripRelationship.SCHEDULED
    if (
      relationship !== TripRelationship.SCHEDULED &&
      relationship !== TripRelationship.CANCELED &&
      relationship !== TripRelationship.DELETED
    ) {
      // ADDED / NEW / REPLACEMENT / DUPLICATED trips have no schedule here to apply to.
      continue
    }
    const startDate = trip.startDate ? parseGtfsDate(trip.startDate) : undefined
    const startTime = trip.startTime ? parseGtfsTime(trip.startTime) : undefined
    const stops: StopUpdate[] = []
    for (const stu of update.stopTimeUpdate ?? []) {
      const rel = has(stu, 'scheduleRelationship') ? stu.scheduleRelationship : StopRelationship.SCHEDULED
      stops.push({
        ...(has(stu, 'stopSequence') ? { seq: stu.stopSequence as number } : {}),
        ...(stu.stopId ? { stopId: stu.stopId } : {}),
        ...(has(stu.arrival, 'delay') ? { arrivalDelay: stu.arrival?.delay as number } : {}),
        ...(has(stu.arrival, 'time') ? { arrivalTime: num(stu.arrival?.time) } : {}),
        ...(has(stu.departure, 'delay') ? { departureDelay: stu.departure?.delay as number } : {}),
        ...(has(stu.departure, 'time') ? { departureTime: num(stu.departure?.time) } : {}),
        skipped: rel === StopRelationship.SKIPPED,
        noData: rel === StopRelationship.NO_DATA,
      })
    }
    const entry: TripUpdate = {
      tripId,
      ...(startDate !== undefined && !Number.isNaN(startDate) ? { startDate } : {}),
      ...(startTime !== undefined && startTime >= 0 ? { startTime } : {}),
      cancelled: relationship !== TripRelationship.SCHEDULED,
      ...(has(update, 'delay') ? { delay: update.delay as number } : {}),
      stops,
    }
    const list = snapshot.updates.get(tripId)
    if (list) list.push(entry)
    else snapshot.updates.set(tripId, [entry])
    snapshot.tripUpdates++
  }
  return snapshot
}

/** Realtime state of one trip on one service day: per stop position, delays in seconds (NaN: unknown). */
export interface TripState {
  cancelled: boolean
  arrivalDelay: Float64Array
  departureDelay: Float64Array
  skipped: Uint8Array
}

/** A snapshot applied to one timetable, resolved lazily and cached (both are immutable once built). */
export class RealtimeView {
  readonly tt: Timetable
  readonly snapshot: RealtimeSnapshot
  /** `${trip}:${day}` → its update. */
  private readonly instances = new Map<string, TripUpdate>()
  private readonly states = new Map<string, TripState>()
  private readonly byDay = new Map<number, { cancelled: Set<number>; skipped: Map<number, Uint8Array> }>()
  readonly maxDelay: number = 0
  private today?: number

  constructor(tt: Timetable, snapshot: RealtimeSnapshot) {
    this.tt = tt
    this.snapshot = snapshot
    for (const [tripId, updates] of snapshot.updates) {
      const trips = (tt.tripsById.get(tripId) ?? []).filter((t) => tt.tripPattern[t] >= 0)
      if (trips.length === 0) continue
      for (const update of updates) {
        const resolved = this.resolve(trips, update)
        if (resolved) this.instances.set(`${resolved.trip}:${resolved.day}`, update)
      }
    }
    // How far back a departure board must look for departures delayed into its window.
    let maxDelay = 0
    for (const key of this.instances.keys()) {
      const [trip, day] = key.split(':').map(Number)
      const state = this.state(trip, day)
      for (const delay of state?.departureDelay ?? []) if (delay > maxDelay) maxDelay = delay
    }
    this.maxDelay = Math.min(maxDelay, 6 * 3600)
  }

  get size(): number {
    return this.instances.size
  }

  /** The trip instance an update means: by start_time among frequency trips, by start_date or else nearest in time. */
  private resolve(trips: number[], update: TripUpdate): { trip: number; day: number } | undefined {
    const tt = this.tt
    let candidates = trips
    if (tt.tripFreqStart[trips[0]] >= 0) {
      if (update.startTime === undefined && trips.length > 1) return undefined
      if (update.startTime !== undefined) candidates = trips.filter((t) => tt.tripFreqStart[t] === update.startTime)
    }
    if (candidates.length === 0) return undefined
    if (update.startDate !== undefined) return { trip: candidates[0], day: update.startDate }
    const now = this.snapshot.timestamp
    this.today ??= tt.clock.dayOf(now)
    const today = this.today
    let best: { trip: number; day: number; distance: number } | undefined
    for (let day = today - Math.ceil(tt.maxTime / 86_400); day <= today + 1; day++) {
      const active = tt.calendar.active(day)
      for (const t of candidates) {
        if (!active[tt.tripService[t]]) continue
        const a = tt.tripSt[t]
        const start = tt.clock.base(day) + (tt.stDep[a] + tt.tripOffset[t]) * 1000
        const end = tt.clock.base(day) + (tt.stArr[a + tt.tripLen[t] - 1] + tt.tripOffset[t]) * 1000
        const distance = now < start ? start - now : now > end ? now - end : 0
        if (!best || distance < best.distance) best = { trip: t, day, distance }
      }
    }
    return best && best.distance < 12 * 3_600_000 ? { trip: best.trip, day: best.day } : undefined
  }

  state(trip: number, day: number): TripState | undefined {
    const key = `${trip}:${day}`
    const cached = this.states.get(key)
    if (cached) return cached
    const update = this.instances.get(key)
    if (!update) return undefined
    const state = this.apply(trip, day, update)
    this.states.set(key, state)
    return state
  }

  private apply(trip: number, day: number, update: TripUpdate): TripState {
    const tt = this.tt
    const len = tt.tripLen[trip]
    const a = tt.tripSt[trip]
    const state: TripState = {
      cancelled: update.cancelled,
      arrivalDelay: new Float64Array(len).fill(Number.NaN),
      departureDelay: new Float64Array(len).fill(Number.NaN),
      skipped: new Uint8Array(len),
    }
    if (update.cancelled) return state
    const at = new Map<number, StopUpdate>()
    let from = 0
    for (const stu of update.stops) {
      let pos = -1
      for (let i = from; i < len; i++) {
        const stop = tt.stStop[a + i]
        const matches =
          stu.seq !== undefined
            ? tt.stSeq[a + i] === stu.seq
            : tt.stopIds[stop] === stu.stopId || tt.stopIds[tt.stopParent[stop]] === stu.stopId
        if (matches) {
          pos = i
          break
        }
      }
      if (pos < 0) continue
      at.set(pos, stu)
      from = pos + 1
    }
    const base = tt.clock.base(day) / 1000
    const offset = tt.tripOffset[trip]
    let current = update.delay ?? Number.NaN
    for (let i = 0; i < len; i++) {
      const stu = at.get(i)
      if (stu) {
        if (stu.noData) current = Number.NaN
        const arrival =
          stu.arrivalDelay ??
          (stu.arrivalTime !== undefined ? stu.arrivalTime - (base + tt.stArr[a + i] + offset) : undefined)
        const departure =
          stu.departureDelay ??
          (stu.departureTime !== undefined ? stu.departureTime - (base + tt.stDep[a + i] + offset) : undefined)
        if (!stu.noData) {
          state.arrivalDelay[i] = arrival ?? departure ?? current
          state.departureDelay[i] = departure ?? state.arrivalDelay[i]
          current = state.departureDelay[i]
        }
        if (stu.skipped) state.skipped[i] = 1
        continue
      }
      state.arrivalDelay[i] = current
      state.departureDelay[i] = current
    }
    return state
  }

  /** Trips cancelled on a service day, and stops skipped per trip (for routing). */
  day(day: number): { cancelled: Set<number>; skipped: Map<number, Uint8Array> } {
    let entry = this.byDay.get(day)
    if (entry) return entry
    entry = { cancelled: new Set(), skipped: new Map() }
    for (const key of this.instances.keys()) {
      const [trip, d] = key.split(':').map(Number)
      if (d !== day) continue
      const state = this.state(trip, day)
      if (!state) continue
      if (state.cancelled) entry.cancelled.add(trip)
      else if (state.skipped.some((s) => s === 1)) entry.skipped.set(trip, state.skipped)
    }
    if (this.byDay.size > 16) this.byDay.clear()
    this.byDay.set(day, entry)
    return entry
  }
}

export { transit_realtime }
