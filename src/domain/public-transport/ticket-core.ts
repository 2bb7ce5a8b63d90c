import type { ProviderTicketBooking, TransitTicketing } from '../../connectors/types/public-transport.ts'
import type { Environment } from '../../contract/access.ts'
import { ApiError, isApiError } from '../../contract/errors.ts'
import type { Person } from '../../contract/shared.ts'
import type { JobContext, JobHandlers } from '../../platform/jobs.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { PublicTransportRepo } from '../../store/public-transport-repo.ts'
import type { PtBookingRow } from '../../store/schema.ts'
import { sameAsStored } from '../../store/unchanged.ts'
import {
  type AfterConfirmDeps,
  createFollowUps,
  ignoreNotFound,
  jobCaller,
  recordLater,
  retryWrite,
  type UndoAtProvider,
  undoUnlessRecorded,
} from '../after-confirm.ts'
import { BOOKING_ID } from '../cars/booking-view.ts'
import type { OfferTokens } from '../cars/offer-tokens.ts'
import type { Publish } from '../event-publishing.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import { notFoundOrOtherEnvironment } from '../token-diagnosis.ts'
import { WATCH_JOB_ID, watchAgain } from '../watch.ts'
import type { PtProvider, PublicTransportStops } from './stops.ts'
import { presentTicketBooking } from './ticket-view.ts'

export const BUDGET_MS = 15_000
export const LOCK_MS = 60_000
export const GRACE_MS = 24 * 3600 * 1000

export interface TicketDeps extends AfterConfirmDeps {
  stops: PublicTransportStops
  callProvider: CallProvider
  kv: Kv
  offerTokens: OfferTokens
  repo: PublicTransportRepo
  offerTokenTtlSeconds: number
  /** Status changes once recorded (public-transport.ticket.issued, public-transport.booking.cancelled). */
  publish: Publish
}

export const JOB_UNDO_TICKETS = 'public-transport.undo-booking'
export const JOB_RECORD_TICKETS = 'public-transport.record-booking'
/** Reads a booking whose tickets are being issued again, so their issue is recorded and announced without a client read. */
export const JOB_WATCH_TICKETS = 'public-transport.watch-tickets'
/** A write that keeps losing to other writes (compare-and-set) gives up after this many tries. */
export const MAX_WRITE_ATTEMPTS = 3

/** A booking with tickets still PENDING to read again (the job's payload). */
export interface WatchTickets {
  bookingId: string
  tenantId: string
  environment: Environment
  round: number
}

export const issuedIds = (b: { tickets?: { ticketId: string; status: string }[] } | undefined) =>
  new Set((b?.tickets ?? []).filter((t) => t.status === 'ISSUED').map((t) => t.ticketId))
export const hasPending = (b: ProviderTicketBooking) => b.tickets.some((t) => t.status === 'PENDING')

/** Tickets the provider sold but the service could not record; a retry with the token takes them over meanwhile. */
export interface UndoTickets extends UndoAtProvider {
  bookingId: string
}

/** A cancellation the provider made whose record is written later. */
export interface RecordTickets {
  bookingId: string
  tenantId: string
  environment: Environment
  reason?: string
}

export const undoJobId = (nonce: string) => `undo_tickets_${nonce}`
/** Spec 7.2's 409 INTERNAL_ERROR: another request is at it; retry. */
export const inProgress = () =>
  new ApiError('INTERNAL_ERROR', undefined, { reason: 'BOOKING_IN_PROGRESS', retryable: true }, { status: 409 })

/** Prebook, book, read, cancel and tickets of public-transport journeys (TOMP-like purchase and after-sales). */

/**
 * What the ticket requests (tickets.ts) and their follow-up jobs share: the provider's ticketing, where a booking is
 * kept, the recording of what the provider says about it, and the jobs that undo, record and watch.
 */
export function createTicketCore(deps: TicketDeps) {
  const ticketingOf = (caller: Caller, providerId: string, operation: 'PREBOOK' | 'BOOK' | 'CANCEL' | 'TICKETS') => {
    const p = deps.stops.providersOf(caller, 'STOPS').find((x) => x.entry.id === providerId)
    if (!p) throw new ApiError('NOT_FOUND', undefined, { resource: 'provider', provider: providerId })
    if (!p.connector.ticketing || !p.connector.capabilities.operations.includes(operation)) {
      throw new ApiError('OPERATION_NOT_SUPPORTED', undefined, { providerId, operation })
    }
    return { p, ticketing: p.connector.ticketing as TransitTicketing }
  }
  const call = <T>(
    caller: Caller,
    p: PtProvider,
    op: string,
    fn: (ctx: Parameters<TransitTicketing['products']>[0]) => Promise<T>,
  ) => deps.callProvider(caller, p, op, BUDGET_MS, (_c, ctx) => fn(ctx))

  const requireStorage = (caller: Caller) => {
    // The ticketing providers keep bookings with the platform (tickets are re-read from it): spec 4.5.
    if (caller.tenant.dataRetention === 'NONE')
      throw new ApiError('DATA_RETENTION_NONE', undefined, { reason: 'PROVIDER_NEEDS_STORED_BOOKING' })
  }

  const present = presentTicketBooking

  async function locate(caller: Caller, bookingId: string) {
    const wellFormed = BOOKING_ID.test(bookingId)
    const row = wellFormed ? await deps.repo.findBooking(caller.tenant.id, caller.environment, bookingId) : undefined
    if (!row) {
      throw await notFoundOrOtherEnvironment(
        'NOT_FOUND',
        { resource: 'booking', bookingId },
        caller.environment,
        async (env) => wellFormed && (await deps.repo.findBooking(caller.tenant.id, env, bookingId)) !== undefined,
      )
    }
    return row
  }

  /**
   * What a recorded write announces: tickets the provider issued since the stored copy (one event for the booking),
   * and a cancellation. Called by the one writer whose compare-and-set won, so each is announced once.
   */
  async function announce(
    caller: Caller,
    p: PtProvider,
    before: PtBookingRow,
    after: PtBookingRow,
    fresh: ProviderTicketBooking,
  ) {
    const wasIssued = issuedIds((before.record as { booking?: ProviderTicketBooking }).booking)
    const booking = () => present(after, p, fresh, travellerOf(after))
    if (fresh.tickets.some((t) => t.status === 'ISSUED' && !wasIssued.has(t.ticketId)))
      await deps.publish('public-transport.ticket.issued', caller.tenant, caller.environment, booking())
    if (after.status === 'CANCELLED' && before.status !== 'CANCELLED')
      await deps.publish('public-transport.booking.cancelled', caller.tenant, caller.environment, booking())
  }

  /**
   * Brings the stored booking in step with the provider's, as a compare-and-set on the row's version. A read that
   * loses to another write yields to it (what it read may be older). After a cancellation (`afterCancel`) the write
   * is retried over the newer row, and when the store keeps failing a job writes it; the answer is the provider's
   * meanwhile.
   */
  async function sync(
    caller: Caller,
    p: PtProvider,
    row: PtBookingRow,
    fresh: ProviderTicketBooking,
    reason?: string,
    afterCancel = false,
  ): Promise<PtBookingRow> {
    let current = row
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      // Nothing changed (a read, a repeated cancel): nothing is written, so updatedAt stays when it happened.
      const stored = (current.record as { booking?: unknown }).booking
      if (fresh.status === current.status && sameAsStored(fresh, stored)) return current
      const history = [...current.statusHistory]
      if (fresh.status !== current.status)
        history.push({ status: fresh.status, time: caller.now.toISOString(), ...(reason ? { reason } : {}) })
      const record = { ...(current.record as object), booking: fresh }
      const base = current
      const write = () =>
        deps.repo.updateBooking(
          base.id,
          base.version,
          { status: fresh.status, statusHistory: history, record },
          caller.now,
        )
      let updated: PtBookingRow | undefined
      if (!afterCancel) updated = await write()
      else {
        try {
          updated = await retryWrite(write)
        } catch (error) {
          deps.log.warn({ err: error, bookingId: row.id }, 'ticket cancellation not recorded; a job records it')
          const job: RecordTickets = {
            bookingId: row.id,
            tenantId: caller.tenant.id,
            environment: caller.environment,
            ...(reason ? { reason } : {}),
          }
          await recordLater(followUp, JOB_RECORD_TICKETS, { bookingId: row.id }, job, recordTickets)
          return { ...base, status: fresh.status, statusHistory: history, record, updatedAt: caller.now }
        }
      }
      if (updated) {
        await announce(caller, p, base, updated, fresh)
        return updated
      }
      const latest = await deps.repo.findBooking(caller.tenant.id, caller.environment, row.id)
      if (!latest) throw new ApiError('NOT_FOUND', undefined, { resource: 'booking', bookingId: row.id })
      if (!afterCancel) return latest
      current = latest
    }
    return current
  }

  const followUp = createFollowUps({ jobs: deps.jobs, clock: deps.clock, log: deps.log })

  async function recordTickets(job: RecordTickets) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const row = await deps.repo.findBooking(job.tenantId, job.environment, job.bookingId)
    if (!row) return
    const { p, ticketing } = ticketingOf(caller, row.providerId, 'BOOK')
    const fresh = await call(caller, p, 'getBooking', (ctx) => ticketing.getBooking(row.providerReference, ctx))
    await sync(caller, p, row, fresh, job.reason)
  }

  /** Reads a booking whose tickets were PENDING again; their issue is recorded and announced by sync. */
  async function watchTickets(job: WatchTickets) {
    const row = await deps.repo.findBooking(job.tenantId, job.environment, job.bookingId)
    const stored = (row?.record as { booking?: ProviderTicketBooking } | undefined)?.booking
    if (!row || row.status === 'CANCELLED' || (stored && !hasPending(stored))) return
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const { p, ticketing } = ticketingOf(caller, row.providerId, 'BOOK')
    const fresh = await call(caller, p, 'getBooking', (ctx) => ticketing.getBooking(row.providerReference, ctx))
    await sync(caller, p, row, fresh)
    if (fresh.status !== 'CANCELLED' && hasPending(fresh)) await watch({ ...job, round: job.round + 1 })
  }
  const watch = (job: WatchTickets) =>
    watchAgain(deps.jobs, deps.clock, JOB_WATCH_TICKETS, WATCH_JOB_ID.tickets(job.bookingId, job.round), job, job.round)

  async function cancelAtProvider(job: UndoTickets) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const { p, ticketing } = ticketingOf(caller, job.providerId, 'CANCEL')
    await call(caller, p, 'cancel', (ctx) => ticketing.cancel(job.reference, ctx)).catch(ignoreNotFound)
  }

  /**
   * Cancels at the provider tickets the service could not record, unless a retry with the same token recorded them
   * meanwhile; holds the token's booking lock as a booking attempt does.
   */
  const undoTickets = (job: UndoTickets, owner: string) =>
    undoUnlessRecorded(
      deps.kv,
      { key: `pt:book-lock:${job.nonce}`, owner, ttlMs: LOCK_MS },
      () => deps.repo.bookingIdForToken(job.nonce),
      () => cancelAtProvider(job),
    )

  /** Tickets an earlier attempt with this token bought and could not record, while their undo has not run. */
  async function leftOver(caller: Caller, p: PtProvider, ticketing: TransitTicketing, nonce: string) {
    const job = await deps.jobs.get<UndoTickets>(undoJobId(nonce))
    if (!job || job.status === 'done') return undefined
    if (job.status === 'running') throw inProgress()
    const undo = job.payload
    if (undo.providerId !== p.entry.id) return undefined
    const booked = await call(caller, p, 'getBooking', (ctx) => ticketing.getBooking(undo.reference, ctx))
    return booked.status === 'CANCELLED' ? undefined : { booked, bookingId: undo.bookingId }
  }

  // Stored under the old name `customer` (records written before issue 21 read as they are).
  const travellerOf = (row: PtBookingRow) => (row.record as { customer: Person }).customer

  /**
   * A provider answering NOT_FOUND for a booking the service holds has lost its record: not 404 (the booking exists
   * for the client) but PROVIDER_ERROR with `details.reason` PROVIDER_RECORD_MISSING and what the service stored.
   */
  const lostByProvider =
    (row: PtBookingRow, p: PtProvider) =>
    (error: unknown): never => {
      if (!(isApiError(error) && error.code === 'NOT_FOUND')) throw error
      throw new ApiError('PROVIDER_ERROR', 'The provider no longer knows this booking', {
        reason: 'PROVIDER_RECORD_MISSING',
        providerId: row.providerId,
        bookingId: row.id,
        booking: {
          bookingId: row.id,
          status: row.status,
          provider: { id: p.entry.id, name: p.entry.name },
          providerReference: row.providerReference,
          traveller: travellerOf(row),
          customer: travellerOf(row),
          statusHistory: row.statusHistory,
          createdAt: row.createdAt.toISOString(),
          updatedAt: row.updatedAt.toISOString(),
        },
      })
    }

  /** The job handlers, by kind, for the app to register (services.ts). */
  const jobHandlers: JobHandlers = {
    [JOB_UNDO_TICKETS]: (payload: UndoTickets, job: JobContext) => undoTickets(payload, `${job.id}:${job.attempt}`),
    [JOB_RECORD_TICKETS]: (payload: RecordTickets) => recordTickets(payload),
    [JOB_WATCH_TICKETS]: (payload: WatchTickets) => watchTickets(payload),
  }

  return {
    ticketingOf,
    call,
    requireStorage,
    present,
    locate,
    announce,
    sync,
    followUp,
    recordTickets,
    watchTickets,
    watch,
    cancelAtProvider,
    undoTickets,
    leftOver,
    travellerOf,
    lostByProvider,
    jobHandlers,
  }
}

export type TicketCore = ReturnType<typeof createTicketCore>
