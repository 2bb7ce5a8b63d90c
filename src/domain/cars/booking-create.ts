import type { Booking, BookingCreate, OfferDetails, PrebookResult } from '../../contract/car-bookings.ts'
import { ApiError, isApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { retryWrite, undoLater } from '../after-confirm.ts'
import { checkDateOfBirth } from '../people.ts'
import type { Caller } from '../providers/calls.ts'
import {
  alreadyPrebooked,
  type BookingCore,
  type BookingDeps,
  JOB_UNDO_BOOKING,
  LOCK_MS,
  MARKER_GRACE_MS,
  type UndoBooking,
  undoJobId,
  usedKey,
  type Zr1Reference,
  zr1Context,
} from './booking-core.ts'
import type { BookingFollowUps } from './booking-jobs.ts'
import { extrasOf, newBookingId, presentBooking, type StoredExtras } from './booking-view.ts'
import { presentOffer } from './present.ts'

/** POST /cars/offer-details, /cars/prebook and /cars/bookings: from an offer to a recorded booking. */
export function createBookingCreation(deps: BookingDeps, core: BookingCore, followUps: BookingFollowUps) {
  const { acquire, offerProvider, call, followUp } = core
  const { cancelAtProvider, watch, leftOver } = followUps
  return {
    async offerDetails(offerToken: string, caller: Caller): Promise<OfferDetails> {
      const claim = deps.offerTokens.open(
        'offer',
        caller.tenant.id,
        caller.environment,
        offerToken,
        caller.now,
        'offerToken',
      )
      // The fresh token is the same offer (same nonce): once prebooked, it could not be used either.
      if (await deps.kv.get(usedKey(claim.n))) throw alreadyPrebooked()
      const p = offerProvider(caller, claim.p, 'offerToken')
      const { offer, terms } = await call(caller, p, 'offerDetails', (c, ctx) => c.offerDetails(claim.r, ctx), true)
      const presented = presentOffer({ providerId: p.entry.id, offer }, p, caller, deps.offerTokens, {
        ttlSeconds: deps.offerTokenTtlSeconds,
        withPrice: claim.k,
        nonce: claim.n,
      })
      // DECISIONS: "answers the offer with a fresh token plus …": the offer once, under `offer` as prebook has it; its
      // upsells once, priced, in `upsells` (issue 21 dropped the flat copy and `availableUpsells`).
      const { availableUpsells: _summaries, ...fresh } = presented
      return {
        offer: fresh,
        cancellationPolicy: terms.cancellationPolicy,
        changePolicies: terms.changePolicies,
        pickupRequirements: terms.pickupRequirements,
        upsells: terms.upsells,
      }
    },

    /** POST /cars/prebook: consumes the offer token once; a concurrent prebook of the same offer is told to retry. */
    async prebook(
      input: { offerToken: string; accessMethod?: 'APP'; upsells?: string[] },
      caller: Caller,
    ): Promise<PrebookResult> {
      const claim = deps.offerTokens.open(
        'offer',
        caller.tenant.id,
        caller.environment,
        input.offerToken,
        caller.now,
        'offerToken',
      )
      const used = usedKey(claim.n)
      if (await deps.kv.get(used)) throw alreadyPrebooked()
      const lock = `cars:prebook-lock:${claim.n}`
      const owner = `${caller.now.getTime()}-${Math.random()}`
      if (!(await deps.kv.setIfAbsent(lock, owner, LOCK_MS))) {
        if (await deps.kv.get(used)) throw alreadyPrebooked()
        // Spec 7.2: 409 INTERNAL_ERROR means "another request is prebooking this offer; retry".
        throw new ApiError(
          'INTERNAL_ERROR',
          undefined,
          { reason: 'PREBOOK_IN_PROGRESS', retryable: true },
          { status: 409 },
        )
      }
      try {
        if (await deps.kv.get(used)) throw alreadyPrebooked()
        const p = offerProvider(caller, claim.p, 'offerToken')
        const answer = await call(caller, p, 'prebook', (c, ctx) =>
          c.prebook(claim.r, { accessMethod: input.accessMethod, upsells: input.upsells ?? [] }, ctx),
        )
        await deps.kv.set(used, '1', claim.x - caller.now.getTime() + MARKER_GRACE_MS)
        const usableUntil = new Date(caller.now.getTime() + deps.offerTokenTtlSeconds * 1000)
        const prebookedOfferToken = deps.offerTokens.issue('prebooked', caller.tenant.id, caller.environment, {
          p: p.entry.id,
          r: answer.prebookRef,
          x: usableUntil.getTime(),
          a: claim.a,
          c: claim.c,
          k: claim.k,
        })
        const {
          offerToken: _t,
          usableUntil: _u,
          ...offer
        } = presentOffer({ providerId: p.entry.id, offer: answer.offer }, p, caller, deps.offerTokens, {
          ttlSeconds: deps.offerTokenTtlSeconds,
          withPrice: true,
        })
        return {
          prebookedOfferToken,
          usableUntil: usableUntil.toISOString(),
          appAccessAvailable: answer.appAccessAvailable,
          offer,
          price: answer.offer.price,
          upsells: answer.terms.upsells,
          cancellationPolicy: answer.terms.cancellationPolicy,
          requiredFields: answer.requiredFields,
          warnings: answer.warnings,
        }
      } finally {
        await deps.kv.deleteIfEquals(lock, owner)
      }
    },

    /** POST /cars/bookings: one booking per prebooked token, whichever instance and however many tries at once. */
    async book(input: BookingCreate, caller: Caller): Promise<Booking> {
      checkDateOfBirth(input.driver.dateOfBirth, caller.now, 'driver.dateOfBirth')
      // Spec 3.2: the prebook stays valid while the client collects the fields MISSING_REQUIRED_FIELD asked for.
      const collecting = (n: string) => `cars:collecting:${n}`
      const claim = await deps.offerTokens.openExtended(
        'prebooked',
        caller.tenant.id,
        caller.environment,
        input.prebookedOfferToken,
        caller.now,
        'prebookedOfferToken',
        async ({ n }) => Number((await deps.kv.get(collecting(n))) ?? 0) || undefined,
      )
      const used = `cars:booked:${claim.n}`
      // The booking made with the token, so the client need not search its bookings for it (spec 7.3.3).
      const alreadyUsed = (bookingId: string | undefined) =>
        new ApiError('OFFER_TOKEN_ALREADY_USED', undefined, {
          prebookedOfferToken: detail('BOOKING_EXISTS_FOR_TOKEN'),
          ...(bookingId && bookingId !== '1' ? { bookingId } : {}),
        })
      const existing = async () => (await deps.kv.get(used)) ?? (await deps.repo.bookingIdForToken(claim.n))
      const lock = `cars:book-lock:${claim.n}`
      const owner = `${caller.now.getTime()}-${Math.random()}`
      // A concurrent attempt on another request or instance: wait for it to settle, then answer from its outcome
      // (a failed attempt leaves the token usable, so ALREADY_USED only once a booking exists).
      if (!(await acquire(lock, owner))) {
        const bookingId = await existing()
        if (bookingId) throw alreadyUsed(bookingId)
        throw new ApiError(
          'INTERNAL_ERROR',
          undefined,
          { reason: 'BOOKING_IN_PROGRESS', retryable: true },
          { status: 409 },
        )
      }
      try {
        const bookingId = await existing()
        if (bookingId) throw alreadyUsed(bookingId)
        const p = offerProvider(caller, claim.p, 'prebookedOfferToken')
        const left = await leftOver(caller, p, claim.n)
        const booked =
          left?.booked ??
          (await call(caller, p, 'book', (c, ctx) =>
            c.book(
              claim.r,
              {
                driver: input.driver,
                accessMethod: input.accessMethod,
                additionalFields: input.additionalFields ?? {},
              },
              ctx,
            ),
          ).catch(async (error: unknown) => {
            if (!isApiError(error) || error.code !== 'MISSING_REQUIRED_FIELD') throw error
            // The token stays usable for another full validity from now, so collecting the fields never runs it out.
            const ttlMs = deps.offerTokenTtlSeconds * 1000
            const until = Math.max(claim.x, caller.now.getTime() + ttlMs)
            await deps.kv.set(collecting(claim.n), String(until), until - caller.now.getTime() + MARKER_GRACE_MS)
            throw new ApiError(error.code, undefined, { ...error.details, usableUntil: new Date(until).toISOString() })
          }))
        const none = caller.tenant.dataRetention === 'NONE'
        const id = none
          ? `zr1_${deps.tokens.seal(zr1Context(caller), {
              p: p.entry.id,
              r: booked.reference,
              d: { f: input.driver.firstName, l: input.driver.lastName, e: input.driver.email },
            } satisfies Zr1Reference)}`
          : (left?.bookingId ?? newBookingId())
        const markerTtl = claim.x - caller.now.getTime() + MARKER_GRACE_MS
        // Under retention NONE nothing is kept but the personal-data-free facts the undo needs, for its minute.
        const undo: UndoBooking = {
          nonce: claim.n,
          tenantId: caller.tenant.id,
          environment: caller.environment,
          providerId: p.entry.id,
          reference: booked.reference,
          ...(none ? {} : { bookingId: id }),
        }
        // The provider booked; the record could not be written even after retries. The token stays usable: a retry
        // within UNDO_GRACE_MS takes this booking over, later the job has cancelled it and the retry books anew.
        const notKept = async (error: unknown): Promise<never> => {
          deps.log.error(
            { err: error, providerId: p.entry.id, reference: booked.reference },
            'car booking not recorded',
          )
          return undoLater(followUp, JOB_UNDO_BOOKING, undoJobId(claim.n), undo, cancelAtProvider)
        }
        const offerPrice = { amount: claim.a, currency: claim.c }
        let booking: Booking
        if (none) {
          // Under retention NONE the reference is returned once and kept nowhere (spec 4.5): the single-use marker
          // is the only record, and holds no id.
          await retryWrite(() => deps.kv.set(used, '1', markerTtl)).catch(notKept)
          booking = presentBooking(id, p, booked, 'NONE')
        } else {
          const history = [{ status: booked.status, time: caller.now.toISOString(), reason: 'created' }]
          const extras: StoredExtras = {
            driver: input.driver,
            offerPrice,
            statusHistory: history,
            additionalFields: input.additionalFields,
          }
          const record = presentBooking(id, p, booked, 'STANDARD', extras)
          const row = await retryWrite(
            () =>
              deps.repo.insert({
                id,
                tenantId: caller.tenant.id,
                environment: caller.environment,
                providerId: p.entry.id,
                providerReference: booked.reference,
                status: booked.status,
                tokenNonce: claim.n,
                record,
                statusHistory: history,
                // The service's clock, as every later write uses (not the database's).
                createdAt: caller.now,
                updatedAt: caller.now,
              }),
            // An insert whose answer was lost may have been written: then it is this booking's row.
            async () =>
              (await deps.repo.bookingIdForToken(claim.n)) === id
                ? deps.repo.find(caller.tenant.id, caller.environment, id)
                : undefined,
          ).catch(notKept)
          if (!row) {
            // Another attempt recorded a booking for the token after this one's lock ran out: this one is a second
            // booking at the provider, and goes.
            await cancelAtProvider(undo).catch((error: unknown) =>
              deps.log.error({ err: error, ...undo }, 'LOST: a second booking of one token could not be cancelled'),
            )
            throw alreadyUsed(await deps.repo.bookingIdForToken(claim.n))
          }
          // The row is the record; the marker only spares later attempts a query.
          await deps.kv.set(used, id, markerTtl).catch(() => {})
          booking = presentBooking(id, p, booked, 'STANDARD', extrasOf(row))
        }
        if (booking.status === 'CONFIRMED') {
          await deps.notifier.confirmed(caller, booking, input.driver)
          await deps.publish('car.booking.confirmed', caller.tenant, caller.environment, booking)
        } else if (booking.status === 'PENDING' && !none) {
          // Under retention NONE nothing is kept to watch it with: the client's reads find the confirmation.
          await watch({ bookingId: id, tenantId: caller.tenant.id, environment: caller.environment, round: 0 }).catch(
            (error: unknown) => deps.log.warn({ err: error, bookingId: id }, 'could not schedule a watch of a booking'),
          )
        }
        return booking
      } finally {
        await deps.kv.deleteIfEquals(lock, owner)
      }
    },
  }
}
