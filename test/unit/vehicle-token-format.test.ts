import assert from 'node:assert/strict'
import { createDecipheriv, createHmac } from 'node:crypto'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  createVehicleTokenCodec,
  isCompactVehicleToken,
  openingVehicleTokens,
  VEHICLE_TOKEN_ENC_PURPOSE,
  VEHICLE_TOKEN_MAC_PURPOSE,
  type VehicleClaim,
} from '../../src/domain/micromobility/vehicle-token-format.ts'
import { createVehicleTokens } from '../../src/domain/micromobility/vehicle-tokens.ts'
import { createTokenCipher, generateTokenKeys, parseTokenKeys } from '../../src/platform/tokens.ts'

const keys = parseTokenKeys(generateTokenKeys('k1'))
const cipher = createTokenCipher(keys)
const codec = createVehicleTokenCodec(cipher)!
const ctx = 'vehicle|ten_1|live'
const claim: VehicleClaim = { p: 'sandbox-scoot', v: 'scoot-01234', x: 1_764_037_000_000 }
const id = fc.string({ maxLength: 60, unit: 'grapheme' })

describe('compact vehicle tokens', () => {
  it('open what they sealed, a page at once, for the same context only', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ p: id, v: id, x: fc.integer({ min: 0, max: 2 ** 48 - 1 }) }), { maxLength: 30 }),
        fc.string(),
        (claims, other) => {
          const tokens = codec.sealAll(ctx, claims)
          claims.forEach((c, i) => {
            const token = tokens[i]!
            assert.ok(isCompactVehicleToken(token))
            assert.deepEqual(codec.open(ctx, token), { ...c })
            if (other !== ctx) assert.equal(codec.open(other, token), undefined)
          })
        },
      ),
    )
  })

  it('are SIV: the IV is HMAC-SHA256 of context, header and claim; the claim is AES-256-CTR from it', () => {
    const [token] = codec.sealAll(ctx, [claim])
    const raw = Buffer.from(token!, 'base64url')
    const header = raw.subarray(0, 4)
    assert.deepEqual([...header], [2, 2, ...Buffer.from('k1')])
    const iv = raw.subarray(4, 20)
    const [mac] = cipher.deriveKeys!(VEHICLE_TOKEN_MAC_PURPOSE)
    const [enc] = cipher.deriveKeys!(VEHICLE_TOKEN_ENC_PURPOSE)
    const q = Buffer.from(iv)
    q[8] &= 0x7f
    q[12] &= 0x7f
    const decipher = createDecipheriv('aes-256-ctr', enc.key, q)
    const opened = Buffer.concat([decipher.update(raw.subarray(20)), decipher.final()])
    const plain = Buffer.concat([
      opened.subarray(0, 4),
      Buffer.from([0, 0, 0, 0, 0, 0]),
      Buffer.from([claim.p.length]),
      Buffer.from(claim.p),
      Buffer.from([claim.v.length]),
      Buffer.from(claim.v),
    ])
    plain.writeUIntBE(claim.x, 4, 6)
    const length = Buffer.alloc(2)
    length.writeUInt16BE(ctx.length)
    const expected = createHmac('sha256', mac.key)
      .update(Buffer.concat([length, Buffer.from(ctx), header, plain]))
      .digest()
      .subarray(0, 16)
    assert.deepEqual(iv, expected)
    assert.deepEqual(opened, plain)
  })

  it('refuse any altered token, other keys, and the general format', () => {
    const [token] = codec.sealAll(ctx, [claim])
    const raw = Buffer.from(token!, 'base64url')
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw)
      altered[i] ^= 0x01
      assert.equal(codec.open(ctx, altered.toString('base64url')), undefined, `byte ${i}`)
    }
    assert.equal(codec.open(ctx, raw.subarray(0, raw.length - 1).toString('base64url')), undefined)
    const stranger = createVehicleTokenCodec(createTokenCipher(parseTokenKeys(generateTokenKeys('k1'))))!
    assert.equal(stranger.open(ctx, token!), undefined)
    assert.equal(codec.open(ctx, cipher.seal(ctx, claim)), undefined)
    assert.equal(codec.open(ctx, 'Ag'), undefined)
  })

  it('rotate keys: the first key seals, every listed key opens', () => {
    const fresh = parseTokenKeys(generateTokenKeys('k2'))
    const [old] = codec.sealAll(ctx, [claim])
    const after = createVehicleTokenCodec(createTokenCipher([...fresh, ...keys]))!
    assert.deepEqual(after.open(ctx, old!), claim)
    const [sealed] = after.sealAll(ctx, [claim])
    assert.match(Buffer.from(sealed!, 'base64url').subarray(2, 4).toString(), /k2/)
    assert.deepEqual(codec.open(ctx, sealed!), undefined)
    assert.deepEqual(createVehicleTokenCodec(createTokenCipher(fresh))!.open(ctx, old!), undefined)
  })

  it('leave claims too long for the format to the general one; tokens of the general format still open', () => {
    const caller = { now: new Date(1_764_037_000_000), tenant: { id: 'ten_1' }, environment: 'live' } as never
    const vehicleTokens = createVehicleTokens(cipher)
    const long = 'v'.repeat(300)
    const { vehicleTokens: sealed } = vehicleTokens.issueAll(caller, [
      ['sandbox-scoot', 'scoot-1'],
      ['sandbox-scoot', long],
    ])
    assert.ok(isCompactVehicleToken(sealed[0]))
    assert.ok(!isCompactVehicleToken(sealed[1]))
    assert.equal(vehicleTokens.open(caller, sealed[0]).v, 'scoot-1')
    assert.equal(vehicleTokens.open(caller, sealed[1]).v, long)
    const legacy = cipher.seal(ctx, { p: 'sandbox-scoot', v: 'scoot-2', x: 1_764_037_300_000 })
    assert.equal(vehicleTokens.open(caller, legacy).v, 'scoot-2')
    // The cipher the services use opens both formats; the general one only its own.
    const opening = openingVehicleTokens(cipher, codec)
    assert.equal(opening.open<VehicleClaim>(ctx, sealed[0])?.v, 'scoot-1')
    assert.equal(opening.open<VehicleClaim>(ctx, legacy)?.v, 'scoot-2')
    assert.equal(cipher.open(ctx, sealed[0]), undefined)
  })

  it('differ for the same claim (a fresh token on every look-up)', () => {
    const [a, b] = codec.sealAll(ctx, [claim, claim])
    assert.notEqual(a, b)
    assert.deepEqual(codec.open(ctx, a!), codec.open(ctx, b!))
  })

  it('are shorter than the general format', () => {
    const [compact] = codec.sealAll(ctx, [claim])
    assert.ok(compact!.length <= 76, compact)
    assert.ok(cipher.seal(ctx, claim).length >= 110)
  })
})
