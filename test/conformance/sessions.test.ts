import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import type { Redis } from 'ioredis'
import { estimateBytes, memorySessions } from '../../src/platform/sessions/memory.ts'
import { redisSessions } from '../../src/platform/sessions/redis.ts'
import type { SessionLimits, SessionStore } from '../../src/platform/sessions/types.ts'
import { testClock } from '../helpers/clock.ts'
import { testRedis } from '../helpers/redis.ts'

// Registered before testRedis's own clean-up, which closes the connection.
const prefixes: string[] = []
after(async () => {
  if (typeof redis === 'string') return
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
  }
})
const shared = await testRedis('sessions')
const redis = shared.skip ?? shared.redis!

type Factory = (limits: SessionLimits, now: () => number) => SessionStore

const implementations: { name: string; skip?: string; open: Factory }[] = [
  { name: 'memory', open: (limits, now) => memorySessions({ ...limits, now }) },
  {
    name: 'redis',
    skip: typeof redis === 'string' ? redis : undefined,
    open: (limits, now) => {
      const prefix = `mas_conf_sess_${randomBytes(4).toString('hex')}:`
      prefixes.push(prefix)
      return redisSessions(redis as Redis, prefix, { ...limits, now })
    },
  },
]

const MINUTE = 60_000
const roomy = { maxEntries: 1000, maxBytes: 64 * 1024 * 1024 }
/** A session of about `bytes` bytes that no compressor shrinks much. */
const session = (n: number, bytes = 1000) => ({ n, noise: randomBytes(bytes / 2).toString('hex') })

for (const impl of implementations) {
  describe(`search session store: ${impl.name}`, { skip: impl.skip }, () => {
    it('keeps a session per scope and id, as stored', async () => {
      const clock = testClock()
      const store = impl.open(roomy, () => clock().getTime())
      const value = { h: 'x', pool: { offers: [{ a: 1, b: [2, 3], c: 'é' }], recommendations: [-1] }, more: true }
      await store.put('tenant-a', 's1', value, 30 * MINUTE)
      assert.deepEqual(await store.get('tenant-a', 's1'), value)
      assert.equal(await store.get('tenant-b', 's1'), undefined, 'another scope does not see it')
      assert.equal(await store.get('tenant-a', 'unknown'), undefined)
      await store.put('tenant-a', 's1', { ...value, more: false }, 30 * MINUTE)
      assert.equal((await store.get<typeof value>('tenant-a', 's1'))?.more, false, 'replaced')
      assert.equal((await store.stats()).entries, 1)
      await store.close()
    })

    it('expires by the service clock, renewed by every store', async () => {
      const clock = testClock()
      const store = impl.open(roomy, () => clock().getTime())
      await store.put('t', 'a', session(1), 30 * MINUTE)
      await store.put('t', 'b', session(2), 30 * MINUTE)
      clock.advance(20 * MINUTE)
      await store.put('t', 'b', session(2), 30 * MINUTE)
      clock.advance(11 * MINUTE)
      assert.equal(await store.get('t', 'a'), undefined, 'unused for 31 minutes')
      assert.ok(await store.get('t', 'b'), 'renewed 11 minutes ago')
      await store.close()
    })

    it('holds at most maxEntries, forgetting the least recently stored first', async () => {
      const clock = testClock()
      const store = impl.open({ ...roomy, maxEntries: 3 }, () => clock().getTime())
      for (const id of ['a', 'b', 'c']) {
        await store.put('t', id, session(0), 30 * MINUTE)
        clock.advance(1000)
      }
      await store.put('t', 'a', session(0), 30 * MINUTE)
      clock.advance(1000)
      await store.put('t', 'd', session(0), 30 * MINUTE)
      assert.equal(await store.get('t', 'b'), undefined, 'b was the least recently stored')
      for (const id of ['a', 'c', 'd']) assert.ok(await store.get('t', id), id)
      const stats = await store.stats()
      assert.equal(stats.entries, 3)
      assert.equal(stats.evicted, 1)
      await store.close()
    })

    it("a scope's storm evicts its own sessions, not a quiet scope's", async () => {
      const clock = testClock()
      const store = impl.open({ ...roomy, maxEntries: 4 }, () => clock().getTime())
      await store.put('quiet', 'q1', session(1), 30 * MINUTE)
      await store.put('quiet', 'q2', session(2), 30 * MINUTE)
      for (let i = 0; i < 20; i++) {
        clock.advance(1000)
        await store.put('storm', `s${i}`, session(i), 30 * MINUTE)
      }
      assert.ok(await store.get('quiet', 'q1'))
      assert.ok(await store.get('quiet', 'q2'))
      assert.ok(await store.get('storm', 's19'))
      assert.ok(await store.get('storm', 's18'))
      assert.equal(await store.get('storm', 's17'), undefined)
      assert.equal((await store.stats()).entries, 4)
      await store.close()
    })

    it('holds at most maxBytes; a session larger than that is not kept and evicts nothing', async () => {
      const clock = testClock()
      const maxBytes = 40_000
      const store = impl.open({ maxEntries: 1000, maxBytes }, () => clock().getTime())
      for (let i = 0; i < 40; i++) {
        clock.advance(1000)
        await store.put(`t${i % 3}`, `s${i}`, session(i, 4000), 30 * MINUTE)
        const stats = await store.stats()
        assert.ok(stats.bytes <= maxBytes, `${stats.bytes} bytes after ${i + 1} sessions`)
        assert.ok(await store.get(`t${i % 3}`, `s${i}`), 'the newest is kept')
      }
      const { entries, evicted } = await store.stats()
      assert.ok(entries >= 3 && entries < 40 && evicted > 0, `${entries} kept, ${evicted} evicted`)
      await store.put('t0', 'huge', session(0, 2 * maxBytes), 30 * MINUTE)
      assert.equal(await store.get('t0', 'huge'), undefined)
      assert.equal((await store.stats()).entries, entries)
      await store.close()
    })

    it('keeps its bounds and the newest session under any sequence of stores (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ scope: fc.integer({ min: 0, max: 3 }), id: fc.integer({ min: 0, max: 9 }) }), {
            minLength: 1,
            maxLength: 30,
          }),
          fc.integer({ min: 1, max: 6 }),
          async (puts, maxEntries) => {
            const clock = testClock()
            const store = impl.open({ maxEntries, maxBytes: 64 * 1024 * 1024 }, () => clock().getTime())
            try {
              for (const { scope, id } of puts) {
                clock.advance(10)
                await store.put(`s${scope}`, `i${id}`, { scope, id }, 30 * MINUTE)
                assert.deepEqual(await store.get(`s${scope}`, `i${id}`), { scope, id })
                assert.ok((await store.stats()).entries <= maxEntries)
              }
            } finally {
              await store.close()
            }
          },
        ),
        { numRuns: impl.name === 'redis' ? 25 : 100 },
      )
    })
  })
}

describe('search session store: memory specifics', () => {
  it('counts objects that many sessions share once', async () => {
    const offers = Array.from({ length: 200 }, (_, i) =>
      Object.freeze({ id: i, description: 'x'.repeat(2000), nested: { list: [1, 2, 3], text: `offer ${i}` } }),
    )
    const oneList = estimateBytes(offers)
    const store = memorySessions({ maxEntries: 10_000, maxBytes: 1024 * 1024 * 1024 })
    for (let i = 0; i < 100; i++) {
      await store.put('t', `s${i}`, { i, offers: [...offers] }, 30 * MINUTE, offers)
    }
    const { bytes, entries } = await store.stats()
    assert.equal(entries, 100)
    assert.ok(bytes > oneList && bytes < 2 * oneList, `${bytes} bytes for 100 sessions over one list of ${oneList}`)
    await store.close()
  })

  it('estimates a session the same whether it holds the shared list itself or a copy of it', async () => {
    const offers = Array.from({ length: 300 }, (_, i) => Object.freeze({ id: i, text: `offer ${i}`, list: [i, 2] }))
    const value = (list: object[]) => ({
      h: 'x'.repeat(40),
      pool: { offers: list, ids: offers.map((_, i) => `p${i}`) },
    })
    const byList = memorySessions({ maxEntries: 10, maxBytes: 1024 * 1024 * 1024 })
    const byCopy = memorySessions({ maxEntries: 10, maxBytes: 1024 * 1024 * 1024 })
    await byList.put('t', 's', value(offers), 30 * MINUTE, offers)
    await byCopy.put('t', 's', value([...offers]), 30 * MINUTE, offers)
    // Two scopes holding the same objects count them once; a second session of a scope adds only its own part.
    await byList.put('u', 's', value(offers), 30 * MINUTE, offers)
    await byCopy.put('u', 's', value([...offers]), 30 * MINUTE, offers)
    await byList.put('u', 's2', value(offers), 30 * MINUTE, offers)
    await byCopy.put('u', 's2', value([...offers]), 30 * MINUTE, offers)
    assert.deepEqual(await byList.stats(), await byCopy.stats())
    const oneList = estimateBytes(offers)
    const { bytes } = await byList.stats()
    assert.ok(bytes > oneList && bytes < 2 * oneList, `${bytes} bytes for three sessions over one list of ${oneList}`)
    await byList.close()
    await byCopy.close()
  })

  it('estimates no less than the heap that distinct sessions really take', async () => {
    const build = (n: number) =>
      Array.from({ length: 50 }, (_, i) => ({
        ref: `offer-${n}-${i}-${randomBytes(8).toString('hex')}`,
        vehicle: { make: 'VW', model: `m${i}`, seats: 4, features: ['AC', `f${n}`] },
        price: { amount: n * 100 + i, currency: 'EUR', description: `Rental ${n} at ${i} EUR per hour` },
      }))
    // A full collection before each reading, so the heap figure is what is alive.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    // Other work of the process (timers, other tests' leftovers) can grow or free heap between the readings, so the
    // sessions' size is read twice: as the growth when they are built and as what is freed when they are dropped.
    // The estimate must be no less than the smaller reading and under twice the larger; up to three measurements.
    let last = ''
    for (let attempt = 0; attempt < 3; attempt++) {
      gc()
      const before = process.memoryUsage().heapUsed
      let kept: ReturnType<typeof build>[] | undefined = Array.from({ length: 400 }, (_, n) => build(n))
      gc()
      const built = process.memoryUsage().heapUsed
      const estimated = kept.reduce((sum, list) => sum + estimateBytes(list), 0)
      kept = undefined
      gc()
      const grew = built - before
      const freed = built - process.memoryUsage().heapUsed
      if (estimated >= 0.85 * Math.min(grew, freed) && estimated < 2 * Math.max(grew, freed)) return
      last = `estimated ${estimated}, heap grew by ${grew} and freed ${freed}`
    }
    assert.fail(last)
  })
})
