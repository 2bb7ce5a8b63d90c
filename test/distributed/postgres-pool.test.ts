import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import type { Store } from '../../src/store/db.ts'
import { openPostgres } from '../../src/store/postgres.ts'
import { freshDatabase, skipReason } from '../helpers/harness.ts'

/**
 * The pool's clients are handed out again and again; the outage guard wraps a client's query. Wrapping it at every
 * checkout stacked one more closure per checkout, so after enough transactions a query overflowed the stack.
 */
describe('PostgreSQL store: a pooled client is wrapped once', { skip: skipReason }, () => {
  let store: Store
  let drop: () => Promise<void>
  const depths: number[] = []
  const query = pg.Client.prototype.query
  before(async () => {
    const fresh = await freshDatabase('pool')
    drop = fresh.drop
    // The driver's own query records how deep the synchronous calls above it go (patched before any client exists).
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = Number.POSITIVE_INFINITY
      depths.push(new Error().stack?.split('\n').length ?? 0)
      Error.stackTraceLimit = limit
      return (query as (...a: unknown[]) => unknown).apply(this, args)
    } as typeof query
    // Two clients (migrations hold one while they run), so the transactions check out the same ones again.
    store = await openPostgres(fresh.url, 2)
  })
  after(async () => {
    pg.Client.prototype.query = query
    await store?.close()
    await drop?.()
  })

  it('a query after 200 transactions goes through as few calls as after the first', async () => {
    const depthOfTransaction = async () => {
      depths.length = 0
      await store.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`)
      })
      assert.ok(depths.length > 0, 'the driver was not reached')
      return Math.max(...depths)
    }
    const first = await depthOfTransaction()
    for (let i = 0; i < 200; i++) await store.db.transaction(async (tx) => tx.execute(sql`select 1`))
    const later = await depthOfTransaction()
    assert.ok(later <= first + 2, `the stack grew from ${first} to ${later} frames over 200 checkouts`)
  })
})
