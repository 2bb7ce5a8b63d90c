import { createHash } from 'node:crypto'
import { ApiError } from '../contract/errors.ts'
import { detail } from '../platform/i18n/texts.ts'

/**
 * The rules of `Idempotency-Key` that need no store: what a valid key is, when two requests are the same request,
 * which answers are kept, and what of an answer is personal.
 */

export const IDEMPOTENCY_HEADER = 'idempotency-key'
/** 1 to 255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/
export const IDEMPOTENCY_KEY_RULE = detail('IDEMPOTENCY_KEY_RULE')

/** The client's key, undefined without the header; 400 INVALID_REQUEST naming the header for anything else. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  if (typeof header === 'string' && IDEMPOTENCY_KEY_PATTERN.test(header)) return header
  throw new ApiError('INVALID_REQUEST', undefined, { 'Idempotency-Key': IDEMPOTENCY_KEY_RULE })
}

/**
 * JSON with the keys of every object sorted (arrays keep their order), so that bodies that differ only in the order
 * of their keys, or in white space, or in how a character or number is escaped or written (`1.0` and `1`) are one
 * request. Values compare exactly otherwise: `"1"` and `1` differ, and so do `[1, 2]` and `[2, 1]`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const object = value as Record<string, unknown>
  const keys = Object.keys(object).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/**
 * What makes two requests the same: method, path with its query string and body (canonical JSON; a missing body is
 * `{}`, as the validation reads it). Throws 400 for a body too deeply nested to compare.
 */
export function describeRequest(method: string, url: string, body: unknown): string {
  try {
    return `${method}\n${url}\n${canonicalJson(body ?? {})}`
  } catch (error) {
    if (error instanceof RangeError) {
      throw new ApiError('INVALID_REQUEST', undefined, { body: detail('NESTED_TOO_DEEPLY') })
    }
    throw error
  }
}

/** The request as kept: a salted hash, so no body (and nothing personal in it) is stored. */
export const fingerprintOf = (salt: string, description: string) => sha256(`${salt}\n${description}`)

/** The row id of a key: scoped to the API key (and so to its tenant and environment); the key itself is not stored. */
export const scopeIdOf = (apiKeyId: string, key: string) => sha256(`${apiKeyId}\n${key}`)

/**
 * Statuses never kept: the request was refused as sent before anything was done (400 validation and refusals of the
 * input, 401, 403, 405, 408, 413 and 415, 429), so repeating it (or sending it corrected, under the same key) is safe.
 */
const REFUSED_AS_SENT = new Set([400, 401, 403, 405, 408, 413, 415, 429])

/**
 * Whether an answer is kept for replay: 2xx, and 4xx the work itself produced (404 OFFER_EXPIRED, 409
 * OFFER_TOKEN_ALREADY_USED, 422 ...). Not 5xx, not what was refused as sent, and not an answer that tells the client
 * to retry (`details.retryable: true`, such as 409 BOOKING_IN_PROGRESS), which a replay would repeat for a day.
 */
export function keepsAnswer(status: number, body: string): boolean {
  if (status >= 500 || REFUSED_AS_SENT.has(status)) return false
  if (status < 400) return true
  try {
    const parsed = JSON.parse(body) as { error?: { details?: { retryable?: unknown } } }
    return parsed?.error?.details?.retryable !== true
  } catch {
    return false
  }
}

/** Keys that hold a person's data wherever they appear in an answer. */
const PERSONAL_KEYS = new Set([
  'firstName',
  'lastName',
  'dateOfBirth',
  'licenseNumber',
  'licenceNumber',
  'identification',
  'holderName',
  'userEmail',
  'userName',
  'userLocation',
  'pin',
  // Free answers and free text may hold anything (a flight number, a name).
  'additionalFields',
  'notes',
])
/** Objects that describe a person: inside them, contact data and names are personal too. */
const PERSON_OBJECTS = new Set([
  'driver',
  'customer',
  'holder',
  'passenger',
  'passengers',
  'traveller',
  'travellers',
  'rider',
  'user',
])
const CONTACT_KEYS = new Set(['email', 'phone', 'name', 'address', 'contact'])

/**
 * The answer without personal fields (retention NONE): names, e-mail addresses, phone numbers, dates of birth,
 * licence and identification numbers, the rider's location, free answers and notes. `removed` says whether any were.
 */
export function withoutPersonalData(value: unknown): { value: unknown; removed: boolean } {
  let removed = false
  const walk = (node: unknown, person: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, person))
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(node)) {
      if (PERSONAL_KEYS.has(key) || (person && CONTACT_KEYS.has(key))) {
        removed = true
        continue
      }
      out[key] = walk(child, person || PERSON_OBJECTS.has(key))
    }
    return out
  }
  const result = walk(value, false)
  return { value: result, removed }
}
