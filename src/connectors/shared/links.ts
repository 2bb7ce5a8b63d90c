import type { ProviderMicroVehicle } from '../types/micromobility.ts'

export type DeepLinks = NonNullable<ProviderMicroVehicle['deepLinks']>

const BLOCKED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'])

/** A deep link clients may open: an absolute URI, never script or local file; `web` must be http(s). */
export function link(value: unknown, web: boolean): string | undefined {
  if (typeof value !== 'string') return undefined
  const s = value.trim()
  if (s === '' || s.length > 2000) return undefined
  let url: URL
  try {
    url = new URL(s)
  } catch {
    return undefined
  }
  if (BLOCKED_SCHEMES.has(url.protocol)) return undefined
  if (web && url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return s
}
