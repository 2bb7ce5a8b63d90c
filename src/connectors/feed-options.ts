import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Checks shared by the options of the feed connectors (gbfs, gtfs): unknown names, feed URLs, numbers in a range,
 * request headers and a logger. Each throws with what is wrong (the provider is then UNAVAILABLE).
 */

export interface FeedLogger {
  warn(message: string): void
}

/** The option names every feed connector knows, after its own (in this order in error messages). */
export const FEED_OPTION_NAMES = ['timeoutMs', 'maxFeedBytes', 'headers', 'logger']

const isNumberIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max

/** Throws when `raw` has option names not in `known`. */
export function checkKnownOptions(raw: Record<string, unknown>, known: string[], connector: string): void {
  const unknown = Object.keys(raw).filter((key) => !known.includes(key))
  if (unknown.length > 0) {
    throw new Error(
      `options ${unknown.join(', ')} not known to the ${connector} connector (known: ${known.join(', ')})`,
    )
  }
}

/** `options.<name>` as an http:, https: or file: URL; `file:relative/path` is relative to the working directory. */
export function parseFeedUrl(name: string, raw: unknown): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw new Error(`options.${name} must be a URL string`)
  let url: URL
  try {
    // `file:relative/path` is taken relative to the working directory, as a providers file would mean it.
    url = /^file:(?!\/)/i.test(raw) ? pathToFileURL(resolve(raw.slice(5))) : new URL(raw)
  } catch {
    throw new Error(`options.${name} ${JSON.stringify(raw)} is not a URL`)
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw new Error(`options.${name} must be http:, https: or file: (got ${url.protocol})`)
  }
  return url
}

/** `options.<name>`, or `fallback` when left out, a number from `min` to `max`. */
export function parseNumberOption(
  raw: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = raw[name] ?? fallback
  if (!isNumberIn(value, min, max)) throw new Error(`options.${name} must be a number from ${min} to ${max}`)
  return value
}

/** An HTTP header name (RFC 9110 token); a value of visible characters, spaces and tabs, without CR or LF. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/

/**
 * `options.headers`: an object of strings (such as `{ "authorization": "Bearer …" }` to read a feed that needs a key),
 * or undefined. Names and values are checked here, so a wrong one stops the provider at start with a reason rather
 * than failing every read.
 */
export function parseHeadersOption(headers: unknown): Record<string, string> | undefined {
  if (
    headers !== undefined &&
    (typeof headers !== 'object' ||
      headers === null ||
      Array.isArray(headers) ||
      Object.values(headers).some((v) => typeof v !== 'string'))
  ) {
    throw new Error('options.headers must be an object of strings')
  }
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new Error(`options.headers: ${JSON.stringify(name)} is not a header name`)
    if (!HEADER_VALUE.test(value as string)) {
      throw new Error(`options.headers.${name} must be one line of text (no control characters)`)
    }
  }
  return headers as Record<string, string> | undefined
}

/** `options.logger`: something with a warn(message) function, or undefined. */
export function parseLoggerOption(raw: unknown): FeedLogger | undefined {
  const logger = raw as { warn?: unknown } | undefined
  if (logger !== undefined && (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function')) {
    throw new Error('options.logger must have a warn(message) function')
  }
  return logger as FeedLogger | undefined
}
