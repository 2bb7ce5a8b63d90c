import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import pg from 'pg'
import { backoffMs, PermanentJobError } from '../../src/platform/jobs.ts'
import type { Store } from '../../src/store/db.ts'
import { createJobs, type JobsOptions } from '../../src/store/jobs.ts'
import { openPglite } from '../../src/store/pglite.ts'
import { openPostgres } from '../../src/store/postgres.ts'
import { testClock } from '../helpers/clock.ts'
import { freshDatabase, POSTGRES_URL } from '../helpers/harness.ts'

async function postgresSkipReason(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return `PostgreSQL at ${POSTGRES_URL} is not reachable (${(error as Error).message}); PostgreSQL job tests skipped`
  } finally {
    await client.end().catch(() => {})
  }
}

const pgSkip = await postgresSkipReason()
if (pgSkip) process.stderr.write(`\n*** ${pgSkip} ***\n\n`)

const deferred = () => {
  let resolve!: () => void
  let reject!: (error: Error) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await sleep(5)
  }
}

interface Backend {
  name: string
  skip?: string
  open(): Promise<Store>
  /** A second connection to the same database, as another instance would have; undefined when there is none. */
  openSecond?(): Promise<Store>
  cleanup(): Promise<void>
}

const pglite = (): Backend => ({
  name: 'PGlite',
  open: () => openPglite(undefined),
  cleanup: async () => {},
})

const postgres = (): Backend => {
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined
  return {
    name: 'PostgreSQL',
    skip: pgSkip,
    open: async () => {
      db = await freshDatabase('jobs')
      return openPostgres(db.url)
    },
    openSecond: () => openPostgres(db!.url),
    cleanup: async () => {
      await db?.drop()
    },
  }
}

for (const backend of [pglite(), postgres()]) {
  describe(`jobs on ${backend.name}`, { skip: backend.skip }, () => {
    let store: Store
    const clock = testClock(Date.parse('2026-06-01T10:00:00Z'))
    const make = (options: Partial<JobsOptions> = {}) => createJobs({ store, clock, random: () => 0, ...options })

    before(async () => {
      store = await backend.open()
    })
    after(async () => {
      await store?.close()
      await backend.cleanup()
    })
    beforeEach(async () => {
      await store.db.execute(sql`DELETE FROM jobs`)
      clock.set(Date.parse('2026-06-01T10:00:00Z'))
    })

    it('runs a due job once and marks it done', async () => {
      const jobs = make()
      const seen: unknown[] = []
      jobs.register('echo', (payload, job) => {
        seen.push({ payload, attempt: job.attempt })
      })
      const id = await jobs.enqueue('echo', { hello: 'world', n: 1 })
      assert.match(id, /^job_[0-9a-f]{16}$/)
      assert.equal(await jobs.runDue(), 1)
      assert.deepEqual(seen, [{ payload: { hello: 'world', n: 1 }, attempt: 1 }])
      const row = await jobs.get(id)
      assert.equal(row?.status, 'done')
      assert.equal(row?.attempts, 1)
      assert.equal(row?.lockedUntil, null)
      assert.equal(await jobs.runDue(), 0)
      assert.equal(seen.length, 1)
    })

    it('waits for runAt by the injected clock', async () => {
      const jobs = make()
      let runs = 0
      jobs.register('later', () => {
        runs++
      })
      await jobs.enqueue('later', {}, { runAt: new Date(clock().getTime() + 60_000) })
      assert.equal(await jobs.runDue(), 0)
      clock.advance(59_999)
      assert.equal(await jobs.runDue(), 0)
      clock.advance(1)
      assert.equal(await jobs.runDue(), 1)
      assert.equal(runs, 1)
    })

    it('enqueues once per explicit id', async () => {
      const jobs = make()
      const payloads: unknown[] = []
      jobs.register('once', (payload) => {
        payloads.push(payload)
      })
      assert.equal(await jobs.enqueue('once', { v: 1 }, { id: 'mail_confirmation_B1' }), 'mail_confirmation_B1')
      assert.equal(await jobs.enqueue('once', { v: 2 }, { id: 'mail_confirmation_B1' }), 'mail_confirmation_B1')
      assert.equal(await jobs.runDue(), 1)
      assert.deepEqual(payloads, [{ v: 1 }])
    })

    it('retries a failing job with exponential backoff, then succeeds', async () => {
      const jobs = make()
      let calls = 0
      jobs.register('flaky', async () => {
        calls++
        if (calls < 3) throw new Error(`boom ${calls}`)
      })
      const id = await jobs.enqueue('flaky', {})
      const t0 = clock().getTime()

      assert.equal(await jobs.runDue(), 1)
      let row = await jobs.get(id)
      assert.equal(row?.status, 'pending')
      assert.equal(row?.attempts, 1)
      assert.match(row?.lastError ?? '', /boom 1/)
      assert.equal(row?.runAt.getTime(), t0 + 30_000)

      clock.advance(29_999)
      assert.equal(await jobs.runDue(), 0, 'not before the backoff has passed')
      clock.advance(1)
      assert.equal(await jobs.runDue(), 1)
      row = await jobs.get(id)
      assert.equal(row?.status, 'pending')
      assert.equal(row?.attempts, 2)
      assert.match(row?.lastError ?? '', /boom 2/)
      assert.equal(row?.runAt.getTime(), clock().getTime() + 60_000, 'the second delay doubles')

      clock.advance(60_000)
      assert.equal(await jobs.runDue(), 1)
      row = await jobs.get(id)
      assert.equal(row?.status, 'done')
      assert.equal(row?.attempts, 3)
      assert.equal(row?.lastError, null)
    })

    it('fails a job for good after maxAttempts', async () => {
      const jobs = make()
      let calls = 0
      jobs.register('doomed', () => {
        calls++
        throw new Error('always')
      })
      const id = await jobs.enqueue('doomed', {}, { maxAttempts: 3 })
      for (let i = 0; i < 3; i++) {
        assert.equal(await jobs.runDue(), 1)
        clock.advance(60 * 60_000)
      }
      const row = await jobs.get(id)
      assert.equal(row?.status, 'failed')
      assert.equal(row?.attempts, 3)
      assert.match(row?.lastError ?? '', /always/)
      clock.advance(24 * 60 * 60_000)
      assert.equal(await jobs.runDue(), 0)
      assert.equal(calls, 3)
    })

    it('fails at once on a permanent error or an unknown kind', async () => {
      const jobs = make()
      jobs.register('bad-payload', () => {
        throw new PermanentJobError('payload lacks "to"')
      })
      const bad = await jobs.enqueue('bad-payload', {})
      const unknown = await jobs.enqueue('nobody.handles.this', {})
      assert.equal(await jobs.runDue(), 2)
      const badRow = await jobs.get(bad)
      assert.equal(badRow?.status, 'failed')
      assert.match(badRow?.lastError ?? '', /payload lacks "to"/)
      const unknownRow = await jobs.get(unknown)
      assert.equal(unknownRow?.status, 'failed')
      assert.equal(unknownRow?.lastError, 'no handler registered for job kind "nobody.handles.this"')
    })

    it('re-claims a job whose runner died after its lease ran out, and ignores the late runner', async () => {
      const hung = deferred()
      const first = make({ leaseMs: 60_000 })
      let firstStarted = false
      first.register('slow', async () => {
        firstStarted = true
        await hung.promise
      })
      const second = make({ leaseMs: 60_000 })
      let secondRuns = 0
      second.register('slow', () => {
        secondRuns++
      })
      const id = await first.enqueue('slow', {})
      const firstRun = first.runDue()
      await until(() => firstStarted)

      assert.equal(await second.runDue(), 0, 'leased to the first runner')
      clock.advance(60_000)
      assert.equal(await second.runDue(), 0, 'the lease is still held at its last millisecond')
      clock.advance(1)
      assert.equal(await second.runDue(), 1)
      assert.equal(secondRuns, 1)
      let row = await first.get(id)
      assert.equal(row?.status, 'done')
      assert.equal(row?.attempts, 2)

      // The first runner comes back and fails: its claim is stale, so the outcome it reports is dropped.
      hung.reject(new Error('late failure'))
      assert.equal(await firstRun, 1)
      row = await first.get(id)
      assert.equal(row?.status, 'done')
      assert.equal(row?.lastError, null)
    })

    it('abandons a job whose last attempt never reported back', async () => {
      const hung = deferred()
      const first = make({ leaseMs: 1000 })
      let started = false
      first.register('stuck', async () => {
        started = true
        await hung.promise
      })
      const second = make({ leaseMs: 1000 })
      let secondRuns = 0
      second.register('stuck', () => {
        secondRuns++
      })
      const id = await first.enqueue('stuck', {}, { maxAttempts: 1 })
      const firstRun = first.runDue()
      await until(() => started)
      clock.advance(1001)
      assert.equal(await second.runDue(), 1)
      assert.equal(secondRuns, 0, 'not run a second time')
      const row = await second.get(id)
      assert.equal(row?.status, 'failed')
      assert.match(row?.lastError ?? '', /abandoned/)
      hung.resolve()
      await firstRun
      assert.equal((await first.get(id))?.status, 'failed')
    })

    it('polls with start(), never overlapping runs, and stop() waits for the run in flight', async () => {
      const jobs = make({ pollMs: 5, batchSize: 1 })
      let active = 0
      let maxActive = 0
      let done = 0
      jobs.register('tick', async () => {
        active++
        maxActive = Math.max(maxActive, active)
        await sleep(20)
        active--
        done++
      })
      for (let i = 0; i < 4; i++) await jobs.enqueue('tick', { i })
      jobs.start()
      jobs.start()
      await until(() => done >= 2)
      await jobs.stop()
      assert.equal(active, 0, 'stop() resolved only after the run in flight')
      assert.equal(maxActive, 1)
      const stoppedAt = done
      await sleep(50)
      assert.equal(done, stoppedAt, 'no run after stop()')
      // The remaining jobs are still there for the next start.
      assert.equal(await jobs.runDue(10), 4 - stoppedAt)
    })

    it('survives a failing database while polling', async () => {
      const errors: string[] = []
      const broken: Store = {
        ...store,
        db: {
          execute: async () => {
            throw new Error('connection lost')
          },
        } as unknown as Store['db'],
      }
      const jobs = createJobs({
        store: broken,
        clock,
        pollMs: 5,
        logger: { error: (_obj, msg) => errors.push(msg ?? ''), warn: () => {} },
      })
      await assert.rejects(jobs.runDue(), /connection lost/)
      jobs.start()
      await until(() => errors.length >= 2)
      await jobs.stop()
      assert.ok(errors.every((e) => e === 'claiming jobs failed'))
    })

    if (backend.openSecond) {
      it('two runners on two connections run each of 50 jobs exactly once', async () => {
        const other = await backend.openSecond!()
        try {
          const runs = new Map<string, number>()
          const byRunner = [0, 0]
          const runners = [store, other].map((s, index) => {
            const jobs = createJobs({ store: s, clock })
            jobs.register('count', async (payload: { n: number }) => {
              const key = String(payload.n)
              runs.set(key, (runs.get(key) ?? 0) + 1)
              byRunner[index]++
              await sleep(Math.random() * 5)
            })
            return jobs
          })
          for (let n = 0; n < 50; n++) await runners[0].enqueue('count', { n })
          const drain = async (jobs: (typeof runners)[number]) => {
            let total = 0
            for (;;) {
              const ran = await jobs.runDue(3)
              if (ran === 0) return total
              total += ran
            }
          }
          const totals = await Promise.all(runners.map(drain))
          assert.equal(totals[0] + totals[1], 50)
          assert.equal(runs.size, 50)
          assert.ok(
            [...runs.values()].every((count) => count === 1),
            'every job ran exactly once',
          )
          const [{ count }] = (
            (await store.db.execute(sql`SELECT count(*)::int AS count FROM jobs WHERE status = 'done'`)) as unknown as {
              rows: { count: number }[]
            }
          ).rows
          assert.equal(count, 50)
          process.stderr.write(`# jobs per runner: ${byRunner.join(' / ')}\n`)
        } finally {
          await other.close()
        }
      })
    }
  })
}

describe('backoff', () => {
  it('doubles from 30 s up to 1 h, jitter only shortening it by up to a fifth', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempt) => backoffMs(attempt, () => 0)),
      [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000],
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const nominal = Math.min(3_600_000, 30_000 * 2 ** (attempt - 1))
          const delay = backoffMs(attempt, () => r)
          assert.ok(delay <= nominal && delay >= nominal - nominal / 5, `${delay} for attempt ${attempt}`)
        },
      ),
    )
    for (const broken of [Number.NaN, -1, 7, Number.POSITIVE_INFINITY]) {
      const delay = backoffMs(3, () => broken)
      assert.ok(delay >= 96_000 && delay <= 120_000, `${delay} for random() = ${broken}`)
    }
  })
})
