import { type Cipheriv, createCipheriv, timingSafeEqual } from 'node:crypto'
import { randomChunk } from '../../platform/random.ts'
import type { TokenCipher } from '../../platform/tokens.ts'

/** What a vehicle token carries: provider id, vehicle id, and until when it is valid (ms since epoch). */
export interface VehicleClaim {
  p: string
  v: string
  x: number
}

/**
 * The compact token formats of micromobility search: vehicle tokens (format byte 2) and the search's cursors (format
 * byte 3, a JSON claim). The general tokens of src/platform/tokens.ts are format 1 and still open wherever these do.
 *
 * A search page seals a token per trip-capable vehicle it shows. The general format costs an AES-GCM cipher (a key
 * schedule and a GHASH set-up) and a random IV per token and carries a JSON claim; these are deterministic
 * authenticated encryption in the SIV construction (Rogaway and Shrimpton, as RFC 5297): the synthetic IV is
 * AES-256-CMAC (NIST SP 800-38B) of the context (purpose, tenant, environment, with its length), the header and the
 * claim, and the claim is encrypted with AES-256-CTR from that IV (two bits cleared, as RFC 5297 does). No IV of its
 * own (16 bytes shorter than GCM's IV and tag), a binary vehicle claim (4 random bytes, so two look-ups never get the
 * same token, 6 bytes of expiry, the two ids with a length byte each), and no key schedule per token: both AES keys
 * live in long-lived AES-256-ECB ciphers, and a whole page goes through them in a few calls (CMAC's rounds are
 * chained per token but done for every token of the page at once; CTR's keystream is the encryption of the counter
 * blocks, one call). Token: `format | key id length | key id | IV (16) | encrypted claim`, base64url.
 *
 * Same guarantees as the general format: tampering, another tenant, environment or purpose, or a key no longer listed
 * fail to open; the first TOKEN_KEYS key seals and every listed key opens (keys from `TokenCipher.deriveKeys`, one for
 * CMAC and one for CTR per key).
 */
export interface CompactTokenCodec {
  /** The vehicle tokens of `claims` for `context`, in order; undefined for a claim too long for the format. */
  sealVehicles(context: string, claims: readonly VehicleClaim[]): (string | undefined)[]
  /** A token of any JSON `payload` (cursors); undefined when its JSON is over 4 KiB. */
  sealJson(context: string, payload: unknown): string | undefined
  /** The claim of a compact token sealed for `context` by a listed key; undefined otherwise. */
  open(context: string, token: string): unknown
}

const VEHICLE = 2
const JSON_CLAIM = 3
const IV_BYTES = 16
const NONCE = 4
/** Where the expiry sits in a vehicle claim, after the random bytes. */
const X = NONCE + 6
const MAX_ID_BYTES = 255
const MIN_VEHICLE_CLAIM = X + 1 + 1
const MAX_JSON_BYTES = 4096
const MAX_TOKEN_CHARS = 8192
const BASE64URL = /^[A-Za-z0-9_-]+$/
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
export const COMPACT_TOKEN_MAC_PURPOSE = 'compact-token-siv-cmac'
export const COMPACT_TOKEN_ENC_PURPOSE = 'compact-token-siv-ctr'

interface Key {
  headers: Record<number, Buffer>
  /** AES-256 in ECB without padding: CMAC's block cipher, and the CTR keystream's. */
  mac: Cipheriv
  enc: Cipheriv
  k1: Buffer
  k2: Buffer
}

/** Whether a token is in a compact format (its first byte is 2 or 3; says nothing about whether it opens). */
export function isCompactToken(token: unknown): token is string {
  // The first base64url character holds the first byte's top 6 bits (0: 'A'), the second its low 2 bits first.
  if (typeof token !== 'string' || token.length < 3 || token[0] !== 'A') return false
  const format = ALPHABET.indexOf(token[1]) >> 4
  return format === VEHICLE || format === JSON_CLAIM
}

const ecb = (key: Buffer) => {
  const cipher = createCipheriv('aes-256-ecb', key, null)
  cipher.setAutoPadding(false)
  return cipher
}

/** Doubling in GF(2^128), for CMAC's subkeys. */
function dbl(block: Buffer): Buffer {
  const out = Buffer.allocUnsafe(16)
  for (let i = 0; i < 16; i++) out[i] = ((block[i] << 1) | (i < 15 ? block[i + 1] >> 7 : 0)) & 0xff
  if (block[0] & 0x80) out[15] ^= 0x87
  return out
}

export function keyOf(id: string, macKey: Buffer, encKey: Buffer): Key {
  const idBytes = Buffer.from(id, 'utf8')
  const header = (format: number) => Buffer.concat([Buffer.from([format, idBytes.length]), idBytes])
  const mac = ecb(macKey)
  const k1 = dbl(mac.update(Buffer.alloc(16)))
  return {
    headers: { [VEHICLE]: header(VEHICLE), [JSON_CLAIM]: header(JSON_CLAIM) },
    mac,
    enc: ecb(encKey),
    k1,
    k2: dbl(k1),
  }
}

/**
 * AES-CMAC (NIST SP 800-38B) of each message. The chains run side by side: round j encrypts the j-th block of every
 * message still running in one call, so a page costs as many cipher calls as its longest message has blocks.
 */
export function cmacAll(key: Key, messages: readonly Buffer[]): Buffer[] {
  const blocks = messages.map((m) => Math.max(1, Math.ceil(m.length / 16)))
  const state = messages.map(() => Buffer.alloc(16))
  const rounds = Math.max(0, ...blocks)
  for (let j = 0; j < rounds; j++) {
    const running: number[] = []
    for (let i = 0; i < messages.length; i++) if (j < blocks[i]) running.push(i)
    const input = Buffer.allocUnsafe(16 * running.length)
    for (let r = 0; r < running.length; r++) {
      const i = running[r]
      const m = messages[i]
      const s = state[i]
      const o = 16 * r
      const at = 16 * j
      if (j < blocks[i] - 1) {
        for (let b = 0; b < 16; b++) input[o + b] = s[b] ^ m[at + b]
      } else {
        // The last block: whole, it is masked with K1; else padded with 10* and masked with K2.
        const whole = m.length > 0 && m.length % 16 === 0
        const mask = whole ? key.k1 : key.k2
        for (let b = 0; b < 16; b++) {
          const p = at + b
          const byte = p < m.length ? m[p] : p === m.length ? 0x80 : 0
          input[o + b] = s[b] ^ byte ^ mask[b]
        }
      }
    }
    const out = key.mac.update(input)
    for (let r = 0; r < running.length; r++) out.copy(state[running[r]], 0, 16 * r, 16 * r + 16)
  }
  return state
}

/** The message the IV is the MAC of: the context's length and text, the header, the claim. */
function macMessage(context: Buffer, header: Buffer, claim: Buffer): Buffer {
  const message = Buffer.allocUnsafe(2 + context.length + header.length + claim.length)
  message.writeUInt16BE(context.length, 0)
  context.copy(message, 2)
  header.copy(message, 2 + context.length)
  claim.copy(message, 2 + context.length + header.length)
  return message
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

function encodeVehicle(claim: VehicleClaim): Buffer | undefined {
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

function decodeVehicle(plain: Buffer): VehicleClaim | undefined {
  if (plain.length < MIN_VEHICLE_CLAIM) return undefined
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

function decodeJson(plain: Buffer): unknown {
  try {
    return JSON.parse(plain.toString('utf8'))
  } catch {
    return undefined
  }
}

/** The codec over the keys of `tokens`; undefined when the cipher cannot derive keys per key id. */
export function createCompactTokenCodec(tokens: TokenCipher): CompactTokenCodec | undefined {
  const macKeys = tokens.deriveKeys?.(COMPACT_TOKEN_MAC_PURPOSE)
  const encKeys = tokens.deriveKeys?.(COMPACT_TOKEN_ENC_PURPOSE)
  if (!macKeys || !encKeys || macKeys.length === 0) return undefined
  const byId = new Map(macKeys.map((k, i) => [k.id, keyOf(k.id, k.key, encKeys[i].key)]))
  const sealing = byId.get(macKeys[0].id)!
  // The contexts in use (purpose|tenant|environment), encoded once each; bounded like the general cipher's.
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

  /** Seals the claims (encoded; undefined: not sealed) of one context in one format. */
  function sealAll(context: string, format: number, plains: readonly (Buffer | undefined)[]): (string | undefined)[] {
    const ctx = contextBytes(context)
    const header = sealing.headers[format]
    const sealed = plains.filter((p): p is Buffer => p !== undefined)
    const ivs = cmacAll(
      sealing,
      sealed.map((plain) => macMessage(ctx, header, plain)),
    )
    let blockBytes = 0
    for (const plain of sealed) blockBytes += Math.ceil(plain.length / 16) * 16
    const counters = Buffer.allocUnsafe(blockBytes)
    let at = 0
    for (let i = 0; i < sealed.length; i++) at += counterBlocks(ivs[i], sealed[i].length, counters, at)
    // Every token's keystream in one call.
    const stream = sealing.enc.update(counters)
    at = 0
    let next = 0
    return plains.map((plain) => {
      if (!plain) return undefined
      const out = Buffer.allocUnsafe(header.length + IV_BYTES + plain.length)
      header.copy(out, 0)
      ivs[next++].copy(out, header.length)
      const body = header.length + IV_BYTES
      for (let j = 0; j < plain.length; j++) out[body + j] = plain[j] ^ stream[at + j]
      at += Math.ceil(plain.length / 16) * 16
      return out.toString('base64url')
    })
  }

  return {
    sealVehicles: (context, claims) => sealAll(context, VEHICLE, claims.map(encodeVehicle)),

    sealJson(context, payload) {
      const plain = Buffer.from(JSON.stringify(payload), 'utf8')
      return plain.length > MAX_JSON_BYTES ? undefined : sealAll(context, JSON_CLAIM, [plain])[0]
    },

    open(context, token) {
      if (!isCompactToken(token) || token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) return undefined
      const raw = Buffer.from(token, 'base64url')
      const format = raw[0]
      if ((format !== VEHICLE && format !== JSON_CLAIM) || raw.length < 2) return undefined
      const headerLength = 2 + raw[1]
      const body = headerLength + IV_BYTES
      if (raw.length <= body) return undefined
      const key = byId.get(raw.toString('utf8', 2, headerLength))
      if (!key) return undefined
      const iv = raw.subarray(headerLength, body)
      const sealed = raw.subarray(body)
      const counters = Buffer.allocUnsafe(Math.ceil(sealed.length / 16) * 16)
      counterBlocks(iv, sealed.length, counters, 0)
      const stream = key.enc.update(counters)
      const plain = Buffer.allocUnsafe(sealed.length)
      for (let j = 0; j < sealed.length; j++) plain[j] = sealed[j] ^ stream[j]
      const [expected] = cmacAll(key, [macMessage(contextBytes(context), raw.subarray(0, headerLength), plain)])
      if (!timingSafeEqual(expected, iv)) return undefined
      return format === VEHICLE ? decodeVehicle(plain) : decodeJson(plain)
    },
  }
}

/**
 * `tokens`, opening compact tokens too. With `sealJson`, it also seals in the compact JSON format (falling back to
 * the general one for a payload over 4 KiB): the cipher of the search's cursors. Without, it seals as `tokens` does:
 * the cipher every domain service gets, so the token diagnosis recognises a vehicle token or a search cursor wherever
 * it is sent.
 */
export function openingCompactTokens(
  tokens: TokenCipher,
  codec: CompactTokenCodec | undefined,
  sealJson = false,
): TokenCipher {
  if (!codec) return tokens
  return {
    seal: sealJson
      ? (context, payload) => codec.sealJson(context, payload) ?? tokens.seal(context, payload)
      : (context, payload) => tokens.seal(context, payload),
    open: <T>(context: string, token: string) =>
      isCompactToken(token) ? (codec.open(context, token) as T | undefined) : tokens.open<T>(context, token),
    deriveKey: (purpose) => tokens.deriveKey(purpose),
    ...(tokens.deriveKeys ? { deriveKeys: (purpose: string) => tokens.deriveKeys!(purpose) } : {}),
  }
}
