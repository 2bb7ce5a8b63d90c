import { ApiError } from '../../contract/errors.ts'

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
      [name]: `send ${name} or its deprecated old name ${old}, not both`,
      [old]: `is the deprecated old name of ${name}: send only ${name}`,
    })
  }
  const value = current ?? previous
  if (value === undefined)
    throw new ApiError('INVALID_REQUEST', undefined, {
      [name]: `is required (its deprecated old name ${old} is accepted too)`,
    })
  return value as T
}
