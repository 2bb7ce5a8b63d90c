import { randomBytes } from 'node:crypto'
import {
  backoffMs,
  DEFAULT_MAX_ATTEMPTS,
  type EnqueueOptions,
  type JobContext,
  type JobHandler,
  type JobOf,
  type Jobs,
  type JobsLogger,
  PermanentJobError,
} from '../platform/jobs.ts'
import type { Store } from './db.ts'
import { rowsOf } from './migrate.ts'
import { and, eq, sql } from './orm.ts'
import { jobs } from './schema.ts'

export interface JobsOptions {
  store: Store
  clock: () => Date
  logger?: JobsLogger
  /** Interval of `start()`'s polling (default 1000 ms). */
  pollMs?: number
  /** How long a claim holds a job; a runner that dies lets it be claimed again after this (default 5 min). */
  leaseMs?: number
  /** Jobs claimed per poll (default 10). */
  batchSize?: number
  /** Source of jitter; tests may pin it. */
  random?: () => number
}

const MAX_ERROR_LENGTH = 2000

const errorText = (error: unknown): string => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text
}

interface ClaimedRow {
  id: string
  kind: string
  payload: Record<string, unknown>
  attempts: number
  max_attempts: number
}

/**
 * Background jobs in the `jobs` table. Any number of runners (instances) may share the table: a job is claimed in one
 * statement with FOR UPDATE SKIP LOCKED, so each claim goes to one runner. Delivery is at least once: a runner that
 * dies (or outlives its lease) lets the job be claimed again, so handlers must tolerate a repeat.
 */
export function createJobs(options: JobsOptions): Jobs {
  const { store, clock, logger } = options
  const pollMs = options.pollMs ?? 1000
  const leaseMs = options.leaseMs ?? 5 * 60_000
  const batchSize = options.batchSize ?? 10
  const random = options.random ?? Math.random
  const handlers = new Map<string, JobHandler<never>>()
  const db = store.db

  let timer: NodeJS.Timeout | undefined
  let inFlight: Promise<unknown> | undefined
  let polling = false

  /** Claims due jobs, or only the job `only` when it is due. */
  const claim = async (limit: number, only?: string): Promise<ClaimedRow[]> => {
    const now = clock()
    const nowIso = now.toISOString()
    const lockedUntil = new Date(now.getTime() + leaseMs).toISOString()
    // Times come from the clock, not now(), so tests can move time; the same statement runs on PGlite and PostgreSQL.
    const result = await db.execute(sql`
      UPDATE jobs
         SET status = 'running', locked_until = ${lockedUntil}::timestamptz, attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM jobs
          WHERE ${only === undefined ? sql`TRUE` : sql`id = ${only}`}
            AND ((status = 'pending' AND run_at <= ${nowIso}::timestamptz)
              OR (status = 'running' AND locked_until < ${nowIso}::timestamptz))
          ORDER BY run_at, id
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, payload, attempts, max_attempts`)
    return rowsOf<ClaimedRow>(result).map((row) => ({
      ...row,
      attempts: Number(row.attempts),
      max_attempts: Number(row.max_attempts),
    }))
  }

  /** Only the claim that is still ours may settle the job; a later claim (after our lease ran out) owns it now. */
  const settle = (row: ClaimedRow, changes: Partial<typeof jobs.$inferInsert>) =>
    db
      .update(jobs)
      .set(changes)
      .where(and(eq(jobs.id, row.id), eq(jobs.status, 'running'), eq(jobs.attempts, row.attempts)))

  const runOne = async (row: ClaimedRow): Promise<void> => {
    const context: JobContext = { id: row.id, kind: row.kind, attempt: row.attempts, maxAttempts: row.max_attempts }
    try {
      const handler = handlers.get(row.kind)
      if (!handler) {
        await settle(row, {
          status: 'failed',
          lockedUntil: null,
          lastError: `no handler registered for job kind "${row.kind}"`,
        })
        logger?.error({ job: context }, 'job of unknown kind failed')
        return
      }
      if (row.attempts > row.max_attempts) {
        // Claimed again after its last run's lease ran out: that run crashed the runner or hung; do not loop on it.
        await settle(row, {
          status: 'failed',
          lockedUntil: null,
          lastError: `abandoned: the lease of attempt ${row.max_attempts} of ${row.max_attempts} ran out`,
        })
        logger?.error({ job: context }, 'job abandoned after its last lease ran out')
        return
      }
      try {
        await (handler as JobHandler)(row.payload, context)
      } catch (error) {
        const permanent = error instanceof PermanentJobError
        if (permanent || row.attempts >= row.max_attempts) {
          await settle(row, { status: 'failed', lockedUntil: null, lastError: errorText(error) })
          logger?.error({ job: context, err: error }, 'job failed')
        } else {
          const runAt = new Date(clock().getTime() + backoffMs(row.attempts, random))
          await settle(row, { status: 'pending', runAt, lockedUntil: null, lastError: errorText(error) })
          logger?.warn({ job: context, err: error, retryAt: runAt.toISOString() }, 'job failed; retrying later')
        }
        return
      }
      await settle(row, { status: 'done', lockedUntil: null, lastError: null })
    } catch (error) {
      // The database failed while settling: the lease runs out and the job is claimed again.
      logger?.error({ job: context, err: error }, 'could not record the outcome of a job')
    }
  }

  /** Claims the due jobs (up to `limit`), runs them concurrently and settles each; returns how many ran. */
  const runDue = async (limit = batchSize): Promise<number> => {
    const claimed = await claim(limit)
    await Promise.all(claimed.map(runOne))
    return claimed.length
  }

  const schedule = (delay: number) => {
    if (!polling) return
    timer = setTimeout(tick, delay)
    timer.unref()
  }

  function tick() {
    timer = undefined
    const run = runDue().then(
      (count) => count,
      (error: unknown) => {
        logger?.error({ err: error }, 'claiming jobs failed')
        return 0
      },
    )
    inFlight = run
    void run.then((count) => {
      inFlight = undefined
      // A full batch suggests more are due: go on at once instead of waiting a poll interval.
      schedule(count >= batchSize ? 0 : pollMs)
    })
  }

  return {
    register<P = Record<string, unknown>>(kind: string, handler: JobHandler<P>): void {
      if (handlers.has(kind)) throw new Error(`a handler for job kind "${kind}" is already registered`)
      handlers.set(kind, handler as JobHandler<never>)
    },

    /** Adds a pending job; returns its id. With an explicit `id` that exists already, nothing changes. */
    async enqueue(kind: string, payload: object, enqueueOptions: EnqueueOptions = {}): Promise<string> {
      const id = enqueueOptions.id ?? `job_${randomBytes(8).toString('hex')}`
      const now = clock()
      const values = {
        id,
        kind,
        payload: payload as Record<string, unknown>,
        status: 'pending' as const,
        runAt: enqueueOptions.runAt ?? now,
        maxAttempts: enqueueOptions.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        createdAt: now,
      }
      const insert = db.insert(jobs).values(values)
      await (enqueueOptions.replaceFinished
        ? insert.onConflictDoUpdate({
            target: jobs.id,
            set: {
              kind,
              payload: values.payload,
              status: 'pending',
              runAt: values.runAt,
              maxAttempts: values.maxAttempts,
              attempts: 0,
              lockedUntil: null,
              lastError: null,
            },
            setWhere: sql`${jobs.status} IN ('done', 'failed')`,
          })
        : insert.onConflictDoNothing({ target: jobs.id }))
      return id
    },

    async get<P extends object = Record<string, unknown>>(id: string): Promise<JobOf<P> | undefined> {
      const [row] = await db.select().from(jobs).where(eq(jobs.id, id))
      return row as JobOf<P> | undefined
    },

    runDue,

    /**
     * Runs the job `id` here and now if it is due and nobody else holds it (the same claim as polling, so it still
     * runs once across instances); a failed run is retried later as usual. True when it ran.
     */
    async runNow(id: string): Promise<boolean> {
      const [row] = await claim(1, id)
      if (!row) return false
      await runOne(row)
      return true
    },

    /** Polls every `pollMs` until `stop()`; runs never overlap, and the timer never keeps the process alive. */
    start(): void {
      if (polling) return
      polling = true
      // A run still in flight from before a stop() schedules the next one itself.
      if (!inFlight) schedule(0)
    },

    /** Stops polling and waits for the run in flight. */
    async stop(): Promise<void> {
      polling = false
      if (timer) clearTimeout(timer)
      timer = undefined
      await inFlight
    },
  }
}
