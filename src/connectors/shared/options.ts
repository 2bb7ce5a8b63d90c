import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { IsCodec, IsOptional, type StaticDecode, type TObject, type TSchema, Type } from 'typebox'
import { Value } from 'typebox/value'
import { StartupError } from '../../platform/startup-error.ts'

/**
 * A connector's options (the `options` of its providers-file entry) are one TypeBox schema, in the connector's
 * options.ts; their type comes from it (`StaticDecode`). `parseOptions` checks an entry once and reports every
 * problem together, each with its option path, in one error naming the provider (which is then UNAVAILABLE).
 *
 * What the schemas say in messages, after `options.<name>`:
 * - `problem`: when the value is wrong ("must be a number from 1 to 10"); a refinement's message (a URL that is not
 *   one) says more and takes its place;
 * - `whenMissing`: when a required option is left out ("is required: the GTFS zip or folder, http(s): or file:").
 * An option with a default takes it when left out or null; a codec (URLs) turns the checked value into what the
 * connector uses.
 */

export interface FeedLogger {
  warn(message: string): void
}

/** The options of a providers-file entry are wrong: every problem, each naming its option. */
export class ConnectorOptionsError extends StartupError {
  readonly problems: string[]
  constructor(connector: string, providerId: string | undefined, problems: string[]) {
    super(`${providerId ? `provider ${providerId}, ` : ''}connector ${connector}: ${problems.join('; ')}`)
    this.name = 'ConnectorOptionsError'
    this.problems = problems
  }
}

export interface ParseOptionsHow<T> {
  connector: string
  /** Named in the error (the registry passes the entry's id). */
  providerId?: string | undefined
  /** Options the schema does not name: refused (default), or ignored (the sandbox has always ignored them). */
  unknown?: 'refuse' | 'ignore'
  /** Problems between options (two ways to authenticate), given the options that are right on their own. */
  across?: (options: Partial<T>) => string[]
}

type Described = TSchema & { problem?: string; whenMissing?: string; default?: unknown }

/** `options.url` + `is not a URL`; a message that goes on the path (`.name ...`, `: ...`) is put right after it. */
const say = (name: string, message: string) => `options.${name}${/^[.:]/.test(message) ? '' : ' '}${message}`

function problemOf(property: Described, value: unknown): string | undefined {
  const errors = Value.Errors(property, value)
  if (errors.length === 0) return undefined
  const refined = errors.find((e) => e.keyword === '~refine')
  if (refined) return String((refined.params as { message?: unknown }).message ?? refined.message)
  return property.problem ?? `${errors[0].instancePath} ${errors[0].message}`.trim()
}

/** Checks `raw` against `schema`; throws a ConnectorOptionsError with every problem, else returns the options. */
export function parseOptions<S extends TObject>(
  schema: S,
  raw: Record<string, unknown> = {},
  how: ParseOptionsHow<StaticDecode<S>>,
): StaticDecode<S> {
  const properties = schema.properties as Record<string, Described>
  const known = Object.keys(properties)
  const problems: string[] = []
  const unknown = Object.keys(raw).filter((name) => !known.includes(name))
  if (unknown.length > 0 && how.unknown !== 'ignore') {
    problems.push(
      `options ${unknown.join(', ')} not known to the ${how.connector} connector (known: ${known.join(', ')})`,
    )
  }
  const options: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(properties)) {
    const hasDefault = property.default !== undefined
    let value = raw[name]
    // `?? default`, as a providers file means an empty YAML value; a flag stays strictly true or false.
    if (value === null && hasDefault && typeof property.default !== 'boolean') value = undefined
    if (value === undefined) {
      if (hasDefault) options[name] = property.default
      else if (!IsOptional(property)) problems.push(say(name, property.whenMissing ?? 'is required'))
      continue
    }
    const problem = problemOf(property, value)
    if (problem !== undefined) problems.push(say(name, problem))
    else options[name] = IsCodec(property) ? property['~codec'].decode(value) : value
  }
  problems.push(...(how.across?.(options as Partial<StaticDecode<S>>) ?? []))
  if (problems.length > 0) throw new ConnectorOptionsError(how.connector, how.providerId, problems)
  return options as StaticDecode<S>
}

// ---------------------------------------------------------------------------------------------------------------
// Option types the connectors share

/** A number from `min` to `max`, `fallback` when left out. */
export const numberIn = (
  min: number,
  max: number,
  fallback?: number,
  problem = `must be a number from ${min} to ${max}`,
) => Type.Number({ minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }), problem })

/** An integer from `min` to `max`, `fallback` when left out. */
export const integerIn = (
  min: number,
  max: number,
  fallback?: number,
  problem = `must be an integer from ${min} to ${max}`,
) => Type.Integer({ minimum: min, maximum: max, ...(fallback === undefined ? {} : { default: fallback }), problem })

/** true or false, false when left out. */
export const flag = () => Type.Boolean({ default: false, problem: 'must be true or false' })

/** A language tag (BCP 47 shape: `en`, `de-CH`), letters in either case. */
export const languageTag = (example: string, fallback?: string) =>
  Type.String({
    pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]+)*$',
    ...(fallback === undefined ? {} : { default: fallback }),
    problem: `must be a language tag such as ${example}`,
  })

/** Why `raw` is no feed URL (http:, https: or file:), else undefined. */
function feedUrlProblem(raw: string): string | undefined {
  if (raw.trim() === '') return 'must be a URL string'
  let url: URL
  try {
    url = toFeedUrl(raw)
  } catch {
    return `${JSON.stringify(raw)} is not a URL`
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol))
    return `must be http:, https: or file: (got ${url.protocol})`
  return undefined
}

/** `file:relative/path` is taken relative to the working directory, as a providers file would mean it. */
const toFeedUrl = (raw: string) => (/^file:(?!\/)/i.test(raw) ? pathToFileURL(resolve(raw.slice(5))) : new URL(raw))

/** A feed's URL: http:, https: or file: (`file:relative/path` from the working directory), as a URL. */
export const feedUrl = (whenMissing?: string) =>
  Type.Decode(
    Type.Refine(
      Type.String({ problem: 'must be a URL string', ...(whenMissing ? { whenMissing } : {}) }),
      (raw) => feedUrlProblem(raw) === undefined,
      (raw) => feedUrlProblem(raw) ?? '',
    ),
    (raw): URL => toFeedUrl(raw),
  )

/** An HTTP header name (RFC 9110 token); a value of visible characters, spaces and tabs, without CR or LF. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/

function headersProblem(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) return `: ${JSON.stringify(name)} is not a header name`
    if (!HEADER_VALUE.test(value)) return `.${name} must be one line of text (no control characters)`
  }
  return undefined
}

/**
 * Extra request headers, such as `{ "authorization": "Bearer …" }` to read a feed that needs a key. Names and values
 * are checked here, so a wrong one stops the provider at start with a reason rather than failing every read.
 */
export const headersOption = () =>
  Type.Refine(
    Type.Record(Type.String(), Type.String(), { problem: 'must be an object of strings' }),
    (headers) => headersProblem(headers) === undefined,
    (headers) => headersProblem(headers) ?? '',
  )

/** Something with a warn(message) function. */
export const loggerOption = () =>
  Type.Refine(
    Type.Unsafe<FeedLogger>({}),
    (logger) => typeof logger === 'object' && logger !== null && typeof logger.warn === 'function',
    () => 'must have a warn(message) function',
  )

/**
 * The options every feed or API connector has, after its own (in this order in messages): the deadline of one read
 * (`timeoutMs`), the size limit of one answer (`maxFeedBytes`), extra request `headers`, and a `logger` of problems.
 */
export const feedOptions = (
  timeoutMs: { fallback: number; min: number; max: number },
  maxFeedBytes: { fallback: number; min: number; max: number },
) => ({
  /** Deadline of one read, ms. */
  timeoutMs: numberIn(timeoutMs.min, timeoutMs.max, timeoutMs.fallback),
  /** Size limit of one feed or answer, bytes. */
  maxFeedBytes: numberIn(maxFeedBytes.min, maxFeedBytes.max, maxFeedBytes.fallback),
  /** Extra request headers (an API key). */
  headers: Type.Optional(headersOption()),
  /** Receives each new problem. */
  logger: Type.Optional(loggerOption()),
})
