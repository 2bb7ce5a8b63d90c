import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { Type } from 'typebox'
import { shiftDates } from '../../src/api/examples/index.ts'
import { ERROR_STATUS } from '../../src/http/errors.ts'
import { schemaComponents } from '../../src/http/openapi/components.ts'
import { routeErrors } from '../../src/http/openapi/route-errors.ts'

describe('named shapes (src/http/openapi/components.ts)', () => {
  const Price = Type.Object({ amount: Type.Integer(), currency: Type.String() }, { title: 'Price' })

  it('registers each titled schema once and refers to it, nested ones in the registered schema too', () => {
    const added: string[] = []
    const components = schemaComponents((schema) => added.push(schema.$id as string))
    const Offer = Type.Object({ price: Price, fee: Type.Optional(Price) }, { title: 'Offer' })
    const body = components.refer(Type.Object({ offers: Type.Array(Offer), total: Price }))
    assert.deepEqual(body, {
      type: 'object',
      required: ['offers', 'total'],
      properties: { offers: { type: 'array', items: { $ref: 'Offer' } }, total: { $ref: 'Price' } },
    })
    assert.deepEqual(added, ['Price', 'Offer'])
    const offer = components.all().get('Offer') as any
    assert.deepEqual(offer.properties, { price: { $ref: 'Price' }, fee: { $ref: 'Price' } })
    assert.deepEqual(components.conflicts(), [])
  })

  it('keeps a copy that only describes the shape differently as the shape, with its description', () => {
    const components = schemaComponents()
    components.refer(Price)
    const fee = components.refer({ ...Price, description: 'The cancellation fee' })
    assert.deepEqual(fee, { $ref: 'Price', description: 'The cancellation fee' })
    assert.equal(components.all().size, 1)
  })

  it('registers a second shape with the same title apart, and reports it', () => {
    const components = schemaComponents()
    components.refer(Price)
    const other = components.refer(Type.Object({ cents: Type.Integer() }, { title: 'Price' }))
    assert.deepEqual(other, { $ref: 'Price_2' })
    assert.equal(components.conflicts().length, 1)
  })
})

describe('errors of a route by status (src/http/openapi/route-errors.ts)', () => {
  it('lists what every route answers, the key hooks, the validated fields and the route own codes', () => {
    const errors = routeErrors({
      permission: 'cars:booking:write',
      locationFields: /^pickup/,
      statusOverrides: { BOOKING_FAILED: 422 },
      errors: ['OFFER_EXPIRED', ['INTERNAL_ERROR', 409], 'PROVIDER_ERROR'],
    })
    assert.deepEqual(Object.fromEntries(errors), {
      400: ['INVALID_REQUEST', 'INVALID_LOCATION'],
      401: ['AUTHENTICATION_REQUIRED', 'UNAUTHORIZED'],
      403: ['FORBIDDEN'],
      404: ['OFFER_EXPIRED'],
      409: ['INTERNAL_ERROR'],
      422: ['BOOKING_FAILED'],
      429: ['RATE_LIMIT_EXCEEDED'],
      500: ['INTERNAL_ERROR', 'PROVIDER_ERROR'],
      503: ['SERVICE_UNAVAILABLE'],
    })
    assert.deepEqual(Object.fromEntries(routeErrors({ admin: true })), {
      400: ['INVALID_REQUEST'],
      401: ['AUTHENTICATION_REQUIRED', 'UNAUTHORIZED'],
      404: ['NOT_FOUND'],
      429: ['RATE_LIMIT_EXCEEDED'],
      500: ['INTERNAL_ERROR'],
      503: ['SERVICE_UNAVAILABLE'],
    })
  })

  it('puts each code at the status of the table unless the route says otherwise', () => {
    const codes = Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]
    fc.assert(
      fc.property(
        fc.subarray(codes),
        fc.dictionary(fc.constantFrom(...codes), fc.constantFrom(400, 409, 422, 502)),
        (own, overrides) => {
          for (const [status, listed] of routeErrors({ errors: own, statusOverrides: overrides })) {
            for (const code of listed) assert.equal(status, overrides[code] ?? ERROR_STATUS[code])
          }
        },
      ),
    )
  })
})

describe('examples dated for the day the document is served (src/api/examples/index.ts)', () => {
  it('moves date-times by days and dates by months, keeping a first of the month the first', () => {
    const example = {
      rentalPeriod: { start: '2026-11-25T10:00:00Z', end: '2026-11-28T10:00:00.000Z' },
      startDate: '2026-12-01',
      note: 'not a date: 2026-11-25',
    }
    assert.deepEqual(shiftDates(example, 3, 1), {
      rentalPeriod: { start: '2026-11-28T10:00:00Z', end: '2026-12-01T10:00:00.000Z' },
      startDate: '2027-01-01',
      note: 'not a date: 2026-11-25',
    })
  })

  it('keeps the order and the distance of date-times', () => {
    fc.assert(
      fc.property(
        fc.date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2090-01-01') }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: -3650, max: 3650 }),
        (start, minutes, days) => {
          const a = start.toISOString()
          const b = new Date(start.getTime() + minutes * 60_000).toISOString()
          const [x, y] = shiftDates([a, b], days, 0) as string[]
          assert.equal(Date.parse(y) - Date.parse(x), minutes * 60_000)
          assert.equal(Date.parse(x) - Date.parse(a), days * 86_400_000)
        },
      ),
    )
  })
})
