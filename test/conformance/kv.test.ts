import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import type { Redis } from 'ioredis'
import { kvLocks } from '../../src/platform/kv/locks.ts'
import { DURABLE_MIN_TTL_MS, memoryKv, memoryRateLimiter } from '../../src/platform/kv/memory.ts'
import { connectRedis, failOverRateLimiter, redisKv, redisRateLimiter } from '../../src/platform/kv/redis.ts'
import type { Kv, KvJournal, RateLimiter } from '../../src/platform/kv/types.ts'
import { createKvJournal } from '../../src/store/kv-journal.ts'
import { openPglite } from '../../src/store/pglite.ts'
import { REDIS_URL } from '../helpers/harness.ts'
import { testRedis } from '../helpers/redis.ts'

const shared = await testRedis('kv')
const redis = shared.skip ?? shared.redis!

const store = await openPglite(undefined)
after(() => store.close())

const implementations: { name: string; skip?: string; kv: () => Kv; limiter: () => RateLimiter }[] = [
  { name: 'memory', kv: () => memoryKv(), limiter: () => memoryRateLimiter() },
  {
    name: 'memory with a journal in the database',
    kv: () => memoryKv({ journal: createKvJournal(store.db) }),
    limiter: () => memoryRateLimiter(),
  },
  {
    name: 'redis',
    skip: typeof redis === 'string' ? redis : undefined,
    kv: () => redisKv(redis as Redis, `mas_conf_${randomBytes(4).toString('hex')}:`),
    limiter: () => redisRateLimiter(redis as Redis, `mas_conf_${randomBytes(4).toString('hex')}:`),
  },
]

for (const impl of implementations) {
  describe(`key-value store and limiter: ${impl.name}`, { skip: impl.skip }, () => {
    it('gets, sets with TTL, deletes', async () => {
      const kv = impl.kv()
      assert.equal(await kv.get('a'), undefined)
      await kv.set('a', '1', 60_000)
      assert.equal(await kv.get('a'), '1')
      await kv.delete('a')
      assert.equal(await kv.get('a'), undefined)
      await kv.set('short', 'x', 30)
      await new Promise((r) => setTimeout(r, 80))
      assert.equal(await kv.get('short'), undefined)
    })

    it('keeps structured values with their TTL', async () => {
      const kv = impl.kv()
      await kv.setJson('obj', { a: 1, list: ['x'] }, 60_000)
      assert.deepEqual(await kv.getJson('obj'), { a: 1, list: ['x'] })
      assert.equal(await kv.getJson('missing'), undefined)
      await kv.setJson('brief', { b: 2 }, 30)
      await new Promise((r) => setTimeout(r, 80))
      assert.equal(await kv.getJson('brief'), undefined)
    })

    it('setIfAbsent lets exactly one of many concurrent callers win', async () => {
      const kv = impl.kv()
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => kv.setIfAbsent('once', String(i), 60_000)))
      assert.equal(results.filter(Boolean).length, 1)
    })

    it('deleteIfEquals only deletes the owner’s value; increment counts', async () => {
      const kv = impl.kv()
      await kv.set('lock', 'me', 60_000)
      assert.equal(await kv.deleteIfEquals('lock', 'you'), false)
      assert.equal(await kv.deleteIfEquals('lock', 'me'), true)
      assert.equal(await kv.get('lock'), undefined)
      const counts = await Promise.all(Array.from({ length: 20 }, () => kv.increment('n', 60_000)))
      assert.deepEqual(
        [...counts].sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 1),
      )
    })

    it('locks exclude each other and release', async () => {
      const locks = kvLocks(impl.kv())
      let inside = 0
      let max = 0
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          locks.tryWithLock('job', 5_000, async () => {
            inside++
            max = Math.max(max, inside)
            await new Promise((r) => setTimeout(r, 20))
            inside--
          }),
        ),
      )
      assert.equal(max, 1)
      assert.equal(results.filter((r) => r.acquired).length, 1)
      assert.equal((await locks.tryWithLock('job', 5_000, async () => 1)).acquired, true)
    })

    it('sliding window: never more than the limit in any window span (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 8 }),
          fc.integer({ min: 100, max: 5_000 }),
          fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 40 }),
          async (limit, windowMs, gaps) => {
            const limiter = impl.limiter()
            const key = randomBytes(6).toString('hex')
            let now = 1_700_000_000_000
            const accepted: number[] = []
            for (const gap of gaps) {
              now += gap
              const r = await limiter.hit(key, limit, windowMs, now)
              const inWindow = accepted.filter((t) => t > now - windowMs).length
              assert.equal(r.allowed, inWindow < limit, 'allowed exactly when the window has room')
              if (r.allowed) accepted.push(now)
              assert.equal(r.remaining, limit - Math.min(limit, accepted.filter((t) => t > now - windowMs).length))
              assert.ok(r.resetAt * 1000 >= now)
              if (!r.allowed) assert.ok(r.retryAfter >= 1 && r.retryAfter <= Math.ceil(windowMs / 1000))
            }
          },
        ),
        { numRuns: impl.name === 'redis' ? 40 : 200 },
      )
    })
  })
}

describe('key-value store in memory: what lives an hour or longer outlives a restart through its journal', () => {
  const HOUR = DURABLE_MIN_TTL_MS
  let clock = 1_800_000_000_000
  const now = () => clock
  /** One journal table (the suite's database); every run uses keys of its own. */
  const journal = async (): Promise<KvJournal> => createKvJournal(store.db)
  const restart = async (j: KvJournal) => memoryKv({ now, journal: j, restored: await j.load(now()) })

  it('restores long-lived strings, counters and structured values; forgets short-lived ones', async () => {
    const j = await journal()
    const kv = memoryKv({ now, journal: j })
    await kv.set('booking', 'kept', HOUR)
    await kv.setJson('record', { a: 1, list: ['x'] }, 2 * HOUR)
    await kv.increment('seq', HOUR)
    await kv.increment('seq', HOUR)
    assert.equal(await kv.setIfAbsent('held', 'me', 10 * HOUR), true)
    await kv.set('session', 'brief', HOUR - 1)
    await kv.setJson('cursor', { s: 1 }, 60_000)

    const again = await restart(j)
    assert.equal(await again.get('booking'), 'kept')
    assert.deepEqual(await again.getJson('record'), { a: 1, list: ['x'] })
    assert.equal(await again.get('seq'), '2')
    assert.equal(await again.increment('seq', HOUR), 3)
    assert.equal(await again.setIfAbsent('held', 'you', HOUR), false)
    assert.equal(await again.get('session'), undefined)
    assert.equal(await again.getJson('cursor'), undefined)
  })

  it('deletes, owner deletes and short overwrites reach the journal; expired entries are not restored', async () => {
    const j = await journal()
    const kv = memoryKv({ now, journal: j })
    await kv.set('gone', '1', HOUR)
    await kv.delete('gone')
    await kv.set('lock', 'me', HOUR)
    assert.equal(await kv.deleteIfEquals('lock', 'you'), false)
    await kv.set('owned', 'me', HOUR)
    assert.equal(await kv.deleteIfEquals('owned', 'me'), true)
    await kv.set('shortened', 'long', HOUR)
    await kv.set('shortened', 'short', 1000)
    await kv.set('expires', 'soon', 2 * HOUR)

    clock += 2 * HOUR
    const again = await restart(j)
    assert.equal(await again.get('gone'), undefined)
    assert.equal(await again.get('owned'), undefined)
    assert.equal(await again.get('shortened'), undefined)
    assert.equal(await again.get('expires'), undefined)
    assert.equal(await again.get('lock'), undefined, 'expired with the clock')
  })

  it('the last of many concurrent writes to one key is the one restored (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 20 }), async (values) => {
        const j = await journal()
        const kv = memoryKv({ now, journal: j })
        const key = randomBytes(6).toString('hex')
        await Promise.all(values.map((v) => kv.set(key, v, HOUR)))
        assert.equal(await (await restart(j)).get(key), values[values.length - 1])
      }),
      { numRuns: 50 },
    )
  })
})

describe('key-value store in Redis: what lives an hour or longer comes back when Redis lost it', {
  skip: typeof redis === 'string' ? redis : undefined,
}, () => {
  const HOUR = DURABLE_MIN_TTL_MS

  it('restores long-lived entries into a Redis that forgot them, not short-lived or deleted ones', async () => {
    const own = await openPglite(undefined)
    const client = connectRedis(REDIS_URL)
    const prefix = `mas_conf_journal_${randomBytes(4).toString('hex')}:`
    try {
      const kv = redisKv(client, prefix, { journal: createKvJournal(own.db) })
      assert.equal(await kv.ready(5_000), true)
      await kv.set('booking', 'kept', HOUR)
      await kv.setJson('record', { a: 1, list: ['x'] }, 2 * HOUR)
      await kv.increment('seq', HOUR)
      await kv.increment('seq', HOUR)
      await kv.set('session', 'brief', HOUR - 1000)
      await kv.set('gone', '1', HOUR)
      await kv.delete('gone')
      assert.equal(await kv.setIfAbsent('hold', 'me', 2 * HOUR), true)
      assert.equal(await kv.deleteIfEquals('hold', 'me'), true)

      // Redis loses everything (as a restart without persistence does); the connection comes back to it.
      const keys = await client.keys(`${prefix}*`)
      await client.del(...keys)
      client.disconnect(true)
      await new Promise((resolve) => client.once('ready', resolve))
      assert.equal(await kv.ready(5_000), true)
      assert.equal(await kv.get('booking'), 'kept')
      assert.deepEqual(await kv.getJson('record'), { a: 1, list: ['x'] })
      assert.equal(await kv.increment('seq', HOUR), 3)
      assert.equal(await kv.get('session'), undefined)
      assert.equal(await kv.get('gone'), undefined)
      assert.equal(await kv.get('hold'), undefined)
      // Written after the restore: a second restore (another instance reconnecting) does not overwrite it.
      await kv.set('booking', 'changed', HOUR)
      await client.del(`${prefix}kv:journal`)
      client.disconnect(true)
      await new Promise((resolve) => client.once('ready', resolve))
      assert.equal(await kv.ready(5_000), true)
      assert.equal(await kv.get('booking'), 'changed')
    } finally {
      const keys = await client.keys(`${prefix}*`)
      if (keys.length > 0) await client.del(...keys)
      client.disconnect()
      await own.close()
    }
  })

  it('keeps the highest count of a counter, whatever order the counts are written through in', async () => {
    const j = createKvJournal(store.db)
    const key = `count-${randomBytes(4).toString('hex')}`
    const at = (value: string) => ({ key, value, structured: false, expiresAt: Date.now() + HOUR, counter: true })
    await j.put(at('9'))
    await j.put(at('10'))
    await j.put(at('9'))
    await j.put(at('11'))
    await j.put(at('10'))
    assert.equal((await j.load(Date.now())).find((e) => e.key === key)?.value, '11')
  })

  it('fails at once with 503 REDIS_UNAVAILABLE while Redis is unreachable, and says it is not ready', async () => {
    const client = connectRedis('redis://127.0.0.1:1')
    try {
      const kv = redisKv(client, 'mas_conf_down:')
      assert.equal(await kv.ready(300), false)
      const started = performance.now()
      for (const attempt of [() => kv.get('a'), () => kv.set('a', '1', 1000), () => kv.increment('n', 1000)]) {
        await assert.rejects(attempt(), (error: any) => {
          assert.equal(error.code, 'SERVICE_UNAVAILABLE')
          assert.equal(error.details.reason, 'REDIS_UNAVAILABLE')
          assert.equal(error.headers['retry-after'], '2')
          return true
        })
      }
      assert.ok(performance.now() - started < 500, 'no waiting for a connection')
      const limiter = failOverRateLimiter(redisRateLimiter(client, 'mas_conf_down:'), memoryRateLimiter())
      assert.equal((await limiter.hit('k', 1, 60_000, Date.now())).allowed, true)
      assert.equal((await limiter.hit('k', 1, 60_000, Date.now())).allowed, false, 'the instance still limits')
    } finally {
      client.disconnect()
    }
  })
})
