import type { ProblemLog } from '../shared/problems.ts'
import type { TransitVehicle, TransitVehicleSnapshot } from '../types/public-transport.ts'
import { display } from './client.ts'
import type { Timetable } from './engine/timetable.ts'
import { decodeVehiclePositions, joinVehicles, type VehicleSnapshot } from './vehicle-positions.ts'

/**
 * The GTFS-Realtime VehiclePositions feed of one GTFS provider (`options.vehiclePositionsUrl`), read every
 * `realtimeRefreshSeconds`. A read that fails (unreachable, HTTP error, not a feed) keeps the last good positions;
 * a position is shown only while it is younger than `maxAgeSeconds`, so a feed that stays broken empties the map
 * instead of showing vehicles where they were long ago.
 */

export interface VehicleFeedStats {
  url: string
  /** Vehicles kept from the last good read. */
  vehicles: number
  /** VehiclePosition entities of the last good read, and how many of them were skipped (see problems()). */
  entities: number
  skipped: number
  feedTimestamp?: string
  lastSuccessAt?: string
  lastError?: string
}

export interface VehicleFeedOptions {
  url: URL
  refreshSeconds: number
  /** How long a position is shown after it was measured. */
  maxAgeSeconds: number
  maxVehicles: number
  read(url: URL): Promise<Uint8Array>
  clock: () => Date
  log: ProblemLog
}

/** Positions are shown for 5 minutes, or 3 refresh intervals when that is longer. */
export const vehicleMaxAgeSeconds = (refreshSeconds: number) => Math.max(300, 3 * refreshSeconds)

export function vehicleFeed(options: VehicleFeedOptions) {
  const { url, log } = options
  const maxAgeMs = options.maxAgeSeconds * 1000
  let snapshot: VehicleSnapshot | undefined
  /** When the last good read was published (kept after its positions are let go, so its age keeps growing). */
  let published: number | undefined
  let status: { lastSuccessAt?: Date; lastError?: string } = {}
  let cycle: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  /** The snapshot joined to the timetable in use, newest first; `seq` tells joins apart for the version. */
  let joined: { tt: Timetable; snapshot: VehicleSnapshot; vehicles: TransitVehicle[]; seq: number } | undefined
  let seq = 0

  function refresh(): Promise<void> {
    if (cycle) return cycle
    cycle = (async () => {
      const scope = log.scope('vehicle positions')
      try {
        const bytes = await options.read(url)
        snapshot = decodeVehiclePositions(bytes, {
          readAt: options.clock().getTime(),
          maxAgeMs,
          maxVehicles: options.maxVehicles,
          report: scope.report,
        })
        status = { lastSuccessAt: options.clock() }
        published = snapshot.timestamp
      } catch (error) {
        // The last good positions stay (until they are too old).
        status = { ...status, lastError: (error as Error).message }
        log.add(`vehicle positions ${display(url)}: ${(error as Error).message}`)
      } finally {
        scope.flush()
      }
    })().finally(() => {
      cycle = undefined
    })
    return cycle
  }

  return {
    refresh,
    async start(): Promise<void> {
      await refresh()
      if (stopped || timer) return
      timer = setInterval(() => void refresh(), options.refreshSeconds * 1000)
      timer.unref()
    },
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearInterval(timer)
      timer = undefined
      await cycle
    },

    /** The vehicles measured within maxAgeSeconds before `now`. */
    vehicles(tt: Timetable, now: Date): TransitVehicleSnapshot {
      if (!snapshot) return { version: 'none', vehicles: [] }
      if (!joined || joined.tt !== tt || joined.snapshot !== snapshot) {
        const scope = log.scope('vehicle positions')
        joined = { tt, snapshot, vehicles: joinVehicles(tt, snapshot, scope.report), seq: ++seq }
        scope.flush()
      }
      // Newest first: the ones still fresh are a prefix, and its length tells the lists of one join apart.
      const cutoff = now.getTime() - maxAgeMs
      const all = joined.vehicles
      let fresh = all.length
      while (fresh > 0 && all[fresh - 1].lastUpdated.getTime() < cutoff) fresh--
      if (fresh === 0 && status.lastSuccessAt && status.lastSuccessAt.getTime() < cutoff) {
        // Everything aged out and no read has succeeded since: let go of the snapshot.
        snapshot = undefined
        joined = undefined
      }
      return { version: `${seq}:${fresh}`, vehicles: fresh === all.length ? all : all.slice(0, fresh) }
    },

    stats(): VehicleFeedStats {
      return {
        url: display(url),
        vehicles: snapshot?.vehicles.length ?? 0,
        entities: snapshot?.entities ?? 0,
        skipped: snapshot?.skipped ?? 0,
        ...(snapshot ? { feedTimestamp: new Date(snapshot.timestamp).toISOString() } : {}),
        ...(status.lastSuccessAt ? { lastSuccessAt: status.lastSuccessAt.toISOString() } : {}),
        ...(status.lastError ? { lastError: status.lastError } : {}),
      }
    },

    /** Seconds since the last good read was published; undefined before the first one. */
    ageSeconds: (now: Date): number | undefined =>
      published === undefined ? undefined : (now.getTime() - published) / 1000,
  }
}

export type VehicleFeed = ReturnType<typeof vehicleFeed>
