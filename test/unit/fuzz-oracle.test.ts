import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { documentedErrors, type Exchange, judge, routeStatuses, scenariosOf } from '../fuzz/oracle.ts'
import { Raw, toJson } from '../fuzz/template.ts'

const meta = { requestId: 'req_1', timestamp: '2026-01-01T00:00:00.000Z' }
const json = { 'content-type': 'application/json; charset=utf-8' }
const error = (code: string, details?: Record<string, unknown>) => ({
  success: false,
  error: { code, message: 'm', ...(details ? { details } : {}) },
  meta,
})
const exchange = (e: Partial<Exchange>): Exchange => ({
  op: 'GET /mobility-api/v2/auth/check',
  method: 'GET',
  routeAsDocumented: true,
  scenarios: [],
  status: 200,
  headers: json,
  text: '{}',
  body: { success: true, data: {}, meta },
  ...e,
})
const doc = {
  paths: {
    '/mobility-api/v2/cars/bookings/{bookingId}': {
      get: { responses: { '502': { description: 'PROVIDER_ERROR on this route (spec 7.2)' } } },
    },
  },
}
const overrides = routeStatuses(doc)

describe('fuzz oracle', () => {
  it('accepts the envelope and refuses anything else where one is expected', () => {
    assert.equal(judge(exchange({}), overrides).ok, true)
    assert.equal(judge(exchange({ body: undefined, text: 'oops' }), overrides).kind, 'not-envelope')
    assert.equal(judge(exchange({ headers: { 'content-type': 'text/html' } }), overrides).kind, 'not-envelope')
    assert.equal(judge(exchange({ body: { success: true, data: {} } }), overrides).kind, 'not-envelope')
    assert.equal(judge(exchange({ status: 400, body: error('NO_SUCH_CODE') }), overrides).kind, 'not-envelope')
    // Documents and tiles are not enveloped when they succeed.
    const tile = exchange({ op: 'GET /mobility-api/v2/multimodal/tiles/{z}/{x}/{y}.mvt', headers: {}, body: undefined })
    assert.equal(judge(tile, overrides).ok, true)
  })

  it('wants the status of the code (spec 7.1) or of the route (spec 7.2)', () => {
    assert.equal(judge(exchange({ status: 400, body: error('INVALID_REQUEST') }), overrides).ok, true)
    assert.equal(judge(exchange({ status: 404, body: error('INVALID_REQUEST') }), overrides).kind, 'wrong-status')
    const booking = { op: 'GET /mobility-api/v2/cars/bookings/{bookingId}', status: 502, body: error('PROVIDER_ERROR') }
    assert.deepEqual(judge(exchange(booking), overrides), {
      ok: true,
      kind: 'expected-5xx',
      reason: 'spec-7.2-booking-provider-error',
    })
    assert.equal(judge(exchange({ ...booking, op: 'GET /mobility-api/v2/bookings' }), overrides).kind, 'wrong-status')
  })

  it('accepts a 5xx only when a scenario or the spec asks for it', () => {
    const internal = exchange({ status: 500, body: error('INTERNAL_ERROR') })
    assert.equal(judge(internal, overrides).kind, 'unexpected-5xx')
    const provider = exchange({ status: 500, body: error('PROVIDER_ERROR', { reason: 'VEHICLE_NOT_AVAILABLE' }) })
    assert.equal(judge(provider, overrides).kind, 'unexpected-5xx')
    assert.equal(judge({ ...provider, scenarios: ['provider-error'] }, overrides).kind, 'expected-5xx')
    assert.equal(judge({ ...provider, scenarios: ['sold-out'] }, overrides).kind, 'unexpected-5xx')
    const timeout = exchange({ status: 504, body: error('TIMEOUT'), scenarios: ['provider-timeout'] })
    assert.equal(judge(timeout, overrides).kind, 'expected-5xx')
    // A scenario never excuses an internal error.
    assert.equal(judge({ ...internal, scenarios: ['provider-error'] }, overrides).kind, 'unexpected-5xx')
    const ended = exchange({
      op: 'POST /mobility-api/v2/micromobility/trips/{tripId}/end',
      status: 500,
      body: error('PROVIDER_ERROR', { reason: 'TRIP_ENDED' }),
    })
    assert.equal(judge(ended, overrides).kind, 'expected-5xx')
    const notSupported = exchange({ status: 501, body: error('OPERATION_NOT_SUPPORTED') })
    assert.equal(judge(notSupported, overrides).kind, 'expected-5xx')
  })

  it('judges a HEAD answer (no body) by the GET route and the status', () => {
    const head = { method: 'HEAD', text: '', body: undefined, headers: {} }
    const booking = exchange({ ...head, op: 'PATCH /mobility-api/v2/cars/bookings/{bookingId}', status: 502 })
    assert.equal(judge(booking, overrides).kind, 'expected-5xx')
    assert.equal(judge(exchange({ ...head, status: 504, scenarios: ['provider-timeout'] }), overrides).ok, true)
    assert.equal(judge(exchange({ ...head, status: 500 }), overrides).kind, 'unexpected-5xx')
    assert.equal(judge(exchange({ ...head, status: 404 }), overrides).ok, true)
  })

  it('refuses an error code the document does not list for the operation at that status', () => {
    const listed = {
      paths: {
        '/mobility-api/v2/auth/check': {
          get: {
            responses: {
              '401': { 'x-error-codes': ['AUTHENTICATION_REQUIRED', 'UNAUTHORIZED'] },
              '409': { 'x-error-codes': ['INTERNAL_ERROR'] },
            },
          },
        },
      },
    }
    const documented = documentedErrors(listed)
    const statuses = routeStatuses(listed)
    assert.equal(judge(exchange({ status: 401, body: error('UNAUTHORIZED') }), statuses, documented).ok, true)
    assert.equal(judge(exchange({ status: 409, body: error('INTERNAL_ERROR') }), statuses, documented).ok, true)
    assert.deepEqual(judge(exchange({ status: 403, body: error('FORBIDDEN') }), statuses, documented), {
      ok: false,
      kind: 'undocumented-code',
      reason: 'FORBIDDEN answered 403, not listed for GET /mobility-api/v2/auth/check',
    })
    // A path the router could not place answers ROUTE_NOT_FOUND from no operation at all.
    const unplaced = exchange({ status: 404, body: error('NOT_FOUND', { reason: 'ROUTE_NOT_FOUND' }) })
    assert.equal(judge(unplaced, statuses, documented).ok, true)
    // A route reached some other way (a wrong method or suffix) is not the documented operation.
    const astray = exchange({ status: 403, body: error('FORBIDDEN'), routeAsDocumented: false })
    assert.equal(judge(astray, statuses, documented).ok, true)
  })

  it('honours scenarios for test keys only', () => {
    assert.deepEqual(scenariosOf('provider-error:sandbox-rent, provider-timeout', true), [
      'provider-error',
      'provider-timeout',
    ])
    assert.deepEqual(scenariosOf('provider-error', false), [])
  })

  it('writes numbers JSON.stringify cannot into a body', () => {
    assert.equal(toJson({ limit: new Raw('1e309'), name: 'a\u0000' }), '{"limit":1e309,"name":"a\\u0000"}')
  })
})
