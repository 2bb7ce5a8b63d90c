import { ApiError } from '../../http/errors.ts'

export const MAX_RENTAL_DAYS = 90

/** Parses and checks a rental period: offsets normalized to UTC, start in the future, end after start. */
export function checkRentalPeriod(dates: { start: string; end: string }, now: Date, field = 'dates') {
  const start = new Date(dates.start)
  const end = new Date(dates.end)
  const problems: Record<string, string> = {}
  if (Number.isNaN(start.getTime())) problems[`${field}.start`] = 'is not a date-time'
  if (Number.isNaN(end.getTime())) problems[`${field}.end`] = 'is not a date-time'
  if (Object.keys(problems).length === 0) {
    if (start.getTime() <= now.getTime()) problems[`${field}.start`] = 'must be in the future'
    if (end.getTime() <= start.getTime()) problems[`${field}.end`] = 'must be after the start'
    else if (end.getTime() - start.getTime() > MAX_RENTAL_DAYS * 86_400_000) {
      problems[`${field}.end`] = `the rental may last at most ${MAX_RENTAL_DAYS} days`
    }
  }
  if (Object.keys(problems).length > 0) throw new ApiError('INVALID_DATE_RANGE', undefined, problems)
  return { start, end }
}
