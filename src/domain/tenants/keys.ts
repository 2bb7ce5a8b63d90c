import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Environment } from '../../contract/access.ts'
import type { KeyType } from './permissions.ts'

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'
export const KEY_ID_LENGTH = 16
/** What ids of tenants and keys look like: anything else names none, and is answered without asking the store. */
export const TENANT_ID = /^ten_[A-Za-z0-9]{16}$/
export const KEY_ID = /^key_[A-Za-z0-9]{16}$/
const SECRET_LENGTH = 32

export function keyPrefix(type: KeyType, environment: Environment): string {
  if (type === 'secret') return environment === 'live' ? 'svc_live_' : 'svc_test_'
  return environment === 'live' ? 'svc_pk_live_' : 'svc_pk_test_'
}

/** Longest first, so `svc_pk_live_` is not read as something shorter. */
const PREFIXES: { prefix: string; type: KeyType; environment: Environment }[] = (
  [
    ['secret', 'live'],
    ['secret', 'test'],
    ['publishable', 'live'],
    ['publishable', 'test'],
  ] as const
)
  .map(([type, environment]) => ({ prefix: keyPrefix(type, environment), type, environment }))
  .sort((a, b) => b.prefix.length - a.prefix.length)

export function randomString(length: number): string {
  const bytes = randomBytes(length * 2)
  let out = ''
  // Rejection sampling keeps every character equally likely.
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    if (bytes[i] < 256 - (256 % ALPHABET.length)) out += ALPHABET[bytes[i] % ALPHABET.length]
  }
  return out.length === length ? out : out + randomString(length - out.length)
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex')

export function generateKey(type: KeyType, environment: Environment) {
  const lookupId = randomString(KEY_ID_LENGTH)
  const prefix = keyPrefix(type, environment)
  const secret = `${prefix}${lookupId}${randomString(SECRET_LENGTH)}`
  return { id: `key_${lookupId}`, prefix, secret, hash: hashKey(secret), lastFour: secret.slice(-4) }
}

export interface ParsedKey {
  id: string
  type: KeyType
  environment: Environment
}

/** The key's id, type and environment as its text claims them; undefined when it cannot be one of our keys. */
export function parseKey(key: string): ParsedKey | undefined {
  const match = PREFIXES.find((p) => key.startsWith(p.prefix))
  if (!match) return undefined
  const rest = key.slice(match.prefix.length)
  if (rest.length !== KEY_ID_LENGTH + SECRET_LENGTH || !/^[A-Za-z0-9]+$/.test(rest)) return undefined
  return { id: `key_${rest.slice(0, KEY_ID_LENGTH)}`, type: match.type, environment: match.environment }
}

export function hashesEqual(presentedHash: string, storedHash: string): boolean {
  const a = Buffer.from(presentedHash, 'hex')
  const b = Buffer.from(storedHash, 'hex')
  return a.length === b.length && timingSafeEqual(a, b)
}
