import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fastJson from 'fast-json-stringify'
import { lazySerializers } from '../../src/http/serialization.ts'

const Money = {
  $id: 'Money',
  type: 'object',
  properties: { amount: { type: 'integer' }, currency: { type: 'string' } },
  required: ['amount', 'currency'],
}
const Offer = {
  type: 'object',
  properties: { id: { type: 'string' }, price: { $ref: 'Money#' }, seats: { type: 'integer' } },
}
const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' })

describe('lazy response serializers', () => {
  it('write the bytes fast-json-stringify writes, named shapes resolved', () => {
    const serialize = lazySerializers({ Money }, undefined)(route(Offer))
    const offer = { id: 'o1', price: { amount: 1250, currency: 'EUR', stray: true }, seats: '4', extra: 'x' }
    const expected = fastJson(Offer as object, { schema: { Money } as never })(offer)
    assert.equal(serialize(offer), expected)
    assert.equal(serialize(offer), '{"id":"o1","price":{"amount":1250,"currency":"EUR"},"seats":4}')
  })

  it('serialize a named shape given as the response schema itself', () => {
    const serialize = lazySerializers({ Money }, undefined)(route(Money))
    assert.equal(serialize({ amount: 3, currency: 'CHF' }), '{"amount":3,"currency":"CHF"}')
  })

  it('build at the first answer, not when the route is registered', () => {
    const broken = { type: 'object', properties: { price: { $ref: 'Missing#' } } }
    // Registering builds nothing, so a schema that cannot be built fails only when a route answers with it.
    const serialize = lazySerializers({ Money }, undefined)(route(broken))
    assert.throws(() => serialize({ price: 1 }), /Missing/)
  })
})
