import { randomBytes } from 'node:crypto'
import { vehicleNotAvailable } from '../../connectors/refusals.ts'
import { ApiError } from '../../contract/errors.ts'
import type { Trip, TripAction, TripRequest } from '../../contract/micromobility.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TripRow } from '../../store/schema.ts'
import type { Caller } from '../providers/calls.ts'
import {
  createTripCore,
  ended,
  invalidState,
  JOB_ACTION,
  JOB_EXPIRE,
  type MicroProvider,
  type TripsDeps,
} from './trip-core.ts'
import { tripJobHandlers } from './trip-jobs.ts'
import { listTrips, type TripListQuery } from './trip-list.ts'
import { minutesOf, priceBreakdown, type TripDetails } from './trip-view.ts'

/** How long a vehicle action waits for the vehicle's answer before it answers 202 with the command queued. */
const ACTION_WAIT_MS = 2000
const ACTION_POLL_MS = 20

/**
 * A provider that does not know a vehicle whose token we issued (so it listed it moments ago) had it taken since:
 * another rider started it, perhaps through another instance, and a list of available vehicles (TOMP's
 * available-assets) leaves out those in use. The rider is told what every loser of that race is told.
 */
const takenIfGone = (error: unknown): never => {
  if (error instanceof ApiError && error.code === 'NOT_FOUND') throw vehicleNotAvailable()
  throw error
}

/** The trip state machine of spec 3.1 over stored trips, with provider commands through the connector. */
export function createMicromobilityTrips(deps: TripsDeps) {
  const core = createTripCore(deps)
  const {
    repo,
    providerOf,
    tripsOf,
    call,
    present,
    save,
    insertTrip,
    schedule,
    expireIfDue,
    load,
    pick,
    userLocation,
  } = core
  const { scheduleErase, kick } = core

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
      ).catch(takenIfGone)
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
          details: { ...details, reservedAt: now.toISOString() },
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
    ).catch(takenIfGone)
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
        },
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

  return {
    /** The job handlers, by kind, for the app to register (services.ts). */
    jobHandlers: tripJobHandlers(deps, core),

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
      const d = row.details
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
              ...row.details,
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
        const last = current?.details.lastAction
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
      const d = row.details
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
