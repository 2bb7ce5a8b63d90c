import type { Registry } from '../../connectors/registry.ts'
import { type CarConnector, isCarConnector, type ProviderBooking } from '../../connectors/types/cars.ts'
import type { Provider } from '../../connectors/types/common.ts'
import type { Environment } from '../../contract/access.ts'
import type { Booking } from '../../contract/car-bookings.ts'
import { ApiError, isApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { CarBookingsRepo } from '../../store/car-bookings-repo.ts'
import type { CarBookingRow } from '../../store/schema.ts'
import { sameAsStored } from '../../store/unchanged.ts'
import {
  type AfterConfirmDeps,
  createFollowUps,
  jobCaller,
  recordLater,
  retryWrite,
  type UndoAtProvider,
} from '../after-confirm.ts'
import type { Publish } from '../event-publishing.ts'
import { type Caller, type CallProvider, requireProvider } from '../providers/calls.ts'
import { notFoundOrOtherEnvironment, otherEnvironment } from '../token-diagnosis.ts'
import { BOOKING_ID, extrasOf, presentBooking, storedBooking } from './booking-view.ts'
import type { OfferTokens } from './offer-tokens.ts'

/** Provider calls on behalf of a client request: generous, like the spec's recommended client timeouts. */
export const BOOKING_BUDGET_MS = 25_000
export const READ_BUDGET_MS = 10_000
export const LOCK_MS = 60_000
/** How long a booking attempt waits for a concurrent attempt on the same token. */
export const LOCK_WAIT_MS = 30_000
export const MARKER_GRACE_MS = 24 * 3600 * 1000
/** Writes of an action (change, cancel) that keep losing to other writes give up after this many tries. */
export const MAX_WRITE_ATTEMPTS = 3

/** A second prebook of one offer (DECISIONS: 409 OFFER_TOKEN_ALREADY_USED), saying it was prebooked, not booked. */
export const alreadyPrebooked = () =>
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
export interface Zr1Reference {
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
export interface Changes {
  notes?: string
  driver?: Partial<Booking['driver']>
  reason?: string
  /** The client changed the booking (PATCH): announced as car.booking.changed once written. */
  changed?: boolean
}

/** A booking the provider made but the service could not record (the job's payload). */
export interface UndoBooking extends UndoAtProvider {
  /** The id the record was to have (retention STANDARD), kept when a retry takes the booking over. */
  bookingId?: string
}

/** A change or cancellation the provider made whose record is written later (the job's payload). */
export interface RecordBooking {
  bookingId: string
  tenantId: string
  environment: Environment
  changes: Changes
}

/** A stored PENDING booking to read again (the job's payload). */
export interface WatchPending {
  bookingId: string
  tenantId: string
  environment: Environment
  round: number
}

/** One undo job per prebooked token at a time: the id says which token, so a retry finds it. */
export const undoJobId = (nonce: string) => `undo_car_${nonce}`

/** The reason of a status change the provider made on its own (seen when the booking is read). */
export const PROVIDER_UPDATE = 'updated by the provider'
/** Set when an offer token was prebooked: the offer is spent. */
export const usedKey = (nonce: string) => `cars:offer-used:${nonce}`
export const zr1Context = (caller: Caller) => `zr1|${caller.tenant.id}|${caller.environment}`

/**
 * What the booking requests (bookings.ts, booking-create.ts) and their follow-up jobs (booking-jobs.ts) share: locks,
 * the provider's calls, where a booking is kept, and the recording of what the provider says about it.
 */
export function createBookingCore(deps: BookingDeps) {
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
              const job: RecordBooking = {
                bookingId: row.id,
                tenantId: caller.tenant.id,
                environment: caller.environment,
                changes,
              }
              await recordLater(followUp, JOB_RECORD_BOOKING, { bookingId: row.id }, job, recordBooking)
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

  /** Brings the stored booking in step with the provider, with the changes of the request that could not write it. */
  async function recordBooking(job: RecordBooking) {
    const caller = await jobCaller(deps.tenants, job.tenantId, job.environment, deps.clock())
    const row = await deps.repo.find(job.tenantId, job.environment, job.bookingId)
    if (!row) return
    const p = provider(caller, row.providerId)
    const fresh = await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(row.providerReference, ctx), true)
    await syncStored(caller, row, p, fresh, job.changes, false, false)
  }

  return {
    acquire,
    provider,
    offerProvider,
    call,
    locate,
    lostByProvider,
    announce,
    syncStored,
    followUp,
    recordBooking,
  }
}

export type BookingCore = ReturnType<typeof createBookingCore>
