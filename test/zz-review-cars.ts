import { BER_AIRPORT, BERLIN, DRIVER, near, period } from './helpers/cars.ts'
import { createTenant, startHarness } from './helpers/harness.ts'

const h = await startHarness()
const t = await createTenant(h)
const out: any[] = []
const log = (label: string, res: any, pick?: (b: any) => any) => {
  const b = res.body
  const summary = b?.success === false ? { code: b.error.code, details: b.error.details } : pick ? pick(b) : undefined
  console.log(`## ${label}: ${res.status}`, JSON.stringify(summary)?.slice(0, 600) ?? '')
}
const S = (body: any, key = t.secret, headers?: any) =>
  h.api('POST', '/cars', key, { pickup: near(), dates: period(h), ...body }, headers)

let r = await S({ estimatedKilometers: 100, limit: 3 })
log('search basic', r, (b) => ({
  dataKeys: Object.keys(b.data),
  metaKeys: Object.keys(b.meta),
  offerKeys: Object.keys(b.data.offers[0]),
  pag: b.data.pagination,
  veh: b.data.offers[0].vehicle,
  loc: b.data.offers[0].pickupLocation,
}))
console.log(
  JSON.stringify(r.body.data.offers[0].price),
  JSON.stringify(r.body.data.offers[0].availableUpsells?.[0]),
  JSON.stringify(r.body.data.offers[0].recommendation),
)
const next = r.body.data.pagination.nextCursor
log('page2', await S({ estimatedKilometers: 100, limit: 3, cursor: next }), (b) => b.data.pagination)
log('limit 100 all', await S({ limit: 100 }), (b) => ({ n: b.data.offers.length, pag: b.data.pagination }))
log('limit 101', await S({ limit: 101 }))
log('limit 0', await S({ limit: 0 }))
log('unknown top field', await S({ foo: 1 }))
log('filters unknown', await S({ filters: { colour: 'red' } }))
log('filters minSeats 16', await S({ filters: { minSeats: 16 } }))
log('filters minDoors 7', await S({ filters: { minDoors: 7 } }))
log('filters empty category []', await S({ filters: { category: [] } }))
log('sortBy bad', await S({ sortBy: 'CHEAPEST' }))
log('radius 50001', await S({ pickup: near(BERLIN, 50001) }))
log('radius 50000', await S({ pickup: near(BERLIN, 50000), limit: 1 }), (b) => b.data.pagination)
log('radius 0', await S({ pickup: near(BERLIN, 0) }))
log('walking 61', await S({ pickup: { type: 'coordinates', coordinates: BERLIN, walkingTimeMinutes: 61 } }))
log(
  'walking 60',
  await S({ pickup: { type: 'coordinates', coordinates: BERLIN, walkingTimeMinutes: 60 }, limit: 1 }),
  (b) => b.data.pagination,
)
log('lat 91', await S({ pickup: near({ latitude: 91, longitude: 13 }) }))
log('type bad', await S({ pickup: { type: 'city', name: 'Berlin' } }))
log('pickup missing coordinates', await S({ pickup: { type: 'coordinates' } }))
log('place bad pattern', await S({ pickup: { type: 'place', placeId: 'X_123' } }))
log('place unknown valid pattern', await S({ pickup: { type: 'place', placeId: 'p_zzz' } }))
log(
  'address',
  await S({ pickup: { type: 'address', address: 'Alexanderplatz, Berlin' }, limit: 1 }),
  (b) => b.data.offers.length,
)
log('address unknown', await S({ pickup: { type: 'address', address: 'qwxzv nowhere 99999' } }))
log('missing pickup', await h.api('POST', '/cars', t.secret, { dates: period(h) }))
log('missing dates', await h.api('POST', '/cars', t.secret, { pickup: near() }))
const p = period(h)
log('start past', await S({ dates: { start: new Date(h.clock().getTime() - 3600e3).toISOString(), end: p.end } }))
log('end before start', await S({ dates: { start: p.end, end: p.start } }))
log('garbage date', await S({ dates: { start: 'tomorrow', end: p.end } }))
log(
  'no tz date',
  await S({ dates: { start: p.start.replace('.000Z', ''), end: p.end.replace('.000Z', '') }, limit: 1 }),
  (b) => b.data.searchedPeriod,
)
log(
  'date-only',
  await S({ dates: { start: p.start.slice(0, 10), end: p.end.slice(0, 10) }, limit: 1 }),
  (b) => b.data.searchedPeriod,
)
log('driverAge 15', await S({ driverAge: 15 }))
log('driverAge 17', await S({ driverAge: 17 }))
log('driverAge 16', await S({ driverAge: 16 }))
log('driverAge 121', await S({ driverAge: 121 }))
log('driverAge 20', await S({ driverAge: 20, limit: 1 }), (b) => b.data.offers.length)
log('driverAge 25.5', await S({ driverAge: 25.5 }))
log('estKm -1', await S({ estimatedKilometers: -1 }))
log('estKm 0', await S({ estimatedKilometers: 0, limit: 1 }), (b) => !!b.data.offers[0].price)
log('no offers (ocean)', await S({ pickup: near({ latitude: 0, longitude: -30 }, 1000) }))
log('cursor garbage', await S({ cursor: 'abc' }))
log(
  'dropoff one-way',
  await S({ dropoff: near({ latitude: 48.1402, longitude: 11.5586 }, 5000), limit: 1 }),
  (b) => b.data.offers.length,
)
log(
  'content-type text',
  await h.request({
    method: 'POST',
    url: '/mobility-api/v2/cars',
    key: t.secret,
    payload: 'x',
    headers: { 'content-type': 'text/plain' },
  }),
)

// stations
log('stations', await h.api('GET', `/cars/stations?latitude=52.52&longitude=13.405&limit=2`, t.secret), (b) => ({
  keys: Object.keys(b.data),
  st: b.data.stations[0],
  pag: b.data.pagination,
}))
log(
  'stations radius alias',
  await h.api('GET', `/cars/stations?latitude=52.52&longitude=13.405&radius=1000`, t.secret),
  (b) => b.data.stations.length,
)
log(
  'stations radiusMeters',
  await h.api('GET', `/cars/stations?latitude=52.52&longitude=13.405&radiusMeters=1000`, t.secret),
  (b) => b.data.stations.length,
)
log('stations limit 101', await h.api('GET', `/cars/stations?latitude=52.52&longitude=13.405&limit=101`, t.secret))
log('stations no lat', await h.api('GET', `/cars/stations?longitude=13.405`, t.secret))
log('stations lat 100', await h.api('GET', `/cars/stations?latitude=100&longitude=13.405`, t.secret))
log(
  'stations radius 60000',
  await h.api('GET', `/cars/stations?latitude=52.52&longitude=13.405&radius=60000`, t.secret),
)
log(
  'stations unknown param',
  await h.api('GET', `/cars/stations?latitude=52.52&longitude=13.405&provider=sandbox-rent`, t.secret),
)

// offer details, prebook, booking
r = await S({ estimatedKilometers: 100, limit: 100 })
const rent = r.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
const share = r.body.data.offers.find((o: any) => o.provider.id === 'sandbox-share')
const rent2 = r.body.data.offers.filter((o: any) => o.provider.id === 'sandbox-rent')[1]
log('offer-details', await h.api('POST', '/cars/offer-details', t.secret, { offerToken: rent.offerToken }), (b) => ({
  keys: Object.keys(b.data),
  cp: b.data.cancellationPolicy,
  ch: b.data.changePolicies?.[0],
  pr: b.data.pickupRequirements?.[0],
  up: b.data.upsells?.[0],
}))
log(
  'prebook APP on rent',
  await h.api('POST', '/cars/prebook', t.secret, { offerToken: rent2.offerToken, accessMethod: 'APP' }),
)
let pre = await h.api('POST', '/cars/prebook', t.secret, { offerToken: rent.offerToken })
log('prebook', pre, (b) => ({ keys: Object.keys(b.data), req: b.data.requiredFields, app: b.data.appAccessAvailable }))
log('prebook again', await h.api('POST', '/cars/prebook', t.secret, { offerToken: rent.offerToken }))
log('prebook garbage', await h.api('POST', '/cars/prebook', t.secret, { offerToken: 'garbage' }))
log('prebook missing token', await h.api('POST', '/cars/prebook', t.secret, {}))
log(
  'book missing driver',
  await h.api('POST', '/cars/bookings', t.secret, { prebookedOfferToken: pre.body.data.prebookedOfferToken }),
)
log(
  'book driver no email',
  await h.api('POST', '/cars/bookings', t.secret, {
    prebookedOfferToken: pre.body.data.prebookedOfferToken,
    driver: { firstName: 'A', lastName: 'B' },
  }),
)
log(
  'book with offerToken',
  await h.api('POST', '/cars/bookings', t.secret, { prebookedOfferToken: rent2.offerToken, driver: DRIVER }),
)
let bk = await h.api('POST', '/cars/bookings', t.secret, {
  prebookedOfferToken: pre.body.data.prebookedOfferToken,
  driver: DRIVER,
})
log('book', bk, (b) => ({
  keys: Object.keys(b.data),
  id: b.data.bookingId,
  st: b.data.status,
  hist: b.data.statusHistory,
  driver: b.data.driver,
  op: b.data.offerPrice,
  cr: b.data.chargedRate,
}))
log(
  'book again',
  await h.api('POST', '/cars/bookings', t.secret, {
    prebookedOfferToken: pre.body.data.prebookedOfferToken,
    driver: DRIVER,
  }),
)
const id = bk.body.data.bookingId
log('get', await h.api('GET', `/cars/bookings/${id}`, t.secret), (b) => b.data.status)
log('get unknown', await h.api('GET', `/cars/bookings/ABCDEFGHJK`, t.secret))
log('get other tenant', await h.api('GET', `/cars/bookings/${id}`, (await createTenant(h)).secret))
const np = period(h, 96, 2)
log('patch rentalPeriod', await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { rentalPeriod: np }), (b) => ({
  rp: b.data.rentalPeriod,
  hist: b.data.statusHistory,
}))
log('patch driver rent', await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { driver: { firstName: 'X' } }))
log('patch empty', await h.api('PATCH', `/cars/bookings/${id}`, t.secret, {}))
log(
  'patch past',
  await h.api('PATCH', `/cars/bookings/${id}`, t.secret, {
    rentalPeriod: { start: '2001-01-01T00:00:00Z', end: '2001-01-02T00:00:00Z' },
  }),
)
log('vehicle-action rent', await h.api('POST', `/cars/bookings/${id}/vehicle-action`, t.secret, { action: 'UNLOCK' }))
log('cancel', await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret, {}), (b) => ({
  st: b.data.status,
  c: b.data.cancellation,
  fee: b.data.fee,
  hist: b.data.statusHistory,
}))
log('cancel again', await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret), (b) => ({
  st: b.data.status,
  c: b.data.cancellation,
}))
log('patch after cancel', await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { rentalPeriod: np }))
log('list', await h.api('GET', `/bookings`, t.secret), (b) => ({
  keys: Object.keys(b.data),
  pag: b.data.pagination,
  n: b.data.bookings.length,
}))
log('list limit 101', await h.api('GET', `/bookings?limit=101`, t.secret))
log('list page -1', await h.api('GET', `/bookings?page=-1`, t.secret))
log('list page 99', await h.api('GET', `/bookings?page=99`, t.secret), (b) => ({
  pag: b.data.pagination,
  n: b.data.bookings.length,
}))

// share
pre = await h.api('POST', '/cars/prebook', t.secret, { offerToken: share.offerToken, accessMethod: 'APP' })
log('prebook share APP', pre, (b) => b.data.appAccessAvailable)
bk = await h.api('POST', '/cars/bookings', t.secret, {
  prebookedOfferToken: pre.body.data.prebookedOfferToken,
  driver: DRIVER,
  accessMethod: 'APP',
})
log('book share', bk, (b) => ({ st: b.data.status, am: b.data.accessMethod }))
log(
  'vehicle-action share early',
  await h.api('POST', `/cars/bookings/${bk.body.data.bookingId}/vehicle-action`, t.secret, { action: 'UNLOCK' }),
)
log(
  'vehicle-action bad',
  await h.api('POST', `/cars/bookings/${bk.body.data.bookingId}/vehicle-action`, t.secret, { action: 'FLY' }),
)

// airport
r = await S({ pickup: near(BER_AIRPORT, 2000), estimatedKilometers: 10, limit: 5 })
const air = r.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
pre = await h.api('POST', '/cars/prebook', t.secret, { offerToken: air.offerToken })
log(
  'book airport no flight',
  await h.api('POST', '/cars/bookings', t.secret, {
    prebookedOfferToken: pre.body.data.prebookedOfferToken,
    driver: DRIVER,
  }),
)
log(
  'book airport flight',
  await h.api('POST', '/cars/bookings', t.secret, {
    prebookedOfferToken: pre.body.data.prebookedOfferToken,
    driver: DRIVER,
    additionalFields: { flightNumber: 'LH 123' },
  }),
  (b) => b.data.status,
)

// late cancel: booking starting in 24h
r = await h.api('POST', '/cars', t.secret, {
  pickup: near(),
  dates: period(h, 24, 2),
  estimatedKilometers: 10,
  limit: 50,
})
const late = r.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
pre = await h.api('POST', '/cars/prebook', t.secret, { offerToken: late.offerToken })
bk = await h.api('POST', '/cars/bookings', t.secret, {
  prebookedOfferToken: pre.body.data.prebookedOfferToken,
  driver: DRIVER,
})
log(
  'late cancel',
  await h.api('POST', `/cars/bookings/${bk.body.data.bookingId}/cancel`, t.secret, { reason: 'x' }),
  (b) => ({ st: b.data.status, c: b.data.cancellation }),
)

// expiry
r = await S({ limit: 1 })
const tok = r.body.data.offers[0].offerToken
h.clock.advance(1201e3)
log('prebook expired', await h.api('POST', '/cars/prebook', t.secret, { offerToken: tok }))

// NONE tenant
const n = await createTenant(h, { dataRetention: 'NONE' })
log('auth check NONE', await h.api('GET', '/auth/check', n.secret), (b) => b.data)
r = await S({ estimatedKilometers: 10, limit: 50 }, n.secret)
const no = r.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
pre = await h.api('POST', '/cars/prebook', n.secret, { offerToken: no.offerToken })
bk = await h.api('POST', '/cars/bookings', n.secret, {
  prebookedOfferToken: pre.body.data.prebookedOfferToken,
  driver: DRIVER,
})
log('NONE book', bk, (b) => ({
  id: b.data.bookingId.slice(0, 12),
  keys: Object.keys(b.data),
  driver: b.data.driver,
  op: b.data.offerPrice,
  cr: b.data.chargedRate,
}))
const zid = bk.body.data.bookingId
log('NONE get', await h.api('GET', `/cars/bookings/${zid}`, n.secret), (b) => ({
  driver: b.data.driver,
  op: b.data.offerPrice,
  cr: b.data.chargedRate,
  hist: b.data.statusHistory,
}))
log('NONE get other tenant', await h.api('GET', `/cars/bookings/${zid}`, t.secret))
log('NONE patch driver', await h.api('PATCH', `/cars/bookings/${zid}`, n.secret, { driver: { firstName: 'Z' } }))
log('NONE patch notes', await h.api('PATCH', `/cars/bookings/${zid}`, n.secret, { notes: 'z' }))
log(
  'NONE patch rp',
  await h.api('PATCH', `/cars/bookings/${zid}`, n.secret, { rentalPeriod: period(h, 100, 2) }),
  (b) => b.data.rentalPeriod,
)
log('NONE list', await h.api('GET', `/bookings`, n.secret))
log('NONE cancel', await h.api('POST', `/cars/bookings/${zid}/cancel`, n.secret), (b) => ({
  st: b.data.status,
  c: b.data.cancellation,
}))
log('no auth', await h.api('POST', '/cars', undefined, {}))
log('bad key', await h.api('POST', '/cars', 'svc_live_nope', {}))
await h.close()
