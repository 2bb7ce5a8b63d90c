/**
 * Background jobs as the rest of the service sees them: handlers register by kind, work is enqueued with a payload, and
 * runs at least once across all instances. The runner over the `jobs` table is `createJobs` in `src/store/jobs.ts`.
 */

/** What a handler learns about the run it serves. */
export interface JobContext {
  id: string
  kind: string
  /** 1 on the first run; counts re-claims of crashed runs too. */
  attempt: number
  maxAttempts: number
}

export type JobHandler<P = Record<string, unknown>> = (payload: P, job: JobContext) => Promise<void> | void

export interface EnqueueOptions {
  /** Not before this time (default: now by the clock). */
  runAt?: Date
  /** Runs before the job is given up as failed (default 8). */
  maxAttempts?: number
  /** An explicit id makes enqueueing idempotent: a second enqueue with the same id does nothing. */
  id?: string
  /**
   * With `id`: a job of that id that is over (done or failed) is set up again with this payload, so one id can stand
   * for "the current piece of work on X" (undoing what one token booked) across several rounds.
   */
  replaceFinished?: boolean
}

/** pino's signature, so a Fastify logger fits. */
export interface JobsLogger {
  error(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
}

/** A job as recorded (the `jobs` table's row). */
export interface JobRecord {
  id: string
  kind: string
  payload: Record<string, unknown>
  status: 'pending' | 'running' | 'done' | 'failed'
  runAt: Date
  attempts: number
  maxAttempts: number
  lockedUntil: Date | null
  lastError: string | null
  createdAt: Date
}

/** A stored job whose payload is of a known shape. */
export type JobOf<P extends object> = Omit<JobRecord, 'payload'> & { payload: P }

export interface Jobs {
  register<P = Record<string, unknown>>(kind: string, handler: JobHandler<P>): void
  /** Adds a pending job; returns its id. With an explicit `id` that exists already, nothing changes. */
  enqueue(kind: string, payload: object, options?: EnqueueOptions): Promise<string>
  /** The job `id`; `P` names the payload its kind's enqueuer wrote (the caller knows the kind by the id). */
  get<P extends object = Record<string, unknown>>(id: string): Promise<JobOf<P> | undefined>
  /** Claims and runs the due jobs once; resolves with how many ran. */
  runDue(limit?: number): Promise<number>
  /**
   * Runs the job `id` here and now if it is due and nobody else holds it (the same claim as polling, so it still
   * runs once across instances); a failed run is retried later as usual. True when it ran.
   */
  runNow(id: string): Promise<boolean>
  /** Polls until `stop()`; runs never overlap, and the timer never keeps the process alive. */
  start(): void
  /** Stops polling and waits for the run in flight. */
  stop(): Promise<void>
}

/** Thrown by a handler when trying again cannot help (a malformed payload): the job fails at once. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError'
}

export const DEFAULT_MAX_ATTEMPTS = 8
const BACKOFF_BASE_MS = 30_000
const BACKOFF_CAP_MS = 60 * 60_000
/**
 * Delay before the next run after the `attempt`-th failure: 30 s, 1 min, 2 min, ... capped at 1 h. Jitter takes off
 * up to a fifth, so runners that failed together (an SMTP server down) do not all come back in the same second,
 * and a retry never comes later than the schedule says.
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1))
  const r = random()
  // An injected source that misbehaves (NaN, out of range) must not produce an invalid run_at.
  const jitter = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0
  return Math.round(base * (1 - 0.2 * jitter))
}

/** Job handlers by kind, as a service hands them to whoever registers them (services.ts). */
export type JobHandlers = Record<string, JobHandler<never>>
