import { near, period, DRIVER } from './helpers/cars.ts'
import { createTenant, startHarness } from './helpers/harness.ts'
const h = await startHarness()
const t = await createTenant(h)
const t2 = await createTenant(h)
const S = (body: any, key: string, headers?: any) => h.api('POST', '/cars', key, { pickup: near(), dates: period(h), ...body }, headers)
const bookRent = async (key: string) => {
  const r = await S({ limit: 50, estimatedKilometers: 1 }, key)
  const o = r.body.data.offers.filter((x: any) => x.provider.id === 'sandbox-rent')[Math.floor(Math.random() * 10)]
  const pre = await h.api('POST', '/cars/prebook', key, { offerToken: o.offerToken })
  const bk = await h.api('POST', '/cars/bookings', key, { prebookedOfferToken: pre.body.data.prebookedOfferToken, driver: DRIVER })
  return bk.body.data.bookingId
}
const id = await bookRent(t.test)
const err = { 'X-Sandbox-Scenario': 'provider-error:sandbox-rent' }
for (let i = 0; i < 3; i++) {
  const r = await h.api('GET', `/cars/bookings/${id}`, t.test, undefined, err)
  console.log('GET provider-error #' + i, r.status, r.body.error?.code)
}
const id2 = await bookRent(t2.test)
let r = await h.api('POST', `/cars/bookings/${id2}/cancel`, t2.test, {}, { 'X-Sandbox-Scenario': 'cancel-refused:sandbox-rent' })
console.log('other tenant cancel-refused right after', r.status, r.body.error?.code)
r = await S({ limit: 5 }, t2.test, err)
console.log('other tenant search with provider-error', r.status, JSON.stringify(r.body.data.providers))
await new Promise((res) => setTimeout(res, 10_500))
r = await h.api('POST', `/cars/bookings/${id2}/cancel`, t2.test, {}, { 'X-Sandbox-Scenario': 'cancel-refused:sandbox-rent' })
console.log('cancel-refused after 10.5s', r.status, r.body.error?.code)
await h.close()
