import { createHmac } from 'node:crypto'
import { ApiError } from '../../../contract/errors.ts'
import type { Price } from '../../../contract/shared.ts'
import { detail } from '../../../platform/i18n/texts.ts'
import type { CallContext, ConnectorDeps, ProviderEntry } from '../../types/common.ts'
import type {
  ProviderTicket,
  ProviderTicketBooking,
  ProviderTicketOffer,
  TransitTicketing,
} from '../../types/public-transport.ts'
import { hasScenario } from '../common.ts'
import { CURRENCY, offerFrom, offerParams, productOf } from './fares.ts'
import { decodeOfferRef, decodePrebookRef, encodeOfferRef, encodePrebookRef, type OfferParams } from './refs.ts'
import { type TicketBookingRecord, transitStore } from './store.ts'
import { subscriptions } from './subscriptions.ts'

/**
 * Ticket sales of Sandbox Transit Berlin (TOMP-API-like: offers, purchase, after-sales) and its subscriptions.
 *
 * - `offers`: per traveller, the products that fit the journey (fares.ts), valid from the journey's departure.
 * - `prebook`: checks the references (INVALID_OFFER_TOKEN when one is not this provider's) and that no journey has
 *   departed yet (OFFER_EXPIRED, `details.reason` JOURNEY_DEPARTED); answers the offers at today's prices.
 * - `book`: the same checks; a reference `ST-XXXXXX`. The tickets are PENDING and are ISSUED 5 seconds after the
 *   booking (by the call's clock) as QR codes with a signed payload; the booking is PENDING until then, CONFIRMED after.
 * - `cancel`: free (full refund) until the first ticket becomes valid; from then BOOKING_FAILED (`details.reason`
 *   TICKET_ALREADY_VALID). A cancelled booking is answered as it is.
 *
 * Scenarios (X-Sandbox-Scenario, `<name>:<providerId>`): provider-error and provider-timeout as everywhere,
 * booking-fails (book answers BOOKING_FAILED), ticket-delay (the tickets of a booking made with it stay PENDING),
 * cancel-refused (cancel answers BOOKING_FAILED, CANCELLATION_REFUSED).
 */

/** How long the provider takes to issue tickets. */
export const ISSUE_DELAY_MS = 5_000

export type Enter = (ctx: CallContext, operation: string) => Promise<void>

const expired = (params: OfferParams) =>
  new ApiError('OFFER_EXPIRED', undefined, { reason: 'JOURNEY_DEPARTED', validFrom: params.f })

function checkOffer(params: OfferParams, ctx: CallContext) {
  if (!productOf(params.p)) throw new ApiError('INVALID_OFFER_TOKEN', 'The offer reference is not one of this provider')
  if (Date.parse(params.f) <= ctx.now.getTime()) throw expired(params)
}

const sum = (amounts: number[]): Price => ({ amount: amounts.reduce((a, b) => a + b, 0), currency: CURRENCY })

export function transitTicketing(entry: ProviderEntry, deps: ConnectorDeps, enter: Enter): TransitTicketing {
  const store = transitStore(deps.kv, entry.id)
  const subs = subscriptions(store)
  // Not a secret: the sandbox only makes its barcodes look like a real provider's.
  const signingKey = `sandbox-transit-ticket-key:${entry.id}`

  function barcode(ticket: Omit<ProviderTicket, 'format' | 'data'>, record: TicketBookingRecord, params: OfferParams) {
    const payload = Buffer.from(
      JSON.stringify({
        t: ticket.ticketId,
        r: record.reference,
        p: params.p,
        c: params.c,
        h: ticket.holderName,
        f: ticket.validFrom.toISOString(),
        u: ticket.validUntil.toISOString(),
        i: ticket.issuedAt?.toISOString(),
      }),
    ).toString('base64url')
    const signature = createHmac('sha256', signingKey).update(payload).digest().subarray(0, 16).toString('base64url')
    return `STB1.${payload}.${signature}`
  }

  /** The booking as it is at `ctx.now`: tickets are issued once `issueAt` has passed (unless cancelled first). */
  function present(record: TicketBookingRecord, ctx: CallContext): ProviderTicketBooking {
    const now = ctx.now.getTime()
    const issueAt = record.issueAt ? Date.parse(record.issueAt) : undefined
    const cancelledAt = record.cancellation ? Date.parse(record.cancellation.cancelledAt) : undefined
    const issued = issueAt !== undefined && issueAt <= now && (cancelledAt === undefined || issueAt <= cancelledAt)
    const holderName = `${record.customer.firstName} ${record.customer.lastName}`
    const offers: ProviderTicketOffer[] = record.offers.map(({ params, amount }) => ({
      ...offerFrom(params, encodeOfferRef(params), ctx.language),
      price: { amount, currency: CURRENCY },
    }))
    const tickets: ProviderTicket[] = offers.map((offer, i) => {
      const ticket: ProviderTicket = {
        ticketId: `${record.reference}-${i + 1}`,
        status: cancelledAt !== undefined ? 'CANCELLED' : issued ? 'ISSUED' : 'PENDING',
        productName: offer.name,
        travellerCategory: offer.travellerCategory,
        holderName,
        validFrom: offer.validFrom,
        validUntil: offer.validUntil,
        ...(issued ? { issuedAt: new Date(issueAt) } : {}),
      }
      return ticket.status === 'ISSUED'
        ? { ...ticket, format: 'QR', data: barcode(ticket, record, record.offers[i].params) }
        : ticket
    })
    const total = sum(record.offers.map((o) => o.amount))
    return {
      reference: record.reference,
      status: record.cancellation ? 'CANCELLED' : issued ? 'CONFIRMED' : 'PENDING',
      offers,
      total,
      tickets,
      ...(record.cancellation
        ? {
            cancellation: {
              cancelledAt: new Date(record.cancellation.cancelledAt),
              fee: { amount: total.amount - record.cancellation.refund, currency: CURRENCY },
              refund: { amount: record.cancellation.refund, currency: CURRENCY },
            },
          }
        : {}),
    }
  }

  async function load(ctx: CallContext, reference: string) {
    const record = await store.getBooking(ctx.environment, reference)
    if (!record) throw new ApiError('NOT_FOUND', `No booking ${reference} at this provider`, { resource: 'booking' })
    return record
  }

  return {
    async offers(journey, travellers, ctx) {
      await enter(ctx, 'TICKET_OFFERS')
      // sold-out: the journeys are planned, but no ticket is for sale.
      if (hasScenario(ctx, entry.id, 'sold-out')) return []
      return offerParams(journey, travellers).map((params) => offerFrom(params, encodeOfferRef(params), ctx.language))
    },

    async prebook(offerRefs, ctx) {
      await enter(ctx, 'PREBOOK')
      if (offerRefs.length === 0)
        throw new ApiError('INVALID_REQUEST', undefined, { offerRefs: detail('AT_LEAST_ONE_OFFER') })
      const params = offerRefs.map(decodeOfferRef)
      for (const p of params) checkOffer(p, ctx)
      if (hasScenario(ctx, entry.id, 'sold-out')) {
        throw new ApiError('OFFER_EXPIRED', 'The tickets are sold out (scenario)', { reason: 'SOLD_OUT' })
      }
      const offers = params.map((p, i) => offerFrom(p, offerRefs[i], ctx.language))
      const total = sum(offers.map((o) => o.price.amount))
      return { prebookRef: encodePrebookRef({ o: params, t: total.amount }), offers, total }
    },

    async book(prebookRef, customer, ctx) {
      await enter(ctx, 'BOOK')
      const prebooked = decodePrebookRef(prebookRef)
      for (const p of prebooked.o) checkOffer(p, ctx)
      if (hasScenario(ctx, entry.id, 'booking-fails')) {
        throw new ApiError('BOOKING_FAILED', 'The provider refused the booking (scenario)', { reason: 'SCENARIO' })
      }
      const offers = prebooked.o.map((params) => ({ params, amount: offerFrom(params, '', 'en').price.amount }))
      const record: TicketBookingRecord = {
        v: 1,
        reference: await store.newBookingReference(ctx.environment),
        customer: { firstName: customer.firstName, lastName: customer.lastName, email: customer.email },
        offers,
        createdAt: ctx.now.toISOString(),
        ...(hasScenario(ctx, entry.id, 'ticket-delay')
          ? {}
          : { issueAt: new Date(ctx.now.getTime() + ISSUE_DELAY_MS).toISOString() }),
      }
      await store.saveBooking(ctx.environment, record)
      return present(record, ctx)
    },

    async getBooking(reference, ctx) {
      await enter(ctx, 'GET_BOOKING')
      return present(await load(ctx, reference), ctx)
    },

    async cancel(reference, ctx) {
      await enter(ctx, 'CANCEL')
      return store.withLock(ctx.environment, reference, async () => {
        const record = await load(ctx, reference)
        if (record.cancellation) return present(record, ctx)
        if (hasScenario(ctx, entry.id, 'cancel-refused')) {
          throw new ApiError('BOOKING_FAILED', 'The provider refused the cancellation (scenario)', {
            reason: 'CANCELLATION_REFUSED',
          })
        }
        const firstValid = Math.min(...record.offers.map((o) => Date.parse(o.params.f)))
        if (firstValid <= ctx.now.getTime()) {
          throw new ApiError('BOOKING_FAILED', undefined, {
            reason: 'TICKET_ALREADY_VALID',
            validFrom: new Date(firstValid).toISOString(),
          })
        }
        record.cancellation = {
          cancelledAt: ctx.now.toISOString(),
          refund: record.offers.reduce((total, o) => total + o.amount, 0),
        }
        await store.saveBooking(ctx.environment, record)
        return present(record, ctx)
      })
    },

    async products(ctx) {
      await enter(ctx, 'SUBSCRIPTION_PRODUCTS')
      return subs.products(ctx)
    },

    async subscribe(productId, holder, startDate, pin, ctx) {
      await enter(ctx, 'SUBSCRIBE')
      return subs.subscribe(productId, holder, startDate, pin, ctx)
    },

    async getSubscription(reference, ctx) {
      await enter(ctx, 'GET_SUBSCRIPTION')
      return subs.getSubscription(reference, ctx)
    },

    async cancelSubscription(reference, ctx) {
      await enter(ctx, 'CANCEL_SUBSCRIPTION')
      return subs.cancelSubscription(reference, ctx)
    },
  }
}
