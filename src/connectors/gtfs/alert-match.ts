import type { TransitAlert, TransitInformedEntity } from '../types/public-transport.ts'
import { type FeedAlert, pickTranslation, type Selector } from './alerts.ts'
import { NO_PICKUP, type Pattern, type Timetable } from './engine/timetable.ts'

/**
 * Which alerts apply where. A selector (GTFS-Realtime EntitySelector) applies to a trip at a stop when every field it
 * gives matches: agency, route, route type, direction, trip (and its start date or time when given) and stop, where
 * a selector naming a station also applies at its platforms. An alert applies when one of its selectors does and
 * one of its active periods overlaps the time in question (no period: always).
 */

/** Alerts on one departure, leg or board at most (most severe first). */
export const MAX_ALERTS_PER_ITEM = 20

interface Ref {
  alert: FeedAlert
  selector: Selector
}

const push = <K>(map: Map<K, Ref[]>, key: K, ref: Ref) => {
  const list = map.get(key)
  if (list) list.push(ref)
  else map.set(key, [ref])
}

/** Alerts by the most specific field of each selector, so a departure looks up only the alerts that can match it. */
export class AlertIndex {
  readonly alerts: FeedAlert[]
  readonly byTrip = new Map<string, Ref[]>()
  readonly byStop = new Map<string, Ref[]>()
  readonly byRoute = new Map<string, Ref[]>()
  readonly byAgency = new Map<string, Ref[]>()
  readonly byRouteType = new Map<number, Ref[]>()

  constructor(alerts: FeedAlert[]) {
    this.alerts = alerts
    for (const alert of alerts) {
      for (const selector of alert.selectors) {
        const ref = { alert, selector }
        if (selector.tripId !== undefined) push(this.byTrip, selector.tripId, ref)
        else if (selector.stopId !== undefined) push(this.byStop, selector.stopId, ref)
        else if (selector.routeId !== undefined) push(this.byRoute, selector.routeId, ref)
        else if (selector.agencyId !== undefined) push(this.byAgency, selector.agencyId, ref)
        else if (selector.routeType !== undefined) push(this.byRouteType, selector.routeType, ref)
      }
    }
  }
}

/** Whether an alert is active at some time from `from` to `until` (ms, inclusive). */
export function activeBetween(alert: FeedAlert, from: number, until: number): boolean {
  if (alert.periods.length === 0) return true
  return alert.periods.some(
    (p) => (p.start === undefined || p.start <= until) && (p.end === undefined || p.end >= from),
  )
}

const SEVERITY_RANK = { SEVERE: 0, WARNING: 1, INFO: 2, UNKNOWN_SEVERITY: 3 } as const
/** Most severe first, then by id: the order of every alert list. */
export const alertOrder = (a: { severity: keyof typeof SEVERITY_RANK; id: string }, b: typeof a) =>
  SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** The stop ids a selector may name for a stop: the stop itself and its station (and the station's, if any). */
export function namesOf(tt: Timetable, stop: number): string[] {
  const names = [tt.stopIds[stop]]
  for (let s = tt.stopParent[stop], hops = 0; s >= 0 && hops < 4; s = tt.stopParent[s], hops++) {
    names.push(tt.stopIds[s])
  }
  return names
}

const agencyIdOf = (tt: Timetable, route: number) => tt.agencies[tt.routeAgency[route]]?.id

/** Whether the route-level fields of a selector (agency, route, route type) fit a route. */
export function routeFits(tt: Timetable, s: Selector, route: number): boolean {
  return (
    (s.routeId === undefined || s.routeId === tt.routeIds[route]) &&
    (s.routeType === undefined || s.routeType === tt.routeType[route]) &&
    (s.agencyId === undefined || s.agencyId === agencyIdOf(tt, route))
  )
}

/** One trip (any of its instances) at some stops over a time, as a departure or a leg is. */
export interface TripAt {
  trip: number
  /** Stops served (boarding first); their stations count too. */
  stops: number[]
  from: number
  until: number
  /** The trip instance and service day, when a selector asks for a start date or time. */
  run: () => { trip: number; day: number } | undefined
}

function selectorFits(tt: Timetable, s: Selector, at: TripAt, stopNames: Set<string>): boolean {
  const trip = at.trip
  if (!routeFits(tt, s, tt.tripRoute[trip])) return false
  if (s.tripId !== undefined && s.tripId !== tt.tripIds[trip]) return false
  if (s.directionId !== undefined && s.directionId !== tt.tripDirection[trip]) return false
  if (s.stopId !== undefined && !stopNames.has(s.stopId)) return false
  if (s.startDate !== undefined || s.startTime !== undefined) {
    const run = at.run()
    if (!run) return false
    if (s.startDate !== undefined && s.startDate !== run.day) return false
    if (s.startTime !== undefined) {
      const start =
        tt.tripFreqStart[run.trip] >= 0
          ? tt.tripFreqStart[run.trip]
          : tt.stDep[tt.tripSt[run.trip]] + tt.tripOffset[run.trip]
      if (start !== s.startTime) return false
    }
  }
  return true
}

/** The alerts of the indexes that apply to a trip at some stops over a time, most severe first. */
export function alertsForTrip(tt: Timetable, indexes: AlertIndex[], at: TripAt): FeedAlert[] {
  const route = tt.tripRoute[at.trip]
  const stopNames = new Set(at.stops.flatMap((s) => namesOf(tt, s)))
  const found = new Set<FeedAlert>()
  for (const index of indexes) {
    const candidates = [
      index.byTrip.get(tt.tripIds[at.trip]),
      index.byRoute.get(tt.routeIds[route]),
      index.byRouteType.get(tt.routeType[route]),
      index.byAgency.get(agencyIdOf(tt, route) ?? ''),
      ...[...stopNames].map((name) => index.byStop.get(name)),
    ]
    for (const list of candidates) {
      for (const ref of list ?? []) {
        if (found.has(ref.alert) || !activeBetween(ref.alert, at.from, at.until)) continue
        if (selectorFits(tt, ref.selector, at, stopNames)) found.add(ref.alert)
      }
    }
  }
  return [...found].sort(alertOrder).slice(0, MAX_ALERTS_PER_ITEM)
}

/** Whether a pattern's trips can be boarded at a position (a departure board lists them there). */
const boards = (p: Pattern, pos: number) => pos < p.stops.length - 1 && !(p.flags[pos] & NO_PICKUP)

const departing = new WeakMap<Timetable, Map<number, Pattern[]>>()
/** Patterns departing from a stop (CSR of the timetable), kept per timetable once asked for. */
function patternsAt(tt: Timetable, stop: number): Pattern[] {
  let byStop = departing.get(tt)
  if (!byStop) {
    byStop = new Map()
    departing.set(tt, byStop)
  }
  let out = byStop.get(stop)
  if (!out) {
    out = []
    for (let i = tt.spStart[stop]; i < tt.spStart[stop + 1]; i++) {
      const p = tt.patterns[tt.spPattern[i]]
      if (boards(p, tt.spPos[i])) out.push(p)
    }
    byStop.set(stop, out)
  }
  return out
}

const routePatterns = new WeakMap<Timetable, Map<number, Pattern[]>>()
function patternsOfRoute(tt: Timetable, route: number): Pattern[] {
  let byRoute = routePatterns.get(tt)
  if (!byRoute) {
    byRoute = new Map()
    for (const p of tt.patterns) {
      const list = byRoute.get(p.route)
      if (list) list.push(p)
      else byRoute.set(p.route, [p])
    }
    routePatterns.set(tt, byRoute)
  }
  return byRoute.get(route) ?? []
}

const hasRouteFields = (s: Selector) =>
  s.routeId !== undefined ||
  s.agencyId !== undefined ||
  s.routeType !== undefined ||
  s.tripId !== undefined ||
  s.directionId !== undefined

const directionBits = new WeakMap<Pattern, number>()
/** Bit 0: a trip of the pattern runs in direction 0; bit 1: in direction 1. */
function directionsOf(tt: Timetable, p: Pattern): number {
  let bits = directionBits.get(p)
  if (bits === undefined) {
    bits = 0
    for (const t of p.trips) if (tt.tripDirection[t] >= 0) bits |= 1 << tt.tripDirection[t]
    directionBits.set(p, bits)
  }
  return bits
}

/** Whether a trip of the pattern fits the selector's trip and direction. */
function tripsFit(tt: Timetable, s: Selector, p: Pattern): boolean {
  if (s.tripId === undefined) return s.directionId === undefined || (directionsOf(tt, p) & (1 << s.directionId)) !== 0
  return (tt.tripsById.get(s.tripId) ?? []).some(
    (t) =>
      tt.tripPattern[t] >= 0 &&
      tt.patterns[tt.tripPattern[t]] === p &&
      (s.directionId === undefined || tt.tripDirection[t] === s.directionId),
  )
}

/**
 * Whether a selector can apply to a departure at one of `stops` (a stop and its platforms) and of `route`: the
 * alerts a stop or route lists are exactly those its departures can carry. `stopWide`: only selectors about the stop
 * as a whole (a stop, perhaps with an agency).
 */
export function selectorAffects(
  tt: Timetable,
  s: Selector,
  filter: {
    stops?: number[]
    /** The names of `stops` (namesOf each), to rule out the selectors of other stops at once. */
    stopNames?: Set<string>
    route?: number
    stopWide?: boolean
    from: number
    until: number
  },
): boolean {
  const { stops, route } = filter
  // A trip's run on a start date is over once that service day's last trip is.
  if (s.startDate !== undefined) {
    const dayStart = tt.clock.base(s.startDate)
    if (filter.until < dayStart || filter.from > dayStart + (tt.maxTime + 1) * 1000) return false
  }
  if (filter.stopWide && (s.stopId === undefined || hasRouteFields({ ...s, agencyId: undefined }))) return false
  if (route !== undefined && !routeFits(tt, s, route)) return false
  if (stops) {
    if (s.stopId !== undefined && filter.stopNames && !filter.stopNames.has(s.stopId)) return false
    const named = s.stopId === undefined ? stops : stops.filter((c) => namesOf(tt, c).includes(s.stopId as string))
    if (named.length === 0) return false
    if (!hasRouteFields(s) && route === undefined) return true
    return named.some((c) =>
      patternsAt(tt, c).some(
        (p) => (route === undefined || p.route === route) && routeFits(tt, s, p.route) && tripsFit(tt, s, p),
      ),
    )
  }
  if (route !== undefined) {
    if (s.stopId === undefined && s.tripId === undefined && s.directionId === undefined) return true
    return patternsOfRoute(tt, route).some(
      (p) =>
        tripsFit(tt, s, p) &&
        (s.stopId === undefined ||
          Array.from(p.stops).some((c, pos) => boards(p, pos) && namesOf(tt, c).includes(s.stopId as string))),
    )
  }
  return true
}

const localized = new WeakMap<FeedAlert, Map<string, TransitAlert>>()

/** An alert as the connector contract has it, its texts in `language` (the feed's fallback where it lacks it). */
export function presentAlert(alert: FeedAlert, language: string): TransitAlert {
  let byLanguage = localized.get(alert)
  const cached = byLanguage?.get(language)
  if (cached) return cached
  const header = pickTranslation(alert.header, language)
  const description = pickTranslation(alert.description, language)
  const url = pickTranslation(alert.url, language)
  const out: TransitAlert = {
    id: alert.id,
    header: header?.text ?? '',
    ...(description ? { description: description.text } : {}),
    ...(url ? { url: url.text } : {}),
    cause: alert.cause,
    effect: alert.effect,
    severity: alert.severity,
    activePeriods: alert.periods.map((p) => ({
      ...(p.start !== undefined ? { start: new Date(p.start) } : {}),
      ...(p.end !== undefined ? { end: new Date(p.end) } : {}),
    })),
    informedEntities: alert.selectors.map(
      (s): TransitInformedEntity => ({
        ...(s.agencyId !== undefined ? { agencyId: s.agencyId } : {}),
        ...(s.routeId !== undefined ? { routeId: s.routeId } : {}),
        ...(s.routeType !== undefined ? { routeType: s.routeType } : {}),
        ...(s.directionId !== undefined ? { directionId: s.directionId } : {}),
        ...(s.tripId !== undefined ? { tripId: s.tripId } : {}),
        ...(s.stopId !== undefined ? { stopId: s.stopId } : {}),
      }),
    ),
  }
  if (!byLanguage) {
    byLanguage = new Map()
    localized.set(alert, byLanguage)
  }
  // A handful of languages per alert at most: callers negotiate among the service's few.
  if (byLanguage.size < 8) byLanguage.set(language, out)
  return out
}
