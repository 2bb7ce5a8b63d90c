import type {
  Booking,
  BookingChange,
  BookingCreate,
  ChangeType,
  OfferDetails,
  PrebookResult,
  VehicleAction,
} from '../../api/cars/schemas.ts'
import type { Registry } from '../../connectors/registry.ts'
import { type CarConnector, isCarConnector, type Provider, type ProviderBooking } from '../../connectors/types.ts'
import { ApiError, isApiError } from '../../http/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { JobContext, JobHandlers } from '../../platform/jobs.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { CarBookingsRepo } from '../../store/car-bookings-repo.ts'
import type { CarBookingRow } from '../../store/schema.ts'
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
import type { Publish } from '../event-publishing.ts'
import { checkDateOfBirth } from '../people.ts'
import { type Caller, type CallProvider, requireProvider } from '../providers/calls.ts'
import type { Environment } from '../tenants/permissions.ts'
import { notFoundOrOtherEnvironment, otherEnvironment } from '../token-diagnosis.ts'
import { WATCH_JOB_ID, watchAgain } from '../watch.ts'
import { BOOKING_ID, extrasOf, newBookingId, presentBooking, type StoredExtras, storedBooking } from './booking-view.ts'
import { checkRentalPeriod } from './dates.ts'
import type { OfferTokens } from './offer-tokens.ts'
import { presentOffer } from './present.ts'

/** Provider calls on behalf of a client request: generous, like the spec's recommended client timeouts. */
const BOOKING_BUDGET_MS = 25_000
const READ_BUDGET_MS = 10_000
const LOCK_MS = 60_000
/** How long a booking attempt waits for a concurrent attempt on the same token. */
const LOCK_WAIT_MS = 30_000
const MARKER_GRACE_MS = 24 * 3600 * 1000
/** Writes of an action (change, cancel) that keep losing to other writes give up after this many tries. */
const MAX_WRITE_ATTEMPTS = 3

/** A second prebook of one offer (DECISIONS: 409 OFFER_TOKEN_ALREADY_USED), saying it was prebooked, not booked. */
const alreadyPrebooked = () =>
  new ApiError('OFFER_TOKEN_ALREADY_USED', undefined, {
    reason: 'OFFER_ALREADY_PREBOOKED',
    offerToken: detail('ALREADY_PREBOOKED'),
  })

export interface BookingNotifier {
  /** `recipient`: the driver who booked (under retention NONE the booking itself shows the operator account). */
  confirmed(caller: Caller, booking: Booking, recipient: Booking['driver']): Promise<void>
  /** `recipient`: as above; absent for a retention NONE reference that carries no driver (made before it did). */
  cancelled(caller: Caller, booking: Booking, recipient: Booking['driver'] | undefined): Promise<void>
}

/**
 * What a `zr1_` reference carries (spec 4.5: tenant, through the sealing context, provider and the provider's
 * reference), plus the driver to write the cancellation mail to: the platform keeps no address, the client holds it,
 * sealed.
 */
interface Zr1Reference {
  p: string
  r: string
  d?: { f: string; l: string; e: string }
}

/** `AfterConfirmDeps`: undoing bookings the service could not record, and writing changes it could not write at once. */
export interface BookingDeps extends AfterConfirmDeps {
  registry: Registry
  callProvider: CallProvider
  kv: Kv
  tokens: TokenCipher
  offerTokens: OfferTokens
  repo: CarBookingsRepo
  offerTokenTtlSeconds: number
  notifier: BookingNotifier
  /** Status changes once recorded (car.booking.confirmed, .changed, .cancelled). */
  publish: Publish
}

export const JOB_UNDO_BOOKING = 'cars.undo-booking'
export const JOB_RECORD_BOOKING = 'cars.record-booking'
/** Reads a PENDING booking again until the provider settles it, so its confirmation is announced without a client read. */
export const JOB_WATCH_PENDING = 'cars.watch-pending'

/** What a write of a stored booking carries besides the provider's answer. */
interface Changes {
  notes?: string
  driver?: Partial<Booking['driver']>
  reason?: string
  /** The client changed the booking (PATCH): announced as car.booking.changed once written. */
  changed?: boolean
}

/** A booking the provider made but the service could not record (the job's payload). */
interface UndoBooking extends UndoAtProvider {
  /** The id the record was to have (retention STANDARD), kept when a retry takes the booking over. */
  bookingId?: string
}

/** A change or cancellation the provider made whose record is written later (the job's payload). */
interface RecordBooking {
  bookingId: string
  tenantId: string
  environment: Environment
  changes: Changes
}

/** A stored PENDING booking to read again (the job's payload). */
interface WatchPending {
  bookingId: string
  tenantId: string
  environment: Environment
  round: number
}

/** One undo job per prebooked token at a time: the id says which token, so a retry finds it. */
const undoJobId = (nonce: string) => `undo_car_${nonce}`

/** The reason of a status change the provider made on its own (seen when the booking is read). */
const PROVIDER_UPDATE = 'updated by the provider'
/** Set when an offer token was prebooked: the offer is spent. */
const usedKey = (nonce: string) => `cars:offer-used:${nonce}`
const zr1Context = (caller: Caller) => `zr1|${caller.tenant.id}|${caller.environment}`

export function createCarBookings(deps: BookingDeps) {
  /** Takes a lock, waiting up to a few seconds for another holder to finish. */
  const acquire = async (lock: string, owner: string) => {
    for (let waited = 0; waited < LOCK_WAIT_MS; waited += 50) {
      if (await deps.kv.setIfAbsent(lock, owner, LOCK_MS)) return true
      await new Promise((r) => setTimeout(r, 50))
    }
    return false
  }
  const provider = (caller: Caller, id: string) => requireProvider(deps.registry, caller, id, isCarConnector)
  /** An offer's provider: one the key may no longer use (the tenant's providers changed) leaves the offer unavailable. */
  const offerProvider = (caller: Caller, id: string, field: string) => {
    try {
      return provider(caller, id)
    } catch {
      throw new ApiError('OFFER_EXPIRED', undefined, {
        [field]: detail('PROVIDER_NO_LONGER_USABLE'),
        providerId: id,
        reason: 'PROVIDER_NOT_AVAILABLE',
      })
    }
  }
  const call = <T>(
    caller: Caller,
    p: Provider & { connector: CarConnector },
    operation: string,
    fn: (c: CarConnector, ctx: Parameters<CarConnector['getBooking']>[1]) => Promise<T>,
    idempotent = false,
  ) =>
    deps.callProvider(caller, p, operation, operation === 'book' ? BOOKING_BUDGET_MS : READ_BUDGET_MS, fn, idempotent)

  /** A zr1_ reference (retention NONE) or a stored booking of this tenant and environment; 404 otherwise. */
  async function locate(caller: Caller, bookingId: string) {
    if (bookingId.startsWith('zr1_')) {
      const ref = deps.tokens.open<Zr1Reference>(zr1Context(caller), bookingId.slice(4))
      if (!ref) {
        const other = { ...caller, environment: otherEnvironment(caller.environment) }
        throw await notFoundOrOtherEnvironment(
          'NOT_FOUND',
          { resource: 'booking', bookingId },
          caller.environment,
          async () => deps.tokens.open(zr1Context(other), bookingId.slice(4)) !== undefined,
        )
      }
      const recipient = ref.d && { firstName: ref.d.f, lastName: ref.d.l, email: ref.d.e }
      return { kind: 'reference' as const, providerId: ref.p, reference: ref.r, recipient }
    }
    const wellFormed = BOOKING_ID.test(bookingId)
    const row = wellFormed ? await deps.repo.find(caller.tenant.id, caller.environment, bookingId) : undefined
    if (!row) {
      throw await notFoundOrOtherEnvironment(
        'NOT_FOUND',
        { resource: 'booking', bookingId },
        caller.environment,
        async (env) => wellFormed && (await deps.repo.find(caller.tenant.id, env, bookingId)) !== undefined,
      )
    }
    return { kind: 'stored' as const, providerId: row.providerId, reference: row.providerReference, row }
  }

  /**
   * A provider answering NOT_FOUND for a booking the service holds has lost its record: the booking exists for the
   * client, so not 404 but PROVIDER_ERROR (502 on GET and PATCH, spec 7.2) with what the service stored
   * (`details.booking`, for a stored booking) and `details.reason` PROVIDER_RECORD_MISSING.
   */
  const lostByProvider =
    (found: Awaited<ReturnType<typeof locate>>, bookingId: string) =>
    (error: unknown): never => {
      if (!(isApiError(error) && error.code === 'NOT_FOUND')) throw error
      throw new ApiError('PROVIDER_ERROR', 'The provider no longer knows this booking', {
        reason: 'PROVIDER_RECORD_MISSING',
        providerId: found.providerId,
        bookingId,
        ...(found.kind === 'stored' ? { booking: storedBooking(found.row) } : {}),
      })
    }

  /**
   * What a recorded write of a stored booking announces: a new status (CONFIRMED also mails the driver, as a
   * booking confirmed at once does) and a change the client asked for. Called by the one writer whose
   * compare-and-set won, so each change is announced once.
   */
  async function announce(caller: Caller, before: string, booking: Booking, changed = false) {
    if (booking.status !== before && booking.status === 'CONFIRMED') {
      await deps.notifier.confirmed(caller, booking, booking.driver)
      await deps.publish('car.booking.confirmed', caller.tenant, caller.environment, booking)
    }
    if (booking.status !== before && booking.status === 'CANCELLED')
      await deps.publish('car.booking.cancelled', caller.tenant, caller.environment, booking)
    if (changed) await deps.publish('car.booking.changed', caller.tenant, caller.environment, booking)
  }

  /**
   * Keeps the stored copy in step with what the provider reports, recording status changes. Each write is a
   * compare-and-set on the row's version. When another request wrote first, a plain read (`fromRead`) yields to it
   * and answers the stored booking, since what it read may be older; an action (change, cancel), whose answer is the
   * newest, is written again over the latest row.
   */
  async function syncStored(
    caller: Caller,
    first: CarBookingRow,
    p: Provider,
    fresh: ProviderBooking,
    changes: Changes = {},
    fromRead = false,
    /** False in the job that records later: its failure is the job's, retried with backoff. */
    orRecordLater = true,
  ): Promise<Booking> {
    let row = first
    for (let attempt = 0; ; attempt++) {
      const extras = extrasOf(row)
      const history = [...(extras.statusHistory ?? [])]
      // Every entry says why (DECISIONS: status, time, reason): a status the provider moved on its own says so.
      if (fresh.status !== row.status)
        history.push({
          status: fresh.status,
          time: caller.now.toISOString(),
          reason: changes.reason ?? PROVIDER_UPDATE,
        })
      const record = presentBooking(row.id, p, fresh, 'STANDARD', {
        ...extras,
        driver: { ...extras.driver, ...changes.driver },
        notes: changes.notes ?? extras.notes,
        statusHistory: history,
      })
      // A read that finds nothing new writes nothing, so reading never moves `updatedAt`; unless another request
      // wrote meanwhile, whose newer row is the answer then.
      if (fromRead && fresh.status === row.status && sameAsStored(record, row.record, ['createdAt', 'updatedAt'])) {
        const latest = await deps.repo.find(caller.tenant.id, caller.environment, row.id)
        if (latest && latest.version !== row.version) return storedBooking(latest)
        return presentBooking(row.id, p, fresh, 'STANDARD', { ...extras, driver: record.driver, notes: record.notes })
      }
      const write = () =>
        deps.repo.update(row.id, row.version, { status: fresh.status, record, statusHistory: history }, caller.now)
      // A read's write can wait for the next read. An action's result is the provider's already: written with
      // retries, else by a job, and answered as the provider has it meanwhile.
      const updated =
        fromRead || !orRecordLater
          ? await write()
          : await retryWrite(write).catch(async (error: unknown) => {
              deps.log.warn({ err: error, bookingId: row.id }, 'car booking change not recorded; a job records it')
              await recordLater({
                bookingId: row.id,
                tenantId: caller.tenant.id,
                environment: caller.environment,
                changes,
              })
              return 'later' as const
            })
      if (updated === 'later') return record
      if (updated) {
        const booking = presentBooking(row.id, p, fresh, 'STANDARD', {
          ...extrasOf(updated),
          driver: record.driver,
          notes: record.notes,
        })
        await announce(caller, row.status, booking, changes.changed)
        return booking
      }
      const latest = await deps.repo.find(caller.tenant.id, caller.environment, row.id)
      if (!latest) throw new ApiError('NOT_FOUND', undefined, { resource: 'booking', bookingId: row.id })
      if (fromRead || attempt >= MAX_WRITE_ATTEMPTS) return storedBooking(latest)
      row = latest
    }
  }

  const followUp = createFollowUps({ jobs: deps.jobs, clock: deps.clock, log: deps.log })

  /** Schedules the write of an action's result; when not even that can be written, the client is told to retry. */
  async function recordLater(job: RecordBooking) {
    const outcome = await followUp(
      JOB_RECORD_BOOKING,
      recordJobId(job.bookingId),
      { ...job },
      {
        delayMs: 0,
        inline: () => recordBooking(job),
      },
    )
    // The provider answers a repeated change or cancellation the same way, so the client's retry records it.
    if (outcome === 'failed') throw notRecorded({ bookingId: job.bookingId })
  }

  /** Brings the stored booking in step with the provider, with the changes of the request that could not write it. */
  async function recordBooking(job: RecordBooking) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const row = await deps.repo.find(job.tenantId, job.environment, job.bookingId)
    if (!row) return
    const p = provider(caller, row.providerId)
    const fresh = await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(row.providerReference, ctx), true)
    await syncStored(caller, row, p, fresh, job.changes, false, false)
  }

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

  return {
    jobHandlers,
    /** POST /cars/offer-details: the offer again, with a fresh token of the same offer (not consumed) and its terms. */
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
          await followUp(
            JOB_UNDO_BOOKING,
            undoJobId(claim.n),
            { ...undo },
            {
              delayMs: UNDO_GRACE_MS,
              inline: () => cancelAtProvider(undo),
            },
          )
          throw notRecorded({ prebookedOfferToken: detail('STILL_USABLE_RETRY') })
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

    async get(bookingId: string, caller: Caller): Promise<Booking> {
      const found = await locate(caller, bookingId)
      const p = provider(caller, found.providerId)
      const fresh = await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(found.reference, ctx), true).catch(
        lostByProvider(found, bookingId),
      )
      if (found.kind === 'reference') return presentBooking(bookingId, p, fresh, 'NONE')
      // A status the provider moved (a PENDING booking confirmed) is recorded, mailed and announced by syncStored.
      return syncStored(caller, found.row, p, fresh, {}, true)
    },

    async change(bookingId: string, change: BookingChange, caller: Caller): Promise<Booking> {
      const found = await locate(caller, bookingId)
      if (found.kind === 'reference') {
        const refused = Object.keys(change).filter((k) => k !== 'rentalPeriod')
        if (refused.length > 0) {
          throw new ApiError(
            'INVALID_REQUEST',
            undefined,
            Object.fromEntries(
              refused.map((k) => [k, 'cannot be changed under data retention NONE; only rentalPeriod can']),
            ),
          )
        }
      }
      if (change.rentalPeriod) checkRentalPeriod(change.rentalPeriod, caller.now, 'rentalPeriod')
      const p = provider(caller, found.providerId)
      if (found.kind === 'stored' && found.row.status === 'CANCELLED') {
        throw new ApiError('INVALID_REQUEST', undefined, { status: detail('CANCELLED_BOOKING_NOT_CHANGEABLE') })
      }
      const { notes, ...forProvider } = change
      const types: ChangeType[] = []
      if (forProvider.rentalPeriod) types.push('RENTAL_TIMES')
      if (forProvider.driver) types.push('DRIVER_INFO')
      if (forProvider.pickupLocationId) types.push('PICKUP_LOCATION')
      if (forProvider.dropoffLocationId) types.push('DROPOFF_LOCATION')
      if (forProvider.vehicleCategory) types.push('VEHICLE_CATEGORY')
      const fresh = await (types.length > 0
        ? call(caller, p, 'changeBooking', (c, ctx) => c.changeBooking(found.reference, forProvider, ctx))
        : call(caller, p, 'getBooking', (c, ctx) => c.getBooking(found.reference, ctx), true)
      ).catch(lostByProvider(found, bookingId))
      if (found.kind === 'reference') {
        const booking = presentBooking(bookingId, p, fresh, 'NONE')
        await deps.publish('car.booking.changed', caller.tenant, caller.environment, booking)
        return booking
      }
      return syncStored(caller, found.row, p, fresh, {
        notes,
        driver: change.driver,
        reason: types.length ? `changed: ${types.join(', ')}` : undefined,
        changed: true,
      })
    },

    async cancel(bookingId: string, input: { reason?: string }, caller: Caller): Promise<Booking> {
      const found = await locate(caller, bookingId)
      const p = provider(caller, found.providerId)
      // Under retention NONE only the provider knows whether the booking was cancelled already (then no second mail).
      const before =
        found.kind === 'reference'
          ? await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(found.reference, ctx), true).then(
              (b) => b.status,
              () => undefined,
            )
          : found.row.status
      const fresh = await call(caller, p, 'cancelBooking', (c, ctx) =>
        c.cancelBooking(found.reference, input, ctx),
      ).catch(lostByProvider(found, bookingId))
      const booking =
        found.kind === 'reference'
          ? presentBooking(bookingId, p, fresh, 'NONE')
          : await syncStored(caller, found.row, p, fresh, { reason: input.reason ?? 'cancelled by the client' })
      if (before !== 'CANCELLED') {
        await deps.notifier.cancelled(caller, booking, found.kind === 'reference' ? found.recipient : booking.driver)
        // A stored booking's cancellation is announced by syncStored, once its write won.
        if (found.kind === 'reference')
          await deps.publish('car.booking.cancelled', caller.tenant, caller.environment, booking)
      }
      return booking
    },

    async vehicleAction(bookingId: string, action: VehicleAction, caller: Caller) {
      const found = await locate(caller, bookingId)
      const p = provider(caller, found.providerId)
      if (!p.connector.capabilities.operations.includes('VEHICLE_ACTIONS')) {
        throw new ApiError('OPERATION_NOT_SUPPORTED', undefined, {
          providerId: p.entry.id,
          operation: 'VEHICLE_ACTIONS',
        })
      }
      const result = await call(caller, p, 'vehicleAction', (c, ctx) =>
        c.vehicleAction(found.reference, action, ctx),
      ).catch(lostByProvider(found, bookingId))
      return {
        bookingId,
        action,
        status: result.status,
        completedAt: caller.now.toISOString(),
        ...(result.vehicleLocation ? { vehicleLocation: result.vehicleLocation } : {}),
      }
    },
  }
}

export type CarBookings = ReturnType<typeof createCarBookings>
