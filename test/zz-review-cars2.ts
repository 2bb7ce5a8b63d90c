import { DRIVER, near, period } from './helpers/cars.ts'
import { createTenant, startHarness } from './helpers/harness.ts'

const h = await startHarness()
const t = await createTenant(h)
const S = (body: any, key = t.secret, headers?: any) =>
  h.api('POST', '/cars', key, { pickup: near(), dates: period(h), ...body }, headers)
let r = await S({ limit: 100 })
const codes: Record<string, number> = {}
for (const o of r.body.data.offers)
  codes[o.recommendation?.reasonCode + ' ' + Object.keys(o.recommendation?.factors ?? {}).join('/')] =
    (codes[o.recommendation?.reasonCode + ' ' + Object.keys(o.recommendation?.factors ?? {}).join('/')] ?? 0) + 1
console.log('unpriced reasons', codes)
r = await S({ limit: 5, sortBy: 'PRICE_LOW_TO_HIGH', estimatedKilometers: 10 })
console.log(
  'sorted',
  r.body.data.offers.map((o: any) => o.price.totalPrice.amount),
)
r = await S({ limit: 5, sortBy: 'DISTANCE' })
console.log(
  'dist',
  r.body.data.offers.map((o: any) => o.distanceFromSearch),
)
// all providers fail
r = await S({ limit: 5 }, t.test, { 'X-Sandbox-Scenario': 'provider-error:sandbox-rent,provider-error:sandbox-share' })
console.log('all fail', r.status, JSON.stringify(r.body.data ?? r.body.error).slice(0, 400))
// last page cursor
r = await S({ limit: 50 })
let c = r.body.data.pagination.nextCursor
r = await S({ limit: 50, cursor: c })
console.log('last page', r.status, r.body.data.offers.length, JSON.stringify(r.body.data.pagination))
// cursor after 31 minutes
r = await S({ limit: 5 })
c = r.body.data.pagination.nextCursor
h.clock.advance(31 * 60e3)
r = await S({ limit: 5, cursor: c })
console.log('cursor after 31 min', r.status, JSON.stringify(r.body.error ?? r.body.data.pagination))
// cursor with changed params
r = await S({ limit: 5 })
c = r.body.data.pagination.nextCursor
r = await S({ limit: 5, cursor: c, driverAge: 30 })
console.log('changed params', r.status, r.body.data?.offers?.length)
// GET booking provider error
r = await S({ limit: 50, estimatedKilometers: 1 }, t.test)
const o = r.body.data.offers.find((x: any) => x.provider.id === 'sandbox-rent')
const pre = await h.api('POST', '/cars/prebook', t.test, { offerToken: o.offerToken })
const bk = await h.api('POST', '/cars/bookings', t.test, {
  prebookedOfferToken: pre.body.data.prebookedOfferToken,
  driver: DRIVER,
})
const id = bk.body.data.bookingId
const err = { 'X-Sandbox-Scenario': 'provider-error:sandbox-rent' }
for (const [m, p, b] of [
  ['GET', `/cars/bookings/${id}`],
  ['PATCH', `/cars/bookings/${id}`, { rentalPeriod: period(h, 100, 1) }],
  ['POST', `/cars/bookings/${id}/cancel`, {}],
  ['POST', `/cars/bookings/${id}/vehicle-action`, { action: 'LOCK' }],
] as any[]) {
  r = await h.api(m, p, t.test, b, err)
  console.log('provider-error', m, p.split('/').slice(3).join('/'), r.status, r.body.error?.code)
  r = await h.api(m, p, t.test, b, { 'X-Sandbox-Scenario': 'provider-timeout:sandbox-rent' })
  console.log('provider-timeout', m, p.split('/').slice(3).join('/'), r.status, r.body.error?.code)
}
r = await h.api(
  'POST',
  `/cars/bookings/${id}/cancel`,
  t.test,
  {},
  { 'X-Sandbox-Scenario': 'cancel-refused:sandbox-rent' },
)
console.log('cancel refused', r.status, r.body.error?.code)
// prebook provider error/timeout; book provider error
r = await S({ limit: 50, estimatedKilometers: 1 }, t.test)
const o2 = r.body.data.offers.filter((x: any) => x.provider.id === 'sandbox-rent')[3]
r = await h.api('POST', '/cars/prebook', t.test, { offerToken: o2.offerToken }, err)
console.log('prebook provider-error', r.status, r.body.error?.code)
r = await h.api('POST', '/cars/offer-details', t.test, { offerToken: o2.offerToken }, err)
console.log('details provider-error', r.status, r.body.error?.code)
const pre2 = await h.api('POST', '/cars/prebook', t.test, { offerToken: o2.offerToken })
console.log('prebook after error', pre2.status)
r = await h.api(
  'POST',
  '/cars/bookings',
  t.test,
  { prebookedOfferToken: pre2.body.data.prebookedOfferToken, driver: DRIVER },
  err,
)
console.log('book provider-error', r.status, r.body.error?.code)
r = await h.api(
  'POST',
  '/cars/bookings',
  t.test,
  { prebookedOfferToken: pre2.body.data.prebookedOfferToken, driver: DRIVER },
  { 'X-Sandbox-Scenario': 'booking-fails:sandbox-rent' },
)
console.log('book booking-fails', r.status, r.body.error?.code)
r = await h.api('POST', '/cars/bookings', t.test, {
  prebookedOfferToken: pre2.body.data.prebookedOfferToken,
  driver: DRIVER,
})
console.log('book after failures', r.status, r.body.data?.status)
// prebooked token expired
r = await S({ limit: 50, estimatedKilometers: 1 }, t.test)
const o3 = r.body.data.offers.filter((x: any) => x.provider.id === 'sandbox-rent')[5]
const pre3 = await h.api('POST', '/cars/prebook', t.test, { offerToken: o3.offerToken })
h.clock.advance(1300e3)
r = await h.api('POST', '/cars/bookings', t.test, {
  prebookedOfferToken: pre3.body.data.prebookedOfferToken,
  driver: DRIVER,
})
console.log('book expired prebooked', r.status, r.body.error?.code)
// publishable key cannot book / read bookings
r = await h.api('GET', '/bookings', t.publishable, undefined, { origin: 'https://x.example' })
console.log('pk list', r.status, r.body.error?.code, JSON.stringify(r.body.error?.details))
// list item keys
r = await h.api('GET', '/bookings', t.test)
console.log('list item keys', Object.keys(r.body.data.bookings[0]).join(','))
// method not allowed
r = await h.api('DELETE', `/cars/bookings/${id}`, t.test)
console.log('DELETE booking', r.status, r.body.error?.code)
await h.close()
