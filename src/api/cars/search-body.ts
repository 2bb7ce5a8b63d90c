import fastJson from 'fast-json-stringify'
import { Type } from 'typebox'
import type { ProviderCarOffer } from '../../connectors/types/cars.ts'
import { CarOffer, CarSearchResult, Recommendation } from '../../contract/cars.ts'
import { ProviderDisplay } from '../../contract/shared.ts'
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
const rest = fastJson(Type.Omit(CarSearchResult, ['offers']) as object)
const meta = fastJson(
  Type.Object({ requestId: Type.String(), timestamp: Type.String({ format: 'date-time' }) }) as object,
)

const providerFields = fastJson(ProviderDisplay as object)
const recommendationFields = fastJson(Recommendation as object)
/** Serialized provider displays, kept beside frozen ones (one per provider, shared by every search: see present.ts). */
const providerCache = new WeakMap<object, string>()

function providerPart(provider: ProviderDisplay): string {
  const cached = providerCache.get(provider)
  if (cached !== undefined) return cached
  const json = providerFields(provider)
  if (Object.isFrozen(provider)) providerCache.set(provider, json)
  return json
}

/**
 * The request's own fields of an offer, in the schema's order, as requestFields writes them: the token (base64url)
 * and its validity (an ISO date) are this service's own texts with nothing to escape, the provider's JSON is kept
 * per provider, and the recommendation goes through its own compiled serializer.
 */
function requestPart(offer: PresentedOffer): string {
  const recommendation = offer.recommendation ? `,"recommendation":${recommendationFields(offer.recommendation)}` : ''
  return `"offerToken":"${offer.offerToken}","usableUntil":"${offer.usableUntil}","provider":${providerPart(offer.provider)}${recommendation}`
}

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

const HEAD = '{"success":true,"data":{"offers":['

export function carSearchBody(
  data: { offers: PresentedOffer[] } & Record<string, unknown>,
  envelope: { requestId: string; timestamp: string },
): Buffer {
  // Per offer: `{` + request fields + `,` + fixed fields + `}`; an offer always has fixed fields (vehicle, stations,
  // ...). The texts are measured first and everything is written into one buffer of that size: no Buffer per part.
  const n = data.offers.length
  const own = new Array<string>(n)
  const fixed = new Array<Buffer>(n)
  let size = HEAD.length
  for (let i = 0; i < n; i++) {
    const offer = data.offers[i]
    fixed[i] = fixedPart(offer)
    own[i] = `${i > 0 ? ',{' : '{'}${requestPart(offer)},`
    size += Buffer.byteLength(own[i]) + fixed[i].length + 1
  }
  const { offers: _, ...others } = data
  const tail = `],${members(rest(others))}},"meta":${meta(envelope)}}`
  size += Buffer.byteLength(tail)
  const out = Buffer.allocUnsafe(size)
  let at = out.write(HEAD, 0, 'latin1')
  for (let i = 0; i < n; i++) {
    at += out.write(own[i], at)
    at += fixed[i].copy(out, at)
    out[at++] = 0x7d // }
  }
  at += out.write(tail, at)
  return at === size ? out : out.subarray(0, at)
}
