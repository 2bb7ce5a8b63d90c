import type GtfsRealtimeBindings from 'gtfs-realtime-bindings'
import {
  ALERT_CAUSES,
  ALERT_EFFECTS,
  ALERT_SEVERITIES,
  type AlertCause,
  type AlertEffect,
  type AlertSeverity,
} from '../../contract/transit-alerts.ts'
import { parseGtfsDate, parseGtfsTime } from './engine/calendar.ts'
import { transit_realtime } from './realtime.ts'

/**
 * GTFS-Realtime service alerts, decoded into plain, bounded records. What a feed can get wrong is skipped and
 * reported, never thrown: an alert without an informed entity, selectors without a specifier, active periods that
 * end before they start, texts of any size (cut to a bound), URLs that are not http(s). Only a message that is not a
 * FeedMessage at all fails the read (and the last good one stays in use).
 */

/** Bounds of what one feed may make the service hold and show. */
export const ALERT_LIMITS = {
  alerts: 5000,
  selectors: 200,
  periods: 50,
  translations: 20,
  headerChars: 300,
  descriptionChars: 4000,
  urlChars: 2000,
  idChars: 200,
  languageChars: 35,
} as const

export interface Translation {
  text: string
  /** BCP-47, lower case; undefined when the feed leaves it out. */
  language?: string
}

/** An EntitySelector; a TripDescriptor's route_id and direction_id are folded into routeId and directionId. */
export interface Selector {
  agencyId?: string
  routeId?: string
  routeType?: number
  directionId?: number
  tripId?: string
  /** Day number of the trip's start_date. */
  startDate?: number
  /** The trip's start_time, seconds. */
  startTime?: number
  stopId?: string
}

export interface FeedAlert {
  id: string
  /** ms; a missing start or end is open. Empty: active as long as the feed has the alert. */
  periods: { start?: number; end?: number }[]
  selectors: Selector[]
  cause: AlertCause
  effect: AlertEffect
  severity: AlertSeverity
  header: Translation[]
  description: Translation[]
  url: Translation[]
}

export interface AlertSnapshot {
  /** The feed header's timestamp (else the time of the read), ms. */
  timestamp: number
  alerts: FeedAlert[]
  /** Alert entities the feed had that were skipped. */
  skipped: number
}

type Long = { toNumber(): number }
type Rt = typeof transit_realtime
type RtAlert = GtfsRealtimeBindings.transit_realtime.IAlert
type RtTranslated = GtfsRealtimeBindings.transit_realtime.ITranslatedString
type RtSelector = GtfsRealtimeBindings.transit_realtime.IEntitySelector

const num = (value: number | Long | null | undefined): number | undefined =>
  value === null || value === undefined ? undefined : typeof value === 'number' ? value : value.toNumber()
/** Decoded messages keep defaults on the prototype: only own properties were sent. */
const has = (object: object | null | undefined, key: string): boolean => !!object && Object.hasOwn(object, key)

/** Enum number → name, for the names this service knows; anything newer is the UNKNOWN_ value. */
function enumNames<N extends string>(values: object, known: readonly N[], fallback: N) {
  const byNumber = new Map<number, N>()
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'number' && (known as readonly string[]).includes(name)) byNumber.set(value, name as N)
  }
  return (value: number | null | undefined): N =>
    value === null || value === undefined ? fallback : (byNumber.get(value) ?? fallback)
}
const causeOf = enumNames(transit_realtime.Alert.Cause, ALERT_CAUSES, 'UNKNOWN_CAUSE')
const effectOf = enumNames(transit_realtime.Alert.Effect, ALERT_EFFECTS, 'UNKNOWN_EFFECT')
const severityOf = enumNames(transit_realtime.Alert.SeverityLevel, ALERT_SEVERITIES, 'UNKNOWN_SEVERITY')

/** Latest time a period may name: the end of year 9999 (feeds that write ms or garbage are refused). */
const MAX_SECONDS = 253_402_300_799
// Control characters (C0, DEL, C1) and lone surrogates go; line text also loses line breaks and tabs.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g
const LINE_BREAKS = /[\t\n\r\u0085\u2028\u2029]+/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: an id with them is not one of the static feed
const ID_CONTROLS = /[\u0000-\u001F\u007F]/

/** At most `max` characters (code points), the cut marked with an ellipsis. */
export function bound(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false }
  const points = Array.from(text)
  if (points.length <= max) return { text, cut: false }
  return {
    text: `${points
      .slice(0, max - 1)
      .join('')
      .trimEnd()}…`,
    cut: true,
  }
}

/** Header and URL: one line. Description: keeps its line breaks (\n) and tabs. */
export function cleanText(text: string, multiline: boolean): string {
  const wellFormed = text.toWellFormed()
  if (!multiline) return wellFormed.replace(LINE_BREAKS, ' ').replace(CONTROLS, '').replace(/ {2,}/g, ' ').trim()
  return wellFormed
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0085\u2028\u2029]/g, '\n')
    .replace(CONTROLS, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

const LANGUAGE = /^[a-z]{1,8}(-[a-z0-9]{1,8})*$/

function translations(
  value: RtTranslated | null | undefined,
  field: string,
  max: number,
  multiline: boolean,
  problem: (message: string) => void,
): Translation[] {
  const out: Translation[] = []
  const list = value?.translation ?? []
  if (list.length > ALERT_LIMITS.translations) {
    problem(`${field} has ${list.length} translations; the first ${ALERT_LIMITS.translations} are kept`)
  }
  let cut = false
  for (const t of list.slice(0, ALERT_LIMITS.translations)) {
    const cleaned = cleanText(typeof t.text === 'string' ? t.text : '', multiline)
    if (!cleaned) continue
    const bounded = bound(cleaned, max)
    cut ||= bounded.cut
    const tag = typeof t.language === 'string' ? t.language.trim().toLowerCase().replace(/_/g, '-') : ''
    const language = tag && tag.length <= ALERT_LIMITS.languageChars && LANGUAGE.test(tag) ? tag : undefined
    if (tag && !language) problem(`${field}: language ${JSON.stringify(tag.slice(0, 40))} is not a BCP-47 tag`)
    out.push({ text: bounded.text, ...(language ? { language } : {}) })
  }
  if (cut) problem(`${field} longer than ${max} characters, cut`)
  return out
}

const isWebUrl = (text: string) => {
  try {
    const url = new URL(text)
    return url.protocol === 'https:' || url.protocol === 'http:'
  } catch {
    return false
  }
}

/** An id of the static feed: a non-empty line of text of sane length. */
const feedId = (value: string | null | undefined): string | undefined | null => {
  if (typeof value !== 'string' || value === '') return undefined
  return value.length <= 255 && !ID_CONTROLS.test(value) ? value : null
}

/** One EntitySelector, or a reason why it selects nothing usable. */
function selectorOf(raw: RtSelector): Selector | string {
  const s: Selector = {}
  const ids = { agencyId: raw.agencyId, routeId: raw.routeId, stopId: raw.stopId } as const
  for (const [name, value] of Object.entries(ids)) {
    const id = feedId(value)
    if (id === null) return `${name} is not a usable id`
    if (id !== undefined) s[name as 'agencyId' | 'routeId' | 'stopId'] = id
  }
  if (has(raw, 'routeType')) s.routeType = raw.routeType as number
  if (has(raw, 'directionId')) s.directionId = raw.directionId as number
  const trip = raw.trip
  if (trip) {
    const tripId = feedId(trip.tripId)
    const routeId = feedId(trip.routeId)
    if (tripId === null || routeId === null) return 'trip is not a usable id'
    if (tripId !== undefined) s.tripId = tripId
    if (routeId !== undefined) {
      if (s.routeId !== undefined && s.routeId !== routeId) return 'route_id and trip.route_id differ'
      s.routeId = routeId
    }
    if (has(trip, 'directionId')) {
      if (s.directionId !== undefined && s.directionId !== trip.directionId) {
        return 'direction_id and trip.direction_id differ'
      }
      s.directionId = trip.directionId as number
    }
    if (trip.startDate) {
      const day = parseGtfsDate(trip.startDate)
      if (Number.isNaN(day)) return `trip.start_date ${JSON.stringify(trip.startDate.slice(0, 20))} is not a date`
      s.startDate = day
    }
    if (trip.startTime) {
      const time = parseGtfsTime(trip.startTime)
      if (!(time >= 0)) return `trip.start_time ${JSON.stringify(trip.startTime.slice(0, 20))} is not a time`
      s.startTime = time
    }
  }
  if (s.directionId !== undefined && s.directionId !== 0 && s.directionId !== 1) return 'direction_id is not 0 or 1'
  if (s.directionId !== undefined && s.routeId === undefined) return 'direction_id without route_id'
  const specific =
    s.agencyId !== undefined ||
    s.routeId !== undefined ||
    s.routeType !== undefined ||
    s.tripId !== undefined ||
    s.stopId !== undefined
  return specific ? s : 'no agency_id, route_id, route_type, trip or stop_id'
}

function periodsOf(alert: RtAlert, problem: (message: string) => void) {
  const periods: FeedAlert['periods'] = []
  const list = alert.activePeriod ?? []
  if (list.length > ALERT_LIMITS.periods) {
    problem(`${list.length} active periods; the first ${ALERT_LIMITS.periods} are kept`)
  }
  for (const [i, p] of list.slice(0, ALERT_LIMITS.periods).entries()) {
    const start = has(p, 'start') ? num(p.start) : undefined
    const end = has(p, 'end') ? num(p.end) : undefined
    const inRange = (s: number | undefined) => s === undefined || (s >= 0 && s <= MAX_SECONDS)
    if ((start === undefined && end === undefined) || !inRange(start) || !inRange(end)) {
      problem(`active_period ${i} has no usable start or end, left out`)
      continue
    }
    if (start !== undefined && end !== undefined && end < start) {
      problem(`active_period ${i} ends before it starts, left out`)
      continue
    }
    periods.push({
      ...(start !== undefined ? { start: start * 1000 } : {}),
      ...(end !== undefined ? { end: end * 1000 } : {}),
    })
  }
  return { periods, hadPeriods: list.length > 0 }
}

/** One Alert entity, or undefined when it is skipped (the reason reported). */
function alertOf(id: string, alert: RtAlert, report: (message: string) => void): FeedAlert | undefined {
  const problem = (message: string) => report(`alert ${JSON.stringify(id.slice(0, 60))}: ${message}`)
  const selectors: Selector[] = []
  const rawSelectors = alert.informedEntity ?? []
  if (rawSelectors.length > ALERT_LIMITS.selectors) {
    problem(`${rawSelectors.length} informed entities; the first ${ALERT_LIMITS.selectors} are kept`)
  }
  for (const [i, raw] of rawSelectors.slice(0, ALERT_LIMITS.selectors).entries()) {
    const selector = selectorOf(raw)
    if (typeof selector === 'string') problem(`informed_entity ${i} left out: ${selector}`)
    else selectors.push(selector)
  }
  if (selectors.length === 0) {
    problem('skipped: no usable informed_entity')
    return undefined
  }
  const { periods, hadPeriods } = periodsOf(alert, problem)
  if (hadPeriods && periods.length === 0) {
    // Shown always would be wrong: the feed meant some time, only not one that can be read.
    problem('skipped: no usable active_period')
    return undefined
  }
  let header = translations(alert.headerText, 'header_text', ALERT_LIMITS.headerChars, false, problem)
  const description = translations(
    alert.descriptionText,
    'description_text',
    ALERT_LIMITS.descriptionChars,
    true,
    problem,
  )
  if (header.length === 0) {
    if (description.length === 0) {
      problem('skipped: neither header_text nor description_text')
      return undefined
    }
    header = description.map((t) => ({ ...t, text: bound(cleanText(t.text, false), ALERT_LIMITS.headerChars).text }))
  }
  const url = translations(alert.url, 'url', ALERT_LIMITS.urlChars, false, problem).filter((t) => {
    const ok = !t.text.endsWith('…') && isWebUrl(t.text)
    if (!ok) problem(`url ${JSON.stringify(t.text.slice(0, 60))} is not an http(s) URL, left out`)
    return ok
  })
  return {
    id,
    periods,
    selectors,
    cause: causeOf(has(alert, 'cause') ? alert.cause : undefined),
    effect: effectOf(has(alert, 'effect') ? alert.effect : undefined),
    severity: severityOf(has(alert, 'severityLevel') ? alert.severityLevel : undefined),
    header,
    description,
    url,
  }
}

/** Decodes an Alert feed; throws only when the bytes are not a FeedMessage. */
export function decodeAlerts(bytes: Uint8Array, readAt: number, report: (message: string) => void): AlertSnapshot {
  let message: InstanceType<Rt['FeedMessage']>
  try {
    message = transit_realtime.FeedMessage.decode(bytes)
  } catch (error) {
    throw new Error(`not a GTFS-Realtime FeedMessage (${(error as Error).message})`)
  }
  const stamp = has(message.header, 'timestamp') ? num(message.header.timestamp) : undefined
  const snapshot: AlertSnapshot = {
    timestamp: stamp && stamp <= MAX_SECONDS ? stamp * 1000 : readAt,
    alerts: [],
    skipped: 0,
  }
  const seen = new Set<string>()
  let overflow = 0
  for (const entity of message.entity) {
    if (!entity.alert || entity.isDeleted) continue
    const id = typeof entity.id === 'string' ? cleanText(entity.id, false) : ''
    if (!id || id.length > ALERT_LIMITS.idChars) {
      report(`an alert entity without a usable id (${id.length} characters) is skipped`)
      snapshot.skipped++
      continue
    }
    if (seen.has(id)) {
      report(`alert ${JSON.stringify(id.slice(0, 60))}: the id appears twice, the second is skipped`)
      snapshot.skipped++
      continue
    }
    if (snapshot.alerts.length >= ALERT_LIMITS.alerts) {
      overflow++
      continue
    }
    const alert = alertOf(id, entity.alert, report)
    if (!alert) {
      snapshot.skipped++
      continue
    }
    seen.add(id)
    snapshot.alerts.push(alert)
  }
  if (overflow > 0) {
    snapshot.skipped += overflow
    report(`more than ${ALERT_LIMITS.alerts} alerts: ${overflow} more are skipped`)
  }
  return snapshot
}

/**
 * The translation to show in `language`, as gtfs-realtime.proto resolves a TranslatedString: the language asked
 * for (exactly, then by its primary subtag), else English, else the one without a language, else the first.
 */
export function pickTranslation(list: Translation[], language: string): Translation | undefined {
  if (list.length <= 1) return list[0]
  const want = language.toLowerCase()
  const primary = want.split('-')[0]
  const primaryOf = (t: Translation) => t.language?.split('-')[0]
  return (
    list.find((t) => t.language === want) ??
    list.find((t) => primaryOf(t) === primary) ??
    list.find((t) => primaryOf(t) === 'en') ??
    list.find((t) => t.language === undefined) ??
    list[0]
  )
}
