import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ADMIN_TOKEN, type Harness, SHAPE, skipReason, startHarness } from '../helpers/harness.ts'
import { call, listenAll } from '../helpers/listen.ts'

const skip = SHAPE !== 'distributed' ? 'runs with TEST_SHAPE=distributed (npm run test:distributed)' : skipReason

describe('two instances on PostgreSQL + Redis, over real sockets', { skip }, () => {
  let h: Harness
  let a: string
  let b: string
  before(async () => {
    h = await startHarness({ instances: 2 })
    ;[a, b] = await listenAll(h)
  })
  after(() => h.close())

  it('a tenant and key created on A work on B; a revocation on B is refused on A at once', async () => {
    const tenant = await call(a, 'POST', '/admin/v1/tenants', ADMIN_TOKEN, { name: 'Shared' })
    assert.equal(tenant.status, 201)
    const key = await call(a, 'POST', `/admin/v1/tenants/${tenant.body.data.tenant.id}/keys`, ADMIN_TOKEN, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 4, windowSeconds: 60 },
    })
    const secret = key.body.data.key.secret
    assert.equal((await call(b, 'GET', '/mobility-api/v2/auth/check', secret)).status, 200)
    assert.equal((await call(a, 'GET', '/mobility-api/v2/auth/check', secret)).status, 200)
    // The window is shared: the fourth request on B is the last one, the fifth on A is refused.
    assert.equal(
      (await call(b, 'GET', '/mobility-api/v2/auth/check', secret)).headers.get('x-ratelimit-remaining'),
      '1',
    )
    assert.equal((await call(b, 'GET', '/mobility-api/v2/auth/check', secret)).status, 200)
    const limited = await call(a, 'GET', '/mobility-api/v2/auth/check', secret)
    assert.equal(limited.status, 429)
    assert.ok(Number(limited.headers.get('retry-after')) >= 1)

    const other = await call(b, 'POST', `/admin/v1/tenants/${tenant.body.data.tenant.id}/keys`, ADMIN_TOKEN, {
      type: 'secret',
      environment: 'live',
    })
    const otherSecret = other.body.data.key.secret
    assert.equal((await call(a, 'GET', '/mobility-api/v2/auth/check', otherSecret)).status, 200)
    assert.equal((await call(b, 'DELETE', `/admin/v1/keys/${other.body.data.key.id}`, ADMIN_TOKEN)).status, 200)
    assert.equal((await call(a, 'GET', '/mobility-api/v2/auth/check', otherSecret)).status, 401)
  })

  it('a tenant change on A is seen on B at once', async () => {
    const tenant = await call(a, 'POST', '/admin/v1/tenants', ADMIN_TOKEN, { name: 'Changing' })
    const id = tenant.body.data.tenant.id
    const key = await call(a, 'POST', `/admin/v1/tenants/${id}/keys`, ADMIN_TOKEN, {
      type: 'secret',
      environment: 'live',
    })
    const secret = key.body.data.key.secret
    assert.equal((await call(b, 'GET', '/mobility-api/v2/auth/check', secret)).body.data.dataRetention, 'STANDARD')
    await call(a, 'PATCH', `/admin/v1/tenants/${id}`, ADMIN_TOKEN, { dataRetention: 'NONE' })
    assert.equal((await call(b, 'GET', '/mobility-api/v2/auth/check', secret)).body.data.dataRetention, 'NONE')
  })

  it('both instances ran the migrations once and share one demo-free store', async () => {
    const list = await call(b, 'GET', '/admin/v1/tenants?limit=100', ADMIN_TOKEN)
    assert.equal(list.status, 200)
    assert.ok(list.body.data.tenants.some((t: any) => t.name === 'Shared'))
  })
})
