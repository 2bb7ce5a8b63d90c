import assert from 'node:assert/strict'
import { createDecipheriv, createHmac, hkdfSync } from 'node:crypto'
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

  it('seals many at once: each token opens on its own, for its context only, to its own payload', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 30 }), fc.string(), fc.string(), (payloads, context, other) => {
        const tokens = cipher.sealMany(context, payloads)
        assert.equal(tokens.length, payloads.length)
        assert.equal(new Set(tokens).size, tokens.length)
        tokens.forEach((token, i) => {
          assert.deepEqual(cipher.open(context, token), JSON.parse(JSON.stringify(payloads[i])))
          if (other !== context) assert.equal(cipher.open(other, token), undefined)
        })
      }),
    )
  })

  it('refuses any altered token of a page, and tokens spliced from two of its tokens', () => {
    const [token, second] = cipher.sealMany('tenant-a', [
      { offer: 'x', price: 1000 },
      { offer: 'y', price: 2000 },
    ])
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...'ABCDEFabcdef0123456789-_'), (index, char) => {
        fc.pre(token[index] !== char)
        const altered = token.slice(0, index) + char + token.slice(index + 1)
        if (Buffer.from(altered, 'base64url').equals(Buffer.from(token, 'base64url'))) return
        assert.equal(cipher.open('tenant-a', altered), undefined)
      }),
    )
    const a = Buffer.from(token, 'base64url')
    const b = Buffer.from(second, 'base64url')
    // The first's header, iv and counter with the second's tag and ciphertext; and the other way round.
    const head = 4 + 12 + 2 // version, kid length, kid (k1), iv, first block
    assert.equal(
      cipher.open('tenant-a', Buffer.concat([a.subarray(0, head), b.subarray(head)]).toString('base64url')),
      undefined,
    )
    assert.equal(
      cipher.open('tenant-a', Buffer.concat([b.subarray(0, head), a.subarray(head)]).toString('base64url')),
      undefined,
    )
    // Shorter by a byte, under a context that has that byte in front: the context's length is covered too.
    const cut = a.subarray(0, a.length - 1).toString('base64url')
    assert.equal(cipher.open(`${String.fromCharCode(a[a.length - 1])}tenant-a`, cut), undefined)
  })

  it('seals pages larger than one key stream allows, and tokens of a retired-but-listed key still open', () => {
    // 300 tokens of 4 KB: more than the 1 MiB of key stream one page uses.
    const big = 'x'.repeat(4000)
    const payloads = Array.from({ length: 300 }, (_, i) => ({ i, big }))
    const tokens = cipher.sealMany('c', payloads)
    assert.equal(new Set(tokens.map((t) => Buffer.from(t, 'base64url').subarray(4, 16).toString('hex'))).size, 2)
    tokens.forEach((token, i) => {
      assert.equal(cipher.open<{ i: number }>('c', token)?.i, i)
    })
    const old = parseTokenKeys(generateTokenKeys('old'))
    const fresh = parseTokenKeys(generateTokenKeys('new'))
    const [token] = createTokenCipher(old).sealMany('c', [{ n: 1 }])
    assert.deepEqual(createTokenCipher([...fresh, ...old]).open('c', token), { n: 1 })
    assert.equal(createTokenCipher(fresh).open('c', token), undefined)
  })

  it('page tokens are AES-256-CTR, then HMAC-SHA256 over the context and the token, with keys derived by HKDF', () => {
    const keys = parseTokenKeys(generateTokenKeys('k1'))
    const [, token] = createTokenCipher(keys).sealMany('ctx', [{ first: true }, { a: 1 }])
    const raw = Buffer.from(token, 'base64url')
    const derive = (use: string) =>
      Buffer.from(hkdfSync('sha256', keys[0].key, Buffer.alloc(0), `mas-token-v2|${use}`, 32))
    const context = Buffer.from('ctx')
    const mac = createHmac('sha256', derive('mac'))
      .update(Buffer.from([0, context.length]))
      .update(context)
      .update(raw.subarray(0, raw.length - 16))
      .digest()
    assert.deepEqual(raw.subarray(raw.length - 16), mac.subarray(0, 16))
    assert.deepEqual([raw[0], raw[1], raw.subarray(2, 4).toString()], [4, 2, 'k1'])
    const counter = Buffer.concat([raw.subarray(4, 16), Buffer.from([0, 0]), raw.subarray(16, 18)])
    assert.equal(counter.readUInt32BE(12), 1) // the first token, {"first":true}, took one block
    const plain = createDecipheriv('aes-256-ctr', derive('enc'), counter).update(raw.subarray(18, raw.length - 16))
    assert.deepEqual(JSON.parse(plain.toString()), { a: 1 })
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
