import fastJson from 'fast-json-stringify'
import { Type } from 'typebox'
import type { ProviderMicroVehicle } from '../../connectors/types/micromobility.ts'
import { MicroSearchResult, MicroVehicle } from '../../contract/micromobility.ts'
import { ProviderRef } from '../../contract/shared.ts'
import type { SearchPage } from '../../domain/micromobility/vehicles.ts'

/**
 * The bytes of a POST /micromobility answer, written from the search page's hits without building the presented
 * vehicles. A vehicle's own fields (id, vehicle, location, availability, battery, pricing plan, deep links) are
 * serialized once per immutable (frozen) provider vehicle and kept beside it; per request only the provider (kept per
 * provider), the token, its validity and the distance are written. Every part goes through a serializer compiled
 * from the answer's own schema, so the bytes are what the route's serializer would write (the same fields, order and
 * formatting), and the texts are measured first and written into one buffer of that size.
 */
// The serializer writes an object's required fields first, then its optional ones, each in the schema's order:
// vehicleId, vehicle, location, isAvailable, provider | batteryPercent, pricingPlan, vehicleToken, tokenValidUntil,
// distanceFromSearch, deepLinks.
const head = fastJson(Type.Pick(MicroVehicle, ['vehicleId', 'vehicle', 'location', 'isAvailable']) as object)
const middle = fastJson(Type.Pick(MicroVehicle, ['batteryPercent', 'pricingPlan']) as object)
const links = fastJson(Type.Pick(MicroVehicle, ['deepLinks']) as object)
const providerRef = fastJson(ProviderRef as object)
const rest = fastJson(Type.Omit(MicroSearchResult, ['results']) as object)
const meta = fastJson(
  Type.Object({ requestId: Type.String(), timestamp: Type.String({ format: 'date-time' }) }) as object,
)

/** `{"a":1,"b":2}` → `"a":1,"b":2` (an object's members, to splice into another object). */
const members = (json: string) => json.slice(1, -1)

/** A vehicle's own fields: before the provider (`{"vehicleId":...`), after it (`,"batteryPercent":...`), and last. */
type Own = [before: Buffer, middle: Buffer, links: Buffer]
const ownCache = new WeakMap<ProviderMicroVehicle, Own>()

const frozen = (v: ProviderMicroVehicle) =>
  Object.isFrozen(v) &&
  (v.pricingPlan === undefined ||
    (Object.isFrozen(v.pricingPlan) &&
      Object.isFrozen(v.pricingPlan.unlockFee) &&
      Object.isFrozen(v.pricingPlan.perMinuteRate))) &&
  (v.deepLinks === undefined || Object.isFrozen(v.deepLinks))

function ownParts(v: ProviderMicroVehicle): Own {
  const cached = ownCache.get(v)
  if (cached) return cached
  // The same values the presented vehicle carries (vehicles.ts `present`).
  const shown = {
    vehicleId: v.vehicleId,
    vehicle: { type: v.type, propulsionType: v.propulsionType, name: v.name },
    location: { latitude: v.latitude, longitude: v.longitude, lastUpdated: v.lastUpdated },
    isAvailable: v.isAvailable,
  }
  const optional = members(middle({ batteryPercent: v.batteryPercent, pricingPlan: v.pricingPlan }))
  const link = v.deepLinks ? members(links({ deepLinks: v.deepLinks })) : ''
  const own: Own = [
    Buffer.from(`{${members(head(shown))},"provider":`),
    Buffer.from(optional && `,${optional}`),
    Buffer.from(`${link && `,${link}`}}`),
  ]
  // Only an immutable provider vehicle may keep its bytes: a mutable one could change under them.
  if (frozen(v)) ownCache.set(v, own)
  return own
}

/** Serialized provider references, per provider entry (checked against its id and name). */
const providerCache = new WeakMap<object, { id: string; name: string; bytes: Buffer }>()

function providerPart(entry: { id: string; name: string }): Buffer {
  const cached = providerCache.get(entry)
  if (cached && cached.id === entry.id && cached.name === entry.name) return cached.bytes
  const bytes = Buffer.from(providerRef({ id: entry.id, name: entry.name }))
  providerCache.set(entry, { id: entry.id, name: entry.name, bytes })
  return bytes
}

const HEAD = '{"success":true,"data":{"results":['

export function microSearchBody(page: SearchPage, envelope: { requestId: string; timestamp: string }): Buffer {
  // Per vehicle: own fields, provider, own fields, the request's fields (token, validity, distance), own fields; the
  // parts are measured first and copied into one buffer of the whole size.
  const n = page.hits.length
  const own = new Array<Own>(n)
  const providers = new Array<Buffer>(n)
  const dynamic = new Array<string>(n)
  let size = HEAD.length + Math.max(0, n - 1)
  // The validity is the same for every token of the page.
  const validity = `,"tokenValidUntil":${JSON.stringify(page.tokenValidUntil)}`
  for (let i = 0; i < n; i++) {
    const { p, v, d, vehicleToken } = page.hits[i]
    const parts = ownParts(v)
    own[i] = parts
    providers[i] = providerPart(p.entry)
    const token = vehicleToken === undefined ? '' : `,"vehicleToken":${JSON.stringify(vehicleToken)}${validity}`
    dynamic[i] = `${token},"distanceFromSearch":${Math.round(d)}`
    size += parts[0].length + providers[i].length + parts[1].length + Buffer.byteLength(dynamic[i]) + parts[2].length
  }
  const tail = `],${members(rest({ pagination: page.pagination, providers: page.providers }))}},"meta":${meta(envelope)}}`
  size += Buffer.byteLength(tail)
  const out = Buffer.allocUnsafe(size)
  let at = out.write(HEAD, 0, 'latin1')
  for (let i = 0; i < n; i++) {
    if (i > 0) out[at++] = 0x2c // ,
    const [before, after, last] = own[i]
    at += before.copy(out, at)
    at += providers[i].copy(out, at)
    at += after.copy(out, at)
    at += out.write(dynamic[i], at)
    at += last.copy(out, at)
  }
  at += out.write(tail, at)
  return at === size ? out : out.subarray(0, at)
}
