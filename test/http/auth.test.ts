import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  ADMIN_TOKEN,
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

describe('authentication and permissions', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example', 'http://localhost:5173'] })
  })
  after(() => h.close())

  it('401 AUTHENTICATION_REQUIRED without the header', async () => {
    const res = await h.api('GET', '/auth/check')
    assert.equal(res.status, 401)
    assert.equal(res.body.error.code, 'AUTHENTICATION_REQUIRED')
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="mobility-api"')
  })

  it('401 UNAUTHORIZED for malformed, unknown and non-bearer keys', async () => {
    const forged = `svc_live_${'A'.repeat(48)}`
    const almost = t.secret.slice(0, -1) + (t.secret.endsWith('a') ? 'b' : 'a')
    for (const header of ['Bearer nonsense', `Basic ${t.secret}`, 'Bearer', `Bearer ${forged}`, `Bearer ${almost}`]) {
      const res = await h.request({ url: '/mobility-api/v2/auth/check', headers: { authorization: header } })
      assert.equal(res.status, 401, header)
      assert.equal(res.body.error.code, 'UNAUTHORIZED', header)
      assert.match(String(res.headers['www-authenticate']), /^Bearer .*error="invalid_token"/, header)
    }
  })

  it('an unknown path or method with a valid key: 404 in the tenant language, with rate-limit and CORS headers', async () => {
    const german = await createTenant(h, { defaultLanguage: 'de', allowedOrigins: ['https://app.example'] })
    const first = await h.api('GET', '/nowhere', german.secret)
    assert.equal(first.status, 404)
    assert.equal(first.body.error.details.reason, 'ROUTE_NOT_FOUND')
    assert.equal(first.headers['content-language'], 'de')
    assert.equal(first.headers['x-ratelimit-limit'], '100')
    const second = await h.api('DELETE', '/auth/check', german.secret)
    assert.equal(second.status, 404)
    assert.equal(second.body.error.details.reason, 'METHOD_NOT_ALLOWED')
    assert.equal(Number(second.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1)
    const browser = await h.request({
      url: '/mobility-api/v2/nowhere',
      key: german.publishable,
      headers: { origin: 'https://app.example' },
    })
    assert.equal(browser.status, 404)
    assert.equal(browser.headers['access-control-allow-origin'], 'https://app.example')
    // No key, or a key that does not work: the plain 404, nothing counted.
    for (const key of [undefined, 'svc_live_unknown']) {
      const plain = await h.api('GET', '/nowhere', key)
      assert.equal(plain.status, 404)
      assert.equal(plain.headers['x-ratelimit-limit'], undefined)
      assert.equal(plain.headers['content-language'], 'en')
    }
  })

  it('reports the caller in /auth/check', async () => {
    const res = await h.api('GET', '/auth/check', t.secret)
    assert.equal(res.headers.vary, 'Authorization, Accept-Language', 'answers differ per key and language')
    const data = res.body.data
    assert.equal(data.tenant.id, t.tenant.id)
    assert.equal(data.key.type, 'secret')
    assert.equal(data.key.environment, 'live')
    assert.equal(data.environment, 'live')
    assert.equal(data.dataRetention, 'STANDARD')
    assert.ok(data.permissions.includes('cars:booking:write'))
    assert.deepEqual([data.rateLimit.limit, data.rateLimit.windowSeconds], [100, 60])
    const test = await h.api('GET', '/auth/check', t.test)
    assert.equal(test.body.data.environment, 'test')
    assert.equal(test.body.data.key.prefix, 'svc_test_')
  })

  it('issues keys with the prefix of their type and environment', async () => {
    assert.match(t.secret, /^svc_live_/)
    assert.match(t.publishable, /^svc_pk_live_/)
    assert.match(t.test, /^svc_test_/)
    assert.match(t.testPublishable, /^svc_pk_test_/)
  })

  it('revocation takes effect at once, on every instance', async () => {
    const key = await createKey(h, t.tenant.id, { type: 'secret', environment: 'live' })
    for (let i = 0; i < h.apps.length; i++) {
      assert.equal((await h.request({ url: '/mobility-api/v2/auth/check', key: key.secret, instance: i })).status, 200)
    }
    const revoked = await h.request({
      method: 'DELETE',
      url: `/admin/v1/keys/${key.id}`,
      key: ADMIN_TOKEN,
      instance: 0,
    })
    assert.equal(revoked.status, 200)
    assert.ok(revoked.body.data.key.revokedAt)
    for (let i = 0; i < h.apps.length; i++) {
      const res = await h.request({ url: '/mobility-api/v2/auth/check', key: key.secret, instance: i })
      assert.equal(res.status, 401, `instance ${i}`)
      assert.equal(res.body.error.code, 'UNAUTHORIZED')
    }
  })

  it('expired keys answer 401 UNAUTHORIZED', async () => {
    const expiresAt = new Date(h.clock().getTime() + 60_000).toISOString()
    const key = await createKey(h, t.tenant.id, { type: 'secret', environment: 'live', expiresAt })
    assert.equal((await h.api('GET', '/auth/check', key.secret)).status, 200)
    h.clock.advance(61_000)
    const res = await h.api('GET', '/auth/check', key.secret)
    assert.equal(res.status, 401)
    assert.equal(res.body.error.details.reason, 'KEY_EXPIRED')
    // A time already past is refused now (it used to make a key that was born expired).
    const past = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
      type: 'secret',
      environment: 'live',
      expiresAt: '2020-01-01T00:00:00Z',
    })
    assert.equal(past.status, 400)
    assert.equal(past.body.error.code, 'INVALID_REQUEST')
    assert.ok(past.body.error.details.expiresAt)
  })

  it('403 FORBIDDEN when the key lacks the permission', async () => {
    const key = await createKey(h, t.tenant.id, { type: 'secret', environment: 'live', permissions: ['account:read'] })
    assert.equal((await h.api('GET', '/auth/check', key.secret)).status, 200)
    const res = await h.api('GET', '/mobility-providers', key.secret)
    assert.equal(res.status, 403)
    assert.equal(res.body.error.code, 'FORBIDDEN')
    assert.equal(res.body.error.details.requiredPermission, 'providers:read')
  })

  it('publishable keys hold catalogue reads only', async () => {
    const res = await h.api('GET', '/auth/check', t.publishable, undefined, { origin: 'https://app.example' })
    assert.equal(res.status, 200)
    assert.ok(res.body.data.permissions.every((p: string) => p.endsWith(':read')))
    assert.ok(res.body.data.permissions.includes('micromobility:offer:read'))
    assert.ok(!res.body.data.permissions.includes('cars:booking:read'), 'bookings carry personal data')
    const refused = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
      type: 'publishable',
      environment: 'live',
      permissions: ['micromobility:trip:write'],
    })
    // DECISIONS "Publishable keys": 403 FORBIDDEN, also when a publishable key is created asking for more.
    assert.equal(refused.status, 403)
    assert.deepEqual(refused.body.error.details.refusedPermissions, ['micromobility:trip:write'])
  })

  it('publishable keys: Origin must be allowed; allowed origins get CORS headers', async () => {
    const missing = await h.api('GET', '/auth/check', t.publishable)
    assert.equal(missing.status, 403)
    assert.equal(missing.body.error.code, 'FORBIDDEN')
    assert.equal(missing.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
    const other = await h.api('GET', '/auth/check', t.publishable, undefined, { origin: 'https://evil.example' })
    assert.equal(other.status, 403)
    assert.equal(other.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
    assert.equal(other.headers['access-control-allow-origin'], undefined)
    const ok = await h.api('GET', '/mobility-providers', t.publishable, undefined, { origin: 'http://localhost:5173' })
    assert.equal(ok.status, 200)
    assert.equal(ok.headers['access-control-allow-origin'], 'http://localhost:5173')
    assert.match(String(ok.headers['access-control-expose-headers']), /X-RateLimit-Remaining/)
    // Scheme and host are case-insensitive; an origin given with a trailing slash is kept without it.
    const upper = await h.api('GET', '/auth/check', t.publishable, undefined, { origin: 'https://APP.example' })
    assert.equal(upper.status, 200, upper.text)
    const slash = await createTenant(h, { allowedOrigins: ['https://Shop.example/', 'https://shop.example'] })
    assert.deepEqual(slash.tenant.allowedOrigins, ['https://shop.example'])
    const shop = await h.api('GET', '/auth/check', slash.publishable, undefined, { origin: 'https://shop.example' })
    assert.equal(shop.status, 200, shop.text)
  })

  it('answers CORS preflights without a key', async () => {
    const res = await h.request({
      method: 'OPTIONS',
      url: '/mobility-api/v2/mobility-providers',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    })
    assert.equal(res.status, 204)
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example')
    assert.match(String(res.headers['access-control-allow-methods']), /GET/)
  })

  it('admin API: 401 without or with a wrong token', async () => {
    const none = await h.request({ url: '/admin/v1/tenants' })
    assert.equal(none.status, 401)
    assert.equal(none.body.error.code, 'AUTHENTICATION_REQUIRED')
    assert.equal(none.body.error.details.reason, 'ADMIN_TOKEN_REQUIRED')
    assert.match(none.body.error.message, /admin token/, 'asks for the admin token, not an API key')
    const wrong = await h.request({ url: '/admin/v1/tenants', key: 'wrong-token-wrong-token' })
    assert.equal(wrong.status, 401)
    assert.equal(wrong.body.error.code, 'UNAUTHORIZED')
    const apiKey = await h.request({ url: '/admin/v1/tenants', key: t.secret })
    assert.equal(apiKey.status, 401)
  })
})

describe('admin API without ADMIN_TOKEN', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN: '' } })
  })
  after(() => h.close())

  it('answers 404 NOT_FOUND, whatever the token', async () => {
    for (const key of [undefined, ADMIN_TOKEN]) {
      const res = await h.request({ url: '/admin/v1/tenants', key })
      assert.equal(res.status, 404)
      assert.equal(res.body.error.code, 'NOT_FOUND')
    }
    assert.equal((await h.request({ url: '/metrics', key: ADMIN_TOKEN })).status, 404)
  })
})
