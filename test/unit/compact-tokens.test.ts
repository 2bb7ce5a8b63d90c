import assert from 'node:assert/strict'
import { createDecipheriv } from 'node:crypto'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  COMPACT_TOKEN_ENC_PURPOSE,
  COMPACT_TOKEN_MAC_PURPOSE,
  cmacAll,
  createCompactTokenCodec,
  isCompactToken,
  keyOf,
  openingCompactTokens,
  type VehicleClaim,
} from '../../src/domain/micromobility/compact-tokens.ts'
import { createVehicleTokens } from '../../src/domain/micromobility/vehicle-tokens.ts'
import { createTokenCipher, generateTokenKeys, parseTokenKeys } from '../../src/platform/tokens.ts'

const keys = parseTokenKeys(generateTokenKeys('k1'))
const cipher = createTokenCipher(keys)
const codec = createCompactTokenCodec(cipher)!
const ctx = 'vehicle|ten_1|live'
const claim: VehicleClaim = { p: 'sandbox-scoot', v: 'scoot-01234', x: 1_764_037_000_000 }
const id = fc.string({ maxLength: 60, unit: 'grapheme' })

// NIST SP 800-38B, appendix D.3 (AES-256): the key, the message (its first 0, 16, 40 and 64 bytes) and the MACs.
const NIST_KEY = Buffer.from('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4', 'hex')
const NIST_MESSAGE = Buffer.from(
  '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710',
  'hex',
)
const NIST_MACS: [number, string][] = [
  [0, '028962f61b7bf89efc6b551f4667d983'],
  [16, '28a7023f452e8f82bd4bf28d8c37c35c'],
  [40, 'aaf3d8f1de5640c232f5b169b9c911e6'],
  [64, 'e1992190549f6ed5696a2c056c315410'],
]

describe('compact tokens', () => {
  it('MAC with AES-CMAC: the NIST SP 800-38B vectors, one at a time and side by side', () => {
    const key = keyOf('k', NIST_KEY, NIST_KEY)
    for (const [length, mac] of NIST_MACS) {
      assert.equal(cmacAll(key, [NIST_MESSAGE.subarray(0, length)])[0].toString('hex'), mac, `${length} bytes`)
    }
    const together = cmacAll(
      key,
      NIST_MACS.map(([length]) => NIST_MESSAGE.subarray(0, length)),
    )
    assert.deepEqual(
      together.map((m) => m.toString('hex')),
      NIST_MACS.map(([, mac]) => mac),
    )
  })

  it('MAC messages that share their first blocks from the chain after them, as each alone would be', () => {
    const key = keyOf('k', NIST_KEY, NIST_KEY)
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.uint8Array({ maxLength: 15 }),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 80 }), { minLength: 1, maxLength: 20 }),
        (blocks, rest, tails) => {
          const prefix = Buffer.concat([
            NIST_MESSAGE.subarray(0, 16 * Math.min(blocks, 4)),
            Buffer.alloc(16 * Math.max(0, blocks - 4), 7),
          ])
          const messages = tails.map((tail) => Buffer.concat([prefix, rest, tail]))
          const alone = messages.map((m) => cmacAll(key, [m])[0].toString('hex'))
          assert.deepEqual(
            cmacAll(key, messages, blocks).map((m) => m.toString('hex')),
            alone,
          )
          assert.deepEqual(
            cmacAll(key, messages).map((m) => m.toString('hex')),
            alone,
          )
        },
      ),
    )
  })

  it('open what they sealed, a page at once, for the same context only', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ p: id, v: id, x: fc.integer({ min: 0, max: 2 ** 48 - 1 }) }), { maxLength: 30 }),
        fc.string(),
        (claims, other) => {
          const tokens = codec.sealVehicles(ctx, claims)
          claims.forEach((c, i) => {
            const token = tokens[i]!
            assert.ok(isCompactToken(token))
            assert.deepEqual(codec.open(ctx, token), { ...c })
            if (other !== ctx) assert.equal(codec.open(other, token), undefined)
          })
        },
      ),
    )
    fc.assert(
      fc.property(fc.jsonValue(), (payload) => {
        const token = codec.sealJson('micro-cursor|ten_1|live', payload)!
        assert.ok(isCompactToken(token))
        assert.deepEqual(codec.open('micro-cursor|ten_1|live', token), JSON.parse(JSON.stringify(payload)))
        assert.equal(codec.open('micro-cursor|ten_1|test', token), undefined)
      }),
    )
  })

  it('are SIV: the IV is AES-CMAC of context, header and claim; the claim is AES-256-CTR from it', () => {
    const [token] = codec.sealVehicles(ctx, [claim])
    const raw = Buffer.from(token!, 'base64url')
    const header = raw.subarray(0, 4)
    assert.deepEqual([...header], [2, 2, ...Buffer.from('k1')])
    const iv = raw.subarray(4, 20)
    const [mac] = cipher.deriveKeys!(COMPACT_TOKEN_MAC_PURPOSE)
    const [enc] = cipher.deriveKeys!(COMPACT_TOKEN_ENC_PURPOSE)
    const q = Buffer.from(iv)
    q[8] &= 0x7f
    q[12] &= 0x7f
    const decipher = createDecipheriv('aes-256-ctr', enc.key, q)
    const opened = Buffer.concat([decipher.update(raw.subarray(20)), decipher.final()])
    const plain = Buffer.concat([
      opened.subarray(0, 4),
      Buffer.alloc(6),
      Buffer.from([claim.p.length]),
      Buffer.from(claim.p),
      Buffer.from([claim.v.length]),
      Buffer.from(claim.v),
    ])
    plain.writeUIntBE(claim.x, 4, 6)
    assert.deepEqual(opened, plain)
    const length = Buffer.alloc(2)
    length.writeUInt16BE(ctx.length)
    const message = Buffer.concat([length, Buffer.from(ctx), header, plain])
    assert.deepEqual(iv, cmacAll(keyOf('k1', mac.key, enc.key), [message])[0])
  })

  it('refuse any altered token, other keys, and the general format', () => {
    const [token] = codec.sealVehicles(ctx, [claim])
    const raw = Buffer.from(token!, 'base64url')
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw)
      altered[i] ^= 0x01
      assert.equal(codec.open(ctx, altered.toString('base64url')), undefined, `byte ${i}`)
    }
    assert.equal(codec.open(ctx, raw.subarray(0, raw.length - 1).toString('base64url')), undefined)
    const stranger = createCompactTokenCodec(createTokenCipher(parseTokenKeys(generateTokenKeys('k1'))))!
    assert.equal(stranger.open(ctx, token!), undefined)
    assert.equal(codec.open(ctx, cipher.seal(ctx, claim)), undefined)
    assert.equal(codec.open(ctx, 'Ag'), undefined)
    assert.equal(codec.open(ctx, 'AgIA'), undefined)
  })

  it('rotate keys: the first key seals, every listed key opens', () => {
    const fresh = parseTokenKeys(generateTokenKeys('k2'))
    const [old] = codec.sealVehicles(ctx, [claim])
    const after = createCompactTokenCodec(createTokenCipher([...fresh, ...keys]))!
    assert.deepEqual(after.open(ctx, old!), claim)
    const [sealed] = after.sealVehicles(ctx, [claim])
    assert.equal(Buffer.from(sealed!, 'base64url').subarray(2, 4).toString(), 'k2')
    assert.equal(codec.open(ctx, sealed!), undefined)
    assert.equal(createCompactTokenCodec(createTokenCipher(fresh))!.open(ctx, old!), undefined)
  })

  it('leave claims too long for the format to the general one; tokens of the general format still open', () => {
    const caller = { now: new Date(1_764_037_000_000), tenant: { id: 'ten_1' }, environment: 'live' } as never
    const vehicleTokens = createVehicleTokens(cipher)
    const long = 'v'.repeat(300)
    const { vehicleTokens: sealed } = vehicleTokens.issueAll(caller, [
      ['sandbox-scoot', 'scoot-1'],
      ['sandbox-scoot', long],
    ])
    assert.ok(isCompactToken(sealed[0]))
    assert.ok(!isCompactToken(sealed[1]))
    assert.equal(vehicleTokens.open(caller, sealed[0]).v, 'scoot-1')
    assert.equal(vehicleTokens.open(caller, sealed[1]).v, long)
    const legacy = cipher.seal(ctx, { p: 'sandbox-scoot', v: 'scoot-2', x: 1_764_037_300_000 })
    assert.equal(vehicleTokens.open(caller, legacy).v, 'scoot-2')
    // The ciphers the services and the cursors use open every format; the general one only its own.
    const opening = openingCompactTokens(cipher, codec)
    assert.equal(opening.open<VehicleClaim>(ctx, sealed[0])?.v, 'scoot-1')
    assert.equal(opening.open<VehicleClaim>(ctx, legacy)?.v, 'scoot-2')
    assert.equal(cipher.open(ctx, sealed[0]), undefined)
    const cursors = vehicleTokens.cursorCipher
    const cursor = cursors.seal('micro-cursor|ten_1|live', { h: 'x', t: 1, c: { a: 2 } })
    assert.ok(isCompactToken(cursor))
    assert.deepEqual(opening.open('micro-cursor|ten_1|live', cursor), { h: 'x', t: 1, c: { a: 2 } })
    assert.deepEqual(cursors.open('micro-cursor|ten_1|live', cipher.seal('micro-cursor|ten_1|live', 7)), 7)
    assert.ok(!isCompactToken(cursors.seal('c', 'x'.repeat(5000))))
  })

  it("open beside the general cipher's page tokens (sealMany): the format bytes never collide", () => {
    const opening = openingCompactTokens(cipher, codec)
    const page = cipher.sealMany('offer|ten_1|live', [{ o: 1 }, { o: 2 }])
    for (const [i, token] of page.entries()) {
      assert.ok(!isCompactToken(token))
      assert.deepEqual(opening.open('offer|ten_1|live', token), { o: i + 1 })
    }
    const [vehicle] = codec.sealVehicles(ctx, [{ p: 'sandbox-scoot', v: 'scoot-3', x: 1_764_037_300_000 }])
    assert.equal(cipher.open(ctx, vehicle!), undefined)
    assert.equal(opening.open<VehicleClaim>(ctx, vehicle!)?.v, 'scoot-3')
  })

  it('differ for the same claim (a fresh token on every look-up)', () => {
    const [a, b] = codec.sealVehicles(ctx, [claim, claim])
    assert.notEqual(a, b)
    assert.deepEqual(codec.open(ctx, a!), codec.open(ctx, b!))
  })

  it('are shorter than the general format', () => {
    const [compact] = codec.sealVehicles(ctx, [claim])
    assert.ok(compact!.length <= 76, compact)
    assert.ok(cipher.seal(ctx, claim).length >= 110)
  })
})
