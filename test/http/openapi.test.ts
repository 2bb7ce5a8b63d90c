import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { FREE_TEXT_PATTERN, LINE_TEXT_PATTERN } from '../../src/http/text-rule.ts'
import { type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { deref } from '../helpers/openapi.ts'

describe('the API document', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('serves a valid OpenAPI 3.1 document without a key', async () => {
    const res = await h.request({ url: '/mobility-api/v2/openapi.json' })
    assert.equal(res.status, 200)
    assert.equal(res.body.openapi, '3.1.0')
    const validator = new Validator()
    const result = await validator.validate(res.body)
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2))
    assert.equal(validator.version, '3.1')
  })

  it('marks the deprecated old names of renamed fields deprecated: true, in requests and answers (issue 21)', async () => {
    const schemas = (await h.request({ url: '/mobility-api/v2/openapi.json' })).body.components.schemas
    const aliases = [
      ['TicketBookingRequest', 'customer'],
      ['PublicTransportBooking', 'customer'],
      ['PublicTransportBookingListItem', 'customer'],
      ['SubscriptionRequest', 'holder'],
      ['Subscription', 'holder'],
    ]
    for (const [shape, old] of aliases) {
      const property = schemas[shape].properties[old]
      assert.equal(property.deprecated, true, `${shape}.${old}`)
      assert.match(property.description, /Deprecated: the old name of `traveller`/)
      assert.equal(schemas[shape].properties.traveller.deprecated, undefined, `${shape}.traveller`)
    }
  })

  it('documents every public route with its errors, and the admin API', async () => {
    const body = deref((await h.request({ url: '/mobility-api/v2/openapi.json' })).body)
    const paths = Object.keys(body.paths)
    for (const path of [
      '/mobility-api/v2/auth/check',
      '/mobility-api/v2/mobility-providers',
      '/admin/v1/tenants',
      '/admin/v1/keys/{keyId}',
    ]) {
      assert.ok(paths.includes(path), path)
    }
    const check = body.paths['/mobility-api/v2/auth/check'].get
    assert.ok(check.responses['200'] && check.responses['4XX'], 'success and error answers are documented')
    assert.ok(check.security?.length > 0)
    // The route-specific statuses of spec 7.2 are responses of their own.
    const booking = body.paths['/mobility-api/v2/cars/bookings/{bookingId}']
    assert.match(booking.get.responses['502']?.description ?? '', /PROVIDER_ERROR/)
    assert.match(booking.patch.responses['502']?.description ?? '', /PROVIDER_ERROR/)
    const cancel = body.paths['/mobility-api/v2/cars/bookings/{bookingId}/cancel'].post
    assert.match(cancel.responses['422']?.description ?? '', /BOOKING_FAILED/)
    const vehicle = body.paths['/mobility-api/v2/micromobility/vehicles/{vehicleId}'].get
    assert.match(vehicle.responses['400']?.description ?? '', /OFFER_EXPIRED/)
  })

  it('documents the common request and response headers, the sandbox scenarios and every tag', async () => {
    const body = deref((await h.request({ url: '/mobility-api/v2/openapi.json' })).body)
    const search = body.paths['/mobility-api/v2/cars'].post
    const params = search.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name.toLowerCase())
    for (const name of ['accept-language', 'x-request-id', 'x-sandbox-scenario']) assert.ok(params.includes(name), name)
    const scenario = search.parameters.find((p: any) => p.name.toLowerCase() === 'x-sandbox-scenario')
    for (const name of ['provider-error', 'provider-timeout', 'sold-out']) {
      assert.match(scenario.description, new RegExp(name))
    }
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']) {
      assert.ok(search.responses['200'].headers?.[header], `200 ${header}`)
    }
    assert.ok(search.responses['4XX'].headers?.['Retry-After'])
    const tags = new Set(body.tags.map((t: any) => t.name))
    for (const path of Object.values<any>(body.paths)) {
      for (const operation of Object.values<any>(path)) {
        for (const tag of operation.tags ?? []) assert.ok(tags.has(tag), `tag ${tag} is declared`)
      }
    }
  })

  it('shows the text rule on the strings of requests (bodies, query strings, paths), free text marked', async () => {
    const body = deref((await h.request({ url: '/mobility-api/v2/openapi.json' })).body)
    const line = new RegExp(LINE_TEXT_PATTERN, 'u')
    const schemaOf = (operation: any) => operation.requestBody.content['application/json'].schema
    const create = schemaOf(body.paths['/mobility-api/v2/cars/bookings'].post)
    assert.equal(create.properties.driver.properties.firstName.pattern, LINE_TEXT_PATTERN)
    assert.equal(create.properties.additionalFields.propertyNames.pattern, LINE_TEXT_PATTERN)
    assert.equal(create.properties.accessMethod.pattern, undefined, 'closed sets need no rule')
    const booking = body.paths['/mobility-api/v2/cars/bookings/{bookingId}']
    const notes = schemaOf(booking.patch).properties.notes
    assert.equal(notes.pattern, FREE_TEXT_PATTERN)
    assert.equal(notes['x-free-text'], true)
    const id = booking.get.parameters.find((p: any) => p.name === 'bookingId')
    assert.equal(id.schema.pattern, LINE_TEXT_PATTERN)
    const query = body.paths['/mobility-api/v2/public-transport/stops'].get.parameters.find(
      (p: any) => p.name === 'query',
    )
    assert.equal(query.schema.pattern, LINE_TEXT_PATTERN)
    const tenant = schemaOf(body.paths['/admin/v1/tenants'].post)
    assert.equal(tenant.properties.name.pattern, LINE_TEXT_PATTERN)
    assert.match(body.info.description, /control characters/)
    // The pattern as a client would run it: what the service accepts and refuses.
    assert.ok(line.test('Zoë 北京 🚲') && !line.test('A\u0000B') && !line.test('\ud800') && !line.test('a\tb'))
  })

  it('names the address the request reached as its server; health, readiness and the document need no key', async () => {
    const res = await h.request({ url: '/mobility-api/v2/openapi.json', headers: { host: 'api.mobility.test:8443' } })
    assert.deepEqual(
      res.body.servers.map((s: any) => s.url),
      ['http://api.mobility.test:8443'],
    )
    // A Host header that names no host is not echoed into the document.
    const odd = await h.request({ url: '/mobility-api/v2/openapi.json', headers: { host: 'a<b>' } })
    assert.deepEqual(
      odd.body.servers.map((s: any) => s.url),
      ['/'],
    )
    for (const path of ['/health', '/ready', '/mobility-api/v2/openapi.json']) {
      assert.deepEqual(res.body.paths[path].get.security, [], path)
    }
    assert.equal(res.body.info.license.name, 'Proprietary')
    // /docs/json, which the docs page could read as well, is the same document.
    const json = await h.request({ url: '/mobility-api/v2/docs/json', headers: { host: 'api.mobility.test:8443' } })
    assert.deepEqual(json.body, res.body)
  })

  it('serves the docs page and its assets locally', async () => {
    const page = await h.request({ url: '/mobility-api/v2/docs/' })
    assert.equal(page.status, 200)
    assert.match(page.text, /swagger/i)
    const scripts = [...page.text.matchAll(/src="\.?\/?([^"]+\.js)"/g)].map((m) => m[1])
    assert.ok(scripts.length > 0)
    for (const script of scripts) {
      const url = script.startsWith('/') ? script : `/mobility-api/v2/docs/${script}`
      assert.equal((await h.request({ url })).status, 200, url)
    }
  })
})
