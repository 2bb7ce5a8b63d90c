import type { CarConnector } from '../../connectors/types/cars.ts'
import type { Provider } from '../../connectors/types/common.ts'
import { ApiError } from '../../contract/errors.ts'
import type { JobContext, JobHandlers } from '../../platform/jobs.ts'
import { ignoreNotFound, jobCaller, undoUnlessRecorded } from '../after-confirm.ts'
import type { Caller } from '../providers/calls.ts'
import { WATCH_JOB_ID, watchAgain } from '../watch.ts'
import {
  type BookingCore,
  type BookingDeps,
  JOB_RECORD_BOOKING,
  JOB_UNDO_BOOKING,
  JOB_WATCH_PENDING,
  LOCK_MS,
  type RecordBooking,
  type UndoBooking,
  undoJobId,
  type WatchPending,
} from './booking-core.ts'

/** What follows a provider's answer: the writes left to jobs, the undo of what could not be recorded, the watch. */
export function createBookingFollowUps(deps: BookingDeps, core: BookingCore) {
  const { provider, call, syncStored, recordBooking } = core
  /** Cancels a booking at its provider; one the provider does not know (any more) is as good as cancelled. */
  async function cancelAtProvider(job: UndoBooking) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const p = provider(caller, job.providerId)
    await call(caller, p, 'cancelBooking', (c, ctx) =>
      c.cancelBooking(job.reference, { reason: 'not recorded by the booking platform' }, ctx),
    ).catch(ignoreNotFound)
  }

  /**
   * Cancels at the provider a booking the service could not record, unless a retry with the same token recorded it
   * meanwhile. Holds the token's booking lock (as a booking attempt does), so it never cancels what a retry is
   * taking over.
   */
  const undoBooking = (job: UndoBooking, owner: string) =>
    undoUnlessRecorded(
      deps.kv,
      { key: `cars:book-lock:${job.nonce}`, owner, ttlMs: LOCK_MS },
      async () => (await deps.kv.get(`cars:booked:${job.nonce}`)) ?? (await deps.repo.bookingIdForToken(job.nonce)),
      () => cancelAtProvider(job),
    )

  /** Reads a stored PENDING booking again; its confirmation (or cancellation) is recorded and announced then. */
  async function watchPending(job: WatchPending) {
    const row = await deps.repo.find(job.tenantId, job.environment, job.bookingId)
    if (row?.status !== 'PENDING') return
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const p = provider(caller, row.providerId)
    const fresh = await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(row.providerReference, ctx), true)
    const booking = await syncStored(caller, row, p, fresh, {}, true)
    if (booking.status === 'PENDING') await watch({ ...job, round: job.round + 1 })
  }
  const watch = (job: WatchPending) =>
    watchAgain(deps.jobs, deps.clock, JOB_WATCH_PENDING, WATCH_JOB_ID.car(job.bookingId, job.round), job, job.round)

  /**
   * The booking an earlier attempt with this token made and could not record, while its undo has not run: the
   * retry takes it over rather than booking a second car. None when there is none or it was cancelled already.
   */
  async function leftOver(caller: Caller, p: Provider & { connector: CarConnector }, nonce: string) {
    const job = await deps.jobs.get<UndoBooking>(undoJobId(nonce))
    if (!job || job.status === 'done') return undefined
    if (job.status === 'running') {
      throw new ApiError(
        'INTERNAL_ERROR',
        undefined,
        { reason: 'BOOKING_IN_PROGRESS', retryable: true },
        { status: 409 },
      )
    }
    const undo = job.payload
    if (undo.providerId !== p.entry.id) return undefined
    const booked = await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(undo.reference, ctx), true)
    return booked.status === 'CANCELLED' ? undefined : { booked, bookingId: undo.bookingId }
  }

  /** The job handlers, by kind, for the app to register (services.ts). */
  const jobHandlers: JobHandlers = {
    [JOB_UNDO_BOOKING]: (payload: UndoBooking, job: JobContext) => undoBooking(payload, `${job.id}:${job.attempt}`),
    [JOB_RECORD_BOOKING]: (payload: RecordBooking) => recordBooking(payload),
    [JOB_WATCH_PENDING]: (payload: WatchPending) => watchPending(payload),
  }

  return { cancelAtProvider, undoBooking, watchPending, watch, leftOver, jobHandlers }
}

export type BookingFollowUps = ReturnType<typeof createBookingFollowUps>
