import { permanentProviderError } from '../../connectors/refusals.ts'
import type { Registry } from '../../connectors/registry.ts'
import type { Provider } from '../../connectors/types/common.ts'
import { isMicromobilityConnector, type MicromobilityConnector } from '../../connectors/types/micromobility.ts'
import type { Environment } from '../../contract/access.ts'
import { ApiError } from '../../contract/errors.ts'
import type { TripRequest } from '../../contract/micromobility.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { Jobs, JobsLogger } from '../../platform/jobs.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { TripRow } from '../../store/schema.ts'
import type { TenantsRepo } from '../../store/tenants-repo.ts'
import type { TripChanges, TripsRepo } from '../../store/trips-repo.ts'
import { createFollowUps, jobCaller, notRecorded, recordLater, retryWrite } from '../after-confirm.ts'
import type { Publish } from '../event-publishing.ts'
import { type Caller, type CallProvider, requireProvider } from '../providers/calls.ts'
import { notFoundOrOtherEnvironment } from '../token-diagnosis.ts'
import { tripEventData, tripEvents } from './trip-events.ts'
import { presentTrip, type TripDetails } from './trip-view.ts'
import type { VehicleTokens } from './vehicle-tokens.ts'
import type { MicromobilityVehicles } from './vehicles.ts'

const USER_LOCATION_RETENTION_MS = 24 * 3600 * 1000
const PROVIDER_BUDGET_MS = 10_000

export const JOB_ACTION = 'micromobility.vehicle-action'
export const JOB_EXPIRE = 'micromobility.reservation-expiry'
export const JOB_ERASE = 'micromobility.erase-user-location'
export const JOB_UNDO_TRIP = 'micromobility.undo-trip'
export const JOB_RECORD_TRIP = 'micromobility.record-trip'

/** A reservation or ride the provider began but the service could not record: released or ended at once. */
export interface UndoTrip {
  tripId: string
  tenantId: string
  environment: Environment
  providerId: string
  reference: string
  undo: 'release' | 'end'
}

/** A transition the provider made (start of a reservation, end, cancel) whose record is written later. */
export interface RecordTrip {
  tripId: string
  /** The status the transition started from: a trip that moved on since is left alone. */
  from: TripRow['status']
  changes: Record<string, unknown>
  details?: Partial<TripDetails>
}

/** The time columns of a trip, which a job's JSON payload carries as ISO strings. */
const TIME_COLUMNS = ['reservedUntil', 'startedAt', 'endedAt', 'pausedSince', 'userLocationUntil'] as const
const reviveChanges = (changes: Record<string, unknown>): TripChanges => {
  const revived: Record<string, unknown> = { ...changes }
  for (const column of TIME_COLUMNS)
    if (typeof revived[column] === 'string') revived[column] = new Date(revived[column] as string)
  return revived as TripChanges
}

export interface TripsDeps {
  registry: Registry
  callProvider: CallProvider
  repo: TripsRepo
  vehicles: MicromobilityVehicles
  vehicleTokens: VehicleTokens
  jobs: Jobs
  tenants: TenantsRepo
  clock: () => Date
  log: JobsLogger
  /** Seals the cursors of the trips list. */
  tokens: TokenCipher
  /** Status changes once recorded (micromobility.trip.*, micromobility.action.failed). */
  publish: Publish
}

export type MicroProvider = Provider & { connector: MicromobilityConnector }
export const invalidState = (row: TripRow, expected: string) =>
  new ApiError('INVALID_REQUEST', undefined, { reason: 'INVALID_TRIP_STATE', status: row.status, expected })
// Spec 7.1 answers 500 PROVIDER_ERROR for a trip that already ended; no retry can change that, and the answer says so.
export const ended = (row: TripRow) =>
  permanentProviderError('TRIP_ENDED', undefined, { tripId: row.id, status: row.status })

/**
 * What trip requests (trips.ts) and trip jobs (trip-jobs.ts) share: the stored trips, each write announced once, the
 * provider's trips, and the follow-ups of a transition the provider made.
 */
export function createTripCore(deps: TripsDeps) {
  const { clock } = deps

  /** Announces what a recorded change of a trip means (trip-events.ts), as the trip's tenant has its data kept. */
  const announce = async (before: TripRow, after: TripRow) => {
    const types = tripEvents(before, after)
    if (types.length === 0) return
    const tenant = await deps.tenants.findTenant(after.tenantId).catch(() => undefined)
    if (!tenant) return deps.log.warn({ tripId: after.id, events: types }, 'trip events not published: tenant unknown')
    for (const type of types) await deps.publish(type, tenant, after.environment, tripEventData(type, after, clock()))
  }
  /**
   * Every write of a trip is a compare-and-set: the one that lands announces the change it made, once, whichever
   * path made it (a request, the expiry, a vehicle command's job, a write left to a job).
   */
  const repo: TripsRepo = {
    ...deps.repo,
    update: async (row, changes, at) => {
      const updated = await deps.repo.update(row, changes, at)
      // The write landed: nothing about its announcement may make a caller (or retryWrite) think otherwise.
      if (updated)
        await announce(row, updated).catch((error: unknown) =>
          deps.log.error({ err: error, tripId: row.id }, 'trip events not published'),
        )
      return updated
    },
  }
  const providerOf = (caller: Caller, row: TripRow) =>
    requireProvider(deps.registry, caller, row.providerId, isMicromobilityConnector) as MicroProvider
  const tripsOf = (p: MicroProvider) => {
    if (!p.connector.trips)
      throw new ApiError('OPERATION_NOT_SUPPORTED', undefined, { providerId: p.entry.id, operation: 'TRIPS' })
    return p.connector.trips
  }
  const call = <T>(
    caller: Caller,
    p: MicroProvider,
    op: string,
    fn: (c: MicromobilityConnector, ctx: Parameters<MicromobilityConnector['fleet']>[0]) => Promise<T>,
  ) => deps.callProvider(caller, p, op, PROVIDER_BUDGET_MS, fn)

  const present = presentTrip

  /**
   * Saves a transition as compare-and-set. When something else touched the trip meanwhile (a vehicle action's result,
   * on any instance) but its status is still the one this transition started from, it is applied to the fresh row;
   * a status change in between fails cleanly instead of both winning.
   */
  const save = async (
    row: TripRow,
    changes: Parameters<TripsRepo['update']>[1],
    details?: Partial<TripDetails>,
    /** Set when the provider made the transition already: a store that keeps failing leaves it to a job. */
    afterProvider = false,
  ) => {
    let current = row
    for (let attempt = 0; attempt < 5; attempt++) {
      const base = current
      const merged = details ? { ...changes, details: { ...base.details, ...details } } : changes
      let updated: TripRow | undefined
      try {
        updated = await retryWrite(() => repo.update(base, merged, clock()))
      } catch (error) {
        if (!afterProvider) throw error
        deps.log.warn({ err: error, tripId: row.id }, 'trip transition not recorded; a job records it')
        const job: RecordTrip = {
          tripId: row.id,
          from: row.status,
          changes: JSON.parse(JSON.stringify(changes)),
          ...(details ? { details: JSON.parse(JSON.stringify(details)) } : {}),
        }
        // The provider repeats a start, end or release it made already, so the client's retry records it.
        await recordLater(followUp, JOB_RECORD_TRIP, { tripId: row.id }, job, recordTrip)
        // Answered as it now stands at the provider; the stored trip follows as soon as the store takes the write.
        return { ...base, ...merged, updatedAt: clock() } as TripRow
      }
      if (updated) return updated
      const fresh = await repo.findById(row.id)
      if (!fresh || fresh.status !== row.status) break
      current = fresh
    }
    throw new ApiError('INVALID_REQUEST', undefined, { reason: 'CONCURRENT_CHANGE', tripId: row.id, retryable: true })
  }

  const followUp = createFollowUps({ jobs: deps.jobs, clock, log: deps.log })

  async function recordTrip(job: RecordTrip) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await repo.findById(job.tripId)
      if (!current || current.status !== job.from) return
      const changes = reviveChanges(job.changes)
      const updated = await repo.update(
        current,
        job.details ? { ...changes, details: { ...current.details, ...job.details } } : changes,
        clock(),
      )
      if (updated) return
    }
    throw new Error(`trip ${job.tripId} kept changing while its transition was recorded`)
  }

  /**
   * Releases or ends at the provider what the service could not record, unless the record was written after all
   * (not looked up when the request does it itself, its store being down).
   */
  async function undoTrip(job: UndoTrip, lookUp = true) {
    if (lookUp && (await repo.findById(job.tripId))) return
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, clock())
    const p = requireProvider(deps.registry, caller, job.providerId, isMicromobilityConnector) as MicroProvider
    const trips = tripsOf(p)
    await call(caller, p, job.undo, (_c, ctx) =>
      job.undo === 'release'
        ? trips.release(job.reference, ctx)
        : trips.end(job.reference, undefined, ctx).then(() => {}),
    ).catch((error: unknown) => {
      if (!(error instanceof ApiError) || error.code !== 'NOT_FOUND') throw error
    })
  }

  /**
   * Writes a new trip after the provider reserved or started it, with retries; when the store keeps failing, the
   * provider's side is undone at once (a job, run here and now), so the vehicle is free for the client's retry.
   */
  const insertTrip = (
    caller: Caller,
    p: MicroProvider,
    row: Parameters<TripsRepo['insert']>[0],
    undo: UndoTrip['undo'],
  ) =>
    retryWrite(
      () => repo.insert(row),
      () => repo.findById(row.id!),
    ).catch(async (error: unknown): Promise<never> => {
      deps.log.error({ err: error, providerId: p.entry.id, reference: row.providerReference }, 'trip not recorded')
      const job: UndoTrip = {
        tripId: row.id!,
        tenantId: caller.tenant.id,
        environment: caller.environment,
        providerId: p.entry.id,
        reference: row.providerReference!,
        undo,
      }
      await followUp(
        JOB_UNDO_TRIP,
        `undo_trip_${row.id}`,
        { ...job },
        { delayMs: 0, inline: () => undoTrip(job, false) },
      )
      throw notRecorded({ vehicleToken: detail('STILL_USABLE_RETRY') })
    })

  /** Work that follows a recorded trip (expiry, erasure) never fails the answer: the trip is recorded. */
  const schedule = (work: Promise<unknown>, tripId: string) =>
    work.catch((error: unknown) => deps.log.warn({ err: error, tripId }, 'could not schedule a trip job'))

  /** A reservation whose window ran out becomes CANCELLED (RESERVATION_EXPIRED) and its vehicle is released. */
  async function expireIfDue(caller: Caller, row: TripRow): Promise<TripRow> {
    const now = caller.now
    if (row.status !== 'RESERVED' || !row.reservedUntil || row.reservedUntil.getTime() > now.getTime()) return row
    const p = providerOf(caller, row)
    if (row.providerReference)
      await call(caller, p, 'release', (c, ctx) => tripsOf(p).release(row.providerReference!, ctx)).catch(() => {})
    const updated = await repo.update(
      row,
      {
        status: 'CANCELLED',
        details: {
          ...row.details,
          cancelledAt: row.reservedUntil.toISOString(),
          cancellationReason: 'RESERVATION_EXPIRED',
        },
      },
      now,
    )
    return updated ?? (await repo.findById(row.id))!
  }

  async function load(caller: Caller, tripId: string): Promise<TripRow> {
    const wellFormed = /^trp_[A-Za-z0-9]{16}$/.test(tripId)
    const row = wellFormed ? await repo.find(caller.tenant.id, caller.environment, tripId) : undefined
    if (!row) {
      throw await notFoundOrOtherEnvironment(
        'NOT_FOUND',
        { resource: 'trip', tripId },
        caller.environment,
        async (env) => wellFormed && (await repo.find(caller.tenant.id, env, tripId)) !== undefined,
      )
    }
    return expireIfDue(caller, row)
  }

  const pick = (l: { latitude: number; longitude: number }) => ({ latitude: l.latitude, longitude: l.longitude })
  const userLocation = (request: TripRequest, now: Date) =>
    request.userLocation
      ? { userLocation: request.userLocation, userLocationUntil: new Date(now.getTime() + USER_LOCATION_RETENTION_MS) }
      : {}
  const scheduleErase = async (row: TripRow) => {
    if (row.userLocationUntil)
      await schedule(
        deps.jobs.enqueue(JOB_ERASE, { tripId: row.id }, { runAt: row.userLocationUntil, id: `job_erase_${row.id}` }),
        row.id,
      )
  }

  const kick = () => {
    // Actions run as jobs (once across instances); start this instance's runner now instead of at its next poll.
    setImmediate(() => void deps.jobs.runDue().catch(() => {}))
  }

  return {
    repo,
    providerOf,
    tripsOf,
    call,
    present,
    save,
    recordTrip,
    undoTrip,
    insertTrip,
    schedule,
    expireIfDue,
    load,
    pick,
    userLocation,
    scheduleErase,
    kick,
  }
}

export type TripCore = ReturnType<typeof createTripCore>
