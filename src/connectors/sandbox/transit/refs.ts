import { ApiError } from '../../../http/errors.ts'
import type { TravellerCategory } from '../../types.ts'

/**
 * Offer and prebook references are self-contained (base64url JSON), so any instance can rebuild the offer without
 * server-side state. They hold no price: prices always come from the fare table.
 */
export interface OfferParams {
  /** Ticket product id (fares.ts). */
  p: string
  /** Traveller category. */
  c: TravellerCategory
  /** validFrom: the journey's departure, ISO 8601. */
  f: string
  /** Position of the traveller in the request, so two travellers of one category get two distinct offers. */
  n: number
}

export interface PrebookParams {
  o: OfferParams[]
  /** Total in cents as prebook answered it. */
  t: number
}

const OFFER_PREFIX = 'to1.'
const PREBOOK_PREFIX = 'tp1.'
const CATEGORIES = new Set(['ADULT', 'CHILD', 'REDUCED'])

const encode = (prefix: string, value: unknown) => prefix + Buffer.from(JSON.stringify(value)).toString('base64url')

function decode(prefix: string, ref: unknown): unknown {
  if (typeof ref !== 'string' || !ref.startsWith(prefix) || ref.length > 8_000) return undefined
  try {
    return JSON.parse(Buffer.from(ref.slice(prefix.length), 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

function isOfferParams(v: unknown): v is OfferParams {
  if (!v || typeof v !== 'object') return false
  const o = v as Record<string, unknown>
  return (
    typeof o.p === 'string' &&
    typeof o.c === 'string' &&
    CATEGORIES.has(o.c) &&
    typeof o.f === 'string' &&
    !Number.isNaN(Date.parse(o.f)) &&
    Number.isInteger(o.n) &&
    (o.n as number) >= 0
  )
}

const invalid = (what: string) =>
  new ApiError('INVALID_OFFER_TOKEN', `The ${what} reference is not one of this provider`)

export const encodeOfferRef = (params: OfferParams) => encode(OFFER_PREFIX, params)

export function decodeOfferRef(ref: string): OfferParams {
  const value = decode(OFFER_PREFIX, ref)
  if (!isOfferParams(value)) throw invalid('offer')
  return value
}

export const encodePrebookRef = (params: PrebookParams) => encode(PREBOOK_PREFIX, params)

export function decodePrebookRef(ref: string): PrebookParams {
  const value = decode(PREBOOK_PREFIX, ref) as Partial<PrebookParams> | undefined
  if (
    !value ||
    !Array.isArray(value.o) ||
    value.o.length === 0 ||
    !value.o.every(isOfferParams) ||
    !Number.isInteger(value.t)
  ) {
    throw invalid('prebooked offer')
  }
  return value as PrebookParams
}
