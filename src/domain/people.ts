import { ApiError } from '../contract/errors.ts'
import { detail } from '../platform/i18n/texts.ts'

/** A person's date of birth (YYYY-MM-DD, already a valid date) must lie before today: 400 INVALID_REQUEST on `field`. */
export function checkDateOfBirth(dateOfBirth: string | undefined, now: Date, field: string): void {
  if (dateOfBirth !== undefined && !(dateOfBirth < now.toISOString().slice(0, 10)))
    throw new ApiError('INVALID_REQUEST', undefined, { [field]: detail('MUST_BE_PAST_DATE') })
}
