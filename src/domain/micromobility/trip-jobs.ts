import { classifyFailure } from '../../connectors/resilience.ts'
import { ApiError, isApiError } from '../../contract/errors.ts'
import type { TripAction } from '../../contract/micromobility.ts'
import { type JobHandler, type JobHandlers, PermanentJobError } from '../../platform/jobs.ts'
import type { TripRow } from '../../store/schema.ts'
import type { TripsRepo } from '../../store/trips-repo.ts'
import type { Caller } from '../providers/calls.ts'
import {
  JOB_ACTION,
  JOB_ERASE,
  JOB_EXPIRE,
  JOB_RECORD_TRIP,
  JOB_UNDO_TRIP,
  type RecordTrip,
  type TripCore,
  type TripsDeps,
  type UndoTrip,
} from './trip-core.ts'

/** The jobs of trips, by kind: vehicle actions, reservation expiry, erasure of the rider's location, follow-ups. */
export function tripJobHandlers(deps: TripsDeps, core: TripCore): JobHandlers {
  const { clock } = deps
  const { repo, providerOf, tripsOf, call, expireIfDue, recordTrip, undoTrip } = core

  /** Runs a queued vehicle action; the trip's state follows only what the vehicle did. */
  const vehicleAction: JobHandler = async (payload, job) => {
    const { tripId, action, acceptedAt } = payload as { tripId: string; action: TripAction; acceptedAt: string }
    const row = await repo.findById(tripId)
    if (!row) throw new PermanentJobError(`trip ${tripId} is gone`)
    const tenant = await deps.tenants.findTenant(row.tenantId)
    if (!tenant) throw new PermanentJobError(`tenant of trip ${tripId} is gone`)
    const caller: Caller = {
      tenant,
      environment: row.environment,
      language: tenant.defaultLanguage,
      now: clock(),
      scenarios: (payload.scenarios as Caller['scenarios']) ?? [],
    }
    // The vehicle's answer is recorded on the trip as it is now (it may have changed while the command ran).
    const finish = async (
      status: 'EXECUTED' | 'FAILED',
      changes: (current: TripRow) => Parameters<TripsRepo['update']>[1] = () => ({}),
      error?: string,
      definitive = false,
    ) => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const current = await repo.findById(tripId)
        if (!current) return
        const d = current.details
        const lastAction = {
          action,
          status,
          acceptedAt,
          executedAt: clock().toISOString(),
          ...(error ? { error } : {}),
          ...(definitive ? { retryable: false as const } : {}),
        }
        const stillCurrent = d.lastAction?.acceptedAt === acceptedAt && d.lastAction?.action === action
        const updated = await repo.update(
          current,
          {
            ...changes(current),
            ...(stillCurrent ? { details: { ...d, lastAction } } : {}),
          },
          clock(),
        )
        if (updated) return
      }
    }
    const allowed =
      action === 'LOCK'
        ? row.status === 'ACTIVE'
        : action === 'UNLOCK'
          ? row.status === 'PAUSED'
          : row.status === 'RESERVED' || row.status === 'ACTIVE'
    if (!allowed) return void (await finish('FAILED', undefined, `INVALID_TRIP_STATE: the trip is ${row.status}`))
    const p = providerOf(caller, row)
    try {
      await call(caller, p, 'command', (_c, ctx) => tripsOf(p).command(row.providerReference!, action, ctx))
    } catch (error) {
      if (error instanceof ApiError && error.code === 'PROVIDER_ERROR') {
        return void (await finish(
          'FAILED',
          undefined,
          `PROVIDER_ERROR: ${String(error.details?.reason ?? 'the vehicle rejected the command')}`,
          error.details?.retryable === false,
        ))
      }
      // Any other refusal (an unknown trip at the provider, say) is the same answer on every attempt: recorded, not
      // retried. Faults (a timeout, an outage) are left to the job's retries.
      if (error instanceof ApiError && classifyFailure(error) === 'refusal') {
        return void (await finish('FAILED', undefined, `${error.code}: ${String(error.details?.reason ?? error.code)}`))
      }
      // The last try of a command that kept failing (timeouts, an outage): the vehicle did not do it, and the trip
      // says so (and micromobility.action.failed announces it) rather than show it queued for ever.
      if (job.attempt >= job.maxAttempts) {
        const code = isApiError(error) ? error.code : 'INTERNAL_ERROR'
        return void (await finish(
          'FAILED',
          undefined,
          `${code}: ${String(isApiError(error) ? (error.details?.reason ?? code) : 'the command could not be sent')}`,
        ))
      }
      throw error
    }
    const now = clock()
    if (action === 'LOCK')
      await finish('EXECUTED', (t) => (t.status === 'ACTIVE' ? { status: 'PAUSED', pausedSince: now } : {}))
    else if (action === 'UNLOCK') {
      await finish('EXECUTED', (t) =>
        t.status === 'PAUSED'
          ? {
              status: 'ACTIVE',
              pausedSince: null,
              pausedMs: t.pausedMs + Math.max(0, t.pausedSince ? now.getTime() - t.pausedSince.getTime() : 0),
            }
          : {},
      )
    } else await finish('EXECUTED')
  }

  const expire: JobHandler = async (payload) => {
    const row = await repo.findById(String(payload.tripId))
    if (!row || row.status !== 'RESERVED') return
    const tenant = await deps.tenants.findTenant(row.tenantId)
    if (!tenant) return
    await expireIfDue({ tenant, environment: row.environment, language: 'en', now: clock(), scenarios: [] }, row)
  }

  const erase: JobHandler = async (payload) => {
    const row = await repo.findById(String(payload.tripId))
    if (!row?.userLocation || !row.userLocationUntil || row.userLocationUntil.getTime() > clock().getTime()) return
    // The rider's position was also the start location: the vehicle's own position replaces it.
    const d = row.details
    await repo.update(
      row,
      {
        userLocation: null,
        userLocationUntil: null,
        details: { ...d, startLocation: d.vehicleStartLocation },
      },
      clock(),
    )
  }

  return {
    [JOB_RECORD_TRIP]: (payload: RecordTrip) => recordTrip(payload),
    [JOB_UNDO_TRIP]: (payload: UndoTrip) => undoTrip(payload),
    [JOB_ACTION]: vehicleAction,
    [JOB_EXPIRE]: expire,
    [JOB_ERASE]: erase,
  }
}
