/**
 * Readers for the loosely typed JSON of providers (GBFS feeds, TOMP answers): each takes what it finds and returns
 * undefined for what it cannot use, so a mapping reports the record and goes on.
 */

export type Json = Record<string, unknown>
/** Where a mapping says what it skipped or worked around (a connector's problem log). */
export type Report = (message: string) => void

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** An identifier: a non-empty string, or a number (some feeds publish numeric ids). */
export function id(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** A finite number; numeric strings are accepted. */
export function num(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value)
  return undefined
}

/** A boolean; 0/1 and "true"/"false" are accepted (GBFS 1.x published integers). */
export function bool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === '1' || value === 'true') return true
  if (value === 0 || value === '0' || value === 'false') return false
  return undefined
}

/** A value shortened for a problem message. */
export const short = (value: unknown) => {
  const s = JSON.stringify(value) ?? String(value)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}
