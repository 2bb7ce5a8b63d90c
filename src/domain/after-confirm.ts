import { randomBytes } from 'node:crypto'
import type { Environment } from '../contract/access.ts'
import { ApiError, isApiError } from '../contract/errors.ts'
import { detail } from '../platform/i18n/texts.ts'
import { type Jobs, type JobsLogger, PermanentJobError } from '../platform/jobs.ts'
import type { Kv } from '../platform/kv/types.ts'
import type { TenantRow } from '../store/schema.ts'
import type { Caller } from './providers/calls.ts'

/**
 * What happens after a provider said yes (README, "After the provider said yes"): the service's record is written
 * with a few quick retries; when it still cannot be written, a creation is undone at the provider by a job (the
 * client's retry may take it over first where a single-use token names it), and a change to an existing record is
 * written later by a job, since a ride that ended or a booking that was cancelled cannot be undone.
 */

/** Pauses between the tries of a write after a provider's confirmation: four tries in about 1.5 s. */
export const WRITE_PAUSES_MS = [100, 400, 1000]
/**
 * How long a booking that could not be recorded stays at the provider for the client's retry with the same token
 * to take it over, before a job cancels it: longer than the retries of spec 7.3 (1 + 2 + 4 + 8 s) take.
 */
export const UNDO_GRACE_MS = 60_000
/** Undo and record-later jobs keep trying this often (backoff 30 s … 1 h, so about three hours in all). */
export const FOLLOW_UP_ATTEMPTS = 10

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Runs `write` (store calls only: whatever it throws is the store failing) until it succeeds, at most
 * `WRITE_PAUSES_MS.length + 1` times. A write whose answer was lost may have landed all the same: `landed` looks for
 * it before each new try.
 */
export async function retryWrite<T>(
  write: () => Promise<T>,
  landed?: () => Promise<T | undefined>,
  pauses: readonly number[] = WRITE_PAUSES_MS,
): Promise<T> {
  let failure: unknown
  for (let attempt = 0; attempt <= pauses.length; attempt++) {
    if (attempt > 0) {
      await sleep(pauses[attempt - 1])
      const found = landed ? await landed().catch(() => undefined) : undefined
      if (found !== undefined) return found
    }
    try {
      return await write()
    } catch (error) {
      failure = error
    }
  }
  throw failure
}

/** A job id of its own for each write left to a job, so two left on one record both run. */
export const recordJobId = (record: string) => `record_${record}_${randomBytes(6).toString('hex')}`

/** The caller a follow-up job acts as: the tenant of the record, no request, no test scenarios. */
export async function jobCaller(
  tenants: { findTenant(id: string): Promise<TenantRow | undefined> },
  tenantId: string,
  environment: Environment,
  now: Date,
): Promise<Caller> {
  const tenant = await tenants.findTenant(tenantId)
  if (!tenant) throw new PermanentJobError(`tenant ${tenantId} is gone`)
  return { tenant, environment, language: tenant.defaultLanguage, now, scenarios: [] }
}

/**
 * The answer when the provider confirmed but the service could not record it: 503, retryable. `undone` says what
 * became of the provider's side, so the client knows whether its retry books again or takes the booking over.
 */
export const notRecorded = (details: Record<string, unknown>) =>
  new ApiError(
    'SERVICE_UNAVAILABLE',
    undefined,
    { reason: 'NOT_RECORDED', retryable: true, ...details },
    { headers: { 'retry-after': '1' } },
  )

export interface FollowUpDeps {
  jobs: Jobs
  clock: () => Date
  log: JobsLogger
}

/** What a flow that writes after a provider's confirmation needs besides its own: follow-up jobs act as the tenant. */
export interface AfterConfirmDeps extends FollowUpDeps {
  tenants: { findTenant(id: string): Promise<TenantRow | undefined> }
}

/** What a provider made that the service could not record: all an undo job needs to find it again (no personal data). */
export interface UndoAtProvider {
  /** The single-use token's nonce: a retry with the token takes the provider's record over while the job waits. */
  nonce: string
  tenantId: string
  environment: Environment
  providerId: string
  reference: string
}

/**
 * Schedules work that must happen after a provider's confirmation (undo at the provider, or write the record later)
 * as a job with a fixed id, so it survives a restart and runs once across instances. With `delayMs` 0 it is also run
 * here and now. When even the job cannot be written, `inline` does the work in this process, once (an undo then
 * skips asking the store whether the record landed after all: it just failed to write it, and is down), and a
 * failure is logged for the operator with everything needed to finish it by hand.
 */
export function createFollowUps({ jobs, clock, log }: FollowUpDeps) {
  return async function schedule(
    kind: string,
    id: string,
    payload: object,
    options: { delayMs: number; inline: () => Promise<void> },
  ): Promise<'scheduled' | 'done' | 'failed'> {
    try {
      await retryWrite(() =>
        jobs.enqueue(kind, payload, {
          id,
          runAt: new Date(clock().getTime() + options.delayMs),
          maxAttempts: FOLLOW_UP_ATTEMPTS,
          replaceFinished: true,
        }),
      )
    } catch (error) {
      log.error(
        { err: error, job: { kind, id }, record: traceable(payload) },
        'could not schedule a follow-up job; doing it now',
      )
      try {
        await options.inline()
        return 'done'
      } catch (inlineError) {
        log.error(
          { err: inlineError, job: { kind, id }, record: traceable(payload) },
          'LOST: a provider holds what the service could not record nor undo; resolve it by hand',
        )
        return 'failed'
      }
    }
    if (options.delayMs === 0) await jobs.runNow(id).catch(() => false)
    return 'scheduled'
  }
}

export type FollowUps = ReturnType<typeof createFollowUps>

/**
 * The provider made what the service could not record even after retries (a booking, tickets): a job undoes it
 * at the provider after UNDO_GRACE_MS, unless the client's retry with the same token takes it over first (the token
 * stays usable; later the retry books anew). Answers the client 503 NOT_RECORDED, saying so.
 */
export async function undoLater<U extends UndoAtProvider>(
  followUp: FollowUps,
  kind: string,
  jobId: string,
  undo: U,
  cancelAtProvider: (undo: U) => Promise<void>,
): Promise<never> {
  await followUp(kind, jobId, { ...undo }, { delayMs: UNDO_GRACE_MS, inline: () => cancelAtProvider(undo) })
  throw notRecorded({ prebookedOfferToken: detail('STILL_USABLE_RETRY') })
}

/**
 * What the provider did to an existing record (a change, a cancellation, a ride's start or end) that the store would
 * not take: a job writes it, here and now and then until the store takes it. When not even the job can be written the
 * client is told to retry (503 NOT_RECORDED with `record`, the record's one id field): the provider answers a repeated
 * change the same way, so the retry records it.
 */
export async function recordLater<J extends object>(
  followUp: FollowUps,
  kind: string,
  record: { bookingId: string } | { subscriptionId: string } | { tripId: string },
  job: J,
  write: (job: J) => Promise<void>,
): Promise<void> {
  const [id] = Object.values(record)
  const outcome = await followUp(kind, recordJobId(id), { ...job }, { delayMs: 0, inline: () => write(job) })
  if (outcome === 'failed') throw notRecorded(record)
}

/** Fields of a job's payload that find the record (at the provider too) and hold nothing personal: what logs may show. */
const TRACEABLE = [
  'tenantId',
  'environment',
  'providerId',
  'reference',
  'bookingId',
  'tripId',
  'subscriptionId',
  'from',
]

const traceable = (payload: object) =>
  Object.fromEntries(Object.entries(payload).filter(([key]) => TRACEABLE.includes(key)))

/** A cancellation at the provider of something it does not know (any more) is as good as done. */
export const ignoreNotFound = (error: unknown): void => {
  if (!isApiError(error) || error.code !== 'NOT_FOUND') throw error
}

/**
 * Undoes at the provider what the service could not record, unless a retry with the same token recorded it
 * meanwhile (`recorded`). Holds the token's booking lock as a booking attempt does, so it never undoes what a retry
 * is taking over; while an attempt holds the lock the job fails and is tried again later.
 */
export async function undoUnlessRecorded(
  kv: Kv,
  lock: { key: string; owner: string; ttlMs: number },
  recorded: () => Promise<unknown>,
  undo: () => Promise<void>,
): Promise<void> {
  if (!(await kv.setIfAbsent(lock.key, lock.owner, lock.ttlMs)))
    throw new Error('a booking attempt with the same token is running; the undo waits for it')
  try {
    if (!(await recorded())) await undo()
  } finally {
    await kv.deleteIfEquals(lock.key, lock.owner)
  }
}
