import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { ApiError } from '../../src/contract/errors.ts'
import {
  canonicalJson,
  describeRequest,
  fingerprintOf,
  idempotencyKeyOf,
  keepsAnswer,
  scopeIdOf,
  withoutPersonalData,
} from '../../src/http/idempotency-rules.ts'

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 255,
})

/** The same JSON value with the keys of every object in another order. */
const shuffled = (value: unknown, random: () => number): unknown => {
  if (Array.isArray(value)) return value.map((v) => shuffled(v, random))
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value).map(([k, v]) => [k, shuffled(v, random)] as const)
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[entries[i], entries[j]] = [entries[j], entries[i]]
  }
  return Object.fromEntries(entries)
}

describe('Idempotency-Key rules', () => {
  it('accepts exactly 1 to 255 printable ASCII characters', () => {
    fc.assert(fc.property(printable, (key) => assert.equal(idempotencyKeyOf(key), key)))
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (key) => {
        const valid = /^[ -~]{1,255}$/.test(key)
        let accepted: boolean
        try {
          accepted = idempotencyKeyOf(key) === key
        } catch (error) {
          assert.ok(error instanceof ApiError)
          assert.equal(error.code, 'INVALID_REQUEST')
          assert.ok(error.details?.['Idempotency-Key'], 'names the header')
          accepted = false
        }
        assert.equal(accepted, valid, JSON.stringify(key))
      }),
      { numRuns: 500 },
    )
    assert.equal(idempotencyKeyOf(undefined), undefined)
    assert.throws(() => idempotencyKeyOf(['a', 'b']), ApiError)
    assert.throws(() => idempotencyKeyOf('x'.repeat(256)), ApiError)
  })

  it('canonical JSON: the same value with keys in any order is the same request; another value is another', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        let state = seed
        const random = () => {
          state = (state * 1103515245 + 12345) & 0x7fffffff
          return state / 0x80000000
        }
        const canonical = canonicalJson(value)
        assert.equal(canonicalJson(shuffled(value, random)), canonical)
        // It is JSON of the same value, so it reads back to itself.
        assert.equal(canonicalJson(JSON.parse(canonical)), canonical)
        assert.deepEqual(JSON.parse(canonical), JSON.parse(JSON.stringify(value)))
      }),
    )
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const same = canonicalJson(a) === canonicalJson(b)
        let equal = true
        try {
          assert.deepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)))
        } catch {
          equal = false
        }
        assert.equal(same, equal)
      }),
    )
    assert.equal(canonicalJson({ b: [2, 1], a: { d: 1.0, c: '1' } }), '{"a":{"c":"1","d":1},"b":[2,1]}')
  })

  it('a request is method, path with query and body; a missing body is {}', () => {
    const a = describeRequest('POST', '/x', { a: 1, b: 2 })
    assert.equal(a, describeRequest('POST', '/x', { b: 2, a: 1 }))
    assert.notEqual(a, describeRequest('PATCH', '/x', { a: 1, b: 2 }))
    assert.notEqual(a, describeRequest('POST', '/x?y=1', { a: 1, b: 2 }))
    assert.equal(describeRequest('POST', '/x', undefined), describeRequest('POST', '/x', {}))
    // Salted: the stored hash of one request differs per row, and only matches its own request.
    assert.notEqual(fingerprintOf('s1', a), fingerprintOf('s2', a))
    assert.notEqual(scopeIdOf('key_1', 'k'), scopeIdOf('key_2', 'k'))
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = [deep]
    assert.throws(
      () => describeRequest('POST', '/x', deep),
      (e: ApiError) => e.code === 'INVALID_REQUEST',
    )
  })

  it('keeps 2xx and the 4xx the work produced; not 5xx, refusals of the request as sent, or answers that say retry', () => {
    const error = (code: string, details: Record<string, unknown> = {}) =>
      JSON.stringify({ success: false, error: { code, details } })
    assert.equal(keepsAnswer(201, '{}'), true)
    assert.equal(keepsAnswer(404, error('OFFER_EXPIRED')), true)
    assert.equal(keepsAnswer(409, error('OFFER_TOKEN_ALREADY_USED', { bookingId: 'X' })), true)
    assert.equal(keepsAnswer(422, error('PRODUCT_NOT_AVAILABLE')), true)
    for (const status of [400, 401, 403, 405, 408, 413, 415, 429, 500, 501, 502, 503, 504]) {
      assert.equal(keepsAnswer(status, error('X')), false, String(status))
    }
    assert.equal(keepsAnswer(409, error('INTERNAL_ERROR', { reason: 'BOOKING_IN_PROGRESS', retryable: true })), false)
  })

  it('takes personal fields out of an answer, wherever they are, and leaves the rest', () => {
    const booking = {
      success: true,
      data: {
        bookingId: 'zr1_abc',
        provider: { id: 'p', name: 'Provider', email: 'desk@provider.example' },
        driver: {
          firstName: 'Ada',
          lastName: 'L',
          email: 'a@x.example',
          phone: '1',
          dateOfBirth: '1990-01-01',
          licenseNumber: 'B1',
        },
        holder: { name: 'Ada L', identification: { type: 'ID_CARD', number: 'L01' } },
        passengers: [{ name: 'Bob', email: 'b@x.example', category: 'ADULT' }],
        tickets: [{ ticketId: 't', holderName: 'Ada L', productName: 'Single' }],
        userLocation: { latitude: 1, longitude: 2 },
        additionalFields: { flightNumber: 'LH1' },
        notes: 'call me',
        vehicle: { name: 'Scooter 7' },
      },
    }
    const { value, removed } = withoutPersonalData(booking)
    assert.equal(removed, true)
    assert.deepEqual(value, {
      success: true,
      data: {
        bookingId: 'zr1_abc',
        provider: { id: 'p', name: 'Provider', email: 'desk@provider.example' },
        driver: {},
        holder: {},
        passengers: [{ category: 'ADULT' }],
        tickets: [{ ticketId: 't', productName: 'Single' }],
        vehicle: { name: 'Scooter 7' },
      },
    })
    assert.deepEqual(withoutPersonalData({ data: { tripId: 'x' } }), {
      value: { data: { tripId: 'x' } },
      removed: false,
    })
  })
})
