import type { ErrorCode } from '../../contract/errors.ts'
import { LANGUAGES } from '../../contract/languages.ts'
import de from './de.json' with { type: 'json' }
import en from './en.json' with { type: 'json' }
import fr from './fr.json' with { type: 'json' }

export interface Catalog {
  errors: Record<ErrorCode, string>
  reasons: Record<string, string>
  /** `reason` of a car offer's recommendation, by reasonCode. */
  recommendations: Record<string, string>
}

export const CATALOGS: Record<string, Catalog> = { en, de, fr } as Record<string, Catalog>
export type Language = string

interface Preference {
  tag: string
  primary: string
  q: number
  order: number
}

/** Parses an Accept-Language header into preferences, best first; malformed parts are skipped. */
export function parseAcceptLanguage(header: string): Preference[] {
  const preferences: Preference[] = []
  const parts = header.split(',')
  for (let order = 0; order < parts.length && order < 32; order++) {
    const [rawTag, ...params] = parts[order].trim().split(';')
    const tag = rawTag.trim().toLowerCase()
    if (!/^(\*|[a-z]{1,8}(-[a-z0-9]{1,8})*)$/.test(tag)) continue
    let q = 1
    for (const param of params) {
      const [name, value] = param.trim().split('=')
      if (name?.trim() === 'q') {
        const parsed = Number(value)
        q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0
      }
    }
    if (q > 0) preferences.push({ tag, primary: tag.split('-')[0], q, order })
  }
  return preferences.sort((a, b) => b.q - a.q || a.order - b.order)
}

/**
 * The best available language for the header: exact or primary-subtag match in order of preference;
 * `*` accepts the fallback; nothing acceptable falls back too (a localized answer beats a 406).
 */
export function negotiateLanguage(
  header: string | undefined,
  fallback: Language,
  available: readonly string[] = LANGUAGES,
): Language {
  if (!header) return fallback
  for (const preference of parseAcceptLanguage(header)) {
    if (preference.tag === '*') return fallback
    if (available.includes(preference.tag)) return preference.tag
    if (available.includes(preference.primary)) return preference.primary
  }
  return fallback
}

export function errorMessage(language: Language, code: ErrorCode, reason?: unknown): string {
  const catalog = CATALOGS[language] ?? CATALOGS.en
  if (typeof reason === 'string' && catalog.reasons[reason]) return catalog.reasons[reason]
  return catalog.errors[code] ?? CATALOGS.en.errors[code] ?? code
}

/** The `reason` text of a recommendation's reasonCode in the caller's language. */
export function recommendationReason(language: Language, reasonCode: string): string {
  return (CATALOGS[language] ?? CATALOGS.en).recommendations[reasonCode] ?? CATALOGS.en.recommendations[reasonCode]
}
