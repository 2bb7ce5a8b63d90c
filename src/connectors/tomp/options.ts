import { type StaticDecode, Type } from 'typebox'
import { feedOptions, flag, languageTag, numberIn, parseOptions } from '../shared/options.ts'

/** Why `raw` is no operator base URL (http: or https:), else undefined. */
function baseUrlProblem(raw: string): string | undefined {
  if (raw.trim() === '') return "is required: the operator's TOMP base URL, http: or https:"
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `${JSON.stringify(raw)} is not a URL`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be http: or https: (got ${url.protocol})`
  return undefined
}

/** Paths such as `operator/information` resolve below the base only when it ends in a slash. */
function baseUrl(raw: string): URL {
  const url = new URL(raw)
  if (!url.pathname.endsWith('/')) url.pathname += '/'
  return url
}

/** An API key or token: sent in a header, so on one line. */
const secret = () =>
  Type.String({ minLength: 1, pattern: '^[^\\r\\n]*\\S[^\\r\\n]*$', problem: 'must be a non-empty string on one line' })

/** The options of a `tomp` providers-file entry (DECISIONS "Providers file"). */
export const TompOptionsSchema = Type.Object({
  /** The operator's base URL (where `operator/information` lives), `http(s):`, always ending in `/`. */
  url: Type.Decode(
    Type.Refine(
      Type.String({
        problem: "is required: the operator's TOMP base URL, http: or https:",
        whenMissing: "is required: the operator's TOMP base URL, http: or https:",
      }),
      (raw) => baseUrlProblem(raw) === undefined,
      (raw) => baseUrlProblem(raw) ?? '',
    ),
    baseUrl,
  ),
  /** Sent as `X-API-Key`. */
  apiKey: Type.Optional(secret()),
  /** Sent as `Authorization: Bearer`. */
  token: Type.Optional(secret()),
  /** The `maas-id` header: who we are to the operator. */
  maasId: Type.String({
    pattern: '^[\\x21-\\x7e]{1,200}$',
    default: 'mobility-aggregation-service',
    problem: 'must be 1 to 200 visible ASCII characters',
  }),
  /** The `Api-Version` header; a 1.x version, since the connector speaks the 1.x messages. */
  apiVersion: Type.Refine(
    Type.String({ default: '1.6.1' }),
    (version) => /^1\.\d+(\.\d+)?$/.test(version),
    (version) =>
      `${JSON.stringify(version)} is not supported: the connector speaks TOMP-API 1.x (such as "1.6.1"); 2.0 is not supported yet`,
  ),
  /** The operator books, unlocks and ends rides for us (capability TRIPS); else search only, with deep links. */
  trips: flag(),
  /** Where bookable options come from: `offers` (POST /planning/offers, 1.5+) or `plannings` (POST /plannings?booking-intent=true, deprecated). */
  planning: Type.Union([Type.Literal('offers'), Type.Literal('plannings')], {
    default: 'offers',
    problem: 'must be "offers" or "plannings"',
  }),
  /** Send PREPARE before SET_IN_USE when a ride starts (operators whose execution process asks for it). */
  prepareLeg: flag(),
  /** Accept-Language of the shared fleet reads (trips and zones follow each caller's language). */
  language: languageTag('"en" or "nl-NL"', 'en'),
  /** The fleet and zones are read again after this many seconds (0: on every use). */
  refreshSeconds: numberIn(0, 3600, 30),
  /** A failed read is answered from the last good copy while it is younger than this. */
  maxStaleSeconds: numberIn(0, 86_400, 300),
  // A deadline and size limit per answer; headers are sent with every request.
  ...feedOptions(
    { fallback: 10_000, min: 100, max: 120_000 },
    { fallback: 32 * 1024 * 1024, min: 1024, max: 512 * 1024 * 1024 },
  ),
})

export type TompOptions = StaticDecode<typeof TompOptionsSchema>

/** Checks the options of a providers-file entry; throws with every problem (the provider is then UNAVAILABLE). */
export const parseTompOptions = (raw: Record<string, unknown> = {}, providerId?: string): TompOptions =>
  parseOptions(TompOptionsSchema, raw, {
    connector: 'tomp',
    providerId,
    across: (options) =>
      options.apiKey && options.token
        ? ['options.apiKey and options.token: give one way to authenticate, not both']
        : [],
  })
