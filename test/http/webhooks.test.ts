import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { EVENT_TYPES } from '../../src/contract/webhooks.ts'
import {
  ADMIN_TOKEN,
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

const ORIGIN = 'https://app.example.com'

// One service for every suite here (starting one takes seconds); each suite makes its own tenants.
let h: Harness
before(async () => {
  if (!skipReason) h = await startHarness()
})
after(() => h?.close())

describe('webhook endpoints: management', { skip: skipReason }, () => {
  let t: TenantFixture
  before(async () => {
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })

  it('creates an endpoint with a whsec_ secret shown only then, and Location naming it', async () => {
    const res = await h.api('POST', '/webhooks', t.test, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['car.booking.confirmed', 'car.booking.confirmed', 'micromobility.trip.cancelled'],
      description: 'Our backend',
    })
    assert.equal(res.status, 201, res.text)
    const webhook = res.body.data.webhook
    assert.match(webhook.id, /^wh_[A-Za-z0-9]{20}$/)
    assert.equal(res.headers.location, `/mobility-api/v2/webhooks/${webhook.id}`)
    assert.match(webhook.secret, /^whsec_/)
    assert.equal(Buffer.from(webhook.secret.slice(6), 'base64').length, 32)
    assert.deepEqual(webhook.events, ['car.booking.confirmed', 'micromobility.trip.cancelled'], 'each type once')
    assert.equal(webhook.allEvents, false)
    assert.equal(webhook.enabled, true)
    assert.equal(webhook.environment, 'test')
    assert.equal(webhook.description, 'Our backend')
    assert.ok(Date.parse(webhook.createdAt))
    const read = await h.api('GET', `/webhooks/${webhook.id}`, t.test)
    assert.equal(read.status, 200)
    assert.equal(read.body.data.webhook.secret, undefined)
    assert.equal(read.body.data.webhook.url, 'http://127.0.0.1:9/hooks')
  })

  it('without events: every type, also later ones; PATCH changes url, events, description and enabled', async () => {
    const created = await h.api('POST', '/webhooks', t.test, { url: 'http://127.0.0.1:9/all' })
    const webhook = created.body.data.webhook
    assert.deepEqual(webhook.events, [...EVENT_TYPES])
    assert.equal(webhook.allEvents, true)
    assert.equal(webhook.description, null)
    const patched = await h.api('PATCH', `/webhooks/${webhook.id}`, t.test, {
      url: 'http://127.0.0.1:9/changed',
      events: ['webhook.test'],
      description: 'changed',
    })
    assert.equal(patched.status, 200, patched.text)
    assert.equal(patched.body.data.webhook.url, 'http://127.0.0.1:9/changed')
    assert.deepEqual(patched.body.data.webhook.events, ['webhook.test'])
    const off = await h.api('PATCH', `/webhooks/${webhook.id}`, t.test, { enabled: false, events: null })
    assert.equal(off.body.data.webhook.enabled, false)
    assert.equal(off.body.data.webhook.disabledReason, 'DISABLED_BY_CLIENT')
    assert.equal(off.body.data.webhook.allEvents, true)
    const on = await h.api('PATCH', `/webhooks/${webhook.id}`, t.test, { enabled: true })
    assert.equal(on.body.data.webhook.enabled, true)
    assert.equal(on.body.data.webhook.disabledReason, null)
    const empty = await h.api('PATCH', `/webhooks/${webhook.id}`, t.test, {})
    assert.equal(empty.status, 400)
  })

  it('refuses unknown event types naming them, and an empty list', async () => {
    const res = await h.api('POST', '/webhooks', t.test, {
      url: 'http://127.0.0.1:9/x',
      events: ['car.booking.confirmed', 'car.booking.exploded'],
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'INVALID_REQUEST')
    assert.equal(res.body.error.details.reason, 'UNKNOWN_EVENT_TYPE')
    assert.deepEqual(res.body.error.details.unknownEventTypes, ['car.booking.exploded'])
    assert.match(res.body.error.details.events, /car\.booking\.exploded/)
    const empty = await h.api('POST', '/webhooks', t.test, { url: 'http://127.0.0.1:9/x', events: [] })
    assert.equal(empty.status, 400)
    assert.equal(empty.body.error.code, 'INVALID_REQUEST')
  })

  it('lists in offset pages, newest first, per environment', async () => {
    const tenant = await createTenant(h)
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1000)
      await h.api('POST', '/webhooks', tenant.test, { url: `http://127.0.0.1:9/p${i}` })
    }
    const page = await h.api('GET', '/webhooks?page=0&limit=2', tenant.test)
    assert.equal(page.status, 200, page.text)
    assert.deepEqual(page.body.data.pagination, { total: 3, currentPage: 0, limit: 2 })
    assert.deepEqual(
      page.body.data.webhooks.map((w: any) => w.url),
      ['http://127.0.0.1:9/p2', 'http://127.0.0.1:9/p1'],
    )
    const second = await h.api('GET', '/webhooks?page=1&limit=2', tenant.test)
    assert.equal(second.body.data.webhooks.length, 1)
    const beyond = await h.api('GET', '/webhooks?page=5', tenant.test)
    assert.deepEqual(beyond.body.data.webhooks, [])
    const live = await h.api('GET', '/webhooks', tenant.secret)
    assert.equal(live.body.data.pagination.total, 0, "a live key does not see the test environment's endpoints")
    assert.equal((await h.api('GET', '/webhooks?limit=101', tenant.test)).status, 400)
  })

  it('answers 404 NOT_FOUND for unknown ids, malformed ids, other tenants and the other environment', async () => {
    const other = await createTenant(h)
    const theirs = await h.api('POST', '/webhooks', other.test, { url: 'http://127.0.0.1:9/theirs' })
    const id = theirs.body.data.webhook.id
    for (const [method, path] of [
      ['GET', `/webhooks/${id}`],
      ['PATCH', `/webhooks/${id}`],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/test`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['POST', `/webhooks/${id}/rotate-secret`],
      ['GET', '/webhooks/wh_AAAAAAAAAAAAAAAAAAAA'],
      ['GET', '/webhooks/nonsense'],
    ]) {
      const res = await h.api(method, path, t.test, method === 'PATCH' ? { enabled: false } : undefined)
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`)
      assert.equal(res.body.error.code, 'NOT_FOUND')
    }
    const otherEnvironment = await h.api('GET', `/webhooks/${id}`, other.secret)
    assert.equal(otherEnvironment.status, 404)
    assert.equal((await h.api('GET', `/webhooks/${id}`, other.test)).body.data.webhook.enabled, true, 'untouched')
  })

  it('deletes an endpoint and its log', async () => {
    const created = await h.api('POST', '/webhooks', t.test, { url: 'http://127.0.0.1:9/gone' })
    const id = created.body.data.webhook.id
    const deleted = await h.api('DELETE', `/webhooks/${id}`, t.test)
    assert.equal(deleted.status, 200, deleted.text)
    assert.equal(deleted.body.data.webhook.id, id)
    assert.equal((await h.api('GET', `/webhooks/${id}`, t.test)).status, 404)
    assert.equal((await h.api('GET', `/webhooks/${id}/deliveries`, t.test)).status, 404)
  })

  it('keeps at most 20 endpoints per environment', async () => {
    const tenant = await createTenant(h)
    for (let i = 0; i < 20; i++) {
      const res = await h.api('POST', '/webhooks', tenant.test, { url: `http://127.0.0.1:9/n${i}` })
      assert.equal(res.status, 201, res.text)
    }
    const refused = await h.api('POST', '/webhooks', tenant.test, { url: 'http://127.0.0.1:9/n21' })
    assert.equal(refused.status, 400)
    assert.equal(refused.body.error.code, 'INVALID_REQUEST')
    assert.equal(refused.body.error.details.reason, 'WEBHOOK_LIMIT_REACHED')
    assert.equal(refused.body.error.details.limit, 20)
    const live = await h.api('POST', '/webhooks', tenant.secret, { url: 'https://93.184.216.34/hooks' })
    assert.equal(live.status, 201, 'the other environment counts on its own')
  })

  it('rotates the secret: a new whsec_, the old one valid 24 hours more', async () => {
    const created = await h.api('POST', '/webhooks', t.test, { url: 'http://127.0.0.1:9/rotate' })
    const { id, secret } = created.body.data.webhook
    const rotated = await h.api('POST', `/webhooks/${id}/rotate-secret`, t.test)
    assert.equal(rotated.status, 200, rotated.text)
    assert.match(rotated.body.data.webhook.secret, /^whsec_/)
    assert.notEqual(rotated.body.data.webhook.secret, secret)
    assert.equal(Date.parse(rotated.body.data.webhook.previousSecretExpiresAt), h.clock().getTime() + 24 * 3_600_000)
  })
})

describe('webhook endpoints: who may manage them', { skip: skipReason }, () => {
  let t: TenantFixture
  before(async () => {
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })

  it('publishable keys get 403 FORBIDDEN on every webhook route, even from an allowed origin', async () => {
    const mine = await h.api('POST', '/webhooks', t.test, { url: 'http://127.0.0.1:9/mine' })
    const id = mine.body.data.webhook.id
    for (const key of [t.publishable, t.testPublishable]) {
      for (const [method, path] of [
        ['POST', '/webhooks'],
        ['GET', '/webhooks'],
        ['GET', `/webhooks/${id}`],
        ['PATCH', `/webhooks/${id}`],
        ['DELETE', `/webhooks/${id}`],
        ['POST', `/webhooks/${id}/test`],
        ['GET', `/webhooks/${id}/deliveries`],
        ['POST', `/webhooks/${id}/rotate-secret`],
      ]) {
        const res = await h.request({
          method,
          url: `/mobility-api/v2${path}`,
          key,
          headers: { origin: ORIGIN },
          ...(method === 'POST' || method === 'PATCH' ? { body: { url: 'http://127.0.0.1:9/x' } } : {}),
        })
        assert.equal(res.status, 403, `${method} ${path}`)
        assert.equal(res.body.error.code, 'FORBIDDEN')
        assert.equal(res.body.error.details.reason, 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY')
        assert.equal(res.body.error.details.requiredPermission, 'account:webhook:write')
      }
    }
  })

  it('secret keys hold account:webhook:write by default; a key without it gets 403; publishable keys cannot ask for it', async () => {
    const check = await h.api('GET', '/auth/check', t.secret)
    assert.ok(check.body.data.permissions.includes('account:webhook:write'))
    const narrow = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'test',
      permissions: ['account:read'],
    })
    const res = await h.api('GET', '/webhooks', narrow.secret)
    assert.equal(res.status, 403)
    assert.equal(res.body.error.details.reason, 'MISSING_PERMISSION')
    const refused = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
      type: 'publishable',
      environment: 'live',
      permissions: ['account:webhook:write'],
    })
    assert.equal(refused.status, 403)
    assert.equal(refused.body.error.code, 'FORBIDDEN')
  })

  it('without a key: 401', async () => {
    const res = await h.api('GET', '/webhooks')
    assert.equal(res.status, 401)
  })
})

describe('webhook URLs of live endpoints', { skip: skipReason }, () => {
  let t: TenantFixture
  before(async () => {
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })

  const refused = async (url: string, reason: string) => {
    const res = await h.api('POST', '/webhooks', t.secret, { url })
    assert.equal(res.status, 400, `${url}: ${res.text}`)
    assert.equal(res.body.error.code, 'INVALID_REQUEST', url)
    assert.equal(res.body.error.details.reason, reason, url)
    return res.body.error.details
  }

  it('must be https', async () => {
    await refused('http://93.184.216.34/hooks', 'URL_NOT_HTTPS')
    await refused('http://hooks.example.com/hooks', 'URL_NOT_HTTPS')
  })

  it('must not reach private, loopback, link-local and other special addresses, however written', async () => {
    for (const [url, addressClass] of [
      ['https://127.0.0.1/hooks', 'loopback'],
      ['https://127.1.2.3:8443/hooks', 'loopback'],
      ['https://10.0.0.8/hooks', 'private'],
      ['https://172.20.1.1/hooks', 'private'],
      ['https://192.168.1.20/hooks', 'private'],
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://100.64.0.1/hooks', 'cgnat'],
      ['https://0.0.0.0/hooks', 'unspecified'],
      ['https://224.0.0.1/hooks', 'multicast'],
      ['https://[::1]/hooks', 'loopback'],
      ['https://[::ffff:127.0.0.1]/hooks', 'loopback'],
      ['https://[::ffff:a00:1]/hooks', 'private'],
      ['https://[fe80::1]/hooks', 'link-local'],
      ['https://[fd00::1]/hooks', 'private'],
      ['https://2130706433/hooks', 'loopback'], // 127.0.0.1 as one number: the URL parser normalizes it
      ['https://0x7f.1/hooks', 'loopback'],
    ]) {
      const details = await refused(url, 'URL_ADDRESS_NOT_ALLOWED')
      assert.equal(details.addressClass, addressClass, url)
    }
  })

  it('refuses localhost, which resolves to the loopback address', async () => {
    const details = await refused('https://localhost:8443/hooks', 'URL_ADDRESS_NOT_ALLOWED')
    assert.equal(details.addressClass, 'loopback')
    await refused('https://api.localhost/hooks', 'URL_ADDRESS_NOT_ALLOWED')
  })

  it('refuses credentials in the URL, other schemes, fragments and URLs that are too long', async () => {
    await refused('https://user:pass@93.184.216.34/hooks', 'URL_HAS_CREDENTIALS')
    await refused('https://user@93.184.216.34/hooks', 'URL_HAS_CREDENTIALS')
    await refused('ftp://93.184.216.34/hooks', 'URL_INVALID')
    await refused('not a url', 'URL_INVALID')
    await refused('https://93.184.216.34/hooks#part', 'URL_INVALID')
    const long = await h.api('POST', '/webhooks', t.secret, { url: `https://93.184.216.34/${'a'.repeat(2100)}` })
    assert.equal(long.status, 400)
    assert.equal(long.body.error.code, 'INVALID_REQUEST')
  })

  it('checks a changed URL as at registration', async () => {
    const created = await h.api('POST', '/webhooks', t.secret, { url: 'https://93.184.216.34/hooks' })
    assert.equal(created.status, 201, created.text)
    const res = await h.api('PATCH', `/webhooks/${created.body.data.webhook.id}`, t.secret, {
      url: 'https://192.168.0.1/hooks',
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.details.reason, 'URL_ADDRESS_NOT_ALLOWED')
  })

  it('test keys may use http and any address', async () => {
    for (const url of ['http://127.0.0.1:9/hooks', 'http://localhost:9/hooks', 'http://[::1]:9/hooks']) {
      const res = await h.api('POST', '/webhooks', t.test, { url })
      assert.equal(res.status, 201, `${url}: ${res.text}`)
    }
    const creds = await h.api('POST', '/webhooks', t.test, { url: 'http://a:b@127.0.0.1:9/hooks' })
    assert.equal(creds.body.error.details.reason, 'URL_HAS_CREDENTIALS')
  })
})

describe('webhooks in the admin API', { skip: skipReason }, () => {
  let t: TenantFixture
  before(async () => {
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })

  it('the operator manages any tenant’s endpoints, naming the environment', async () => {
    const base = `/tenants/${t.tenant.id}/webhooks`
    const created = await h.admin('POST', base, { environment: 'test', url: 'http://127.0.0.1:9/admin' })
    assert.equal(created.status, 201, created.text)
    const webhook = created.body.data.webhook
    assert.match(webhook.secret, /^whsec_/)
    assert.equal(webhook.environment, 'test')
    assert.equal(created.headers.location, `/admin/v1${base}/${webhook.id}`)
    const live = await h.admin('POST', base, { environment: 'live', url: 'http://127.0.0.1:9/admin' })
    assert.equal(live.status, 400, 'live rules apply to the operator too')
    assert.equal(live.body.error.details.reason, 'URL_NOT_HTTPS')
    assert.equal((await h.admin('POST', base, { url: 'http://127.0.0.1:9/x' })).status, 400, 'environment required')

    assert.equal((await h.api('GET', `/webhooks/${webhook.id}`, t.test)).status, 200, 'the tenant sees it')
    const list = await h.admin('GET', `${base}?environment=test`)
    assert.equal(list.status, 200, list.text)
    assert.equal(list.body.data.pagination.total, 1)
    assert.equal((await h.admin('GET', `${base}?environment=live`)).body.data.pagination.total, 0)
    assert.equal((await h.admin('GET', `${base}/${webhook.id}`)).body.data.webhook.id, webhook.id)
    const off = await h.admin('PATCH', `${base}/${webhook.id}`, { enabled: false })
    assert.equal(off.body.data.webhook.disabledReason, 'DISABLED_BY_OPERATOR')
    await h.admin('PATCH', `${base}/${webhook.id}`, { enabled: true })
    const test = await h.admin('POST', `${base}/${webhook.id}/test`)
    assert.equal(test.status, 202, test.text)
    const log = await h.admin('GET', `${base}/${webhook.id}/deliveries`)
    assert.equal(log.status, 200)
    assert.equal(log.body.data.deliveries[0].eventType, 'webhook.test')
    const rotated = await h.admin('POST', `${base}/${webhook.id}/rotate-secret`)
    assert.match(rotated.body.data.webhook.secret, /^whsec_/)
    assert.equal((await h.admin('DELETE', `${base}/${webhook.id}`)).status, 200)
    assert.equal((await h.admin('GET', `${base}/${webhook.id}`)).status, 404)
  })

  it('unknown tenants and other tenants’ endpoints answer 404; without the admin token 401', async () => {
    const other = await createTenant(h)
    const theirs = await h.admin('POST', `/tenants/${other.tenant.id}/webhooks`, {
      environment: 'test',
      url: 'http://127.0.0.1:9/theirs',
    })
    const id = theirs.body.data.webhook.id
    const wrongTenant = await h.admin('GET', `/tenants/${t.tenant.id}/webhooks/${id}`)
    assert.equal(wrongTenant.status, 404)
    assert.equal(wrongTenant.body.error.code, 'NOT_FOUND')
    const noTenant = await h.admin('GET', '/tenants/ten_AAAAAAAAAAAAAAAA/webhooks')
    assert.equal(noTenant.status, 404)
    assert.equal(noTenant.body.error.details.resource, 'tenant')
    const unauthorized = await h.request({
      url: `/admin/v1/tenants/${t.tenant.id}/webhooks`,
      key: `${ADMIN_TOKEN}-wrong`,
    })
    assert.equal(unauthorized.status, 401)
  })
})

describe('webhooks in the API document', { skip: skipReason }, () => {
  it('documents every operation with its operationId, the Webhooks tag, the signatures, retries and an example event', async () => {
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
    const op = (path: string, method: string) => body.paths[`/mobility-api/v2${path}`]?.[method]?.operationId
    assert.equal(op('/webhooks', 'post'), 'createWebhook')
    assert.equal(op('/webhooks', 'get'), 'listWebhooks')
    assert.equal(op('/webhooks/{webhookId}', 'get'), 'getWebhook')
    assert.equal(op('/webhooks/{webhookId}', 'patch'), 'updateWebhook')
    assert.equal(op('/webhooks/{webhookId}', 'delete'), 'deleteWebhook')
    assert.equal(op('/webhooks/{webhookId}/test', 'post'), 'sendTestWebhook')
    assert.equal(op('/webhooks/{webhookId}/deliveries', 'get'), 'listWebhookDeliveries')
    assert.equal(op('/webhooks/{webhookId}/rotate-secret', 'post'), 'rotateWebhookSecret')
    assert.ok(body.paths['/admin/v1/tenants/{tenantId}/webhooks'].post)
    const tag = body.tags.find((t: any) => t.name === 'Webhooks')
    assert.ok(tag)
    for (const words of [
      /webhook-signature/,
      /whsec_/,
      /5 s, 5 min, 30 min/,
      /micromobility\.trip\.cancelled/,
      /"id":"evt_/,
    ]) {
      assert.match(tag.description, words)
    }
    const event = body.webhooks.mobilityEvent.post
    assert.ok(event.requestBody.content['application/json'].schema.properties.type.enum.includes('webhook.test'))
  })
})
