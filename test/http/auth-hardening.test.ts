import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { PERMISSIONS } from '../../src/contract/access.ts'
import { apiKeys } from '../../src/store/schema.ts'
import { bookFirst } from '../helpers/cars.ts'
import {
  ADMIN_TOKEN,
  createKey,
  createTenant,
  type Harness,
  type Res,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

const ORIGIN = 'https://app.example'
/** What a publishable key may hold (DECISIONS "Publishable keys"). */
const CATALOGUE = [
  'account:read',
  'providers:read',
  'cars:offer:read',
  'public-transport:offer:read',
  'micromobility:offer:read',
  'multimodal:read',
]

/**
 * Every operation of the public API that carries personal data or acts for the tenant (DECISIONS "Publishable
 * keys"); every other operation with an API key is a catalogue read. Written out, so a new route has to be placed.
 */
const PERSONAL = [
  'GET /mobility-api/v2/bookings',
  'POST /mobility-api/v2/cars/prebook',
  'POST /mobility-api/v2/cars/bookings',
  'GET /mobility-api/v2/cars/bookings/{bookingId}',
  'PATCH /mobility-api/v2/cars/bookings/{bookingId}',
  'POST /mobility-api/v2/cars/bookings/{bookingId}/cancel',
  'POST /mobility-api/v2/cars/bookings/{bookingId}/vehicle-action',
  'POST /mobility-api/v2/micromobility/trips',
  'GET /mobility-api/v2/micromobility/trips',
  'GET /mobility-api/v2/micromobility/trips/{tripId}',
  'POST /mobility-api/v2/micromobility/trips/{tripId}/vehicle-action',
  'POST /mobility-api/v2/micromobility/trips/{tripId}/end',
  'POST /mobility-api/v2/micromobility/trips/{tripId}/cancel',
  'POST /mobility-api/v2/public-transport/prebook',
  'POST /mobility-api/v2/public-transport/bookings',
  'GET /mobility-api/v2/public-transport/bookings/{bookingId}',
  'POST /mobility-api/v2/public-transport/bookings/{bookingId}/cancel',
  'GET /mobility-api/v2/public-transport/bookings/{bookingId}/tickets',
  'POST /mobility-api/v2/public-transport/subscriptions',
  'GET /mobility-api/v2/public-transport/subscriptions',
  'GET /mobility-api/v2/public-transport/subscriptions/{subscriptionId}',
  'POST /mobility-api/v2/public-transport/subscriptions/{subscriptionId}/cancel',
  'POST /mobility-api/v2/webhooks',
  'GET /mobility-api/v2/webhooks',
  'GET /mobility-api/v2/webhooks/{webhookId}',
  'PATCH /mobility-api/v2/webhooks/{webhookId}',
  'DELETE /mobility-api/v2/webhooks/{webhookId}',
  'POST /mobility-api/v2/webhooks/{webhookId}/test',
  'GET /mobility-api/v2/webhooks/{webhookId}/deliveries',
  'POST /mobility-api/v2/webhooks/{webhookId}/rotate-secret',
]

/** The API-key operations of the served OpenAPI document, as `METHOD /path` with their concrete URL. */
async function apiKeyOperations(h: Harness) {
  const doc = (await h.request({ url: '/mobility-api/v2/openapi.json' })).body
  const operations: { name: string; method: string; url: string }[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.security?.some((s: Record<string, unknown>) => 'apiKey' in s)) continue
      const url = path.replace(/\{z\}\/\{x\}\/\{y\}/, '15/17603/10747').replace(/\{[^}]+\}/g, 'X2345678AB')
      operations.push({ name: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), url })
    }
  }
  return operations
}

describe('publishable keys hold catalogue reads only', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  /** A publishable key whose stored permissions are all of them, as keys made before the rule may have. */
  let legacy: { id: string; secret: string }
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
    legacy = await createKey(h, t.tenant.id, { type: 'publishable', environment: 'live' })
    await h.runtimes[0].store.db
      .update(apiKeys)
      .set({ permissions: [...PERMISSIONS] })
      .where(eq(apiKeys.id, legacy.id))
    await h.apps[0].services.keys.invalidate()
  })
  after(() => h.close())

  const call = (key: string, op: { method: string; url: string }) =>
    h.request({
      method: op.method,
      url: op.url,
      key,
      headers: { origin: ORIGIN },
      ...(op.method === 'GET' ? {} : { body: {} }),
    })

  it('creates publishable keys with the catalogue reads by default', async () => {
    const key = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, { type: 'publishable', environment: 'test' })
    assert.equal(key.status, 201, key.text)
    assert.deepEqual(new Set(key.body.data.key.permissions), new Set(CATALOGUE))
  })

  it('refuses a publishable key asking for bookings, trips or other writes: 403 naming them', async () => {
    for (const permissions of [
      ['cars:offer:read', 'cars:booking:read'],
      ['cars:booking:write'],
      ['public-transport:booking:read', 'public-transport:booking:write', 'micromobility:trip:write'],
    ]) {
      const res = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
        type: 'publishable',
        environment: 'live',
        permissions,
      })
      assert.equal(res.status, 403, res.text)
      assert.equal(res.body.error.code, 'FORBIDDEN')
      assert.equal(res.body.error.details.reason, 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY')
      assert.deepEqual(
        res.body.error.details.refusedPermissions,
        permissions.filter((p) => !CATALOGUE.includes(p)),
      )
      assert.deepEqual(new Set(res.body.error.details.allowedPermissions), new Set(CATALOGUE))
    }
    const keys = await h.admin('GET', `/tenants/${t.tenant.id}/keys`)
    assert.ok(
      keys.body.data.keys.every(
        (k: any) =>
          k.id === legacy.id || k.type === 'secret' || k.permissions.every((p: string) => CATALOGUE.includes(p)),
      ),
      'no refused key was stored',
    )
    // Secret keys may still hold anything.
    const secret = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
      type: 'secret',
      environment: 'live',
      permissions: ['cars:booking:read', 'micromobility:trip:write'],
    })
    assert.equal(secret.status, 201, secret.text)
  })

  it('answers 403 on every personal-data route and serves every catalogue route, whatever the key holds', async () => {
    const operations = await apiKeyOperations(h)
    assert.ok(operations.length >= PERSONAL.length + 10, `found ${operations.length} operations`)
    for (const name of PERSONAL) {
      assert.ok(
        operations.some((o) => o.name === name),
        `${name} is not in the API document`,
      )
    }
    for (const key of [t.publishable, legacy.secret]) {
      for (const op of operations) {
        const res = await call(key, op)
        if (PERSONAL.includes(op.name)) {
          assert.equal(res.status, 403, `${op.name}: ${res.text}`)
          assert.equal(res.body.error.code, 'FORBIDDEN', op.name)
          assert.equal(res.body.error.details.reason, 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY', op.name)
          assert.ok(res.body.error.details.requiredPermission, op.name)
        } else {
          // Past authentication: an answer, a validation error or an unknown id, never 401 or 403.
          assert.ok(![401, 403].includes(res.status), `${op.name}: ${res.status} ${res.text}`)
        }
      }
    }
    // The same routes still answer a secret key.
    const secret = await call(t.secret, { method: 'GET', url: '/mobility-api/v2/bookings' })
    assert.equal(secret.status, 200, secret.text)
  })

  it('never shows a booking to a publishable key, also one stored with booking permissions', async () => {
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId
    for (const key of [t.publishable, legacy.secret]) {
      for (const url of ['/bookings', `/cars/bookings/${id}`]) {
        const res = await h.api('GET', url, key, undefined, { origin: ORIGIN })
        assert.equal(res.status, 403, `${url}: ${res.text}`)
        assert.ok(!res.text.includes('ada@example.com'), 'no personal data in the refusal')
      }
    }
    const owner = await h.api('GET', `/cars/bookings/${id}`, t.secret)
    assert.equal(owner.status, 200, owner.text)
  })

  it('serves catalogue reads to publishable keys, and /auth/check shows what the key can use', async () => {
    for (const key of [t.publishable, legacy.secret]) {
      const providers = await h.api('GET', '/mobility-providers', key, undefined, { origin: ORIGIN })
      assert.equal(providers.status, 200, providers.text)
      const scooters = await h.api(
        'POST',
        '/micromobility',
        key,
        { location: { latitude: 52.52, longitude: 13.405 }, limit: 2 },
        { origin: ORIGIN },
      )
      assert.equal(scooters.status, 200, scooters.text)
      const stops = await h.api('GET', '/public-transport/stops?latitude=52.52&longitude=13.405', key, undefined, {
        origin: ORIGIN,
      })
      assert.equal(stops.status, 200, stops.text)
      const products = await h.api('GET', '/public-transport/subscriptions/products', key, undefined, {
        origin: ORIGIN,
      })
      assert.equal(products.status, 200, products.text)
      const check = await h.api('GET', '/auth/check', key, undefined, { origin: ORIGIN })
      assert.equal(check.status, 200, check.text)
      assert.deepEqual(new Set(check.body.data.permissions), new Set(CATALOGUE))
    }
  })
})

describe('keys cannot be created already expired', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('400 INVALID_REQUEST naming expiresAt for a time past or now; a time ahead works', async () => {
    for (const expiresAt of ['2020-01-01T00:00:00Z', h.clock().toISOString()]) {
      const res = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
        type: 'secret',
        environment: 'live',
        expiresAt,
      })
      assert.equal(res.status, 400, `${expiresAt}: ${res.text}`)
      assert.equal(res.body.error.code, 'INVALID_REQUEST')
      assert.match(res.body.error.details.expiresAt, /future/)
    }
    const soon = new Date(h.clock().getTime() + 1000).toISOString()
    const res = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
      type: 'publishable',
      environment: 'live',
      expiresAt: soon,
    })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.data.key.expiresAt, soon)
  })
})

describe('CORS preflights', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
    await createTenant(h, { allowedOrigins: [ORIGIN] })
  })
  after(() => h.close())

  const preflight = (origin: string | undefined, instance?: number) =>
    h.request({
      method: 'OPTIONS',
      url: '/mobility-api/v2/micromobility',
      instance,
      headers: {
        ...(origin ? { origin } : {}),
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })

  const refused = (res: Res, origin: string) => {
    assert.equal(res.status, 403, res.text)
    assert.equal(res.body.error.code, 'FORBIDDEN')
    assert.equal(res.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
    assert.equal(res.body.error.details.origin, origin)
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    assert.equal(res.headers['access-control-allow-methods'], undefined)
    assert.match(String(res.headers.vary), /Origin/)
  }

  it('answers origins some tenant allows, without a key', async () => {
    for (const origin of [ORIGIN, 'https://APP.example']) {
      const res = await preflight(origin)
      assert.equal(res.status, 204)
      assert.equal(res.headers['access-control-allow-origin'], origin)
      assert.match(String(res.headers['access-control-allow-methods']), /POST/)
      assert.equal(res.headers['access-control-allow-headers'], 'authorization, content-type')
      assert.match(String(res.headers.vary), /Origin/)
    }
  })

  it('refuses other origins: 403 without CORS headers', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://app.example.evil.example', `${ORIGIN}:8443`]) {
      refused(await preflight(origin), origin)
    }
    const none = await preflight(undefined)
    assert.equal(none.status, 204, 'not a CORS preflight')
    assert.equal(none.headers['access-control-allow-origin'], undefined)
  })

  it('follows tenant changes at once on every instance', async () => {
    const origin = 'https://shop.example'
    // Every instance has the set of origins cached before the change.
    for (let i = 0; i < h.apps.length; i++) refused(await preflight(origin, i), origin)
    const shop = await createTenant(h, { allowedOrigins: [origin] })
    for (let i = 0; i < h.apps.length; i++) assert.equal((await preflight(origin, i)).status, 204, `instance ${i}`)
    const changed = await h.admin('PATCH', `/tenants/${shop.tenant.id}`, { allowedOrigins: ['https://other.example'] })
    assert.equal(changed.status, 200, changed.text)
    for (let i = 0; i < h.apps.length; i++) {
      refused(await preflight(origin, i), origin)
      assert.equal((await preflight('https://other.example', i)).status, 204, `instance ${i}`)
    }
  })
})

describe('failed authentications are throttled per client address', { skip: skipReason }, () => {
  const LIMIT = 5
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness({ env: { AUTH_FAILURE_LIMIT: String(LIMIT), AUTH_FAILURE_WINDOW_SECONDS: '60' } })
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })
  after(() => h.close())

  const forged = `svc_live_${'A'.repeat(48)}`
  const check = (key: string | undefined, remoteAddress: string, instance?: number) =>
    h.request({ url: '/mobility-api/v2/auth/check', key, remoteAddress, instance })
  const throttled = (res: Res, label: string) => {
    assert.equal(res.status, 429, `${label}: ${res.text}`)
    assert.equal(res.body.error.code, 'RATE_LIMIT_EXCEEDED')
    assert.equal(res.body.error.details.reason, 'TOO_MANY_FAILED_AUTHENTICATIONS')
    const retryAfter = Number(res.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers['retry-after']}`)
    assert.equal(res.body.error.details.retryAfterSeconds, retryAfter)
    assert.equal(res.headers['x-ratelimit-limit'], undefined, 'no key was looked at')
  }

  it('answers 429 with Retry-After after the limit, on every instance, even for a valid key', async () => {
    const ip = '203.0.113.1'
    // The failures go to one instance; the refusal holds on all of them (one shared window).
    for (let i = 0; i < LIMIT; i++) {
      const res = await check(i % 2 ? forged : 'svc_live_nonsense', ip, 0)
      assert.equal(res.status, 401, `attempt ${i + 1}`)
    }
    for (let i = 0; i < h.apps.length; i++) {
      throttled(await check(t.secret, ip, i), `valid key on instance ${i}`)
      throttled(await check(forged, ip, i), `forged key on instance ${i}`)
    }
    // Other addresses are not affected.
    assert.equal((await check(t.secret, '203.0.113.2')).status, 200)
    assert.equal((await check(forged, '203.0.113.2')).status, 401)
    // A request without a key has nothing to check: still 401 AUTHENTICATION_REQUIRED.
    assert.equal((await check(undefined, ip)).body.error.code, 'AUTHENTICATION_REQUIRED')
    // An unknown path with a valid key: the plain 404, the key not looked at.
    const nowhere = await h.api('GET', '/nowhere', t.secret)
    assert.equal(nowhere.headers['x-ratelimit-limit'], '100', 'from another address the key is looked at')
    const blocked404 = await h.request({ url: '/mobility-api/v2/nowhere', key: t.secret, remoteAddress: ip })
    assert.equal(blocked404.status, 404)
    assert.equal(blocked404.headers['x-ratelimit-limit'], undefined)
    // Once the oldest failure leaves the window, the address may try again.
    h.clock.advance(61_000)
    for (let i = 0; i < h.apps.length; i++) assert.equal((await check(t.secret, ip, i)).status, 200, `instance ${i}`)
  })

  it('counts failures only: successful requests in between change nothing', async () => {
    const ip = '203.0.113.3'
    for (let i = 0; i < 3 * LIMIT; i++) assert.equal((await check(t.secret, ip)).status, 200)
    for (let i = 0; i < LIMIT - 1; i++) {
      assert.equal((await check(forged, ip)).status, 401)
      assert.equal((await check(t.secret, ip)).status, 200)
    }
    assert.equal((await check(forged, ip)).status, 401, 'the last failure within the limit')
    throttled(await check(t.secret, ip), 'after the limit')
  })

  it('counts revoked and expired keys and wrong admin tokens too', async () => {
    const ip = '203.0.113.4'
    const revoked = await createKey(h, t.tenant.id, { type: 'secret', environment: 'live' })
    await h.admin('DELETE', `/keys/${revoked.id}`)
    const admin = (token: string) => h.request({ url: '/admin/v1/tenants', key: token, remoteAddress: ip })
    assert.equal((await check(revoked.secret, ip)).status, 401)
    assert.equal((await admin('wrong-admin-token')).status, 401)
    assert.equal((await admin('wrong-admin-token-2')).status, 401)
    assert.equal((await check('Basic-nonsense', ip)).status, 401)
    assert.equal((await check(revoked.secret, ip)).status, 401)
    throttled(await admin(ADMIN_TOKEN), 'the right admin token, after the limit')
    throttled(await check(t.secret, ip), 'an API key, after the limit')
  })

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 one', async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await check(forged, `2001:db8:1:2::${i + 1}`)).status, 401)
    throttled(await check(t.secret, '2001:db8:1:2:ffff::9'), 'same /64')
    assert.equal((await check(t.secret, '2001:db8:1:3::1')).status, 200, 'another /64')
    for (let i = 0; i < LIMIT; i++) assert.equal((await check(forged, '::ffff:198.51.100.7')).status, 401)
    throttled(await check(t.secret, '198.51.100.7'), 'the IPv4 address behind the mapped one')
  })
})
