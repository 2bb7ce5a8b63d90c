import {
  checkKnownOptions,
  FEED_OPTION_NAMES,
  type FeedLogger,
  parseFeedUrl,
  parseHeadersOption,
  parseLoggerOption,
  parseNumberOption,
} from '../feed-options.ts'

export interface GtfsOptions {
  /** The feed: a zip or a folder, `file:` or `http(s):` (an http folder ends with `/`). */
  url: URL
  /** GTFS-Realtime TripUpdates (a protobuf FeedMessage), `file:` or `http(s):`. */
  realtimeUrl?: URL
  /** GTFS-Realtime service alerts (a protobuf FeedMessage), `file:` or `http(s):`, read every realtimeRefreshSeconds. */
  alertsUrl?: URL
  /** GTFS-Realtime VehiclePositions, `file:` or `http(s):`. */
  vehiclePositionsUrl?: URL
  /** How often the realtime feeds are read. */
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
  logger?: FeedLogger
}

const KNOWN_OPTIONS = [
  'url',
  'realtimeUrl',
  'alertsUrl',
  'vehiclePositionsUrl',
  'realtimeRefreshSeconds',
  'transferWalkMeters',
  'maxWalkToStopMeters',
  'maxTrips',
  'reloadHours',
  ...FEED_OPTION_NAMES,
]

/** Checks the options of a providers-file entry; throws with what is wrong (the provider is then UNAVAILABLE). */
export function parseGtfsOptions(raw: Record<string, unknown> = {}): GtfsOptions {
  checkKnownOptions(raw, KNOWN_OPTIONS, 'gtfs')
  if (raw.url === undefined) throw new Error('options.url is required: the GTFS zip or folder, http(s): or file:')
  const url = parseFeedUrl('url', raw.url)
  const realtimeUrl = raw.realtimeUrl === undefined ? undefined : parseFeedUrl('realtimeUrl', raw.realtimeUrl)
  const alertsUrl = raw.alertsUrl === undefined ? undefined : parseFeedUrl('alertsUrl', raw.alertsUrl)
  const vehiclePositionsUrl =
    raw.vehiclePositionsUrl === undefined ? undefined : parseFeedUrl('vehiclePositionsUrl', raw.vehiclePositionsUrl)
  const number = (name: string, fallback: number, min: number, max: number) =>
    parseNumberOption(raw, name, fallback, min, max)
  const maxTrips = number('maxTrips', 5, 1, 10)
  if (!Number.isInteger(maxTrips)) throw new Error('options.maxTrips must be an integer')
  const headers = parseHeadersOption(raw.headers)
  const logger = parseLoggerOption(raw.logger)
  return {
    url,
    ...(realtimeUrl ? { realtimeUrl } : {}),
    ...(alertsUrl ? { alertsUrl } : {}),
    ...(vehiclePositionsUrl ? { vehiclePositionsUrl } : {}),
    realtimeRefreshSeconds: number('realtimeRefreshSeconds', 30, 1, 86_400),
    transferWalkMeters: number('transferWalkMeters', 400, 0, 5000),
    maxWalkToStopMeters: number('maxWalkToStopMeters', 800, 0, 10_000),
    maxTrips,
    reloadHours: number('reloadHours', 24, 0, 576),
    timeoutMs: number('timeoutMs', 120_000, 100, 3_600_000),
    maxFeedBytes: number('maxFeedBytes', 2 * 1024 ** 3, 1024, 16 * 1024 ** 3),
    ...(headers ? { headers } : {}),
    ...(logger ? { logger } : {}),
  }
}
