import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/store/migrate.ts'
import { ADMIN_TOKEN, type Harness, skipReason, startHarness } from '../helpers/harness.ts'

describe('admin API /admin/v1', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('creates a tenant with defaults and every setting', async () => {
    const minimal = await h.admin('POST', '/tenants', { name: 'Minimal' })
    assert.equal(minimal.status, 201)
    const tenant = minimal.body.data.tenant
    assert.match(tenant.id, /^ten_/)
    assert.equal(tenant.defaultLanguage, 'en')
    assert.equal(tenant.dataRetention, 'STANDARD')
    // Every setting, the default too: without a choice every provider is enabled, and the answer lists them.
    assert.ok(Array.isArray(tenant.providers))
    for (const id of ['sandbox-rent', 'sandbox-share', 'sandbox-transit', 'sandbox-scoot', 'sandbox-bike']) {
      assert.ok(tenant.providers.includes(id), id)
    }
    assert.equal(tenant.emailOptOut, false)
    assert.deepEqual(tenant.allowedOrigins, [])
    assert.equal(tenant.reservationWindowSeconds, 600)

    const full = await h.admin('POST', '/tenants', {
      name: 'Full',
      organization: 'Full GmbH',
      defaultLanguage: 'fr',
      dataRetention: 'NONE',
      providers: ['sandbox-rent'],
      emailOptOut: true,
      allowedOrigins: ['https://full.example'],
      reservationWindowSeconds: 900,
    })
    assert.equal(full.status, 201)
    assert.equal(full.body.data.tenant.organization, 'Full GmbH')
    assert.equal(full.body.data.tenant.dataRetention, 'NONE')
    assert.deepEqual(full.body.data.tenant.providers, ['sandbox-rent'])

    const read = await h.admin('GET', `/tenants/${full.body.data.tenant.id}`)
    assert.deepEqual(read.body.data.tenant, full.body.data.tenant)

    // Short reservation windows are allowed (tests of expiring reservations use them).
    const brief = await h.admin('POST', '/tenants', { name: 'Brief', reservationWindowSeconds: 2 })
    assert.equal(brief.status, 201, brief.text)
    assert.equal(brief.body.data.tenant.reservationWindowSeconds, 2)
  })

  it('changes settings with PATCH and reports an unknown tenant as 404', async () => {
    const { body } = await h.admin('POST', '/tenants', { name: 'Patch me' })
    const id = body.data.tenant.id
    const patched = await h.admin('PATCH', `/tenants/${id}`, {
      dataRetention: 'NONE',
      defaultLanguage: 'de',
      providers: null,
    })
    assert.equal(patched.status, 200)
    assert.equal(patched.body.data.tenant.dataRetention, 'NONE')
    assert.equal(patched.body.data.tenant.defaultLanguage, 'de')
    assert.ok(patched.body.data.tenant.providers.includes('sandbox-rent'), 'null enables all again')
    assert.equal((await h.admin('GET', '/tenants/ten_doesnotexist')).body.error.code, 'NOT_FOUND')
    assert.equal((await h.admin('PATCH', '/tenants/ten_doesnotexist', { name: 'x' })).status, 404)
    assert.equal((await h.admin('PATCH', `/tenants/${id}`, {})).status, 400)
  })

  it('data retention set by the operator is what /auth/check reports', async () => {
    const { body } = await h.admin('POST', '/tenants', { name: 'Retention', dataRetention: 'NONE' })
    const key = await h.admin('POST', `/tenants/${body.data.tenant.id}/keys`, { type: 'secret', environment: 'live' })
    const check = await h.api('GET', '/auth/check', key.body.data.key.secret)
    assert.equal(check.body.data.dataRetention, 'NONE')
    await h.admin('PATCH', `/tenants/${body.data.tenant.id}`, { dataRetention: 'STANDARD' })
    const after = await h.api('GET', '/auth/check', key.body.data.key.secret)
    assert.equal(after.body.data.dataRetention, 'STANDARD')
  })

  it('creates keys whose secret is returned once and stored only as a hash', async () => {
    const { body } = await h.admin('POST', '/tenants', { name: 'Keys' })
    const tenantId = body.data.tenant.id
    const created = await h.admin('POST', `/tenants/${tenantId}/keys`, {
      type: 'secret',
      environment: 'test',
      name: 'ci',
      rateLimit: { limit: 3600, windowSeconds: 3600 },
    })
    assert.equal(created.status, 201)
    const key = created.body.data.key
    assert.match(key.secret, /^svc_test_/)
    assert.equal(key.prefix, 'svc_test_')
    assert.ok(key.secret.startsWith(key.prefix))
    assert.equal(key.lastFour, key.secret.slice(-4))
    assert.deepEqual(key.rateLimit, { limit: 3600, windowSeconds: 3600 })
    assert.ok(key.permissions.includes('micromobility:trip:write'))

    const listed = await h.admin('GET', `/tenants/${tenantId}/keys`)
    assert.equal(listed.body.data.keys.length, 1)
    // Type and environment default to a live secret key, as the demo tenant's first key is.
    const plain = await h.admin('POST', `/tenants/${tenantId}/keys`, {})
    assert.equal(plain.status, 201, plain.text)
    assert.equal(plain.body.data.key.type, 'secret')
    assert.equal(plain.body.data.key.environment, 'live')
    assert.match(plain.body.data.key.secret, /^svc_live_/)
    await h.admin('DELETE', `/keys/${plain.body.data.key.id}`)
    assert.equal(listed.body.data.keys[0].secret, undefined)
    assert.ok(!listed.text.includes(key.secret))

    const rows = rowsOf<Record<string, unknown>>(
      await h.runtimes[0].store.db.execute(sql`SELECT * FROM api_keys WHERE id = ${key.id}`),
    )
    assert.equal(rows.length, 1)
    assert.ok(!JSON.stringify(rows).includes(key.secret), 'the key itself is not stored')
    assert.match(String(rows[0].key_hash), /^[0-9a-f]{64}$/)
  })

  it('refuses bad key settings', async () => {
    const { body } = await h.admin('POST', '/tenants', { name: 'Bad keys' })
    const id = body.data.tenant.id
    const cases = [
      { type: 'root', environment: 'live' },
      { type: 'secret', environment: 'staging' },
      { type: 'secret', environment: 'live', permissions: ['everything'] },
      { type: 'secret', environment: 'live', rateLimit: { limit: 0, windowSeconds: 60 } },
      { type: 'secret', environment: 'live', expiresAt: 'tomorrow' },
      { type: 'secret', environment: 'live', name: '' },
    ]
    for (const payload of cases) {
      const res = await h.admin('POST', `/tenants/${id}/keys`, payload)
      assert.equal(res.status, 400, JSON.stringify(payload))
      assert.equal(res.body.error.code, 'INVALID_REQUEST')
    }
    assert.equal(
      (await h.admin('POST', '/tenants/ten_missing/keys', { type: 'secret', environment: 'live' })).status,
      404,
    )
    assert.equal((await h.admin('DELETE', '/keys/key_missing')).status, 404)
    // null is what a key without expiry shows, so it is accepted as input too.
    const forever = await h.admin('POST', `/tenants/${id}/keys`, {
      type: 'secret',
      environment: 'live',
      expiresAt: null,
    })
    assert.equal(forever.status, 201, forever.text)
    assert.equal(forever.body.data.key.expiresAt, null)
  })

  it('lists tenants with offset pagination', async () => {
    const res = await h.admin('GET', '/tenants?page=0&limit=2')
    assert.equal(res.status, 200)
    assert.equal(res.body.data.tenants.length, 2)
    assert.ok(res.body.data.pagination.total >= 4)
  })

  it('serves Prometheus metrics behind the admin token', async () => {
    const denied = await h.request({ url: '/metrics' })
    assert.equal(denied.status, 401)
    const res = await h.request({ url: '/metrics', key: ADMIN_TOKEN, instance: 0 })
    assert.equal(res.status, 200)
    assert.match(String(res.headers['content-type']), /text\/plain/)
    assert.match(res.text, /http_requests_total\{method="POST",route="\/admin\/v1\/tenants",status="201"\}/)
    assert.match(res.text, /http_request_duration_seconds_bucket/)
    assert.match(res.text, /provider_calls_total/)
  })
})
