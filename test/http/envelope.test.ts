import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

const assertEnvelope = (body: any) => {
  assert.equal(typeof body.success, 'boolean')
  assert.equal(typeof body.meta.requestId, 'string')
  assert.ok(!Number.isNaN(Date.parse(body.meta.timestamp)), 'meta.timestamp is a date-time')
}

describe('envelope and errors', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('wraps success in the envelope and echoes the request id as a header', async () => {
    const res = await h.api('GET', '/auth/check', t.secret)
    assert.equal(res.status, 200)
    assertEnvelope(res.body)
    assert.equal(res.body.success, true)
    assert.equal(res.headers['x-request-id'], res.body.meta.requestId)
  })

  it('keeps a well-formed incoming X-Request-Id', async () => {
    const res = await h.api('GET', '/auth/check', t.secret, undefined, { 'x-request-id': 'client-trace-12345' })
    assert.equal(res.body.meta.requestId, 'client-trace-12345')
    assert.equal(res.headers['x-request-id'], 'client-trace-12345')
  })

  it('answers unknown routes with 404 NOT_FOUND in the envelope', async () => {
    for (const url of ['/nope', '/mobility-api/v2/nope', '/mobility-api/v2/cars/nothing/here']) {
      const res = await h.request({ url, key: t.secret })
      assert.equal(res.status, 404)
      assertEnvelope(res.body)
      assert.equal(res.body.success, false)
      assert.equal(res.body.error.code, 'NOT_FOUND')
      assert.equal(res.headers['x-request-id'], res.body.meta.requestId)
    }
  })

  it('answers a malformed URL and huge page numbers in the envelope', async () => {
    const bad = await h.request({ url: '/mobility-api/v2/cars/bookings/%ZZ', key: t.secret })
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error.code, 'INVALID_REQUEST')
    assert.equal(bad.body.error.details.reason, 'MALFORMED_URL')
    assert.equal(bad.headers['x-request-id'], bad.body.meta.requestId)
    const page = await h.api('GET', '/mobility-providers?page=1e300', t.secret)
    assert.equal(page.status, 400)
    assert.equal(page.body.error.code, 'INVALID_REQUEST')
  })

  it('answers a wrong method with 404 NOT_FOUND (spec 7.1: NOT_FOUND is 404), the Allow header and the envelope', async () => {
    const res = await h.api('DELETE', '/auth/check', t.secret)
    assert.equal(res.status, 404)
    assert.equal(res.body.error.code, 'NOT_FOUND')
    assert.equal(res.body.error.details.reason, 'METHOD_NOT_ALLOWED')
    assert.match(String(res.headers.allow), /GET/)
  })

  it('answers malformed JSON with 400 INVALID_REQUEST', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/admin/v1/tenants',
      key: 'test-admin-token-0123456789',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'INVALID_REQUEST')
    assert.equal(res.body.error.details.reason, 'MALFORMED_JSON')
  })

  it('refuses a __proto__ key as such, not as malformed JSON', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/admin/v1/tenants',
      key: 'test-admin-token-0123456789',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x", "__proto__": {"admin": true}}',
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'INVALID_REQUEST')
    assert.equal(res.body.error.details.reason, 'FORBIDDEN_PROPERTY')
  })

  it('answers what the HTTP parser refuses (a URL past the header limit) in the envelope, over a real socket', async () => {
    const app = h.apps[0]
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const { port } = new URL(address)
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(`GET /mobility-api/v2/cars/bookings/${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
        })
        let text = ''
        socket.on('data', (chunk) => {
          text += chunk
        })
        socket.on('close', () => resolve(text))
        socket.on('error', reject)
      })
      const [head, body] = answer.split('\r\n\r\n')
      assert.match(head, /^HTTP\/1\.1 400 /)
      assert.match(head, /x-request-id: req_/i)
      const parsed = JSON.parse(body)
      assert.equal(parsed.success, false)
      assert.equal(parsed.error.code, 'INVALID_REQUEST')
      assert.equal(parsed.error.details.reason, 'HEADERS_TOO_LARGE')
      assert.ok(parsed.meta.requestId)
    } finally {
      app.server.close()
    }
  })

  it('answers a wrong content type with 400 INVALID_REQUEST (spec 7.1) and the envelope', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/admin/v1/tenants',
      key: 'test-admin-token-0123456789',
      headers: { 'content-type': 'text/plain' },
      payload: 'name=x',
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'INVALID_REQUEST')
    assert.equal(res.body.error.details.reason, 'UNSUPPORTED_MEDIA_TYPE')
  })

  it('answers an oversized body with 400 INVALID_REQUEST (spec 7.1) and the envelope', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/admin/v1/tenants',
      key: 'test-admin-token-0123456789',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'INVALID_REQUEST')
    assert.equal(res.body.error.details.reason, 'BODY_TOO_LARGE')
  })

  it('maps each invalid field path to its message', async () => {
    const res = await h.admin('POST', '/tenants', {
      name: '',
      dataRetention: 'SOMETIMES',
      allowedOrigins: ['https://ok.example', 'not an origin'],
      extra: true,
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'INVALID_REQUEST')
    const details = res.body.error.details
    assert.ok(details.name, 'name is reported')
    assert.ok(details.dataRetention, 'dataRetention is reported')
    assert.ok(details['allowedOrigins[1]'], 'the bad array item is reported by index')
    assert.equal(details.extra, 'is not allowed')
  })

  it('reports a missing required field and bad query values', async () => {
    const missing = await h.admin('POST', '/tenants', {})
    assert.equal(missing.body.error.details.name, 'is required')
    const query = await h.api('GET', '/mobility-providers?limit=101&page=-1', t.secret)
    assert.equal(query.status, 400)
    assert.ok(query.body.error.details.limit)
    assert.ok(query.body.error.details.page)
    // Spec 8: a page beyond the range is an empty set, however far beyond.
    for (const path of ['/mobility-providers?page=2000000000&limit=100', '/bookings?page=2000000000&limit=100']) {
      const far = await h.api('GET', path, t.secret)
      assert.equal(far.status, 200, `${path}: ${far.text}`)
      assert.deepEqual(far.body.data[path.startsWith('/bookings') ? 'bookings' : 'providers'], [])
    }
  })

  it('localizes messages by Accept-Language with q-values, falling back to the tenant default', async () => {
    const de = await h.api('GET', '/nothing', t.secret, undefined, {
      'accept-language': 'fr;q=0.5, de-CH;q=0.9, en;q=0.1',
    })
    assert.equal(de.headers['content-language'], 'de')
    assert.match(de.body.error.message, /Endpunkt/)
    const fr = await h.api('GET', '/auth/check', 'svc_live_garbage', undefined, { 'accept-language': 'fr' })
    assert.equal(fr.status, 401)
    assert.match(fr.body.error.message, /clé/)

    const german = await createTenant(h, { defaultLanguage: 'de' })
    const noHeader = await h.api('GET', '/mobility-providers?limit=500', german.secret)
    assert.equal(noHeader.headers['content-language'], 'de')
    assert.match(noHeader.body.error.message, /ungültig/)
    const check = await h.api('GET', '/auth/check', german.secret)
    assert.equal(check.body.data.defaultLanguage, 'de')
    assert.equal(check.body.data.language, 'de')
    // Successful answers say their language too (documented in the OpenAPI document).
    assert.equal(check.headers['content-language'], 'de')
    const french = await h.api('GET', '/mobility-providers', german.secret, undefined, { 'accept-language': 'fr' })
    assert.equal(french.status, 200)
    assert.equal(french.headers['content-language'], 'fr')
    const unsupported = await h.api('GET', '/auth/check', german.secret, undefined, {
      'accept-language': 'ja, fr;q=0.2',
    })
    assert.equal(unsupported.body.data.language, 'fr')
  })

  it('serves a health check without a key', async () => {
    const res = await h.request({ url: '/health' })
    assert.equal(res.status, 200)
    assert.equal(res.body.data.status, 'ok')
  })
})
