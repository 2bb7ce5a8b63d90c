import { type Cipheriv, createCipheriv, hash, timingSafeEqual } from 'node:crypto'
import { randomChunk } from '../../platform/random.ts'
import type { TokenCipher } from '../../platform/tokens.ts'

/** What a vehicle token carries: provider id, vehicle id, and until when it is valid (ms since epoch). */
export interface VehicleClaim {
  p: string
  v: string
  x: number
}

/**
 * The compact format of vehicle tokens (format byte 2; the general tokens of src/platform/tokens.ts are format 1).
 *
 * A search page seals a token per trip-capable vehicle it shows. The general format costs an AES-GCM cipher (a key
 * schedule and a GHASH set-up) and a random IV per token, about 7 µs, and carries a JSON claim; this one is
 * deterministic authenticated encryption in the SIV construction (Rogaway and Shrimpton; RFC 5297 with HMAC-SHA256
 * instead of CMAC as the PRF): the synthetic IV is HMAC-SHA256 (truncated to 128 bits) of the context (tenant,
 * environment), the header and the claim, and the claim is encrypted with AES-256-CTR from that IV. It needs no
 * random bytes and no IV of its own (16 bytes shorter), the claim is binary (6 bytes of expiry, the two ids with a
 * length byte each), and the AES key schedule is made once per key, not per token: the counter blocks of a whole page
 * go through one long-lived AES-256-ECB cipher in one call (CTR mode is exactly that: the keystream is the
 * encryption of the counter blocks). Token: `2 | key id length | key id | IV (16) | encrypted claim`, base64url; the
 * claim starts with 4 random bytes, so a vehicle looked up twice in the same millisecond still gets a fresh token.
 *
 * Same guarantees as the general format: tampering, another tenant, environment or purpose, or a key no longer listed
 * fail to open; the first TOKEN_KEYS key seals and every listed key opens (keys from `TokenCipher.deriveKeys`, one for
 * the MAC and one for AES per key).
 */
export interface VehicleTokenCodec {
  /** The tokens of `claims` for `context`, in order; undefined for a claim too long for the format. */
  sealAll(context: string, claims: readonly VehicleClaim[]): (string | undefined)[]
  /** The claim of a compact token sealed for `context` by a listed key; undefined otherwise. */
  open(context: string, token: string): VehicleClaim | undefined
}

const FORMAT = 2
const SIV_BYTES = 16
/** The claim: 4 random bytes, 6 bytes of expiry, then the provider id and the vehicle id, each after its length byte. */
const NONCE = 4
const X = NONCE + 6
const MAX_ID_BYTES = 255
const MIN_CLAIM_BYTES = X + 1 + 1
const MAX_TOKEN_CHARS = 1024
const BASE64URL = /^[A-Za-z0-9_-]+$/
export const VEHICLE_TOKEN_MAC_PURPOSE = 'vehicle-token-siv-mac'
export const VEHICLE_TOKEN_ENC_PURPOSE = 'vehicle-token-siv-enc'

interface Key {
  header: Buffer
  ipad: Buffer
  opad: Buffer
  /** AES-256 in ECB without padding, used only to encrypt counter blocks (the CTR keystream). */
  ecb: Cipheriv
}

/** Whether a token is in the compact format (cheap: its first byte; says nothing about whether it opens). */
export function isCompactVehicleToken(token: unknown): token is string {
  // Format byte 2: the first base64url character is 'A' (6 zero bits), the second one of g-v (bits 10xxxx).
  return typeof token === 'string' && token.length > 2 && token[0] === 'A' && token[1] >= 'g' && token[1] <= 'v'
}

function keyOf(id: string, macKey: Buffer, encKey: Buffer): Key {
  const idBytes = Buffer.from(id, 'utf8')
  const ipad = Buffer.alloc(64, 0x36)
  const opad = Buffer.alloc(64, 0x5c)
  for (let i = 0; i < macKey.length; i++) {
    ipad[i] ^= macKey[i]
    opad[i] ^= macKey[i]
  }
  const ecb = createCipheriv('aes-256-ecb', encKey, null)
  ecb.setAutoPadding(false)
  return { header: Buffer.concat([Buffer.from([FORMAT, idBytes.length]), idBytes]), ipad, opad, ecb }
}

/** HMAC-SHA256 (RFC 2104) of `message`, whose first 64 bytes are left for the inner pad, truncated to the IV. */
function siv(key: Key, message: Buffer): Buffer {
  key.ipad.copy(message, 0)
  const inner = hash('sha256', message, 'buffer')
  const outer = Buffer.allocUnsafe(64 + 32)
  key.opad.copy(outer, 0)
  inner.copy(outer, 64)
  return hash('sha256', outer, 'buffer').subarray(0, SIV_BYTES)
}

/** Writes the counter blocks of `length` bytes from `iv` at `into[at]` (RFC 5297: two bits cleared, no carries). */
function counterBlocks(iv: Buffer, length: number, into: Buffer, at: number): number {
  const blocks = Math.ceil(length / 16)
  for (let b = 0; b < blocks; b++) {
    const o = at + b * 16
    iv.copy(into, o, 0, 16)
    into[o + 8] &= 0x7f
    into[o + 12] &= 0x7f
    into.writeUInt32BE(into.readUInt32BE(o + 12) + b, o + 12)
  }
  return blocks * 16
}

/** The message the IV is the MAC of: room for the inner pad, the context's length and text, the header, the claim. */
function macMessage(context: Buffer, header: Buffer, claim: Buffer): Buffer {
  const message = Buffer.allocUnsafe(64 + 2 + context.length + header.length + claim.length)
  message.writeUInt16BE(context.length, 64)
  context.copy(message, 66)
  header.copy(message, 66 + context.length)
  claim.copy(message, 66 + context.length + header.length)
  return message
}

function encodeClaim(claim: VehicleClaim): Buffer | undefined {
  const p = Buffer.byteLength(claim.p, 'utf8')
  const v = Buffer.byteLength(claim.v, 'utf8')
  if (p > MAX_ID_BYTES || v > MAX_ID_BYTES || !Number.isSafeInteger(claim.x) || claim.x < 0 || claim.x >= 2 ** 48)
    return undefined
  const out = Buffer.allocUnsafe(X + 1 + p + 1 + v)
  randomChunk(NONCE).copy(out, 0)
  out.writeUIntBE(claim.x, NONCE, 6)
  out[X] = p
  out.write(claim.p, X + 1, 'utf8')
  out[X + 1 + p] = v
  out.write(claim.v, X + 2 + p, 'utf8')
  return out
}

function decodeClaim(plain: Buffer): VehicleClaim | undefined {
  if (plain.length < MIN_CLAIM_BYTES) return undefined
  const p = plain[X]
  if (X + 2 + p > plain.length) return undefined
  const v = plain[X + 1 + p]
  if (X + 2 + p + v !== plain.length) return undefined
  return {
    p: plain.toString('utf8', X + 1, X + 1 + p),
    v: plain.toString('utf8', X + 2 + p),
    x: plain.readUIntBE(NONCE, 6),
  }
}

/** The codec over the keys of `tokens`; undefined when the cipher cannot derive keys per key id. */
export function createVehicleTokenCodec(tokens: TokenCipher): VehicleTokenCodec | undefined {
  const macKeys = tokens.deriveKeys?.(VEHICLE_TOKEN_MAC_PURPOSE)
  const encKeys = tokens.deriveKeys?.(VEHICLE_TOKEN_ENC_PURPOSE)
  if (!macKeys || !encKeys || macKeys.length === 0) return undefined
  const byId = new Map(macKeys.map((k, i) => [k.id, keyOf(k.id, k.key, encKeys[i].key)]))
  const sealing = byId.get(macKeys[0].id)!
  // The contexts in use (vehicle|tenant|environment), encoded once each; bounded like the general cipher's.
  const contexts = new Map<string, Buffer>()
  const contextBytes = (context: string) => {
    let bytes = contexts.get(context)
    if (!bytes) {
      if (contexts.size >= 1024) contexts.clear()
      bytes = Buffer.from(context, 'utf8')
      contexts.set(context, bytes)
    }
    return bytes
  }

  return {
    sealAll(context, claims) {
      const ctx = contextBytes(context)
      const { header } = sealing
      const plains = claims.map(encodeClaim)
      const ivs: (Buffer | undefined)[] = []
      let blockBytes = 0
      for (const plain of plains) {
        if (!plain) {
          ivs.push(undefined)
          continue
        }
        ivs.push(siv(sealing, macMessage(ctx, header, plain)))
        blockBytes += Math.ceil(plain.length / 16) * 16
      }
      // Every token's counter blocks, encrypted in one call: the keystreams of the whole page.
      const counters = Buffer.allocUnsafe(blockBytes)
      let at = 0
      for (let i = 0; i < plains.length; i++) {
        const plain = plains[i]
        if (plain) at += counterBlocks(ivs[i]!, plain.length, counters, at)
      }
      const stream = sealing.ecb.update(counters)
      at = 0
      return plains.map((plain, i) => {
        if (!plain) return undefined
        const out = Buffer.allocUnsafe(header.length + SIV_BYTES + plain.length)
        header.copy(out, 0)
        ivs[i]!.copy(out, header.length)
        const body = header.length + SIV_BYTES
        for (let j = 0; j < plain.length; j++) out[body + j] = plain[j] ^ stream[at + j]
        at += Math.ceil(plain.length / 16) * 16
        return out.toString('base64url')
      })
    },

    open(context, token) {
      if (!isCompactVehicleToken(token) || token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) return undefined
      const raw = Buffer.from(token, 'base64url')
      if (raw[0] !== FORMAT || raw.length < 2) return undefined
      const headerLength = 2 + raw[1]
      const body = headerLength + SIV_BYTES
      if (raw.length < body + MIN_CLAIM_BYTES) return undefined
      const key = byId.get(raw.toString('utf8', 2, headerLength))
      if (!key) return undefined
      const iv = raw.subarray(headerLength, body)
      const sealed = raw.subarray(body)
      const counters = Buffer.allocUnsafe(Math.ceil(sealed.length / 16) * 16)
      counterBlocks(iv, sealed.length, counters, 0)
      const stream = key.ecb.update(counters)
      const plain = Buffer.allocUnsafe(sealed.length)
      for (let j = 0; j < sealed.length; j++) plain[j] = sealed[j] ^ stream[j]
      const expected = siv(key, macMessage(contextBytes(context), raw.subarray(0, headerLength), plain))
      if (!timingSafeEqual(expected, iv)) return undefined
      return decodeClaim(plain)
    },
  }
}

/**
 * `tokens`, opening compact vehicle tokens too: handed to every domain service, so that a vehicle token sent where
 * another token belongs (or with a key of the other environment) is still recognised by the token diagnosis.
 */
export function openingVehicleTokens(tokens: TokenCipher, codec: VehicleTokenCodec | undefined): TokenCipher {
  if (!codec) return tokens
  return {
    seal: (context, payload) => tokens.seal(context, payload),
    open: <T>(context: string, token: string) =>
      isCompactVehicleToken(token) ? (codec.open(context, token) as T | undefined) : tokens.open<T>(context, token),
    deriveKey: (purpose) => tokens.deriveKey(purpose),
    ...(tokens.deriveKeys ? { deriveKeys: (purpose: string) => tokens.deriveKeys!(purpose) } : {}),
  }
}
