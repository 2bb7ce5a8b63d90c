import { ApiError } from '../../contract/errors.ts'
import { detail, type Text } from '../../platform/i18n/texts.ts'

export const MAX_RENTAL_DAYS = 90

/** Parses and checks a rental period: offsets normalized to UTC, start in the future, end after start. */
export function checkRentalPeriod(dates: { start: string; end: string }, now: Date, field = 'dates') {
  const start = new Date(dates.start)
  const end = new Date(dates.end)
  const problems: Record<string, Text> = {}
  if (Number.isNaN(start.getTime())) problems[`${field}.start`] = detail('NOT_A_DATE_TIME')
  if (Number.isNaN(end.getTime())) problems[`${field}.end`] = detail('NOT_A_DATE_TIME')
  if (Object.keys(problems).length === 0) {
    if (start.getTime() <= now.getTime()) problems[`${field}.start`] = detail('MUST_BE_IN_FUTURE')
    if (end.getTime() <= start.getTime()) problems[`${field}.end`] = detail('MUST_BE_AFTER_START')
    else if (end.getTime() - start.getTime() > MAX_RENTAL_DAYS * 86_400_000) {
      problems[`${field}.end`] = detail('RENTAL_AT_MOST_DAYS', { days: MAX_RENTAL_DAYS })
    }
  }
  if (Object.keys(problems).length > 0) throw new ApiError('INVALID_DATE_RANGE', undefined, problems)
  return { start, end }
}
