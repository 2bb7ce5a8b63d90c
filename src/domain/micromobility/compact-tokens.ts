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
 * byte 3, a JSON claim). The general tokens of src/platform/tokens.ts are formats 1 and 4 and still open wherever these do.
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
  /** AES-256 in ECB without padding: CMAC's block cipher for a page's chains side by side, and CTR's keystream. */
  mac: Cipheriv
  enc: Cipheriv
  /** The CMAC key in CBC from a zero IV, for one message in one call; `chain` is its last output block. */
  cbc: Cipheriv
  chain: Buffer
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

const aes = (mode: 'aes-256-ecb' | 'aes-256-cbc', key: Buffer) => {
  const cipher = createCipheriv(mode, key, mode === 'aes-256-ecb' ? null : Buffer.alloc(16))
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
  const mac = aes('aes-256-ecb', macKey)
  const k1 = dbl(mac.update(Buffer.alloc(16)))
  return {
    headers: { [VEHICLE]: header(VEHICLE), [JSON_CLAIM]: header(JSON_CLAIM) },
    mac,
    enc: aes('aes-256-ecb', encKey),
    cbc: aes('aes-256-cbc', macKey),
    chain: Buffer.alloc(16),
    k1,
    k2: dbl(k1),
  }
}

/** CMAC's blocks of a message: whole, the last is masked with K1; else padded with 10* and masked with K2. */
const blocksOf = (length: number) => Math.max(1, Math.ceil(length / 16))
function padded(key: Key, data: Buffer, start: number, length: number, into: Buffer, at: number) {
  const last = 16 * (blocksOf(length) - 1)
  for (let b = 0; b < last; b++) into[at + b] = data[start + b]
  const mask = length > 0 && length % 16 === 0 ? key.k1 : key.k2
  for (let b = 0; b < 16; b++) {
    const p = last + b
    into[at + p] = (p < length ? data[start + p] : p === length ? 0x80 : 0) ^ mask[b]
  }
}

/**
 * AES-CMAC (NIST SP 800-38B) of the messages `data[starts[i], starts[i] + lengths[i])`, written to `macs` at 16 i.
 * One message is one CBC call (the long-lived CBC cipher's chain is undone in its first block). Several run side by
 * side: round j encrypts the j-th block of every message still running in one ECB call, so a page of tokens costs
 * as many calls as its longest message has blocks.
 *
 * `shared` skips what every message of a page begins with: its first `shared.blocks` blocks are the same in all of
 * them (a page's context and header), and `shared.chain` is CBC's state after them, so the rounds start there.
 * Every message must be longer than those blocks (its last block, which CMAC masks, is never among them).
 */
function cmacInto(
  key: Key,
  data: Buffer,
  starts: readonly number[],
  lengths: readonly number[],
  macs: Buffer,
  shared?: { blocks: number; chain: Buffer },
) {
  const n = starts.length
  if (n === 1 && shared === undefined) {
    const blocks = Buffer.allocUnsafe(16 * blocksOf(lengths[0]))
    padded(key, data, starts[0], lengths[0], blocks, 0)
    for (let b = 0; b < 16; b++) blocks[b] ^= key.chain[b]
    const out = key.cbc.update(blocks)
    if (out.length !== blocks.length) throw new Error('AES-CBC held back a block')
    for (let b = 0; b < 16; b++) key.chain[b] = macs[b] = out[out.length - 16 + b]
    return
  }
  const skip = 16 * (shared?.blocks ?? 0)
  // Every message's blocks after the shared ones, padded and masked, one after another in one buffer.
  const laidAt = new Array<number>(n)
  let laidBytes = 0
  let rounds = 0
  for (let i = 0; i < n; i++) {
    if (skip > 0 && lengths[i] <= skip) throw new Error('a message is no longer than the blocks its page shares')
    const tail = 16 * blocksOf(lengths[i] - skip)
    laidAt[i] = laidBytes
    laidBytes += tail
    rounds = Math.max(rounds, tail / 16)
  }
  const laid = Buffer.allocUnsafe(laidBytes)
  for (let i = 0; i < n; i++) padded(key, data, starts[i] + skip, lengths[i] - skip, laid, laidAt[i])
  if (shared) for (let i = 0; i < n; i++) shared.chain.copy(macs, 16 * i)
  else macs.fill(0, 0, 16 * n)
  const input = Buffer.allocUnsafe(16 * n)
  const running: number[] = []
  for (let j = 0; j < rounds; j++) {
    running.length = 0
    for (let i = 0; i < n; i++) {
      const at = laidAt[i] + 16 * j
      if (at >= (i + 1 < n ? laidAt[i + 1] : laidBytes)) continue
      const o = 16 * running.length
      for (let b = 0; b < 16; b++) input[o + b] = macs[16 * i + b] ^ laid[at + b]
      running.push(i)
    }
    const out = key.mac.update(input.subarray(0, 16 * running.length))
    for (let r = 0; r < running.length; r++) {
      const i = running[r]
      for (let b = 0; b < 16; b++) macs[16 * i + b] = out[16 * r + b]
    }
  }
}

/** CBC's state after the whole blocks of `prefix` (AES-CMAC's chain before the rest of a message). */
function chainAfter(key: Key, prefix: Buffer, blocks: number): Buffer {
  let chain = Buffer.alloc(16)
  for (let j = 0; j < blocks; j++) {
    const block = Buffer.allocUnsafe(16)
    for (let b = 0; b < 16; b++) block[b] = chain[b] ^ prefix[16 * j + b]
    chain = key.mac.update(block)
  }
  return chain
}

/**
 * AES-CMAC of each message (for tests; the codec lays a page's messages out in one buffer). With `sharedBlocks`, the
 * messages begin with that many identical blocks, chained once as a page's context and header are.
 */
export function cmacAll(key: Key, messages: readonly Buffer[], sharedBlocks?: number): Buffer[] {
  const starts: number[] = []
  let at = 0
  for (const m of messages) {
    starts.push(at)
    at += m.length
  }
  const macs = Buffer.alloc(16 * messages.length)
  const lengths = messages.map((m) => m.length)
  const shared =
    sharedBlocks === undefined ? undefined : { blocks: sharedBlocks, chain: chainAfter(key, messages[0], sharedBlocks) }
  cmacInto(key, Buffer.concat(messages), starts, lengths, macs, shared)
  return messages.map((_, i) => macs.subarray(16 * i, 16 * i + 16))
}

/** Writes the counter blocks of `length` bytes from `iv[at]` (RFC 5297: two bits cleared, no carries). */
function counterBlocks(iv: Buffer, ivAt: number, length: number, into: Buffer, at: number): number {
  const blocks = Math.ceil(length / 16)
  for (let k = 0; k < blocks; k++) {
    const o = at + k * 16
    for (let b = 0; b < 16; b++) into[o + b] = iv[ivAt + b]
    into[o + 8] &= 0x7f
    into[o + 12] &= 0x7f
    into.writeUInt32BE(into.readUInt32BE(o + 12) + k, o + 12)
  }
  return blocks * 16
}

/** A vehicle claim's bytes at `into[at]` (its 4 random bytes already there); `null` when it does not fit. */
function vehicleLength(claim: VehicleClaim): number | undefined {
  const p = Buffer.byteLength(claim.p, 'utf8')
  const v = Buffer.byteLength(claim.v, 'utf8')
  if (p > MAX_ID_BYTES || v > MAX_ID_BYTES || !Number.isSafeInteger(claim.x) || claim.x < 0 || claim.x >= 2 ** 48)
    return undefined
  return X + 1 + p + 1 + v
}
function writeVehicle(claim: VehicleClaim, into: Buffer, at: number) {
  into.writeUIntBE(claim.x, at + NONCE, 6)
  const p = into.write(claim.p, at + X + 1, 'utf8')
  into[at + X] = p
  into[at + X + 1 + p] = into.write(claim.v, at + X + 2 + p, 'utf8')
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

  /**
   * The CMAC chain after the whole blocks that every message of a page starts with (context length, context, header:
   * the same for every token of one context and format), made once per context and format: a page of 16 vehicle
   * tokens then runs 3 of its 6 CMAC rounds instead of all 6. `prefix` is those shared bytes' length (sealAll's),
   * and `messages` holds a page's first message at 0.
   */
  const chains = new Map<string, { blocks: number; chain: Buffer }>()
  function sharedChain(format: number, context: string, prefix: number, messages: Buffer, lengths: readonly number[]) {
    // Each message's last block is its own (CMAC masks it), so at most the blocks before every message's last one.
    let blocks = Math.floor(prefix / 16)
    for (let i = 0; i < lengths.length; i++) blocks = Math.min(blocks, blocksOf(lengths[i]) - 1)
    const name = `${format}|${blocks}|${context}`
    let shared = chains.get(name)
    if (!shared) {
      if (chains.size >= 1024) chains.clear()
      shared = { blocks, chain: chainAfter(sealing, messages, blocks) }
      chains.set(name, shared)
    }
    return shared
  }

  /**
   * Seals claims of one context in one format: `lengths[i]` bytes each (undefined: not sealed), written by
   * `write(i, into, at)`. Everything of the page lives in three buffers: the MAC's messages (context, header, claim),
   * the counter blocks, the tokens.
   */
  function sealAll(
    context: string,
    format: number,
    lengths: readonly (number | undefined)[],
    write: (i: number, into: Buffer, at: number) => void,
  ): (string | undefined)[] {
    const ctx = contextBytes(context)
    const header = sealing.headers[format]
    const prefix = 2 + ctx.length + header.length
    const starts: number[] = []
    const sizes: number[] = []
    let messageBytes = 0
    let blockBytes = 0
    for (const length of lengths) {
      if (length === undefined) continue
      starts.push(messageBytes + prefix)
      sizes.push(length)
      messageBytes += prefix + length
      blockBytes += Math.ceil(length / 16) * 16
    }
    const n = sizes.length
    const messages = Buffer.allocUnsafe(messageBytes)
    for (let i = 0, k = 0; i < lengths.length; i++) {
      if (lengths[i] === undefined) continue
      const at = starts[k] - prefix
      messages.writeUInt16BE(ctx.length, at)
      messages.set(ctx, at + 2)
      messages.set(header, at + 2 + ctx.length)
      write(i, messages, starts[k])
      k++
    }
    const macStarts = starts.map((s) => s - prefix)
    const ivs = Buffer.allocUnsafe(16 * n)
    const macLengths = sizes.map((size) => prefix + size)
    cmacInto(
      sealing,
      messages,
      macStarts,
      macLengths,
      ivs,
      n > 1 ? sharedChain(format, context, prefix, messages, macLengths) : undefined,
    )
    // Every token's keystream in one call.
    const counters = Buffer.allocUnsafe(blockBytes)
    for (let k = 0, at = 0; k < n; k++) at += counterBlocks(ivs, 16 * k, sizes[k], counters, at)
    const stream = blockBytes > 0 ? sealing.enc.update(counters) : counters
    const tokenBytes = header.length + IV_BYTES
    const out = Buffer.allocUnsafe(n * tokenBytes + messageBytes - n * prefix)
    const tokens: (string | undefined)[] = []
    for (let i = 0, k = 0, at = 0, keyAt = 0; i < lengths.length; i++) {
      if (lengths[i] === undefined) {
        tokens.push(undefined)
        continue
      }
      const begin = at
      out.set(header, at)
      at += header.length
      for (let b = 0; b < 16; b++) out[at + b] = ivs[16 * k + b]
      at += IV_BYTES
      const size = sizes[k]
      const from = starts[k]
      for (let j = 0; j < size; j++) out[at + j] = messages[from + j] ^ stream[keyAt + j]
      at += size
      keyAt += Math.ceil(size / 16) * 16
      tokens.push(out.toString('base64url', begin, at))
      k++
    }
    return tokens
  }

  return {
    sealVehicles(context, claims) {
      const lengths = claims.map(vehicleLength)
      const nonces = randomNonces(lengths.filter((l) => l !== undefined).length)
      let k = 0
      return sealAll(context, VEHICLE, lengths, (i, into, at) => {
        for (let b = 0; b < NONCE; b++) into[at + b] = nonces[NONCE * k + b]
        k++
        writeVehicle(claims[i], into, at)
      })
    },

    sealJson(context, payload) {
      const plain = Buffer.from(JSON.stringify(payload), 'utf8')
      if (plain.length > MAX_JSON_BYTES) return undefined
      return sealAll(context, JSON_CLAIM, [plain.length], (_, into, at) => into.set(plain, at))[0]
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
      const size = raw.length - body
      const counters = Buffer.allocUnsafe(Math.ceil(size / 16) * 16)
      counterBlocks(raw, headerLength, size, counters, 0)
      const stream = key.enc.update(counters)
      const ctx = contextBytes(context)
      const prefix = 2 + ctx.length + headerLength
      const message = Buffer.allocUnsafe(prefix + size)
      message.writeUInt16BE(ctx.length, 0)
      message.set(ctx, 2)
      message.set(raw.subarray(0, headerLength), 2 + ctx.length)
      for (let j = 0; j < size; j++) message[prefix + j] = raw[body + j] ^ stream[j]
      const expected = Buffer.allocUnsafe(16)
      cmacInto(key, message, [0], [message.length], expected)
      if (!timingSafeEqual(expected, raw.subarray(headerLength, body))) return undefined
      const plain = message.subarray(prefix)
      return format === VEHICLE ? decodeVehicle(plain) : decodeJson(plain)
    },
  }
}

/** `n` claims' random bytes, from the pool (at most 256 bytes a draw). */
function randomNonces(n: number): Buffer {
  if (NONCE * n <= 256) return randomChunk(NONCE * n)
  const parts: Buffer[] = []
  for (let left = n; left > 0; left -= 64) parts.push(randomChunk(NONCE * Math.min(64, left)))
  return Buffer.concat(parts)
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
  // Every other method (and any added to TokenCipher later) is the general cipher's own: its methods use no `this`.
  return {
    ...tokens,
    ...(sealJson
      ? {
          seal: (context: string, payload: unknown) =>
            codec.sealJson(context, payload) ?? tokens.seal(context, payload),
        }
      : {}),
    open: <T>(context: string, token: string) =>
      isCompactToken(token) ? (codec.open(context, token) as T | undefined) : tokens.open<T>(context, token),
  }
}
