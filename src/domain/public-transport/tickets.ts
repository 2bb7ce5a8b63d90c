import { randomBytes } from 'node:crypto'
import type { PtBooking } from '../../api/public-transport/schemas.ts'
import type { Person, Price } from '../../api/shared/schemas.ts'
import type { ProviderTicketBooking, TransitTicketing } from '../../connectors/types.ts'
import { ApiError, isApiError } from '../../http/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
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
  notRecorded,
  recordJobId,
  retryWrite,
  UNDO_GRACE_MS,
  type UndoAtProvider,
  undoUnlessRecorded,
} from '../after-confirm.ts'
import { BOOKING_ID, newBookingId } from '../cars/booking-view.ts'
import type { OfferClaim, OfferTokens } from '../cars/offer-tokens.ts'
import type { Publish } from '../event-publishing.ts'
import { checkDateOfBirth } from '../people.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import type { Environment } from '../tenants/permissions.ts'
import { notFoundOrOtherEnvironment } from '../token-diagnosis.ts'
import { WATCH_JOB_ID, watchAgain } from '../watch.ts'
import { offerFields } from './journeys.ts'
import type { PtProvider, PublicTransportStops } from './stops.ts'
import { presentTicketBooking } from './ticket-view.ts'

const BUDGET_MS = 15_000
const LOCK_MS = 60_000
const GRACE_MS = 24 * 3600 * 1000

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
const MAX_WRITE_ATTEMPTS = 3

/** A booking with tickets still PENDING to read again (the job's payload). */
interface WatchTickets {
  bookingId: string
  tenantId: string
  environment: Environment
  round: number
}

const issuedIds = (b: { tickets?: { ticketId: string; status: string }[] } | undefined) =>
  new Set((b?.tickets ?? []).filter((t) => t.status === 'ISSUED').map((t) => t.ticketId))
const hasPending = (b: ProviderTicketBooking) => b.tickets.some((t) => t.status === 'PENDING')

/** Tickets the provider sold but the service could not record; a retry with the token takes them over meanwhile. */
interface UndoTickets extends UndoAtProvider {
  bookingId: string
}

/** A cancellation the provider made whose record is written later. */
interface RecordTickets {
  bookingId: string
  tenantId: string
  environment: Environment
  reason?: string
}

const undoJobId = (nonce: string) => `undo_tickets_${nonce}`
/** Spec 7.2's 409 INTERNAL_ERROR: another request is at it; retry. */
const inProgress = () =>
  new ApiError('INTERNAL_ERROR', undefined, { reason: 'BOOKING_IN_PROGRESS', retryable: true }, { status: 409 })

/** Prebook, book, read, cancel and tickets of public-transport journeys (TOMP-like purchase and after-sales). */
export function createPublicTransportTickets(deps: TicketDeps) {
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
          const outcome = await followUp(
            JOB_RECORD_TICKETS,
            recordJobId(row.id),
            { ...job },
            {
              delayMs: 0,
              inline: () => recordTickets(job),
            },
          )
          // The provider answers a repeated cancellation the same way, so the client's retry records it.
          if (outcome === 'failed') throw notRecorded({ bookingId: row.id })
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
    jobHandlers,
    async prebook(input: { offerToken?: string; offerTokens?: string[] }, caller: Caller) {
      if ((input.offerToken === undefined) === (input.offerTokens === undefined)) {
        // Either field will do, so the answer names both (issue 21).
        const message =
          input.offerToken === undefined
            ? 'one of offerTokens or offerToken is required'
            : 'send offerTokens or offerToken, not both'
        throw new ApiError('INVALID_REQUEST', undefined, { offerTokens: message, offerToken: message })
      }
      const tokens = input.offerTokens ?? [input.offerToken as string]
      const claims: OfferClaim[] = tokens.map((t, i) =>
        deps.offerTokens.open(
          'pt-offer',
          caller.tenant.id,
          caller.environment,
          t,
          caller.now,
          input.offerTokens ? `offerTokens[${i}]` : 'offerToken',
        ),
      )
      claims.forEach((c, i) => {
        if (c.d !== undefined && c.d < caller.now.getTime()) {
          const field = input.offerTokens ? `offerTokens[${i}]` : 'offerToken'
          throw new ApiError('OFFER_EXPIRED', undefined, {
            [field]: detail('JOURNEY_HAS_LEFT'),
            reason: 'DEPARTED',
            departure: new Date(c.d).toISOString(),
          })
        }
      })
      // The same offer twice is a mistake in the request, not a used token (409 means a booking exists).
      const first = new Map<string, number>()
      claims.forEach((c, i) => {
        const earlier = first.get(c.n)
        if (earlier !== undefined)
          throw new ApiError('INVALID_REQUEST', undefined, {
            [`offerTokens[${i}]`]: detail('SAME_OFFER_AS', { field: `offerTokens[${earlier}]` }),
          })
        first.set(c.n, i)
      })
      const providerId = claims[0].p
      if (claims.some((c) => c.p !== providerId))
        throw new ApiError('INVALID_REQUEST', undefined, { offerTokens: detail('OFFERS_OF_ONE_PROVIDER') })
      const { p, ticketing } = ticketingOf(caller, providerId, 'PREBOOK')
      const taken: string[] = []
      try {
        for (const [i, c] of claims.entries()) {
          if (!(await deps.kv.setIfAbsent(`pt:offer-used:${c.n}`, '1', c.x - caller.now.getTime() + GRACE_MS))) {
            // The field the caller sent: offerToken, or which of offerTokens.
            const field = input.offerTokens ? `offerTokens[${i}]` : 'offerToken'
            throw new ApiError('OFFER_TOKEN_ALREADY_USED', undefined, { [field]: detail('ALREADY_PREBOOKED') })
          }
          taken.push(c.n)
        }
        const answer = await call(caller, p, 'prebook', (ctx) =>
          ticketing.prebook(
            claims.map((c) => c.r),
            ctx,
          ),
        )
        const usableUntil = new Date(
          Math.min(...claims.map((c) => c.x), caller.now.getTime() + deps.offerTokenTtlSeconds * 1000),
        )
        return {
          prebookedOfferToken: deps.offerTokens.issue('pt-prebooked', caller.tenant.id, caller.environment, {
            p: providerId,
            r: answer.prebookRef,
            x: usableUntil.getTime(),
            a: answer.total.amount,
            c: answer.total.currency,
            k: true,
          }),
          usableUntil: usableUntil.toISOString(),
          provider: { id: p.entry.id, name: p.entry.name },
          offers: answer.offers.map((o) => offerFields(p, o)),
          total: answer.total,
        }
      } catch (error) {
        // A failed prebook leaves the offers usable.
        for (const n of taken) await deps.kv.delete(`pt:offer-used:${n}`)
        throw error
      }
    },

    async book(input: { prebookedOfferToken: string; traveller: Person }, caller: Caller): Promise<PtBooking> {
      requireStorage(caller)
      checkDateOfBirth(input.traveller.dateOfBirth, caller.now, 'traveller.dateOfBirth')
      const claim = deps.offerTokens.open(
        'pt-prebooked',
        caller.tenant.id,
        caller.environment,
        input.prebookedOfferToken,
        caller.now,
        'prebookedOfferToken',
      )
      const { p, ticketing } = ticketingOf(caller, claim.p, 'BOOK')
      const used = (bookingId?: string) =>
        new ApiError('OFFER_TOKEN_ALREADY_USED', undefined, {
          prebookedOfferToken: detail('BOOKING_EXISTS_FOR_TOKEN'),
          ...(bookingId ? { bookingId } : {}),
        })
      const lock = `pt:book-lock:${claim.n}`
      const owner = randomBytes(8).toString('hex')
      // Another attempt with the token is running: ALREADY_USED only once it recorded a booking, since a failed
      // attempt leaves the token usable (as for cars).
      if (!(await deps.kv.setIfAbsent(lock, owner, LOCK_MS))) {
        const existing = await deps.repo.bookingIdForToken(claim.n)
        if (existing) throw used(existing)
        throw inProgress()
      }
      try {
        const existing = await deps.repo.bookingIdForToken(claim.n)
        if (existing) throw used(existing)
        const left = await leftOver(caller, p, ticketing, claim.n)
        const booked =
          left?.booked ?? (await call(caller, p, 'book', (ctx) => ticketing.book(claim.r, input.traveller, ctx)))
        const id = left?.bookingId ?? newBookingId()
        const history = [{ status: booked.status, time: caller.now.toISOString(), reason: 'created' }]
        const undo: UndoTickets = {
          nonce: claim.n,
          tenantId: caller.tenant.id,
          environment: caller.environment,
          providerId: p.entry.id,
          reference: booked.reference,
          bookingId: id,
        }
        const row = await retryWrite(
          () =>
            deps.repo.insertBooking({
              id,
              tenantId: caller.tenant.id,
              environment: caller.environment,
              providerId: p.entry.id,
              providerReference: booked.reference,
              status: booked.status,
              tokenNonce: claim.n,
              record: { customer: input.traveller, booking: booked },
              statusHistory: history,
              // The service's clock, as every later write uses (GET /bookings' order, newest first).
              createdAt: caller.now,
              updatedAt: caller.now,
            }),
          // An insert whose answer was lost may have been written: then it is this booking's row.
          async () =>
            (await deps.repo.bookingIdForToken(claim.n)) === id
              ? deps.repo.findBooking(caller.tenant.id, caller.environment, id)
              : undefined,
        ).catch(async (error: unknown): Promise<never> => {
          // The token stays usable: a retry within UNDO_GRACE_MS takes these tickets over, later they are cancelled.
          deps.log.error({ err: error, providerId: p.entry.id, reference: booked.reference }, 'tickets not recorded')
          await followUp(
            JOB_UNDO_TICKETS,
            undoJobId(claim.n),
            { ...undo },
            {
              delayMs: UNDO_GRACE_MS,
              inline: () => cancelAtProvider(undo),
            },
          )
          throw notRecorded({ prebookedOfferToken: detail('STILL_USABLE_RETRY') })
        })
        if (!row) {
          // Another attempt recorded tickets for the token after this one's lock ran out: these go.
          await cancelAtProvider(undo).catch((error: unknown) =>
            deps.log.error({ err: error, ...undo }, 'LOST: a second booking of one token could not be cancelled'),
          )
          throw used(await deps.repo.bookingIdForToken(claim.n))
        }
        const booking = present(row, p, booked, input.traveller)
        // Tickets issued at once are announced now; pending ones when a watch (or a client's read) finds them issued.
        if (booked.tickets.some((t) => t.status === 'ISSUED'))
          await deps.publish('public-transport.ticket.issued', caller.tenant, caller.environment, booking)
        if (hasPending(booked))
          await watch({ bookingId: id, tenantId: caller.tenant.id, environment: caller.environment, round: 0 }).catch(
            (error: unknown) => deps.log.warn({ err: error, bookingId: id }, 'could not schedule a watch of tickets'),
          )
        return booking
      } finally {
        await deps.kv.deleteIfEquals(lock, owner)
      }
    },

    async get(bookingId: string, caller: Caller): Promise<PtBooking> {
      requireStorage(caller)
      const row = await locate(caller, bookingId)
      const { p, ticketing } = ticketingOf(caller, row.providerId, 'BOOK')
      const fresh = await call(caller, p, 'getBooking', (ctx) =>
        ticketing.getBooking(row.providerReference, ctx),
      ).catch(lostByProvider(row, p))
      return present(await sync(caller, p, row, fresh), p, fresh, travellerOf(row))
    },

    async cancel(bookingId: string, caller: Caller): Promise<PtBooking> {
      requireStorage(caller)
      const row = await locate(caller, bookingId)
      const { p, ticketing } = ticketingOf(caller, row.providerId, 'CANCEL')
      const fresh = await call(caller, p, 'cancel', (ctx) => ticketing.cancel(row.providerReference, ctx)).catch(
        lostByProvider(row, p),
      )
      return present(await sync(caller, p, row, fresh, 'cancelled by the client', true), p, fresh, travellerOf(row))
    },

    /** The tickets once issued; 409 TICKET_NOT_READY (retry shortly) while any is still being issued. */
    async tickets(bookingId: string, caller: Caller) {
      requireStorage(caller)
      ticketingOf(caller, (await locate(caller, bookingId)).providerId, 'TICKETS')
      const booking = await this.get(bookingId, caller)
      const pending = booking.tickets.filter((t) => t.status === 'PENDING')
      if (pending.length > 0) {
        throw new ApiError(
          'TICKET_NOT_READY',
          undefined,
          { bookingId, pendingTickets: pending.map((t) => t.ticketId), retryAfterSeconds: 5 },
          { headers: { 'retry-after': '5' } },
        )
      }
      const total: Price = booking.total
      return { bookingId, status: booking.status, tickets: booking.tickets, total }
    },
  }
}

export type PublicTransportTickets = ReturnType<typeof createPublicTransportTickets>
