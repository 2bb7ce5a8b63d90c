/**
 * Service days and the feed's clock. A GTFS time belongs to a service day and counts from "noon minus 12 h" of that
 * day in the feed's time zone (agency_timezone): that is midnight except on the days a DST change happens, and it
 * makes 25:10:00 simply 1:10 the next morning. Days are kept as day numbers (days since 1970-01-01).
 */

const DAY_MS = 86_400_000

/** `20070604` → day number; NaN when it is not a valid date. */
export function parseGtfsDate(text: string): number {
  const value = text.trim()
  if (!/^\d{8}$/.test(value)) return Number.NaN
  const y = Number(value.slice(0, 4))
  const m = Number(value.slice(4, 6))
  const d = Number(value.slice(6, 8))
  const ms = Date.UTC(y, m - 1, d)
  const check = new Date(ms)
  if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return Number.NaN
  return ms / DAY_MS
}

/** Day number → `20070604`. */
export function formatGtfsDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')
}

/** 0 = Monday … 6 = Sunday (calendar.txt's column order). */
export const weekdayOf = (day: number) => (((day + 3) % 7) + 7) % 7

/**
 * `H:MM:SS` / `HH:MM:SS` (hours may pass 24) → seconds; -1 for an empty value, NaN for a malformed one.
 * Hand-written because it runs once per stop_times row.
 */
export function parseGtfsTime(text: string): number {
  let i = 0
  let n = text.length
  while (i < n && text.charCodeAt(i) === 32) i++
  while (n > i && text.charCodeAt(n - 1) === 32) n--
  if (i === n) return -1
  let hours = 0
  let digits = 0
  for (; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 58) break
    if (c < 48 || c > 57) return Number.NaN
    hours = hours * 10 + (c - 48)
    digits++
  }
  if (digits === 0 || n - i !== 6 || text.charCodeAt(i + 3) !== 58) return Number.NaN
  const m1 = text.charCodeAt(i + 1) - 48
  const m2 = text.charCodeAt(i + 2) - 48
  const s1 = text.charCodeAt(i + 4) - 48
  const s2 = text.charCodeAt(i + 5) - 48
  if (m1 < 0 || m1 > 5 || m2 < 0 || m2 > 9 || s1 < 0 || s1 > 5 || s2 < 0 || s2 > 9) return Number.NaN
  return hours * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2
}

export function formatGtfsTime(seconds: number): string {
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`
}

/** Local dates and UTC offsets of one IANA time zone, through Intl (DST-correct), with a cache per day. */
export class FeedClock {
  readonly timezone: string
  private readonly format: Intl.DateTimeFormat
  private readonly bases = new Map<number, number>()

  constructor(timezone: string) {
    this.timezone = timezone
    // Throws a RangeError for an unknown zone: the loader reports it and falls back to UTC.
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
  }

  /** The wall-clock time at `ms` as if it were UTC (so `local - ms` is the offset). */
  private wall(ms: number): number {
    const at = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
    for (const { type, value } of this.format.formatToParts(ms)) {
      if (Object.hasOwn(at, type)) at[type as keyof typeof at] = Number(value)
    }
    return Date.UTC(at.year, at.month - 1, at.day, at.hour, at.minute, at.second)
  }

  /** UTC offset at the instant, ms. */
  offset(ms: number): number {
    return this.wall(Math.floor(ms / 1000) * 1000) - Math.floor(ms / 1000) * 1000
  }

  /** The local date (day number) of an instant. */
  dayOf(ms: number): number {
    return Math.floor(this.wall(ms) / DAY_MS)
  }

  /** The instant of "noon minus 12 h" of a service day, ms: the origin of that day's GTFS times. */
  base(day: number): number {
    let base = this.bases.get(day)
    if (base === undefined) {
      const noonWall = day * DAY_MS + 12 * 3_600_000
      const guess = noonWall - this.offset(noonWall)
      const noon = noonWall - this.offset(guess)
      base = noon - 12 * 3_600_000
      if (this.bases.size > 4096) this.bases.clear()
      this.bases.set(day, base)
    }
    return base
  }

  /** The instant of a GTFS time on a service day. */
  instant(day: number, seconds: number): Date {
    return new Date(this.base(day) + seconds * 1000)
  }
}

/** calendar.txt and calendar_dates.txt: which services run on which day. */
export class ServiceCalendar {
  readonly ids: string[] = []
  private readonly index = new Map<string, number>()
  private weekdays: number[] = []
  private starts: number[] = []
  private ends: number[] = []
  /** day → (service → exception_type 1 added / 2 removed). */
  private readonly exceptions = new Map<number, Map<number, number>>()
  private readonly cache = new Map<number, Uint8Array>()

  /** The index of a service id, created on first use. */
  intern(id: string): number {
    let i = this.index.get(id)
    if (i === undefined) {
      i = this.ids.length
      this.ids.push(id)
      this.index.set(id, i)
      this.weekdays.push(0)
      this.starts.push(0)
      this.ends.push(-1)
    }
    return i
  }

  find(id: string): number | undefined {
    return this.index.get(id)
  }

  get size(): number {
    return this.ids.length
  }

  /** A calendar.txt row: `weekdays` bit 0 = Monday. */
  setWeekly(service: number, weekdays: number, start: number, end: number): void {
    this.weekdays[service] = weekdays
    this.starts[service] = start
    this.ends[service] = end
    this.cache.clear()
  }

  setException(service: number, day: number, type: 1 | 2): void {
    let byService = this.exceptions.get(day)
    if (!byService) {
      byService = new Map()
      this.exceptions.set(day, byService)
    }
    byService.set(service, type)
    this.cache.clear()
  }

  /** One byte per service, 1 when it runs on the day. */
  active(day: number): Uint8Array {
    let flags = this.cache.get(day)
    if (flags) return flags
    flags = new Uint8Array(this.ids.length)
    const bit = 1 << weekdayOf(day)
    for (let s = 0; s < flags.length; s++) {
      if (this.weekdays[s] & bit && day >= this.starts[s] && day <= this.ends[s]) flags[s] = 1
    }
    for (const [service, type] of this.exceptions.get(day) ?? []) flags[service] = type === 1 ? 1 : 0
    if (this.cache.size > 64) this.cache.clear()
    this.cache.set(day, flags)
    return flags
  }

  /** The first and last day any service runs (for stats). */
  range(): { first: number; last: number } | undefined {
    let first = Number.POSITIVE_INFINITY
    let last = Number.NEGATIVE_INFINITY
    for (let s = 0; s < this.ids.length; s++) {
      if (this.weekdays[s] && this.ends[s] >= this.starts[s]) {
        first = Math.min(first, this.starts[s])
        last = Math.max(last, this.ends[s])
      }
    }
    for (const [day, byService] of this.exceptions) {
      if ([...byService.values()].includes(1)) {
        first = Math.min(first, day)
        last = Math.max(last, day)
      }
    }
    return Number.isFinite(first) ? { first, last } : undefined
  }
}
