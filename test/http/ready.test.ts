import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Harness, SHAPE, skipReason, startHarness } from '../helpers/harness.ts'

describe('readiness and liveness', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  // Every instance's checks are put back after each test that breaks one.
  const withCheck = async (instance: number, name: string, check: () => Promise<unknown>, fn: () => Promise<void>) => {
    const checks = h.runtimes[instance].readiness
    const original = checks[name]
    checks[name] = check
    try {
      await fn()
    } finally {
      checks[name] = original
    }
  }

  it('is ready without a key when the store (and Redis, when configured) answer', async () => {
    for (let instance = 0; instance < h.apps.length; instance++) {
      const res = await h.request({ url: '/ready', instance })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.success, true)
      assert.equal(res.body.data.status, 'ready')
      const expected = h.shape === 'distributed' ? { store: 'OK', redis: 'OK' } : { store: 'OK' }
      assert.deepEqual(res.body.data.checks, expected)
      assert.equal(res.headers['cache-control'], 'no-store')
    }
  })

  it('answers 503 SERVICE_UNAVAILABLE naming the store when it fails, while /health stays 200', async () => {
    await withCheck(
      0,
      'store',
      () => Promise.reject(new Error('connection refused')),
      async () => {
        const res = await h.request({ url: '/ready', instance: 0 })
        assert.equal(res.status, 503)
        assert.equal(res.body.success, false)
        assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE')
        assert.equal(res.body.error.details.reason, 'NOT_READY')
        assert.equal(res.body.error.details.checks.store, 'FAILED')
        if (h.shape === 'distributed') assert.equal(res.body.error.details.checks.redis, 'OK')
        assert.equal((await h.request({ url: '/health', instance: 0 })).status, 200)
      },
    )
    assert.equal((await h.request({ url: '/ready', instance: 0 })).status, 200)
  })

  it('never hangs on a dependency that does not answer: TIMEOUT after about a second', async () => {
    const name = h.shape === 'distributed' ? 'redis' : 'store'
    await withCheck(
      0,
      name,
      () => new Promise(() => {}),
      async () => {
        const started = performance.now()
        const res = await h.request({ url: '/ready', instance: 0 })
        const took = performance.now() - started
        assert.equal(res.status, 503)
        assert.equal(res.body.error.details.checks[name], 'TIMEOUT')
        assert.equal(res.body.error.details.checks.store, name === 'store' ? 'TIMEOUT' : 'OK')
        assert.ok(took >= 900 && took < 2500, `answered after ${Math.round(took)} ms`)
      },
    )
  })

  const onlyDistributed = SHAPE === 'distributed' ? false : 'only the distributed shape has Redis'
  it('reports a failing Redis by name', { skip: onlyDistributed }, async () => {
    await withCheck(
      1,
      'redis',
      () => Promise.reject(new Error('ECONNREFUSED')),
      async () => {
        const res = await h.request({ url: '/ready', instance: 1 })
        assert.equal(res.status, 503)
        assert.deepEqual(res.body.error.details.checks, { store: 'OK', redis: 'FAILED' })
        // The other instance is not affected.
        assert.equal((await h.request({ url: '/ready', instance: 0 })).status, 200)
      },
    )
  })

  it('is documented as a public operation with its 503', async () => {
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
    for (const path of ['/ready', '/health']) {
      const get = body.paths[path].get
      assert.deepEqual(get.security, [], `${path} needs no key`)
      assert.ok(get.responses['200'] && get.responses['5XX'], `${path} documents its answers`)
    }
    assert.match(body.paths['/ready'].get.description, /503/)
  })
})
