import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { connectRedis, failure, REDIS_TIMEOUT_MS, redisKv } from '../../src/platform/kv/redis.ts'
import { outageIn } from '../../src/platform/outage.ts'
import type { Store } from '../../src/store/db.ts'
import { DATABASE_TIMEOUT_MS, openPostgres } from '../../src/store/postgres.ts'
import { freshDatabase, POSTGRES_URL, REDIS_URL, SHAPE, skipReason } from '../helpers/harness.ts'
import { tcpProxy } from '../helpers/outage.ts'

const skip = SHAPE !== 'distributed' ? 'runs with TEST_SHAPE=distributed (npm run test:distributed)' : skipReason

/** The event loop held for `ms`, as a machine too busy to run the process (or a long synchronous task) holds it. */
function block(ms: number) {
  const until = performance.now() + ms
  while (performance.now() < until) {}
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** 'answered', or the code and reason of the outage a failure was answered with (drizzle wraps the store's error). */
const reasonOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (error: unknown) => {
      const outage = outageIn(error)
      return outage ? `${outage.code}/${outage.details?.reason}` : String(error)
    },
  )
/**
 * Holds the loop from the check phase, as a long task run from I/O does: the next turn runs the timers that came due
 * before it reads the replies that came in meanwhile (a turn's remaining timers, held from a timer, would not).
 */
const stall = async (ms: number) => {
  await new Promise((resolve) => setImmediate(resolve))
  block(ms)
}

/** A URL of `url` that goes through `port` (a proxy the test can cut). */
const via = (url: string, port: number) => {
  const u = new URL(url)
  u.hostname = '127.0.0.1'
  u.port = String(port)
  return u.toString()
}

/**
 * A CI run on a loaded machine answered 184 requests 503 in bursts of 1-3 s: a query or command whose reply came in
 * time "timed out" because the event loop did not run (its timeout timer ran late, before the reply was read), and
 * the store then took the server for down. Such a timeout fails its own query; the next ones go through.
 */
describe('a stalled event loop is not a database outage', { skip }, () => {
  let store: Store
  let drop: () => Promise<void>
  before(async () => {
    const fresh = await freshDatabase('stall')
    drop = fresh.drop
    store = await openPostgres(fresh.url, 2)
  })
  after(async () => {
    await store?.close()
    await drop?.()
  })

  it('a query whose answer came while the loop stood still is answered, and so are the next ones', async () => {
    await store.db.execute(sql`select 1`)
    // The server answers after 0.3 s, while the loop is held past the query's timeout: its timer runs first.
    const inFlight = reasonOf(store.db.execute(sql`select pg_sleep(0.3)`))
    await pause(20)
    await stall(DATABASE_TIMEOUT_MS + 500)
    // Its timeout counts the time the loop ran: the answer that came meanwhile is read, not timed out.
    assert.equal(await inFlight, 'answered', 'the query the stall held up')
    assert.equal(await reasonOf(store.db.execute(sql`select 1`)), 'answered', 'the database is not taken for down')
    await pause(50)
    assert.equal(await reasonOf(store.db.execute(sql`select 1`)), 'answered')
  })
})

describe('a database that hangs while the loop runs is still down at once', { skip }, () => {
  let store: Store
  let drop: () => Promise<void>
  let proxy: Awaited<ReturnType<typeof tcpProxy>>
  before(async () => {
    const fresh = await freshDatabase('hang')
    drop = fresh.drop
    const target = new URL(POSTGRES_URL)
    proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    store = await openPostgres(via(fresh.url, proxy.port), 2)
  })
  after(async () => {
    proxy?.mend()
    await store?.close()
    await proxy?.close()
    await drop?.()
  })

  it('one timeout, then 503 DATABASE_UNAVAILABLE at once, and back when the server answers', async () => {
    await store.db.execute(sql`select 1`)
    proxy.cut()
    let started = performance.now()
    assert.equal(await reasonOf(store.db.execute(sql`select 1`)), 'SERVICE_UNAVAILABLE/DATABASE_UNAVAILABLE')
    assert.ok(performance.now() - started >= DATABASE_TIMEOUT_MS - 50, 'the first query waited for its timeout')
    started = performance.now()
    assert.equal(await reasonOf(store.db.execute(sql`select 1`)), 'SERVICE_UNAVAILABLE/DATABASE_UNAVAILABLE')
    const failedInMs = performance.now() - started
    assert.ok(failedInMs < 200, `the next query failed at once, not after ${Math.round(failedInMs)} ms`)
    proxy.mend()
    const mendedAt = performance.now()
    while ((await reasonOf(store.db.execute(sql`select 1`))) !== 'answered') {
      assert.ok(performance.now() - mendedAt < 5_000, 'queries run again within 5 s')
      await pause(50)
    }
  })

  it('a short stall early in a query to a hung server does not excuse its timeout: down at once after it', async () => {
    await waitAnswered(store)
    proxy.cut()
    const inFlight = reasonOf(store.db.execute(sql`select 1`))
    await pause(20)
    // A third of the timeout and more: the stall alone would "explain" a timeout, but the query still had its full
    // time of a running loop, and the server did not answer in it.
    await stall(DATABASE_TIMEOUT_MS / 2)
    assert.equal(await inFlight, 'SERVICE_UNAVAILABLE/DATABASE_UNAVAILABLE')
    const started = performance.now()
    assert.equal(await reasonOf(store.db.execute(sql`select 1`)), 'SERVICE_UNAVAILABLE/DATABASE_UNAVAILABLE')
    const failedInMs = performance.now() - started
    assert.ok(failedInMs < 200, `the next query failed at once, not after ${Math.round(failedInMs)} ms`)
    proxy.mend()
    await waitAnswered(store)
  })
})

/** Waits until the store answers queries again (within 5 s). */
async function waitAnswered(store: Store) {
  const since = performance.now()
  while ((await reasonOf(store.db.execute(sql`select 1`))) !== 'answered') {
    assert.ok(performance.now() - since < 5_000, 'queries run again within 5 s')
    await pause(50)
  }
}

describe('a stalled event loop is not a Redis outage', { skip }, () => {
  it('a command whose reply came while the loop stood still is answered, and the connection stays', async () => {
    const redis = connectRedis(REDIS_URL)
    try {
      const kv = redisKv(redis, `mas_stall_${randomBytes(4).toString('hex')}:`)
      assert.equal(await kv.ready(5_000), true)
      // Redis answers after 0.3 s (an empty list), while the loop is held past the command's timeout.
      const inFlight = reasonOf(redis.blpop(`mas_stall_${randomBytes(4).toString('hex')}`, 0.3).catch(failure(redis)))
      await pause(20)
      await stall(REDIS_TIMEOUT_MS + 500)
      // Its timeout counts the time the loop ran: the reply that came meanwhile is read, not timed out.
      assert.equal(await inFlight, 'answered', 'the command the stall held up')
      assert.equal(redis.status, 'ready', 'the connection is kept')
      assert.equal(await reasonOf(kv.get('a')), 'answered', 'the next command is answered')
    } finally {
      redis.disconnect()
    }
  })

  it('a Redis that hangs while the loop runs: one timeout, then 503 REDIS_UNAVAILABLE at once, then back', async () => {
    await withHungRedis(async (kv, proxy) => {
      let started = performance.now()
      assert.equal(await reasonOf(kv.get('a')), 'SERVICE_UNAVAILABLE/REDIS_UNAVAILABLE')
      assert.ok(performance.now() - started >= REDIS_TIMEOUT_MS - 50, 'the first command waited for its timeout')
      started = performance.now()
      assert.equal(await reasonOf(kv.get('a')), 'SERVICE_UNAVAILABLE/REDIS_UNAVAILABLE')
      const failedInMs = performance.now() - started
      assert.ok(failedInMs < 200, `the next command failed at once, not after ${Math.round(failedInMs)} ms`)
      proxy.mend()
      const mendedAt = performance.now()
      while ((await reasonOf(kv.get('a'))) !== 'answered') {
        assert.ok(performance.now() - mendedAt < 5_000, 'commands run again within 5 s')
        await pause(50)
      }
    })
  })

  it('a short stall early in a command to a hung Redis does not excuse its timeout: the connection is dropped', async () => {
    await withHungRedis(async (kv) => {
      const inFlight = reasonOf(kv.get('a'))
      await pause(20)
      await stall(REDIS_TIMEOUT_MS / 2)
      assert.equal(await inFlight, 'SERVICE_UNAVAILABLE/REDIS_UNAVAILABLE')
      const started = performance.now()
      assert.equal(await reasonOf(kv.get('a')), 'SERVICE_UNAVAILABLE/REDIS_UNAVAILABLE')
      const failedInMs = performance.now() - started
      assert.ok(failedInMs < 200, `the next command failed at once, not after ${Math.round(failedInMs)} ms`)
    })
  })
})

/** Runs `test` with a Redis connection through a proxy, the proxy cut (a Redis that hangs) once the key store is ready. */
async function withHungRedis(
  test: (kv: ReturnType<typeof redisKv>, proxy: Awaited<ReturnType<typeof tcpProxy>>) => Promise<void>,
) {
  const target = new URL(REDIS_URL)
  const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) })
  const redis = connectRedis(via(REDIS_URL, proxy.port))
  try {
    const kv = redisKv(redis, `mas_hang_${randomBytes(4).toString('hex')}:`)
    assert.equal(await kv.ready(5_000), true)
    proxy.cut()
    await test(kv, proxy)
  } finally {
    redis.disconnect()
    await proxy.close()
  }
}
