import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { POSTGRES_URL, REDIS_URL, SHAPE, skipReason } from '../helpers/harness.ts'
import { histogram, type Sample, startInstances, tcpProxy, timed } from '../helpers/outage.ts'

const skip = SHAPE !== 'distributed' ? 'runs with TEST_SHAPE=distributed (npm run test:distributed)' : skipReason

const FAIL_FAST_MS = 2_000
const OUTAGE_MS = 5_000
const RECOVERY_MS = 5_000

const hours = (n: number) => {
  const t = new Date(Date.now() + n * 3_600_000)
  t.setUTCMinutes(0, 0, 0)
  return t.toISOString()
}

describe('a database that stops answering: fail fast, keep serving what needs no database, recover by itself', {
  skip,
}, () => {
  let env: Awaited<ReturnType<typeof startInstances>>
  let proxy: Awaited<ReturnType<typeof tcpProxy>>
  before(async () => {
    const target = new URL(POSTGRES_URL)
    proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    // The instance reaches PostgreSQL only through the proxy; the test's own connections (the database's creation
    // and drop) go directly.
    env = await startInstances({
      count: 1,
      redisUrl: REDIS_URL,
      via: (url) => {
        const u = new URL(url)
        u.hostname = '127.0.0.1'
        u.port = String(proxy.port)
        return u.toString()
      },
    })
  })
  after(async () => {
    proxy?.mend()
    await env?.close()
    await proxy?.close()
  })

  it('answers 503 DATABASE_UNAVAILABLE within 2 s while the database hangs, searches on, and recovers', async (t) => {
    const [base] = env.urls
    const { key } = env
    const search = () =>
      timed(base, 'search', 'POST', '/mobility-api/v2/cars', key, {
        pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 20_000 },
        dates: { start: hours(72), end: hours(120) },
        limit: 5,
      })
    const list = () => timed(base, 'list', 'GET', '/mobility-api/v2/bookings?limit=5', key)
    const read = (id: string) => timed(base, 'read', 'GET', `/mobility-api/v2/cars/bookings/${id}`, key)
    // A stored booking to read back, and a key the instance has seen (it resolves from its cache meanwhile).
    const found = await search()
    assert.equal(found.status, 200)
    const prebook = await timed(base, 'prebook', 'POST', '/mobility-api/v2/cars/prebook', key, {
      offerToken: found.body.data.offers[0].offerToken,
    })
    assert.equal(prebook.status, 200)
    const booked = await timed(base, 'book', 'POST', '/mobility-api/v2/cars/bookings', key, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      driver: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      additionalFields: { flightNumber: 'LH1234' },
    })
    assert.equal(booked.status, 201)
    const bookingId = booked.body.data.bookingId
    assert.equal((await list()).status, 200)

    const samples: Sample[] = []
    const cutAt = performance.now()
    proxy.cut()
    while (performance.now() - cutAt < OUTAGE_MS) {
      samples.push(...(await Promise.all([list(), read(bookingId), search(), timed(base, 'health', 'GET', '/health')])))
    }
    const mendedAt = performance.now()
    proxy.mend()
    let recoveredAt: number | undefined
    while (performance.now() - mendedAt < 30_000) {
      const again = await list()
      if (again.status === 200) {
        recoveredAt = again.end
        break
      }
      assert.ok(again.status === 503, `while recovering: ${again.status} ${again.code}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const after = await read(bookingId)

    const slowest = Math.max(...samples.map((s) => s.end - s.start))
    t.diagnostic(`database cut off (hanging, not refusing) for ${Math.round(mendedAt - cutAt)} ms`)
    t.diagnostic(`during the outage: ${samples.length} requests, slowest ${Math.round(slowest)} ms`)
    t.diagnostic(`outage answers: ${JSON.stringify(histogram(samples))}`)
    t.diagnostic(
      `recovered (stored bookings listed again) ${recoveredAt === undefined ? 'never' : `${Math.round(recoveredAt - mendedAt)} ms`} after the database was reachable`,
    )

    for (const s of samples) {
      assert.ok(s.end - s.start <= FAIL_FAST_MS, `${s.name} took ${Math.round(s.end - s.start)} ms`)
      assert.ok(s.status === 200 || s.status === 503, `${s.name} answered ${s.status} ${s.code}/${s.reason}`)
      if (s.status === 503) {
        assert.equal(s.reason, 'DATABASE_UNAVAILABLE', `${s.name}: ${JSON.stringify(s.body?.error)}`)
        assert.ok(Number(s.retryAfter) >= 1, 'Retry-After')
      }
    }
    const by = (name: string) => samples.filter((s) => s.name === name)
    assert.ok(
      by('list').every((s) => s.status === 503),
      'the stored bookings need the database',
    )
    assert.ok(
      by('health').every((s) => s.status === 200),
      'liveness needs no database',
    )
    assert.ok(
      by('search').every((s) => s.status === 200),
      'a search needs no database (the key is known to the instance)',
    )
    assert.ok(recoveredAt !== undefined && recoveredAt - mendedAt <= RECOVERY_MS, 'recovers by itself')
    assert.equal(after.status, 200)
  })
})
