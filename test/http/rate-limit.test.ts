import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

describe('rate limits', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
  })
  after(() => h.close())

  it('default: 100 per 60 s, headers on every authenticated answer', async () => {
    const res = await h.api('GET', '/auth/check', t.secret)
    assert.equal(res.headers['x-ratelimit-limit'], '100')
    assert.equal(res.headers['x-ratelimit-remaining'], '99')
    const reset = Number(res.headers['x-ratelimit-reset'])
    const now = h.clock().getTime() / 1000
    assert.ok(reset > now && reset <= now + 61, `reset ${reset} is Unix seconds within the window`)
    // Errors after authentication carry them too.
    const bad = await h.api('GET', '/mobility-providers?limit=0', t.secret)
    assert.equal(bad.status, 400)
    assert.equal(bad.headers['x-ratelimit-remaining'], '98')
  })

  it('429 RATE_LIMIT_EXCEEDED with Retry-After past the limit, shared by every instance; the window slides', async () => {
    const key = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 5, windowSeconds: 10 },
    })
    for (let i = 0; i < 3; i++) assert.equal((await h.api('GET', '/auth/check', key.secret)).status, 200)
    h.clock.advance(5_000)
    for (let i = 0; i < 2; i++) assert.equal((await h.api('GET', '/auth/check', key.secret)).status, 200)
    const limited = await h.api('GET', '/auth/check', key.secret)
    assert.equal(limited.status, 429)
    assert.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED')
    assert.equal(limited.headers['x-ratelimit-remaining'], '0')
    const retryAfter = Number(limited.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 5, `Retry-After ${retryAfter}`)
    // The first three leave the window 10 s after they came; the last two stay.
    h.clock.advance(5_001)
    const again = await h.api('GET', '/auth/check', key.secret)
    assert.equal(again.status, 200)
    assert.equal(again.headers['x-ratelimit-remaining'], '2')
  })

  it('limits each key on its own', async () => {
    const a = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 1, windowSeconds: 60 },
    })
    const b = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 1, windowSeconds: 60 },
    })
    assert.equal((await h.api('GET', '/auth/check', a.secret)).status, 200)
    assert.equal((await h.api('GET', '/auth/check', a.secret)).status, 429)
    assert.equal((await h.api('GET', '/auth/check', b.secret)).status, 200)
  })

  it('3600 per hour is one per-key setting', async () => {
    const key = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 3600, windowSeconds: 3600 },
    })
    const res = await h.api('GET', '/auth/check', key.secret)
    assert.equal(res.headers['x-ratelimit-limit'], '3600')
    assert.equal(res.body.data.rateLimit.windowSeconds, 3600)
  })
})
