import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import {
  ADMIN_TOKEN,
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

/** Routes whose answer is not the JSON envelope by design (documents, pages, Prometheus text). */
const NOT_ENVELOPED = [/\/openapi\.json$/, /\/docs(\/|$)/, /^\/metrics$/]

describe('random input never breaks the service', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  let routes: { method: string; path: string }[]
  before(async () => {
    // Forged keys would soon have 127.0.0.1 refused (429) before any key is checked; the throttle has tests of its own.
    h = await startHarness({ env: { AUTH_FAILURE_LIMIT: '0' } })
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
    // Generous limits, so the random requests reach validation instead of stopping at 429.
    const rateLimit = { limit: 100_000, windowSeconds: 60 }
    t.secret = (await createKey(h, t.tenant.id, { type: 'secret', environment: 'live', rateLimit })).secret
    t.publishable = (await createKey(h, t.tenant.id, { type: 'publishable', environment: 'live', rateLimit })).secret
    t.test = (await createKey(h, t.tenant.id, { type: 'secret', environment: 'test', rateLimit })).secret
    const doc = (await h.request({ url: '/mobility-api/v2/openapi.json' })).body
    routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })),
    )
    routes.push({ method: 'GET', path: '/no/such/route' }, { method: 'PUT', path: '/mobility-api/v2/auth/check' })
  })
  after(() => h.close())

  const segment = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('ten_x', '..', '%', '%00', 'a b', '🚲', ''))
  const query = fc.dictionary(
    fc.constantFrom('page', 'limit', 'cursor', 'latitude', 'longitude', 'radiusMeters', 'q', 'x'),
    fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String), fc.constant('-1'), fc.constant('1e309')),
  )
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => ({ json: v })),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ raw: Buffer.from(bytes) })),
    fc.constant({ raw: '{"name": ' }),
    fc.constant(undefined),
  )
  const contentType = fc.constantFrom(
    'application/json',
    'text/plain',
    'application/octet-stream',
    'application/x-www-form-urlencoded',
    undefined,
  )
  const credential = (): fc.Arbitrary<string | undefined> =>
    fc.constantFrom(
      undefined,
      t.secret,
      t.publishable,
      t.test,
      ADMIN_TOKEN,
      'svc_live_forged',
      `Bearer ${'x'.repeat(5000)}`,
    )
  const extraHeaders = fc.record(
    {
      origin: fc.constantFrom('https://app.example', 'null', 'https://evil.example'),
      'accept-language': fc.string({ maxLength: 40 }),
      'x-request-id': fc.string({ maxLength: 200 }),
    },
    { requiredKeys: [] },
  )

  it('answers every route with a 2xx/4xx envelope, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(segment, { minLength: 3, maxLength: 3 }),
        query,
        body,
        contentType,
        credential(),
        extraHeaders,
        async (routeIndex, segments, q, b, type, key, headers) => {
          const route = routes[routeIndex % routes.length]
          let i = 0
          const path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(segments[i++] ?? 'x'))
          const search = new URLSearchParams(q).toString()
          const allHeaders: Record<string, string> = { ...headers }
          if (type) allHeaders['content-type'] = type
          const payload = b === undefined ? undefined : 'json' in b ? JSON.stringify(b.json) : b.raw
          const res = await h.request({
            method: route.method,
            url: search ? `${path}?${search}` : path,
            key,
            headers: allHeaders,
            payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : payload,
          })
          assert.ok(res.status < 500, `${route.method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`)
          if (!NOT_ENVELOPED.some((r) => r.test(route.path)) || res.status >= 400) {
            if (res.status === 204) return
            assert.equal(typeof res.body?.success, 'boolean', `${route.method} ${path}: ${res.text.slice(0, 200)}`)
            assert.equal(typeof res.body.meta?.requestId, 'string')
            if (!res.body.success) assert.equal(typeof res.body.error.code, 'string')
          }
        },
      ),
      { numRuns: 400 },
    )
    // Still up and answering normally.
    assert.equal((await h.api('GET', '/auth/check', t.secret)).status, 200)
  })
})
