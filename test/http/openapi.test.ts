import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { type Harness, skipReason, startHarness } from '../helpers/harness.ts'

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

  it('documents every public route with its errors, and the admin API', async () => {
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
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
    const { body } = await h.request({ url: '/mobility-api/v2/openapi.json' })
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
