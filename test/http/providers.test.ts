import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'

const SANDBOX = ['sandbox-rent', 'sandbox-share', 'sandbox-scoot', 'sandbox-bike', 'sandbox-transit']

describe('GET /mobility-providers', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('lists the five sandbox providers in both environments with their capabilities', async () => {
    const t = await createTenant(h)
    for (const key of [t.secret, t.test]) {
      const res = await h.api('GET', '/mobility-providers', key)
      assert.equal(res.status, 200)
      const ids = res.body.data.providers.map((p: any) => p.id)
      for (const id of SANDBOX) assert.ok(ids.includes(id), id)
      assert.deepEqual(res.body.data.pagination, { total: ids.length, currentPage: 0, limit: 20 })
    }
    const res = await h.api('GET', '/mobility-providers', t.secret)
    const byId = Object.fromEntries(res.body.data.providers.map((p: any) => [p.id, p]))
    assert.deepEqual(byId['sandbox-rent'].modalities, ['CAR_RENTAL'])
    assert.ok(byId['sandbox-rent'].capabilities.operations.includes('CHANGE'))
    assert.equal(byId['sandbox-rent'].capabilities.stationBased, true)
    assert.equal(byId['sandbox-share'].capabilities.appAccess, true)
    assert.ok(byId['sandbox-share'].capabilities.operations.includes('VEHICLE_ACTIONS'))
    assert.equal(byId['sandbox-scoot'].capabilities.freeFloating, true)
    assert.ok(!byId['sandbox-bike'].capabilities.operations.includes('TRIPS'))
    assert.deepEqual(byId['sandbox-transit'].modalities, ['PUBLIC_TRANSPORT'])
    for (const p of res.body.data.providers) {
      assert.ok(Array.isArray(p.countries) && Array.isArray(p.languages))
      assert.equal(typeof p.contact, 'object')
      assert.match(p.branding.primaryColor, /^#[0-9A-F]{6}$/i)
    }
  })

  it('pages with page and limit; a page past the end is empty', async () => {
    const t = await createTenant(h)
    const first = await h.api('GET', '/mobility-providers?page=0&limit=2', t.secret)
    const second = await h.api('GET', '/mobility-providers?page=1&limit=2', t.secret)
    const past = await h.api('GET', '/mobility-providers?page=50&limit=2', t.secret)
    assert.equal(first.body.data.providers.length, 2)
    assert.equal(second.body.data.providers.length, 2)
    assert.notDeepEqual(first.body.data.providers[0].id, second.body.data.providers[0].id)
    assert.deepEqual(past.body.data.providers, [])
    assert.deepEqual(past.body.data.pagination, { total: 7, currentPage: 50, limit: 2 })
    for (const q of ['limit=101', 'limit=0', 'page=-1', 'page=abc']) {
      const bad = await h.api('GET', `/mobility-providers?${q}`, t.secret)
      assert.equal(bad.status, 400, q)
      assert.equal(bad.body.error.code, 'INVALID_REQUEST')
    }
  })

  it("shows only the providers enabled for the tenant, and follows changes to the tenant's settings", async () => {
    const t = await createTenant(h, { providers: ['sandbox-rent', 'sandbox-bike'] })
    const res = await h.api('GET', '/mobility-providers', t.secret)
    assert.deepEqual(res.body.data.providers.map((p: any) => p.id).sort(), ['sandbox-bike', 'sandbox-rent'])
    const patched = await h.admin('PATCH', `/tenants/${t.tenant.id}`, { providers: ['sandbox-scoot'] })
    assert.equal(patched.status, 200)
    const after = await h.api('GET', '/mobility-providers', t.secret)
    assert.deepEqual(
      after.body.data.providers.map((p: any) => p.id),
      ['sandbox-scoot'],
    )
    const unknown = await h.admin('PATCH', `/tenants/${t.tenant.id}`, { providers: ['no-such-provider'] })
    assert.equal(unknown.status, 400)
    assert.match(unknown.body.error.details.providers, /no-such-provider/)
  })
})
