import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { createTokenCipher, generateTokenKeys, parseTokenKeys } from '../../src/platform/tokens.ts'

const cipher = createTokenCipher(parseTokenKeys(generateTokenKeys('k1')))

describe('token cipher', () => {
  it('opens what it sealed, for the same context only', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), fc.string(), (payload, context, other) => {
        const token = cipher.seal(context, payload)
        assert.deepEqual(cipher.open(context, token), JSON.parse(JSON.stringify(payload)))
        if (other !== context) assert.equal(cipher.open(other, token), undefined)
      }),
    )
  })

  it('refuses any altered token', () => {
    const token = cipher.seal('tenant-a', { offer: 'x', price: 1000 })
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...'ABCDEFabcdef0123456789-_'), (index, char) => {
        fc.pre(token[index] !== char)
        const altered = token.slice(0, index) + char + token.slice(index + 1)
        // The last character may only carry padding bits; a change there can decode to the same bytes.
        if (Buffer.from(altered, 'base64url').equals(Buffer.from(token, 'base64url'))) return
        assert.equal(cipher.open('tenant-a', altered), undefined)
      }),
    )
  })

  it('refuses garbage without throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (garbage) => {
        assert.equal(cipher.open('ctx', garbage), undefined)
      }),
    )
  })

  it('rotates keys: tokens of a retired-but-listed key still open, new ones use the first key', () => {
    const old = parseTokenKeys(generateTokenKeys('old'))
    const fresh = parseTokenKeys(generateTokenKeys('new'))
    const before = createTokenCipher(old)
    const after = createTokenCipher([...fresh, ...old])
    const token = before.seal('c', { n: 1 })
    assert.deepEqual(after.open('c', token), { n: 1 })
    assert.equal(createTokenCipher(fresh).open('c', token), undefined)
    assert.deepEqual(createTokenCipher(fresh).open('c', after.seal('c', { n: 2 })), { n: 2 })
  })

  it('validates TOKEN_KEYS', () => {
    assert.throws(() => parseTokenKeys('k1:short'), /32 bytes/)
    assert.throws(
      () => parseTokenKeys(`k1:${Buffer.alloc(32).toString('base64')},k1:${Buffer.alloc(32).toString('base64')}`),
      /unique/,
    )
    assert.throws(() => parseTokenKeys('bad id!:x'), /key id/)
  })
})
