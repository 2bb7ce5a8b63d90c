import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto'
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

const VERSION = 1
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

export function createTokenCipher(keys: TokenKey[]): TokenCipher {
  if (keys.length === 0) throw new Error('at least one token key is needed')
  // Key objects are made once: building one per call showed in the car-search profile.
  const byId = new Map<string, KeyObject>(keys.map((k) => [k.id, createSecretKey(k.key)]))
  const active = { id: keys[0].id, key: byId.get(keys[0].id)! }
  const activeId = Buffer.from(active.id, 'utf8')
  const header = Buffer.concat([Buffer.from([VERSION, activeId.length]), activeId])
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
    open<T>(context: string, token: string): T | undefined {
      if (typeof token !== 'string' || token.length < 40 || token.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(token)) {
        return undefined
      }
      const raw = Buffer.from(token, 'base64url')
      if (raw[0] !== VERSION) return undefined
      const idLength = raw[1]
      const headerLength = 2 + idLength
      if (raw.length < headerLength + 12 + 16 + 1) return undefined
      const key = byId.get(raw.subarray(2, headerLength).toString('utf8'))
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
