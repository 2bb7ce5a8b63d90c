import { randomBytes } from 'node:crypto'
import { ApiError } from '../../contract/errors.ts'
import type { PtBooking } from '../../contract/public-transport.ts'
import type { Person, Price } from '../../contract/shared.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { retryWrite, undoLater } from '../after-confirm.ts'
import { newBookingId } from '../cars/booking-view.ts'
import type { OfferClaim } from '../cars/offer-tokens.ts'
import { checkDateOfBirth } from '../people.ts'
import type { Caller } from '../providers/calls.ts'
import { offerFields } from './journeys.ts'
import {
  createTicketCore,
  GRACE_MS,
  hasPending,
  inProgress,
  JOB_UNDO_TICKETS,
  LOCK_MS,
  type TicketDeps,
  type UndoTickets,
  undoJobId,
} from './ticket-core.ts'

export { JOB_RECORD_TICKETS, JOB_UNDO_TICKETS, JOB_WATCH_TICKETS, type TicketDeps } from './ticket-core.ts'

/** Tickets: prebook and book (undone or recorded later when the store fails), read, cancel and the tickets. */
export function createPublicTransportTickets(deps: TicketDeps) {
  const core = createTicketCore(deps)
  const {
    ticketingOf,
    call,
    requireStorage,
    present,
    locate,
    sync,
    followUp,
    watch,
    cancelAtProvider,
    leftOver,
    travellerOf,
    lostByProvider,
  } = core

  return {
    /** The job handlers, by kind, for the app to register (services.ts). */
    jobHandlers: core.jobHandlers,
    async prebook(input: { offerToken?: string; offerTokens?: string[] }, caller: Caller) {
      if ((input.offerToken === undefined) === (input.offerTokens === undefined)) {
        // Either field will do, so the answer names both (issue 21).
        const message =
          input.offerToken === undefined
            ? detail('ONE_OF_REQUIRED', { first: 'offerTokens', second: 'offerToken' })
            : detail('SEND_ONE_NOT_BOTH', { first: 'offerTokens', second: 'offerToken' })
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
          return undoLater(followUp, JOB_UNDO_TICKETS, undoJobId(claim.n), undo, cancelAtProvider)
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
