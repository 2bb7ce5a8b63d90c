import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hash,
  hkdfSync,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomChunk } from './random.ts'

/**
 * Authenticated encryption (AES-256-GCM) for everything the service hands out and must get back untouched:
 * offer tokens, cursors, `zr1_` references. The key id travels in the token so keys can rotate: the first key
 * seals, every listed key opens. `context` (tenant, environment, purpose) is bound as associated data,
 * so a token of one tenant or purpose never opens under another.
 */
export interface TokenCipher {
  seal(context: string, payload: unknown): string
  /**
   * One token per payload, as `seal` makes them for the same context (each opens on its own, and any change to one
   * makes it fail), made together: one cipher for all of them and one MAC each, instead of one AES-GCM cipher each
   * (a search page of offers).
   */
  sealMany(context: string, payloads: readonly unknown[]): string[]
  /** The payload, or undefined when the token is malformed, tampered with, or sealed for another context. */
  open<T = unknown>(context: string, token: string): T | undefined
  /**
   * A 32-byte secret for one `purpose` (HKDF-SHA256 of the first key), the same on every instance that shares the keys:
   * for values that must be stable but unguessable without the keys, such as the rotated vehicle ids of GBFS out.
   * Putting a new key first changes it.
   */
  deriveKey(purpose: string): Buffer
  /**
   * `deriveKey(purpose)` of every listed key with its id, the first (sealing) key first: for a token format of its own
   * that, like `seal` and `open`, seals with the first key and opens with any listed one.
   */
  deriveKeys?(purpose: string): TokenKey[]
}

export interface TokenKey {
  id: string
  key: Buffer
}

/*
 * A token's first byte names its format. Taken: 1 (`seal`), 2 and 3 (micromobility's compact vehicle tokens and
 * cursors, src/domain/micromobility/compact-tokens.ts, which this cipher does not open), 4 (`sealMany`).
 */
/** Version 1: AES-256-GCM, one cipher per token (`seal`). */
const VERSION = 1
/**
 * Version 4, tokens sealed together (`sealMany`): AES-256-CTR over all of them at once, each token its own stretch of
 * the key stream (starting at a block of its own), then encrypt-then-MAC with HMAC-SHA256 (first 16 bytes) over the
 * context (with its length) and everything before the tag. Both keys are derived from the token key (HKDF-SHA256).
 * version | kid length | kid | iv (12) | first block (2) | ciphertext | tag (16)
 */
const VERSION_PAGE = 4
/** Blocks of key stream one page of tokens may use (the first block of each token is written in 2 bytes). */
const PAGE_BLOCKS = 0xffff
const MAX_CACHED_CONTEXTS = 1024
const KID = /^[A-Za-z0-9_-]{1,16}$/

export function parseTokenKeys(raw: string): TokenKey[] {
  const keys = raw.split(',').map((part, index) => {
    const [id, material] = part.trim().split(':')
    if (!id || !KID.test(id)) throw new Error(`TOKEN_KEYS entry ${index + 1}: key id must match ${KID}`)
    const key = Buffer.from(material ?? '', 'base64')
    if (key.length !== 32) throw new Error(`TOKEN_KEYS entry ${index + 1}: key must be 32 bytes in base64`)
    return { id, key }
  })
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error('TOKEN_KEYS: key ids must be unique')
  return keys
}

export const generateTokenKeys = (id = 'k1'): string => `${id}:${randomBytes(32).toString('base64')}`

/** Embedded mode: keys generated on first start and kept in DATA_DIR, so tokens survive restarts. */
export function loadOrCreateTokenKeys(configured: string | undefined, dataDir: string): TokenKey[] {
  if (configured) return parseTokenKeys(configured)
  const file = join(dataDir, 'token-keys')
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(file, generateTokenKeys(), { mode: 0o600 })
  }
  return parseTokenKeys(readFileSync(file, 'utf8').trim())
}

/** A key for one use of version 4 tokens, derived from a token key (HKDF-SHA256). */
const subKey = (key: Buffer, use: 'enc' | 'mac') =>
  Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `mas-token-v2|${use}`, 32))

/** An HMAC-SHA256 key as its inner and outer pads (RFC 2104; the key is shorter than SHA-256's 64-byte block). */
function macKey(key: Buffer): { inner: Buffer; outer: Buffer } {
  const inner = Buffer.alloc(64, 0x36)
  const outer = Buffer.alloc(64 + 32, 0x5c)
  for (let i = 0; i < key.length; i++) {
    inner[i] ^= key[i]
    outer[i] ^= key[i]
  }
  return { inner, outer }
}

/**
 * HMAC-SHA256 of `scratch[64, end)` (`scratch[0, 64)` holds the key's inner pad, `outer[0, 64)` its outer pad), its
 * first 16 bytes written to `into` at `at`. Two one-shot hashes with text output: a Hmac object per token, or digests
 * as new Buffers, cost twice as much. Latin-1 ('binary') text is the digest's bytes one per character: 0.95 µs a tag
 * against 1.55 µs through base64, which is encoded and decoded again.
 */
function tagInto(scratch: Buffer, end: number, outer: Buffer, into: Buffer, at: number): void {
  outer.write(hash('sha256', scratch.subarray(0, end), 'binary'), 64, 32, 'latin1')
  into.write(hash('sha256', outer, 'binary'), at, 16, 'latin1')
}

/** The counter block of `block` after `iv`, in `into` (createCipheriv copies it, so one buffer serves every call). */
const counterBlock = (iv: Buffer, block: number, into = Buffer.alloc(16)) => {
  iv.copy(into, 0, 0, 12)
  into.writeUInt32BE(block, 12)
  return into
}

/** A buffer of at least `size` bytes: `current`, or a larger one when it is too small (contents not kept). */
const atLeast = (current: Buffer, size: number) =>
  current.length >= size ? current : Buffer.allocUnsafeSlow(Math.max(size, 2 * current.length))

export function createTokenCipher(keys: TokenKey[]): TokenCipher {
  if (keys.length === 0) throw new Error('at least one token key is needed')
  // Key objects are made once: building one per call showed in the car-search profile.
  const byId = new Map<string, KeyObject>(keys.map((k) => [k.id, createSecretKey(k.key)]))
  const pageKeys = new Map<string, { enc: KeyObject; mac: { inner: Buffer; outer: Buffer } }>(
    keys.map((k) => [k.id, { enc: createSecretKey(subKey(k.key, 'enc')), mac: macKey(subKey(k.key, 'mac')) }]),
  )
  const active = { id: keys[0].id, key: byId.get(keys[0].id)!, page: pageKeys.get(keys[0].id)! }
  const activeId = Buffer.from(active.id, 'utf8')
  const header = Buffer.concat([Buffer.from([VERSION, activeId.length]), activeId])
  const pageHeader = Buffer.concat([Buffer.from([VERSION_PAGE, activeId.length]), activeId])
  // The associated data of the few contexts in use (purpose, tenant, environment), made once each.
  const aads = new Map<string, Buffer>()
  const aadFor = (context: string) => {
    let aad = aads.get(context)
    if (!aad) {
      if (aads.size >= MAX_CACHED_CONTEXTS) aads.clear()
      aad = Buffer.concat([header, Buffer.from(context, 'utf8')])
      aads.set(context, aad)
    }
    return aad
  }
  // What a page token's MAC covers before the token's own bytes: the context with its length (so no byte of it can
  // move into the token), made once per context.
  const macPrefixes = new Map<string, Buffer>()
  const macPrefixFor = (context: string) => {
    let prefix = macPrefixes.get(context)
    if (!prefix) {
      if (macPrefixes.size >= MAX_CACHED_CONTEXTS) macPrefixes.clear()
      const bytes = Buffer.from(context, 'utf8')
      prefix = Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes])
      macPrefixes.set(context, prefix)
    }
    return prefix
  }

  // Working buffers of sealPage, reused: it runs to its end without waiting, and what it hands out is text. The
  // bytes between two tokens' stretches of `plain` (padding to a block) are encrypted but never part of a token.
  let plain: Buffer = Buffer.allocUnsafeSlow(4096)
  let scratch: Buffer = Buffer.allocUnsafeSlow(1024)
  const counter = Buffer.alloc(16)

  /** One page: every body gets its own blocks of one AES-CTR key stream and its own MAC. */
  function sealPage(context: string, bodies: string[], lengths: number[], blocks: number): string[] {
    plain = atLeast(plain, blocks * 16)
    let longest = 0
    for (let i = 0, at = 0; i < bodies.length; i++) {
      plain.write(bodies[i], at, 'utf8')
      at += Math.ceil(lengths[i] / 16) * 16
      longest = Math.max(longest, lengths[i])
    }
    const iv = randomChunk(12)
    const cipher = createCipheriv('aes-256-ctr', active.page.enc, counterBlock(iv, 0, counter))
    const sealed = cipher.update(plain.subarray(0, blocks * 16))
    cipher.final()
    // Each token is assembled right after the MAC key's inner pad and the context, where its MAC is taken from.
    const prefix = macPrefixFor(context)
    const h = pageHeader.length
    const start = 64 + prefix.length
    scratch = atLeast(scratch, start + h + 14 + longest + 16)
    active.page.mac.inner.copy(scratch, 0)
    prefix.copy(scratch, 64)
    pageHeader.copy(scratch, start)
    iv.copy(scratch, start + h)
    // Its bytes 64..96 (the inner hash) are written before every use.
    const outer = active.page.mac.outer
    const out: string[] = []
    for (let i = 0, block = 0; i < bodies.length; i++) {
      scratch.writeUInt16BE(block, start + h + 12)
      const end = start + h + 14 + lengths[i]
      sealed.copy(scratch, start + h + 14, block * 16, block * 16 + lengths[i])
      tagInto(scratch, end, outer, scratch, end)
      out.push(scratch.toString('base64url', start, end + 16))
      block += Math.ceil(lengths[i] / 16)
    }
    return out
  }

  function openPage(context: string, raw: Buffer, headerLength: number, kid: string): Buffer | undefined {
    const keys = pageKeys.get(kid)
    if (!keys || raw.length < headerLength + 14 + 1 + 16) return undefined
    const signed = raw.length - 16
    const scratch = Buffer.concat([keys.mac.inner, macPrefixFor(context), raw.subarray(0, signed)])
    const tag = Buffer.alloc(16)
    tagInto(scratch, scratch.length, keys.mac.outer, tag, 0)
    if (!timingSafeEqual(tag, raw.subarray(signed))) return undefined
    const iv = raw.subarray(headerLength, headerLength + 12)
    const decipher = createDecipheriv('aes-256-ctr', keys.enc, counterBlock(iv, raw.readUInt16BE(headerLength + 12)))
    return Buffer.concat([decipher.update(raw.subarray(headerLength + 14, signed)), decipher.final()])
  }

  const derived = new Map<string, Buffer>()
  return {
    deriveKey(purpose) {
      let key = derived.get(purpose)
      if (!key) {
        key = Buffer.from(hkdfSync('sha256', keys[0].key, Buffer.alloc(0), `mas-derived-key|${purpose}`, 32))
        if (derived.size >= MAX_CACHED_CONTEXTS) derived.clear()
        derived.set(purpose, key)
      }
      return key
    },
    seal(context, payload) {
      const iv = randomChunk(12)
      const cipher = createCipheriv('aes-256-gcm', active.key, iv)
      cipher.setAAD(aadFor(context))
      const body = cipher.update(JSON.stringify(payload), 'utf8')
      cipher.final()
      // header | iv | tag | body, written into one buffer (a search seals a token per offer shown).
      const out = Buffer.allocUnsafe(header.length + 28 + body.length)
      header.copy(out, 0)
      iv.copy(out, header.length)
      cipher.getAuthTag().copy(out, header.length + 12)
      body.copy(out, header.length + 28)
      return out.toString('base64url')
    },
    sealMany(context, payloads) {
      const out: string[] = []
      let bodies: string[] = []
      let lengths: number[] = []
      let blocks = 0
      for (const payload of payloads) {
        const body = JSON.stringify(payload)
        const length = Buffer.byteLength(body)
        const need = Math.ceil(length / 16)
        if (blocks + need > PAGE_BLOCKS && bodies.length > 0) {
          out.push(...sealPage(context, bodies, lengths, blocks))
          bodies = []
          lengths = []
          blocks = 0
        }
        bodies.push(body)
        lengths.push(length)
        blocks += need
      }
      if (bodies.length > 0) out.push(...sealPage(context, bodies, lengths, blocks))
      return out
    },
    open<T>(context: string, token: string): T | undefined {
      if (typeof token !== 'string' || token.length < 40 || token.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(token)) {
        return undefined
      }
      const raw = Buffer.from(token, 'base64url')
      if (raw[0] !== VERSION && raw[0] !== VERSION_PAGE) return undefined
      const idLength = raw[1]
      const headerLength = 2 + idLength
      if (raw.length < headerLength + 12 + 16 + 1) return undefined
      const kid = raw.subarray(2, headerLength).toString('utf8')
      if (raw[0] === VERSION_PAGE) {
        try {
          const plain = openPage(context, raw, headerLength, kid)
          return plain && (JSON.parse(plain.toString('utf8')) as T)
        } catch {
          return undefined
        }
      }
      const key = byId.get(kid)
      if (!key) return undefined
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(headerLength, headerLength + 12))
        decipher.setAAD(Buffer.concat([raw.subarray(0, headerLength), Buffer.from(context, 'utf8')]))
        decipher.setAuthTag(raw.subarray(headerLength + 12, headerLength + 28))
        const plain = Buffer.concat([decipher.update(raw.subarray(headerLength + 28)), decipher.final()])
        return JSON.parse(plain.toString('utf8')) as T
      } catch {
        return undefined
      }
    },
    deriveKeys: (purpose) =>
      keys.map((k) => ({
        id: k.id,
        key: Buffer.from(hkdfSync('sha256', k.key, Buffer.alloc(0), `mas-derived-key|${purpose}`, 32)),
      })),
  }
}
