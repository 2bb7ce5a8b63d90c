import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { fieldPath, validationDetails } from '../../src/http/error-handler.ts'
import { ERROR_STATUS, statusFor } from '../../src/http/errors.ts'

describe('validation details', () => {
  it('turns JSON pointers into field paths', () => {
    assert.equal(fieldPath('/filters/minSeats'), 'filters.minSeats')
    assert.equal(fieldPath('/items/0/id'), 'items[0].id')
    assert.equal(fieldPath('', 'name'), 'name')
    assert.equal(fieldPath('', undefined, 'querystring'), 'querystring')
    assert.equal(fieldPath('/a~1b'), 'a/b')
  })

  it('gives one message per path, the first one', () => {
    const details = validationDetails(
      [
        {
          instancePath: '/limit',
          keyword: 'maximum',
          message: 'must be <= 100',
          params: { comparison: '<=', limit: 100 },
        },
        { instancePath: '/limit', keyword: 'type', message: 'must be integer', params: {} },
        { instancePath: '', keyword: 'required', params: { missingProperty: 'pickup' } },
        { instancePath: '/filters', keyword: 'additionalProperties', params: { additionalProperty: 'color' } },
      ],
      'body',
    )
    assert.deepEqual(JSON.parse(JSON.stringify(details)), {
      limit: 'must be <= 100',
      pickup: 'is required',
      'filters.color': 'is not allowed',
    })
  })

  it('never loses a path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.stringMatching(/^[a-z0-9]{1,5}$/), { maxLength: 4 }), { maxLength: 10 }),
        (paths) => {
          const issues = paths.map((p) => ({
            instancePath: p.map((s) => `/${s}`).join(''),
            keyword: 'type',
            message: 'bad',
            params: {},
          }))
          const details = validationDetails(issues, 'body')
          for (const issue of issues) assert.ok(fieldPath(issue.instancePath) in details)
        },
      ),
    )
  })

  it('maps codes to the statuses of spec 7.1 and 7.2', () => {
    assert.equal(statusFor('INVALID_REQUEST'), 400)
    assert.equal(statusFor('FORBIDDEN'), 403)
    assert.equal(statusFor('OFFER_EXPIRED'), 404)
    assert.equal(statusFor('OFFER_EXPIRED', { OFFER_EXPIRED: 400 }), 400)
    assert.equal(statusFor('INTERNAL_ERROR', { INTERNAL_ERROR: 409 }), 409)
    for (const status of Object.values(ERROR_STATUS)) assert.ok(status >= 400 && status < 600)
  })
})
