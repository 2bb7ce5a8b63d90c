import { isDeepStrictEqual } from 'node:util'

/**
 * Whether `value`, written as JSON, equals what a JSONB column holds (`stored`, in any key order), leaving out the
 * top-level keys `ignore` names. Reads and repeated requests that change nothing use it to write nothing, so
 * `updatedAt` and status histories keep saying when something really happened.
 */
export function sameAsStored(value: unknown, stored: unknown, ignore: readonly string[] = []): boolean {
  const now = JSON.parse(JSON.stringify(value)) as unknown
  return isDeepStrictEqual(without(now, ignore), without(stored, ignore))
}

function without(value: unknown, keys: readonly string[]): unknown {
  if (keys.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const copy = { ...(value as Record<string, unknown>) }
  for (const key of keys) delete copy[key]
  return copy
}
