import { refCodec } from '../common.ts'

/**
 * Everything an offer is made of, so any instance can rebuild it from the reference alone (no server-side state):
 * stations, vehicle model, the (rounded) period, the search's kilometres and driver age, and the distance shown.
 */
export interface OfferParams {
  /** Pickup station id. */
  s: string
  /** Dropoff station id (the pickup station for round trips). */
  d: string
  /** Vehicle model id. */
  m: string
  /** Start and end, ISO 8601 UTC. */
  a: string
  b: string
  /** Estimated kilometres (0 when not sent). */
  k: number
  /** Driver age, when sent. */
  g?: number
  /** Distance from the searched point, meters. */
  x: number
}

/** A prebooked offer: the offer plus the chosen upsells, the rate drift, the final total and the access method. */
export interface PrebookParams {
  o: OfferParams
  u: string[]
  /** Rate drift in percent (price moved between search and prebook). */
  r: number
  /** Final total in minor units, as prebook answered it. */
  t: number
  p?: 'APP'
}

const isIso = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v))

function isOfferParams(v: unknown): v is OfferParams {
  if (!v || typeof v !== 'object') return false
  const o = v as Record<string, unknown>
  return (
    typeof o.s === 'string' &&
    typeof o.d === 'string' &&
    typeof o.m === 'string' &&
    isIso(o.a) &&
    isIso(o.b) &&
    typeof o.k === 'number' &&
    (o.g === undefined || typeof o.g === 'number') &&
    typeof o.x === 'number'
  )
}

function isPrebookParams(v: unknown): boolean {
  const value = v as Partial<PrebookParams>
  return (
    isOfferParams(value.o) &&
    Array.isArray(value.u) &&
    value.u.every((u) => typeof u === 'string') &&
    typeof value.r === 'number' &&
    typeof value.t === 'number' &&
    (value.p === undefined || value.p === 'APP')
  )
}

const offerRefs = refCodec<OfferParams>('o1.', 'offer', isOfferParams)
const prebookRefs = refCodec<PrebookParams>('p1.', 'prebooked offer', isPrebookParams)

export const encodeOfferRef = offerRefs.encode
export const decodeOfferRef = offerRefs.decode
export const encodePrebookRef = prebookRefs.encode
export const decodePrebookRef = prebookRefs.decode
