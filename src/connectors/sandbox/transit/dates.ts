/**
 * Calendar days as Berlin sees them (`YYYY-MM-DD`): subscriptions run in calendar months of Europe/Berlin, whatever
 * the server's zone. Days compare as strings.
 */

const BERLIN = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Berlin',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/** The day in Berlin at `instant`. */
export const berlinDay = (instant: Date): string => BERLIN.format(instant)

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** Whether `text` is a real calendar day (`2031-02-30` is not). */
export function isDay(text: string): boolean {
  const m = DAY.exec(text)
  if (!m) return false
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])))
  return date.toISOString().slice(0, 10) === text
}

const parts = (day: string) => day.split('-').map(Number) as [number, number, number]
const format = (date: Date) => date.toISOString().slice(0, 10)

export const dayOfMonth = (day: string) => parts(day)[2]

export const firstOfMonth = (day: string) => `${day.slice(0, 7)}-01`

/** The first day of the month `months` after `day`'s month. */
export function addMonths(day: string, months: number): string {
  const [y, m] = parts(day)
  return format(new Date(Date.UTC(y, m - 1 + months, 1)))
}

/** The last day of `day`'s month. */
export function lastOfMonth(day: string): string {
  const [y, m] = parts(day)
  return format(new Date(Date.UTC(y, m, 0)))
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = parts(day)
  return format(new Date(Date.UTC(y, m - 1, d + days)))
}
