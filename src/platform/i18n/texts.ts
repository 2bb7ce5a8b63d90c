import de from './de.json' with { type: 'json' }
import en from './en.json' with { type: 'json' }
import fr from './fr.json' with { type: 'json' }

/**
 * Texts for people that are built where the answer is not yet known to be in one language: the per-field messages of
 * an error's `details` (thrown deep in the domain, rendered by the error handler in the request's language) and the
 * sandbox's own descriptions. A `Text` is a catalog key with parameters; `{name}` in the catalog entry is replaced by
 * the parameter (an array is joined with ", "). Field names, codes and enum values travel as parameters, unchanged.
 * Serialized without being rendered (a log line, a test), a Text is its English sentence.
 */
export type TextParams = Record<string, string | number | boolean | Text | readonly (string | number)[] | undefined>

type Section = 'details' | 'sandbox' | 'history'
type Texts = Record<Section, Record<string, string>>
const CATALOGS: Record<string, Texts> = { en, de, fr } as unknown as Record<string, Texts>

export class Text {
  readonly key: string
  readonly params: TextParams
  readonly section: Section
  constructor(key: string, params: TextParams = {}, section: Section = 'details') {
    this.key = key
    this.params = params
    this.section = section
  }
  in(language: string): string {
    return renderText(language, this.key, this.params, this.section)
  }
  toJSON(): string {
    return this.in('en')
  }
  toString(): string {
    return this.in('en')
  }
}

/** A detail message of the catalog's `details` section, such as `detail('MUST_BE_ONE_OF', { values })`. */
export const detail = (key: string, params?: TextParams): Text => new Text(key, params)

const paramText = (value: TextParams[string], language: string): string =>
  value instanceof Text
    ? value.in(language)
    : Array.isArray(value)
      ? value.join(', ')
      : value === undefined
        ? ''
        : String(value)

/** The catalog entry in `language` (English when it lacks one) with its parameters filled in. */
export function renderText(language: string, key: string, params: TextParams = {}, section: Section = 'details') {
  const primary = language.trim().slice(0, 2).toLowerCase()
  const template = CATALOGS[primary]?.[section]?.[key] ?? CATALOGS.en[section][key] ?? key
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? paramText(params[name], language) : whole,
  )
}

/** A sandbox text in the caller's language (the sandbox speaks English, German and French). */
export const sandboxText = (language: string, key: string, params?: TextParams): string =>
  renderText(language, key, params, 'sandbox')

/** `details` with every Text rendered in `language`; anything else as it is (bounded depth, copies only when needed). */
export function localizeDetails<T>(value: T, language: string, depth = 0): T {
  if (value instanceof Text) return value.in(language) as T
  if (depth > 8 || typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return value.map((v) => localizeDetails(v, language, depth + 1)) as T
  if (Object.getPrototypeOf(value) !== Object.prototype) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = localizeDetails(v, language, depth + 1)
  return out as T
}

/** The keys every catalog must have, per section (for tests). */
export const textKeys = (section: Section, language = 'en'): string[] => Object.keys(CATALOGS[language][section])

/** The reasons the platform itself writes into a booking's statusHistory (stored in English), by catalog key. */
const HISTORY: Record<string, string> = {
  created: 'CREATED',
  'updated by the provider': 'PROVIDER_UPDATE',
  'cancelled by the client': 'CLIENT_CANCELLED',
}

/** A statusHistory reason in `language`: the platform's own in the catalog's words, a client's as it was sent. */
export function historyReason(reason: string, language: string): string {
  const key = HISTORY[reason]
  if (key) return renderText(language, key, {}, 'history')
  if (reason.startsWith('changed: ')) return renderText(language, 'CHANGED', { types: reason.slice(9) }, 'history')
  return reason
}

type WithHistory = { statusHistory?: unknown; bookings?: unknown }
const localizedEntries = (history: unknown[], language: string) =>
  history.map((entry) => {
    const reason = (entry as { reason?: unknown })?.reason
    return typeof reason === 'string' ? { ...(entry as object), reason: historyReason(reason, language) } : entry
  })

/**
 * An answer whose bookings carry a statusHistory (one booking, or a list under `bookings`), with the platform's own
 * reasons in `language`; anything else, and every answer in English, as it is.
 */
export function localizeHistory<T>(data: T, language: string | undefined): T {
  if (!language || language.startsWith('en') || typeof data !== 'object' || data === null) return data
  const d = data as WithHistory
  if (Array.isArray(d.statusHistory)) return { ...data, statusHistory: localizedEntries(d.statusHistory, language) }
  if (Array.isArray(d.bookings) && d.bookings.some((b) => Array.isArray((b as WithHistory)?.statusHistory))) {
    return { ...data, bookings: d.bookings.map((b) => localizeHistory(b, language)) }
  }
  return data
}
