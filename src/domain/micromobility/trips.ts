import { randomBytes } from 'node:crypto'
import type { Trip, TripAction, TripRequest } from '../../api/micromobility/schemas.ts'
import { permanentProviderError } from '../../connectors/refusals.ts'
import type { Registry } from '../../connectors/registry.ts'
import { classifyFailure } from '../../connectors/resilience.ts'
import { isMicromobilityConnector, type MicromobilityConnector, type Provider } from '../../connectors/types.ts'
import { ApiError, isApiError } from '../../http/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { type Jobs, type JobsLogger, PermanentJobError } from '../../platform/jobs.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { TripRow } from '../../store/schema.ts'
import type { TenantsRepo } from '../../store/tenants-repo.ts'
import type { TripChanges, TripsRepo } from '../../store/trips-repo.ts'
import { createFollowUps, jobCaller, notRecorded, recordJobId, retryWrite } from '../after-confirm.ts'
import type { Publish } from '../event-publishing.ts'
import { type Caller, type CallProvider, requireProvider } from '../providers/calls.ts'
import type { Environment } from '../tenants/permissions.ts'
import { notFoundOrOtherEnvironment } from '../token-diagnosis.ts'
import { tripEventData, tripEvents } from './trip-events.ts'
import { listTrips, type TripListQuery } from './trip-list.ts'
import { minutesOf, presentTrip, priceBreakdown, type TripDetails } from './trip-view.ts'
import type { VehicleTokens } from './vehicle-tokens.ts'
import type { MicromobilityVehicles } from './vehicles.ts'

const USER_LOCATION_RETENTION_MS = 24 * 3600 * 1000
const PROVIDER_BUDGET_MS = 10_000
/** How long a vehicle action waits for the vehicle's answer before it answers 202 with the command queued. */
const ACTION_WAIT_MS = 2000
const ACTION_POLL_MS = 20

export const JOB_ACTION = 'micromobility.vehicle-action'
export const JOB_EXPIRE = 'micromobility.reservation-expiry'
export const JOB_ERASE = 'micromobility.erase-user-location'
export const JOB_UNDO_TRIP = 'micromobility.undo-trip'
export const JOB_RECORD_TRIP = 'micromobility.record-trip'

/** A reservation or ride the provider began but the service could not record: released or ended at once. */
interface UndoTrip {
  tripId: string
  tenantId: string
  environment: Environment
  providerId: string
  reference: string
  undo: 'release' | 'end'
}

/** A transition the provider made (start of a reservation, end, cancel) whose record is written later. */
interface RecordTrip {
  tripId: string
  /** The status the transition started from: a trip that moved on since is left alone. */
  from: TripRow['status']
  changes: Record<string, unknown>
  details?: Record<string, unknown>
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

type MicroProvider = Provider & { connector: MicromobilityConnector }
const invalidState = (row: TripRow, expected: string) =>
  new ApiError('INVALID_REQUEST', undefined, { reason: 'INVALID_TRIP_STATE', status: row.status, expected })
// Spec 7.1 answers 500 PROVIDER_ERROR for a trip that already ended; no retry can change that, and the answer says so.
const ended = (row: TripRow) => permanentProviderError('TRIP_ENDED', undefined, { tripId: row.id, status: row.status })

/** The trip state machine of spec 3.1 over stored trips, with provider commands through the connector. */
export function createMicromobilityTrips(deps: TripsDeps) {
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
      const merged = details
        ? { ...changes, details: { ...(base.details as object), ...details } as Record<string, unknown> }
        : changes
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
        const outcome = await followUp(
          JOB_RECORD_TRIP,
          recordJobId(row.id),
          { ...job },
          {
            delayMs: 0,
            inline: () => recordTrip(job),
          },
        )
        // The provider repeats a start, end or release it made already, so the client's retry records it.
        if (outcome === 'failed') throw notRecorded({ tripId: row.id })
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
        job.details ? { ...changes, details: { ...(current.details as object), ...job.details } } : changes,
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

  deps.jobs.register<RecordTrip>(JOB_RECORD_TRIP, (payload) => recordTrip(payload))
  deps.jobs.register<UndoTrip>(JOB_UNDO_TRIP, (payload) => undoTrip(payload))

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
          ...(row.details as object),
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

  const rider = (r: TripRequest) => ({ email: r.userEmail, name: r.userName })

  async function begin(caller: Caller, request: TripRequest, action: 'RESERVE' | 'START'): Promise<TripRow> {
    if (!request.vehicleToken)
      throw new ApiError('INVALID_REQUEST', undefined, {
        vehicleToken: detail('REQUIRED_WITHOUT_RESERVATION', { action }),
      })
    // Spec 7.1: on trips an expired or invalid vehicle token is 404 NOT_FOUND (400 OFFER_EXPIRED is GET vehicle's).
    const claim = deps.vehicleTokens.open(caller, request.vehicleToken, 'vehicleToken', 'NOT_FOUND')
    const { provider, vehicle } = await deps.vehicles.resolve(caller, claim.p, claim.v)
    const p = provider as MicroProvider
    const trips = tripsOf(p)
    if (request.scannedQrCode !== undefined && request.scannedQrCode !== vehicle.qrCode) {
      throw new ApiError('VEHICLE_MISMATCH', undefined, {
        scannedQrCode: request.scannedQrCode,
        vehicleId: vehicle.vehicleId,
      })
    }
    const id = `trp_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x').slice(0, 16)}`
    const details: TripDetails = {
      providerName: p.entry.name,
      vehicle: { type: vehicle.type, propulsionType: vehicle.propulsionType, name: vehicle.name },
      qrCode: vehicle.qrCode,
      pricingPlan: vehicle.pricingPlan,
    }
    const now = caller.now
    if (action === 'RESERVE') {
      const { reference } = await call(caller, p, 'reserve', (_c, ctx) =>
        trips.reserve(vehicle.vehicleId, rider(request), ctx),
      )
      const reservedUntil = new Date(now.getTime() + caller.tenant.reservationWindowSeconds * 1000)
      const row = await insertTrip(
        caller,
        p,
        {
          id,
          tenantId: caller.tenant.id,
          environment: caller.environment,
          providerId: p.entry.id,
          providerReference: reference,
          vehicleId: vehicle.vehicleId,
          status: 'RESERVED',
          details: { ...details, reservedAt: now.toISOString() } as unknown as Record<string, unknown>,
          reservedUntil,
          // The service's clock, as every later write uses (the list's order, newest first).
          createdAt: now,
          updatedAt: now,
        },
        'release',
      )
      await deps.publish('micromobility.trip.reserved', caller.tenant, caller.environment, present(row, now))
      await schedule(
        deps.jobs.enqueue(JOB_EXPIRE, { tripId: id }, { runAt: reservedUntil, id: `job_expire_${id}` }),
        id,
      )
      return row
    }
    const started = await call(caller, p, 'start', (_c, ctx) =>
      trips.start(vehicle.vehicleId, undefined, rider(request), ctx),
    )
    const row = await insertTrip(
      caller,
      p,
      {
        id,
        tenantId: caller.tenant.id,
        environment: caller.environment,
        providerId: p.entry.id,
        providerReference: started.reference,
        vehicleId: vehicle.vehicleId,
        status: 'ACTIVE',
        details: {
          ...details,
          startLocation: request.userLocation ? pick(request.userLocation) : started.location,
          vehicleStartLocation: started.location,
        } as unknown as Record<string, unknown>,
        startedAt: now,
        ...userLocation(request, now),
        createdAt: now,
        updatedAt: now,
      },
      'end',
    )
    await deps.publish('micromobility.trip.started', caller.tenant, caller.environment, present(row, now))
    await scheduleErase(row)
    return row
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

  /** Runs a queued vehicle action; the trip's state follows only what the vehicle did. */
  deps.jobs.register(JOB_ACTION, async (payload, job) => {
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
        const d = current.details as unknown as TripDetails
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
            ...(stillCurrent ? { details: { ...d, lastAction } as unknown as Record<string, unknown> } : {}),
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
  })

  deps.jobs.register(JOB_EXPIRE, async (payload) => {
    const row = await repo.findById(String(payload.tripId))
    if (!row || row.status !== 'RESERVED') return
    const tenant = await deps.tenants.findTenant(row.tenantId)
    if (!tenant) return
    await expireIfDue({ tenant, environment: row.environment, language: 'en', now: clock(), scenarios: [] }, row)
  })

  deps.jobs.register(JOB_ERASE, async (payload) => {
    const row = await repo.findById(String(payload.tripId))
    if (!row?.userLocation || !row.userLocationUntil || row.userLocationUntil.getTime() > clock().getTime()) return
    // The rider's position was also the start location: the vehicle's own position replaces it.
    const d = row.details as unknown as TripDetails
    await repo.update(
      row,
      {
        userLocation: null,
        userLocationUntil: null,
        details: { ...d, startLocation: d.vehicleStartLocation } as unknown as Record<string, unknown>,
      },
      clock(),
    )
  })

  return {
    async create(request: TripRequest, caller: Caller): Promise<Trip> {
      if (request.action === 'RESERVE') {
        if (request.tripId)
          throw new ApiError('INVALID_REQUEST', undefined, { tripId: detail('ONLY_FOR_START_OF_RESERVED') })
        return present(await begin(caller, request, 'RESERVE'), caller.now)
      }
      if (!request.tripId) return present(await begin(caller, request, 'START'), caller.now)
      const row = await load(caller, request.tripId)
      if (row.status === 'COMPLETED' || row.status === 'CANCELLED') throw ended(row)
      if (row.status !== 'RESERVED') throw invalidState(row, 'RESERVED')
      const d = row.details as unknown as TripDetails
      if (request.scannedQrCode !== undefined && request.scannedQrCode !== d.qrCode) {
        throw new ApiError('VEHICLE_MISMATCH', undefined, {
          scannedQrCode: request.scannedQrCode,
          vehicleId: row.vehicleId,
        })
      }
      // A vehicle token sent along must be for the reserved vehicle, as a scanned code must.
      if (request.vehicleToken !== undefined) {
        const claim = deps.vehicleTokens.open(caller, request.vehicleToken, 'vehicleToken', 'NOT_FOUND')
        if (claim.p !== row.providerId || claim.v !== row.vehicleId) {
          throw new ApiError('VEHICLE_MISMATCH', undefined, {
            vehicleToken: detail('FOR_ANOTHER_VEHICLE_THAN_RESERVED'),
            vehicleId: row.vehicleId,
          })
        }
      }
      const p = providerOf(caller, row)
      const started = await call(caller, p, 'start', (_c, ctx) =>
        tripsOf(p).start(row.vehicleId, row.providerReference ?? undefined, rider(request), ctx),
      ).catch(async (error: unknown) => {
        // The provider let the hold go before our window ran out: the reservation is over, as if it had expired,
        // so the trip says so (CANCELLED) and the answer is that of a trip that already ended (spec 7.1).
        if (!(error instanceof ApiError) || error.details?.reason !== 'RESERVATION_ENDED') throw error
        const cancelled = await repo.update(
          row,
          {
            status: 'CANCELLED',
            details: {
              ...(row.details as object),
              cancelledAt: caller.now.toISOString(),
              cancellationReason: 'RESERVATION_EXPIRED',
            },
          },
          caller.now,
        )
        // A concurrent cancel that got there first stands (the version moved): the trip as stored says so.
        throw ended(cancelled ?? (await repo.findById(row.id)) ?? row)
      })
      const updated = await save(
        row,
        {
          status: 'ACTIVE',
          startedAt: caller.now,
          providerReference: started.reference,
          ...userLocation(request, caller.now),
        },
        {
          startLocation: request.userLocation ? pick(request.userLocation) : started.location,
          vehicleStartLocation: started.location,
        },
        true,
      )
      await scheduleErase(updated)
      return present(updated, caller.now)
    },

    get: async (tripId: string, caller: Caller) => present(await load(caller, tripId), caller.now),

    /** GET /micromobility/trips (trip-list.ts). */
    list: (query: TripListQuery, caller: Caller) =>
      listTrips({ repo, tokens: deps.tokens, expire: expireIfDue, log: deps.log }, query, caller),

    async action(tripId: string, action: TripAction, caller: Caller) {
      const row = await load(caller, tripId)
      if (row.status === 'COMPLETED' || row.status === 'CANCELLED') throw ended(row)
      const allowed = { LOCK: ['ACTIVE'], UNLOCK: ['PAUSED'], HONK: ['RESERVED', 'ACTIVE'] }[action]
      if (!allowed.includes(row.status)) throw invalidState(row, allowed.join(' or '))
      const acceptedAt = caller.now.toISOString()
      await save(row, {}, { lastAction: { action, status: 'QUEUED', acceptedAt } })
      await deps.jobs.enqueue(
        JOB_ACTION,
        { tripId, action, acceptedAt, scenarios: caller.scenarios },
        { maxAttempts: 3 },
      )
      kick()
      // A vehicle usually answers within moments: a command it rejects answers PROVIDER_ERROR (spec 7.1) rather than
      // an acceptance the client would have to poll to find refused. A slower vehicle's command stays accepted (202)
      // and its outcome shows in the trip's lastAction.
      const deadline = Date.now() + ACTION_WAIT_MS
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, ACTION_POLL_MS))
        const current = await repo.findById(tripId)
        const last = (current?.details as unknown as TripDetails | undefined)?.lastAction
        if (!last || last.acceptedAt !== acceptedAt || last.action !== action) break
        if (last.status === 'QUEUED') continue
        if (last.status === 'FAILED' && last.error?.startsWith('PROVIDER_ERROR')) {
          throw new ApiError('PROVIDER_ERROR', undefined, {
            tripId,
            action,
            reason: last.error.slice('PROVIDER_ERROR: '.length) || 'VEHICLE_REJECTED',
            ...(last.retryable === false ? { retryable: false } : {}),
          })
        }
        break
      }
      return { tripId, action, acceptedAt }
    },

    async end(tripId: string, endLocation: { latitude: number; longitude: number } | undefined, caller: Caller) {
      const row = await load(caller, tripId)
      if (row.status === 'COMPLETED' || row.status === 'CANCELLED') throw ended(row)
      if (row.status === 'RESERVED') throw invalidState(row, 'ACTIVE or PAUSED (cancel a reservation instead)')
      const p = providerOf(caller, row)
      const result = await call(caller, p, 'end', (_c, ctx) => tripsOf(p).end(row.providerReference!, endLocation, ctx))
      const now = caller.now
      const paused = row.pausedSince ? now.getTime() - row.pausedSince.getTime() : 0
      const closed = { ...row, endedAt: now, pausedSince: null, pausedMs: row.pausedMs + Math.max(0, paused) }
      const d = row.details as unknown as TripDetails
      const breakdown = d.pricingPlan ? priceBreakdown(d.pricingPlan, minutesOf(closed, now)) : undefined
      const updated = await save(
        row,
        { status: 'COMPLETED', endedAt: now, pausedSince: null, pausedMs: closed.pausedMs },
        {
          endLocation: endLocation ? pick(endLocation) : result.location,
          // Issue 21: an end without a body still ends the trip; the answer says where the end location came from.
          ...(endLocation || result.location ? { endLocationSource: endLocation ? 'REQUEST' : 'VEHICLE' } : {}),
          ...(breakdown ? { priceBreakdown: breakdown } : {}),
        },
        true,
      )
      return present(updated, now, true)
    },

    async cancel(tripId: string, caller: Caller) {
      const row = await load(caller, tripId)
      if (row.status === 'COMPLETED' || row.status === 'CANCELLED') throw ended(row)
      const notCancellable = (status: string) =>
        new ApiError('INVALID_REQUEST', undefined, {
          reason: 'INVALID_TRIP_STATE',
          status,
          expected: 'RESERVED',
          hint: detail(status === 'ACTIVE' || status === 'PAUSED' ? 'END_TRIP_FIRST' : 'TRIP_IS_OVER', { tripId }),
        })
      if (row.status !== 'RESERVED') throw notCancellable(row.status)
      const p = providerOf(caller, row)
      if (row.providerReference)
        await call(caller, p, 'release', (_c, ctx) => tripsOf(p).release(row.providerReference!, ctx)).catch(
          (error: unknown) => {
            // A START of this reservation (on another instance, say) won the race: the ride runs, as if the cancel
            // had come a moment later.
            if (error instanceof ApiError && error.details?.reason === 'RIDE_IN_PROGRESS')
              throw notCancellable('ACTIVE')
            throw error
          },
        )
      const updated = await save(
        row,
        { status: 'CANCELLED' },
        { cancelledAt: caller.now.toISOString(), cancellationReason: 'CANCELLED_BY_USER' },
        true,
      )
      return present(updated, caller.now)
    },
  }
}

export type MicromobilityTrips = ReturnType<typeof createMicromobilityTrips>
