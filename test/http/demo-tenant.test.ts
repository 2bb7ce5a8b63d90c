import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.ts'
import { demoBanner, ensureDemoTenant } from '../../src/demo-tenant.ts'
import { type Harness, skipReason, startHarness } from '../helpers/harness.ts'

describe('DEMO_TENANT', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  const start = (demoTenant: 'auto' | 'true' | 'false') =>
    ensureDemoTenant({ ...h.runtimes[0].config, demoTenant }, h.runtimes[0].store, h.apps[0].services.tenants)
  const tenantCount = async () => (await h.admin('GET', '/tenants?limit=100')).body.data.tenants.length

  it('is off with false, on an empty embedded store only with auto, on an empty store of either shape with true', async () => {
    assert.equal(loadConfig({}).demoTenant, 'auto')
    assert.equal(await start('false'), undefined)
    assert.equal(await tenantCount(), 0)

    const auto = await start('auto')
    if (h.shape === 'distributed') {
      // A first start on an empty PostgreSQL is a production's: no live keys unless asked for.
      assert.equal(auto, undefined)
      assert.equal(await tenantCount(), 0)
    } else {
      assert.ok(auto)
    }
    const forced = await start('true')
    const demo = auto ?? forced
    assert.ok(demo, 'a demo tenant exists')
    if (auto) assert.equal(forced, undefined, 'never a second one: the store is no longer empty')
    assert.equal(await tenantCount(), 1)

    assert.deepEqual(
      demo.keys.map((k) => k.secret.replace(/[A-Za-z0-9]+$/, '')),
      ['svc_live_', 'svc_pk_live_', 'svc_test_'],
    )
    const check = await h.api('GET', '/auth/check', demo.keys[0].secret)
    assert.equal(check.status, 200)
    const banner = demoBanner(demo, 'http://localhost:3000', '/mobility-api/v2')
    for (const key of demo.keys) assert.ok(banner.includes(key.secret))
    assert.match(banner, /DEMO_TENANT=false/)
  })

  it('refuses other values with the variable named', () => {
    assert.throws(() => loadConfig({ DEMO_TENANT: 'yes' }), /DEMO_TENANT must be one of auto, true, false/)
    assert.equal(loadConfig({ DEMO_TENANT: 'FALSE' }).demoTenant, 'false')
  })
})
