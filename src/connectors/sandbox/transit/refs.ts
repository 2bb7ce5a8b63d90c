import type { TravellerCategory } from '../../types/public-transport.ts'
import { refCodec } from '../common.ts'

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

const CATEGORIES = new Set(['ADULT', 'CHILD', 'REDUCED'])

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

function isPrebookParams(v: unknown): boolean {
  const value = v as Partial<PrebookParams>
  return Array.isArray(value.o) && value.o.length > 0 && value.o.every(isOfferParams) && Number.isInteger(value.t)
}

const offerRefs = refCodec<OfferParams>('to1.', 'offer', isOfferParams)
const prebookRefs = refCodec<PrebookParams>('tp1.', 'prebooked offer', isPrebookParams)

export const encodeOfferRef = offerRefs.encode
export const decodeOfferRef = offerRefs.decode
export const encodePrebookRef = prebookRefs.encode
export const decodePrebookRef = prebookRefs.decode
