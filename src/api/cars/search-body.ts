import fastJson from 'fast-json-stringify'
import { Type } from 'typebox'
import type { ProviderCarOffer } from '../../connectors/types/cars.ts'
import { CarOffer, CarSearchResult } from '../../contract/cars.ts'
import { OFFER_SOURCE, type PresentedOffer } from '../../domain/cars/present.ts'

/**
 * The bytes of a POST /cars answer. A page is ~80 KB of which nearly all is the providers' fixed offer fields
 * (vehicle, stations, upsells, policies): those are serialized once per immutable (frozen) provider offer and kept
 * beside it; per request only the token, its validity, the provider and the recommendation are written. Every part
 * goes through a serializer compiled from the answer's own schema, so the bytes hold exactly what the schema allows
 * (no stray provider fields), as Fastify's response serializer would write them.
 */
const DYNAMIC = ['offerToken', 'usableUntil', 'provider', 'recommendation'] as const
const fixedFields = fastJson(Type.Omit(CarOffer, [...DYNAMIC]) as object)
const requestFields = fastJson(Type.Pick(CarOffer, [...DYNAMIC]) as object)
const rest = fastJson(Type.Omit(CarSearchResult, ['offers']) as object)
const meta = fastJson(
  Type.Object({ requestId: Type.String(), timestamp: Type.String({ format: 'date-time' }) }) as object,
)

/** Serialized fixed fields of frozen provider offers: [without price, with price]. */
const fixedCache = new WeakMap<ProviderCarOffer, [Buffer | undefined, Buffer | undefined]>()

/** `{"a":1,"b":2}` → `"a":1,"b":2` (an object's members, to splice into another object). */
const members = (json: string) => json.slice(1, -1)

function fixedPart(offer: PresentedOffer): Buffer {
  const source = offer[OFFER_SOURCE]
  const slot = offer.price ? 1 : 0
  const cached = source ? fixedCache.get(source)?.[slot] : undefined
  if (cached) return cached
  const { offerToken, usableUntil, provider, recommendation, ...fixed } = offer
  const bytes = Buffer.from(members(fixedFields(fixed)))
  // Only an immutable provider offer may keep its bytes: a mutable one could change under them.
  if (source && Object.isFrozen(source)) {
    const entry = fixedCache.get(source) ?? [undefined, undefined]
    entry[slot] = bytes
    fixedCache.set(source, entry)
  }
  return bytes
}

const HEAD = Buffer.from('{"success":true,"data":{"offers":[')
const CLOSE = Buffer.from('}')

export function carSearchBody(
  data: { offers: PresentedOffer[] } & Record<string, unknown>,
  envelope: { requestId: string; timestamp: string },
): Buffer {
  const parts: Buffer[] = [HEAD]
  data.offers.forEach((offer, i) => {
    const fixed = fixedPart(offer)
    const own = requestFields(offer)
    // `{` + request fields + `,` + fixed fields + `}`; an offer always has fixed fields (vehicle, stations, ...).
    parts.push(Buffer.from(`${i > 0 ? ',' : ''}${own.slice(0, -1)}${own.length > 2 ? ',' : ''}`), fixed, CLOSE)
  })
  const { offers: _, ...others } = data
  parts.push(Buffer.from(`],${members(rest(others))}},"meta":${meta(envelope)}}`))
  return Buffer.concat(parts)
}
