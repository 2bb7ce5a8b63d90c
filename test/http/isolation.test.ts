import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

describe('tenant isolation', { skip: skipReason }, () => {
  let h: Harness
  let a: TenantFixture
  let b: TenantFixture
  before(async () => {
    h = await startHarness()
    a = await createTenant(h, {
      name: 'Alpha',
      organization: 'Alpha AG',
      providers: ['sandbox-rent'],
      defaultLanguage: 'de',
    })
    b = await createTenant(h, {
      name: 'Beta',
      organization: 'Beta SAS',
      defaultLanguage: 'fr',
      allowedOrigins: ['https://beta.example'],
    })
  })
  after(() => h.close())

  it("each key sees only its own tenant's account and providers", async () => {
    const ca = await h.api('GET', '/auth/check', a.secret)
    const cb = await h.api('GET', '/auth/check', b.secret)
    assert.equal(ca.body.data.tenant.id, a.tenant.id)
    assert.equal(cb.body.data.tenant.id, b.tenant.id)
    assert.ok(!cb.text.includes(a.tenant.id) && !cb.text.includes('Alpha'))
    const pa = await h.api('GET', '/mobility-providers', a.secret)
    const pb = await h.api('GET', '/mobility-providers', b.secret)
    assert.deepEqual(
      pa.body.data.providers.map((p: any) => p.id),
      ['sandbox-rent'],
    )
    assert.equal(pb.body.data.pagination.total, 7)
  })

  it("a tenant's allowed origins do not open another tenant's publishable key", async () => {
    const res = await h.api('GET', '/auth/check', a.publishable, undefined, { origin: 'https://beta.example' })
    assert.equal(res.status, 403)
    assert.equal(res.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
  })

  it('rate-limit windows are per key, so one tenant cannot exhaust another', async () => {
    const before = await h.api('GET', '/auth/check', b.secret)
    for (let i = 0; i < 5; i++) await h.api('GET', '/auth/check', a.secret)
    const afterB = await h.api('GET', '/auth/check', b.secret)
    assert.equal(Number(afterB.headers['x-ratelimit-remaining']), Number(before.headers['x-ratelimit-remaining']) - 1)
  })

  it('test keys and live keys of one tenant are separate environments', async () => {
    const live = await h.api('GET', '/auth/check', a.secret)
    const test = await h.api('GET', '/auth/check', a.test)
    assert.equal(live.body.data.environment, 'live')
    assert.equal(test.body.data.environment, 'test')
  })
})
