import { randomBytes } from 'node:crypto'
import type { PtBooking } from '../../api/public-transport/schemas.ts'
import type { Price } from '../../api/shared/schemas.ts'
import type { ProviderTicket, ProviderTicketBooking, TransitTicketing } from '../../connectors/types.ts'
import { ApiError, isApiError } from '../../http/errors.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { PublicTransportRepo } from '../../store/public-transport-repo.ts'
import type { PtBookingRow } from '../../store/schema.ts'
import { sameAsStored } from '../../store/unchanged.ts'
import {
  type AfterConfirmDeps,
  followUps,
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
import type { Caller, CallProvider } from '../providers/calls.ts'
import type { Environment } from '../tenants/permissions.ts'
import { offerFields } from './journeys.ts'
import type { PtProvider, PublicTransportStops } from './stops.ts'

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
}

export const JOB_UNDO_TICKETS = 'public-transport.undo-booking'
export const JOB_RECORD_TICKETS = 'public-transport.record-booking'

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

const presentTicket = (t: ProviderTicket) => ({
  ticketId: t.ticketId,
  status: t.status,
  productName: t.productName,
  travellerCategory: t.travellerCategory,
  ...(t.holderName ? { holderName: t.holderName } : {}),
  validFrom: t.validFrom.toISOString(),
  validUntil: t.validUntil.toISOString(),
  ...(t.format ? { format: t.format } : {}),
  ...(t.data ? { data: t.data } : {}),
  ...(t.issuedAt ? { issuedAt: t.issuedAt.toISOString() } : {}),
})

/** Prebook, book, read, cancel and tickets of public-transport journeys (TOMP-like purchase and after-sales). */
export function publicTransportTickets(deps: TicketDeps) {
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

  const present = (
    row: PtBookingRow,
    p: { entry: { id: string; name: string } },
    b: ProviderTicketBooking,
    customer: PtBooking['customer'],
  ): PtBooking => ({
    bookingId: row.id,
    status: b.status,
    provider: { id: p.entry.id, name: p.entry.name },
    providerReference: b.reference,
    customer,
    offers: b.offers.map((o) => offerFields(p as PtProvider, o)),
    total: b.total,
    tickets: b.tickets.map(presentTicket),
    ...(b.cancellation
      ? {
          cancellation: {
            cancelledAt: b.cancellation.cancelledAt.toISOString(),
            fee: b.cancellation.fee,
            refund: b.cancellation.refund,
          },
        }
      : {}),
    statusHistory: row.statusHistory,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  })

  async function locate(caller: Caller, bookingId: string) {
    const row = BOOKING_ID.test(bookingId)
      ? await deps.repo.findBooking(caller.tenant.id, caller.environment, bookingId)
      : undefined
    if (!row) throw new ApiError('NOT_FOUND', undefined, { resource: 'booking', bookingId })
    return row
  }

  /**
   * Brings the stored booking in step with the provider's. After a cancellation (`afterCancel`) the write is
   * retried, and when the store keeps failing a job writes it; the answer is the provider's meanwhile.
   */
  async function sync(
    caller: Caller,
    row: PtBookingRow,
    fresh: ProviderTicketBooking,
    reason?: string,
    afterCancel = false,
  ): Promise<PtBookingRow> {
    // Nothing changed (a read, a repeated cancel): nothing is written, so updatedAt stays when it happened.
    const stored = (row.record as { booking?: unknown }).booking
    if (fresh.status === row.status && sameAsStored(fresh, stored)) return row
    const history = [...row.statusHistory]
    if (fresh.status !== row.status)
      history.push({ status: fresh.status, time: caller.now.toISOString(), ...(reason ? { reason } : {}) })
    const record = { ...(row.record as object), booking: fresh }
    const write = () =>
      deps.repo.updateBooking(row.id, { status: fresh.status, statusHistory: history, record }, caller.now)
    if (!afterCancel) return (await write())!
    try {
      return (await retryWrite(write))!
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
      return { ...row, status: fresh.status, statusHistory: history, record, updatedAt: caller.now }
    }
  }

  const followUp = followUps({ jobs: deps.jobs, clock: deps.clock, log: deps.log })

  async function recordTickets(job: RecordTickets) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const row = await deps.repo.findBooking(job.tenantId, job.environment, job.bookingId)
    if (!row) return
    const { p, ticketing } = ticketingOf(caller, row.providerId, 'BOOK')
    const fresh = await call(caller, p, 'getBooking', (ctx) => ticketing.getBooking(row.providerReference, ctx))
    await sync(caller, row, fresh, job.reason)
  }

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

  deps.jobs.register<UndoTickets>(JOB_UNDO_TICKETS, (payload, job) => undoTickets(payload, `${job.id}:${job.attempt}`))
  deps.jobs.register<RecordTickets>(JOB_RECORD_TICKETS, (payload) => recordTickets(payload))

  /** Tickets an earlier attempt with this token bought and could not record, while their undo has not run. */
  async function leftOver(caller: Caller, p: PtProvider, ticketing: TransitTicketing, nonce: string) {
    const job = await deps.jobs.get(undoJobId(nonce))
    if (!job || job.status === 'done') return undefined
    if (job.status === 'running') throw inProgress()
    const undo = job.payload as unknown as UndoTickets
    if (undo.providerId !== p.entry.id) return undefined
    const booked = await call(caller, p, 'getBooking', (ctx) => ticketing.getBooking(undo.reference, ctx))
    return booked.status === 'CANCELLED' ? undefined : { booked, bookingId: undo.bookingId }
  }

  const customerOf = (row: PtBookingRow) => (row.record as { customer: PtBooking['customer'] }).customer

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
          customer: customerOf(row),
          statusHistory: row.statusHistory,
          createdAt: row.createdAt.toISOString(),
          updatedAt: row.updatedAt.toISOString(),
        },
      })
    }

  return {
    async prebook(input: { offerToken?: string; offerTokens?: string[] }, caller: Caller) {
      if ((input.offerToken === undefined) === (input.offerTokens === undefined)) {
        const message = input.offerToken === undefined ? 'is required' : 'send offerToken or offerTokens, not both'
        throw new ApiError('INVALID_REQUEST', undefined, { offerToken: message })
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
            [field]: 'is for a journey that has left',
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
            [`offerTokens[${i}]`]: `is the same offer as offerTokens[${earlier}]`,
          })
        first.set(c.n, i)
      })
      const providerId = claims[0].p
      if (claims.some((c) => c.p !== providerId))
        throw new ApiError('INVALID_REQUEST', undefined, { offerTokens: 'all offers must come from one provider' })
      const { p, ticketing } = ticketingOf(caller, providerId, 'PREBOOK')
      const taken: string[] = []
      try {
        for (const [i, c] of claims.entries()) {
          if (!(await deps.kv.setIfAbsent(`pt:offer-used:${c.n}`, '1', c.x - caller.now.getTime() + GRACE_MS))) {
            // The field the caller sent: offerToken, or which of offerTokens.
            const field = input.offerTokens ? `offerTokens[${i}]` : 'offerToken'
            throw new ApiError('OFFER_TOKEN_ALREADY_USED', undefined, { [field]: 'was already prebooked' })
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

    async book(
      input: { prebookedOfferToken: string; customer: PtBooking['customer'] },
      caller: Caller,
    ): Promise<PtBooking> {
      requireStorage(caller)
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
          prebookedOfferToken: 'a booking exists for this token',
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
          left?.booked ?? (await call(caller, p, 'book', (ctx) => ticketing.book(claim.r, input.customer, ctx)))
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
              record: { customer: input.customer, booking: booked } as unknown as Record<string, unknown>,
              statusHistory: history,
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
          throw notRecorded({ prebookedOfferToken: 'is still usable: retry with it' })
        })
        if (!row) {
          // Another attempt recorded tickets for the token after this one's lock ran out: these go.
          await cancelAtProvider(undo).catch((error: unknown) =>
            deps.log.error({ err: error, ...undo }, 'LOST: a second booking of one token could not be cancelled'),
          )
          throw used(await deps.repo.bookingIdForToken(claim.n))
        }
        return present(row, p, booked, input.customer)
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
      return present(await sync(caller, row, fresh), p, fresh, customerOf(row))
    },

    async cancel(bookingId: string, caller: Caller): Promise<PtBooking> {
      requireStorage(caller)
      const row = await locate(caller, bookingId)
      const { p, ticketing } = ticketingOf(caller, row.providerId, 'CANCEL')
      const fresh = await call(caller, p, 'cancel', (ctx) => ticketing.cancel(row.providerReference, ctx)).catch(
        lostByProvider(row, p),
      )
      return present(await sync(caller, row, fresh, 'cancelled by the client', true), p, fresh, customerOf(row))
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

export type PublicTransportTickets = ReturnType<typeof publicTransportTickets>
