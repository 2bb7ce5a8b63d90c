import {
  checkKnownOptions,
  FEED_OPTION_NAMES,
  type FeedLogger,
  parseHeadersOption,
  parseLoggerOption,
  parseNumberOption,
} from '../feed-options.ts'

export interface TompOptions {
  /** The operator's base URL (where `operator/information` lives), `http(s):`, always ending in `/`. */
  url: URL
  /** Sent as `X-API-Key`. */
  apiKey?: string
  /** Sent as `Authorization: Bearer`. */
  token?: string
  /** The `maas-id` header: who we are to the operator. */
  maasId: string
  /** The `Api-Version` header; a 1.x version, since the connector speaks the 1.x messages. */
  apiVersion: string
  /** The operator books, unlocks and ends rides for us (capability TRIPS); else search only, with deep links. */
  trips: boolean
  /** Where bookable options come from: `offers` (POST /planning/offers, 1.5+) or `plannings` (POST /plannings?booking-intent=true, deprecated). */
  planning: 'offers' | 'plannings'
  /** Send PREPARE before SET_IN_USE when a ride starts (operators whose execution process asks for it). */
  prepareLeg: boolean
  /** Accept-Language of the shared fleet reads (trips and zones follow each caller's language). */
  language: string
  /** The fleet and zones are read again after this many seconds (0: on every use). */
  refreshSeconds: number
  /** A failed read is answered from the last good copy while it is younger than this. */
  maxStaleSeconds: number
  timeoutMs: number
  /** Size limit of one answer, bytes. */
  maxFeedBytes: number
  headers?: Record<string, string>
  logger?: FeedLogger
}

const KNOWN_OPTIONS = [
  'url',
  'apiKey',
  'token',
  'maasId',
  'apiVersion',
  'trips',
  'planning',
  'prepareLeg',
  'language',
  'refreshSeconds',
  'maxStaleSeconds',
  ...FEED_OPTION_NAMES,
]

const secret = (raw: Record<string, unknown>, name: string) => {
  const value = raw[name]
  if (value !== undefined && (typeof value !== 'string' || value.trim() === '' || /[\r\n]/.test(value))) {
    throw new Error(`options.${name} must be a non-empty string on one line`)
  }
  return value as string | undefined
}

const flag = (raw: Record<string, unknown>, name: string) => {
  if (raw[name] !== undefined && typeof raw[name] !== 'boolean')
    throw new Error(`options.${name} must be true or false`)
  return raw[name] === true
}

/** Checks the options of a providers-file entry; throws with what is wrong (the provider is then UNAVAILABLE). */
export function parseTompOptions(raw: Record<string, unknown> = {}): TompOptions {
  checkKnownOptions(raw, KNOWN_OPTIONS, 'tomp')
  if (typeof raw.url !== 'string' || raw.url.trim() === '') {
    throw new Error("options.url is required: the operator's TOMP base URL, http: or https:")
  }
  let url: URL
  try {
    url = new URL(raw.url)
  } catch {
    throw new Error(`options.url ${JSON.stringify(raw.url)} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`options.url must be http: or https: (got ${url.protocol})`)
  }
  // Paths such as `operator/information` resolve below the base only when it ends in a slash.
  if (!url.pathname.endsWith('/')) url.pathname += '/'
  const apiKey = secret(raw, 'apiKey')
  const token = secret(raw, 'token')
  if (apiKey && token) throw new Error('options.apiKey and options.token: give one way to authenticate, not both')
  const maasId = raw.maasId ?? 'mobility-aggregation-service'
  if (typeof maasId !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(maasId)) {
    throw new Error('options.maasId must be 1 to 200 visible ASCII characters')
  }
  const apiVersion = raw.apiVersion ?? '1.6.1'
  if (typeof apiVersion !== 'string' || !/^1\.\d+(\.\d+)?$/.test(apiVersion)) {
    throw new Error(
      `options.apiVersion ${JSON.stringify(apiVersion)} is not supported: the connector speaks TOMP-API 1.x (such as "1.6.1"); 2.0 is not supported yet`,
    )
  }
  const planning = raw.planning ?? 'offers'
  if (planning !== 'offers' && planning !== 'plannings')
    throw new Error('options.planning must be "offers" or "plannings"')
  const language = raw.language ?? 'en'
  if (typeof language !== 'string' || !/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/i.test(language)) {
    throw new Error('options.language must be a language tag such as "en" or "nl-NL"')
  }
  const headers = parseHeadersOption(raw.headers)
  const logger = parseLoggerOption(raw.logger)
  return {
    url,
    ...(apiKey ? { apiKey } : {}),
    ...(token ? { token } : {}),
    maasId,
    apiVersion,
    trips: flag(raw, 'trips'),
    planning,
    prepareLeg: flag(raw, 'prepareLeg'),
    language,
    refreshSeconds: parseNumberOption(raw, 'refreshSeconds', 30, 0, 3600),
    maxStaleSeconds: parseNumberOption(raw, 'maxStaleSeconds', 300, 0, 86_400),
    timeoutMs: parseNumberOption(raw, 'timeoutMs', 10_000, 100, 120_000),
    maxFeedBytes: parseNumberOption(raw, 'maxFeedBytes', 32 * 1024 * 1024, 1024, 512 * 1024 * 1024),
    ...(headers ? { headers } : {}),
    ...(logger ? { logger } : {}),
  }
}
