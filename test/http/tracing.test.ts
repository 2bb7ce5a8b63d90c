import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../src/config.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: { key: string; value: Record<string, unknown> }[]
  status: { code: number }
}

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  )

describe('tracing (OpenTelemetry over OTLP/HTTP)', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  let collector: Server
  let provider: Server
  let providerUrl: string
  const spans: ReceivedSpan[] = []
  const services = new Set<string>()
  const traceparents: string[] = []

  before(async () => {
    // A local OTLP endpoint that keeps what it receives, and an HTTP "provider" that keeps the traceparent it gets.
    collector = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => {
        body += c
      })
      req.on('end', () => {
        assert.equal(req.url, '/v1/traces')
        for (const resource of JSON.parse(body).resourceSpans) {
          services.add(resource.resource.attributes.find((a: any) => a.key === 'service.name').value.stringValue)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans)
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      })
    })
    provider = createServer((req, res) => {
      traceparents.push(String(req.headers.traceparent))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    const endpoint = await listen(collector)
    providerUrl = await listen(provider)
    h = await startHarness({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SERVICE_NAME: 'mas-under-test' } })
    // A route that calls an HTTP provider the way connectors do (fetch), on every instance.
    for (const app of h.apps) {
      app.get('/probe-provider', async () => {
        const res = await fetch(`${providerUrl}/operator/information`)
        return { success: true, data: await res.json(), meta: {} }
      })
    }
    t = await createTenant(h)
  })
  after(async () => {
    await h.close()
    collector.close()
    provider.close()
  })

  const waitForSpans = async (ok: () => boolean) => {
    const until = Date.now() + 10_000
    while (!ok()) {
      if (Date.now() > until) assert.fail(`spans did not arrive: ${JSON.stringify(spans.map((s) => s.name))}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const attr = (span: ReceivedSpan, key: string) => span.attributes.find((a) => a.key === key)?.value

  it('sends a span per request, with its provider calls and their queries and commands as children', async () => {
    const start = new Date(h.clock().getTime() + 72 * 3600_000)
    start.setUTCMinutes(0, 0, 0)
    const search = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 20_000 },
      dates: { start: start.toISOString(), end: new Date(start.getTime() + 3 * 86_400_000).toISOString() },
    })
    assert.equal(search.status, 200)
    await waitForSpans(() => spans.some((s) => s.name === 'POST /mobility-api/v2/cars'))
    const server = spans.find((s) => s.name === 'POST /mobility-api/v2/cars') as ReceivedSpan
    assert.equal(server.kind, 2)
    assert.deepEqual(attr(server, 'http.response.status_code'), { intValue: '200' })
    assert.ok(services.has('mas-under-test'))
    await waitForSpans(
      () => spans.filter((s) => s.traceId === server.traceId && s.name.startsWith('provider ')).length >= 2,
    )
    const calls = spans.filter((s) => s.traceId === server.traceId && s.name.startsWith('provider '))
    assert.ok(
      calls.some((s) => s.name === 'provider sandbox-rent searchCars'),
      JSON.stringify(calls.map((s) => s.name)),
    )
    assert.ok(calls.every((s) => s.parentSpanId === server.spanId))
    if (h.shape === 'distributed') {
      // Rate limit, key cache and search session: Redis; the key's first resolution: PostgreSQL.
      const inTrace = spans.filter((s) => s.traceId === server.traceId)
      assert.ok(
        inTrace.some((s) => s.name.startsWith('redis ')),
        JSON.stringify(inTrace.map((s) => s.name)),
      )
      const check = await h.api('GET', '/auth/check', t.test)
      assert.equal(check.status, 200)
      await waitForSpans(() =>
        spans.some((s) => s.name.startsWith('pg ') && attr(s, 'db.system')?.stringValue === 'postgresql'),
      )
    }
  })

  it('continues an incoming trace and sends traceparent to HTTP providers', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const res = await h.request({
      url: '/probe-provider',
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    })
    assert.equal(res.status, 200)
    assert.equal(traceparents.length, 1)
    assert.match(traceparents[0], new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`))
    await waitForSpans(() => spans.some((s) => s.traceId === traceId && s.kind === 3))
    const server = spans.find((s) => s.traceId === traceId && s.kind === 2) as ReceivedSpan
    const client = spans.find((s) => s.traceId === traceId && s.kind === 3) as ReceivedSpan
    assert.equal(server.parentSpanId, '00f067aa0ba902b7')
    assert.equal(client.parentSpanId, server.spanId)
    // The provider was told the client span as parent.
    assert.equal(traceparents[0].split('-')[2], client.spanId)
  })

  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    assert.equal(loadConfig({}).otlpTracesUrl, undefined)
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).otlpTracesUrl, 'http://c:4318/v1/traces')
    assert.equal(
      loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }).otlpTracesUrl,
      'http://c:4318/custom',
    )
  })
})
