import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

export interface GtfsOptions {
  /** The feed: a zip or a folder, `file:` or `http(s):` (an http folder ends with `/`). */
  url: URL
  /** GTFS-Realtime TripUpdates (a protobuf FeedMessage), `file:` or `http(s):`. */
  realtimeUrl?: URL
  realtimeRefreshSeconds: number
  /** Walking transfers between stops within this distance (1.2 m/s), besides transfers.txt. */
  transferWalkMeters: number
  /** How far a journey from or to a point walks to a stop. */
  maxWalkToStopMeters: number
  /** Trips per journey at most (RAPTOR rounds). */
  maxTrips: number
  /** Reload the static feed this often (feeds change); 0 never. */
  reloadHours: number
  /** Deadline of one download, ms. */
  timeoutMs: number
  /** Size limit of the feed, bytes. */
  maxFeedBytes: number
  /** Extra request headers (an API key), sent with every download. */
  headers?: Record<string, string>
  logger?: { warn(message: string): void }
}

const KNOWN_OPTIONS = [
  'url',
  'realtimeUrl',
  'realtimeRefreshSeconds',
  'transferWalkMeters',
  'maxWalkToStopMeters',
  'maxTrips',
  'reloadHours',
  'timeoutMs',
  'maxFeedBytes',
  'headers',
  'logger',
]

const isNumberIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max

function parseUrl(name: string, raw: unknown): URL {
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

/** Checks the options of a providers-file entry; throws with what is wrong (the provider is then UNAVAILABLE). */
export function parseGtfsOptions(raw: Record<string, unknown> = {}): GtfsOptions {
  const unknown = Object.keys(raw).filter((key) => !KNOWN_OPTIONS.includes(key))
  if (unknown.length > 0) {
    throw new Error(
      `options ${unknown.join(', ')} not known to the gtfs connector (known: ${KNOWN_OPTIONS.join(', ')})`,
    )
  }
  if (raw.url === undefined) throw new Error('options.url is required: the GTFS zip or folder, http(s): or file:')
  const url = parseUrl('url', raw.url)
  const realtimeUrl = raw.realtimeUrl === undefined ? undefined : parseUrl('realtimeUrl', raw.realtimeUrl)
  const number = (name: string, fallback: number, min: number, max: number) => {
    const value = raw[name] ?? fallback
    if (!isNumberIn(value, min, max)) throw new Error(`options.${name} must be a number from ${min} to ${max}`)
    return value
  }
  const maxTrips = number('maxTrips', 5, 1, 10)
  if (!Number.isInteger(maxTrips)) throw new Error('options.maxTrips must be an integer')
  const headers = raw.headers
  if (
    headers !== undefined &&
    (typeof headers !== 'object' ||
      headers === null ||
      Array.isArray(headers) ||
      Object.values(headers).some((v) => typeof v !== 'string'))
  ) {
    throw new Error('options.headers must be an object of strings')
  }
  const logger = raw.logger as { warn?: unknown } | undefined
  if (logger !== undefined && (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function')) {
    throw new Error('options.logger must have a warn(message) function')
  }
  return {
    url,
    ...(realtimeUrl ? { realtimeUrl } : {}),
    realtimeRefreshSeconds: number('realtimeRefreshSeconds', 30, 1, 86_400),
    transferWalkMeters: number('transferWalkMeters', 400, 0, 5000),
    maxWalkToStopMeters: number('maxWalkToStopMeters', 800, 0, 10_000),
    maxTrips,
    reloadHours: number('reloadHours', 24, 0, 576),
    timeoutMs: number('timeoutMs', 120_000, 100, 3_600_000),
    maxFeedBytes: number('maxFeedBytes', 2 * 1024 ** 3, 1024, 16 * 1024 ** 3),
    ...(headers ? { headers: headers as Record<string, string> } : {}),
    ...(logger ? { logger: logger as { warn(message: string): void } } : {}),
  }
}
