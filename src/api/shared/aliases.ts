import { ApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'

/**
 * The value a request sent under `name` or under its deprecated old name `old` (issue 21): exactly one of the two,
 * else 400 INVALID_REQUEST naming both fields.
 */
export function renamed<T>(body: object, name: string, old: string): T {
  const fields = body as Record<string, unknown>
  const current = fields[name]
  const previous = fields[old]
  if (current !== undefined && previous !== undefined) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      [name]: detail('ALIAS_BOTH', { name, old }),
      [old]: detail('ALIAS_IS_OLD_NAME', { name }),
    })
  }
  const value = current ?? previous
  if (value === undefined)
    throw new ApiError('INVALID_REQUEST', undefined, {
      [name]: detail('ALIAS_REQUIRED', { old }),
    })
  return value as T
}
