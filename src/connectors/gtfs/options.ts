import { type StaticDecode, Type } from 'typebox'
import { feedOptions, feedUrl, integerIn, numberIn, parseOptions } from '../shared/options.ts'

/** The options of a `gtfs` providers-file entry (DECISIONS "Providers file"). */
export const GtfsOptionsSchema = Type.Object({
  /** The feed: a zip or a folder, `file:` or `http(s):` (an http folder ends with `/`). */
  url: feedUrl('is required: the GTFS zip or folder, http(s): or file:'),
  /** GTFS-Realtime TripUpdates (a protobuf FeedMessage), `file:` or `http(s):`. */
  realtimeUrl: Type.Optional(feedUrl()),
  /** GTFS-Realtime service alerts (a protobuf FeedMessage), `file:` or `http(s):`, read every realtimeRefreshSeconds. */
  alertsUrl: Type.Optional(feedUrl()),
  /** GTFS-Realtime VehiclePositions, `file:` or `http(s):`. */
  vehiclePositionsUrl: Type.Optional(feedUrl()),
  /** How often the realtime feeds are read. */
  realtimeRefreshSeconds: numberIn(1, 86_400, 30),
  /** Walking transfers between stops within this distance (1.2 m/s), besides transfers.txt. */
  transferWalkMeters: numberIn(0, 5000, 400),
  /** How far a journey from or to a point walks to a stop. */
  maxWalkToStopMeters: numberIn(0, 10_000, 800),
  /** Trips per journey at most (RAPTOR rounds). */
  maxTrips: integerIn(1, 10, 5),
  /** Reload the static feed this often (feeds change); 0 never. */
  reloadHours: numberIn(0, 576, 24),
  // One download of the feed may take long and be large; headers (an API key) are sent with every download.
  ...feedOptions(
    { fallback: 120_000, min: 100, max: 3_600_000 },
    { fallback: 2 * 1024 ** 3, min: 1024, max: 16 * 1024 ** 3 },
  ),
})

export type GtfsOptions = StaticDecode<typeof GtfsOptionsSchema>

/** Checks the options of a providers-file entry; throws with every problem (the provider is then UNAVAILABLE). */
export const parseGtfsOptions = (raw: Record<string, unknown> = {}, providerId?: string): GtfsOptions =>
  parseOptions(GtfsOptionsSchema, raw, { connector: 'gtfs', providerId })
