import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bookFirst } from '../helpers/cars.ts'
import { beginTrip, bookTickets } from '../helpers/flows.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

/** Every page of a cursor list, following nextCursor; answers the items in order and the pages' sizes. */
async function allPages(h: Harness, key: string, path: string, field: string) {
  const items: any[] = []
  const sizes: number[] = []
  let url = path
  for (let i = 0; i < 20; i++) {
    const res = await h.api('GET', url, key)
    assert.equal(res.status, 200, res.text)
    items.push(...res.body.data[field])
    sizes.push(res.body.data[field].length)
    const { hasMore, nextCursor } = res.body.data.pagination
    if (!hasMore) {
      assert.equal(nextCursor, undefined, 'no nextCursor on the last page')
      return { items, sizes }
    }
    url = `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(nextCursor)}`
  }
  throw new Error('the pages never ended')
}

const expectError = (res: { status: number; text: string; body: any }, status: number, code: string) => {
  assert.equal(res.status, status, res.text)
  assert.equal(res.body.success, false)
  assert.equal(res.body.error.code, code, res.text)
}

describe('GET /micromobility/trips', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  /** Trips A..E, created a second apart: A, B reserved, C active, D cancelled, E completed. */
  const ids: Record<string, string> = {}
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example.com'] })
    ids.A = (await beginTrip(h, t.test, 'RESERVE')).tripId
    h.clock.advance(1000)
    ids.B = (await beginTrip(h, t.test, 'RESERVE')).tripId
    h.clock.advance(1000)
    ids.C = (await beginTrip(h, t.test, 'START')).tripId
    h.clock.advance(1000)
    ids.D = (await beginTrip(h, t.test, 'RESERVE')).tripId
    assert.equal((await h.api('POST', `/micromobility/trips/${ids.D}/cancel`, t.test)).status, 200)
    h.clock.advance(1000)
    ids.E = (await beginTrip(h, t.test, 'START')).tripId
    assert.equal((await h.api('POST', `/micromobility/trips/${ids.E}/end`, t.test, {})).status, 200)
  })
  after(() => h.close())

  const list = (query = '', key = t.test) => h.api('GET', `/micromobility/trips${query}`, key)
  const tripIds = (res: any) => res.body.data.trips.map((x: any) => x.tripId)

  it('lists the tenant trips of the key environment newest first, as GET of each answers them', async () => {
    const res = await list()
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(tripIds(res), [ids.E, ids.D, ids.C, ids.B, ids.A])
    assert.deepEqual(res.body.data.pagination, { hasMore: false })
    assert.deepEqual(
      res.body.data.trips.map((x: any) => x.status),
      ['COMPLETED', 'CANCELLED', 'ACTIVE', 'RESERVED', 'RESERVED'],
    )
    const read = await h.api('GET', `/micromobility/trips/${ids.C}`, t.test)
    assert.deepEqual(res.body.data.trips[2], read.body.data)
    assert.equal(res.body.data.trips[0].priceBreakdown, undefined, 'without price, as a read')
  })

  it('filters by one or several statuses (repeated or comma separated)', async () => {
    assert.deepEqual(tripIds(await list('?status=RESERVED')), [ids.B, ids.A])
    assert.deepEqual(tripIds(await list('?status=RESERVED,ACTIVE')), [ids.C, ids.B, ids.A])
    assert.deepEqual(tripIds(await list('?status=CANCELLED&status=COMPLETED')), [ids.E, ids.D])
    assert.deepEqual(tripIds(await list('?status=PAUSED')), [])
  })

  it('pages with cursors: every trip once, in order, across pages', async () => {
    const { items, sizes } = await allPages(h, t.test, '/micromobility/trips?limit=2', 'trips')
    assert.deepEqual(
      items.map((x) => x.tripId),
      [ids.E, ids.D, ids.C, ids.B, ids.A],
    )
    assert.deepEqual(sizes, [2, 2, 1])
    const filtered = await allPages(h, t.test, '/micromobility/trips?limit=1&status=RESERVED,ACTIVE', 'trips')
    assert.deepEqual(
      filtered.items.map((x) => x.tripId),
      [ids.C, ids.B, ids.A],
    )
    // A trip created after the first page does not shift the pages that follow (the cursor is a position).
    const first = await list('?limit=2')
    const cursor = encodeURIComponent(first.body.data.pagination.nextCursor)
    h.clock.advance(1000)
    const newer = await beginTrip(h, t.test, 'RESERVE')
    const second = await list(`?limit=2&cursor=${cursor}`)
    assert.deepEqual(tripIds(second), [ids.C, ids.B])
    assert.ok(tripIds(await list('?limit=1')).includes(newer.tripId), 'a fresh first page shows it')
    assert.equal((await h.api('POST', `/micromobility/trips/${newer.tripId}/cancel`, t.test)).status, 200)
    // Other parameters with a cursor start a fresh first page (spec 8).
    const refiltered = await list(`?limit=2&status=RESERVED&cursor=${cursor}`)
    assert.deepEqual(tripIds(refiltered), [ids.B, ids.A])
  })

  it('another tenant and the other environment see none of them', async () => {
    const other = await createTenant(h)
    assert.deepEqual(tripIds(await list('', other.test)), [])
    assert.deepEqual(tripIds(await list('', t.secret)), [], 'live keys do not see test trips')
    const foreign = await list('?limit=1', t.test)
    const cursor = encodeURIComponent(foreign.body.data.pagination.nextCursor)
    expectError(await list(`?cursor=${cursor}`, other.test), 400, 'INVALID_CURSOR')
    expectError(await list(`?cursor=${cursor}`, t.secret), 400, 'INVALID_CURSOR')
  })

  it('refuses bad input: 400 for statuses, limits and cursors, 403 for publishable keys', async () => {
    expectError(await list('?status=FINISHED'), 400, 'INVALID_REQUEST')
    expectError(await list('?status=RESERVED,'), 400, 'INVALID_REQUEST')
    expectError(await list('?limit=0'), 400, 'INVALID_REQUEST')
    expectError(await list('?limit=101'), 400, 'INVALID_REQUEST')
    expectError(await list('?sort=asc'), 400, 'INVALID_REQUEST')
    const bad = await list('?cursor=not-a-cursor')
    expectError(bad, 400, 'INVALID_CURSOR')
    assert.equal(bad.body.error.details.cursor, 'is not a cursor of this key')
    const pk = await h.request({
      url: '/mobility-api/v2/micromobility/trips',
      key: t.testPublishable,
      headers: { origin: 'https://app.example.com' },
    })
    expectError(pk, 403, 'FORBIDDEN')
    assert.equal(pk.body.error.details.reason, 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY')
  })

  it('a cursor lasts 30 minutes from its page; reservations that ran out are listed as CANCELLED', async () => {
    const first = await list('?limit=1')
    const cursor = encodeURIComponent(first.body.data.pagination.nextCursor)
    h.clock.advance(31 * 60_000)
    const expired = await list(`?limit=1&cursor=${cursor}`)
    expectError(expired, 400, 'INVALID_CURSOR')
    assert.equal(expired.body.error.details.reason, 'CURSOR_EXPIRED')
    assert.deepEqual(tripIds(await list('?status=RESERVED')), [], 'the reservations ran out')
    const all = await list()
    const a = all.body.data.trips.find((x: any) => x.tripId === ids.A)
    assert.equal(a.status, 'CANCELLED')
    assert.equal(a.cancellationReason, 'RESERVATION_EXPIRED')
  })
})

describe('GET /bookings with car and public-transport bookings', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  /** X (car), Y (tickets), Z (car), a second apart, with the test key. */
  const ids: Record<string, string> = {}
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example.com'] })
    ids.X = (await bookFirst(h, t.test, { providerId: 'sandbox-rent' })).booking.body.data.bookingId
    h.clock.advance(1000)
    ids.Y = (await bookTickets(h, t.test)).bookingId
    h.clock.advance(1000)
    ids.Z = (await bookFirst(h, t.test, { providerId: 'sandbox-share' })).booking.body.data.bookingId
  })
  after(() => h.close())

  const list = (query = '', key = t.test) => h.api('GET', `/bookings${query}`, key)
  const summary = (res: any) => res.body.data.bookings.map((b: any) => [b.type, b.bookingId])

  it('lists both kinds newest first, each with its type; car bookings as the booking read answers them', async () => {
    const res = await list()
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(summary(res), [
      ['CAR', ids.Z],
      ['PUBLIC_TRANSPORT', ids.Y],
      ['CAR', ids.X],
    ])
    assert.deepEqual(res.body.data.pagination, { total: 3, currentPage: 0, limit: 20 })
    // Byte for byte what GET /bookings answered for a car booking before, with "type" added in front.
    const car = await h.api('GET', `/cars/bookings/${ids.X}`, t.test)
    assert.ok(
      res.text.includes(
        `{"type":"CAR",${car.text.slice(car.text.indexOf('"data":{') + 8, car.text.indexOf(',"meta"'))}`,
      ),
    )
    const { type, ...tickets } = res.body.data.bookings[1]
    assert.equal(type, 'PUBLIC_TRANSPORT')
    const read = await h.api('GET', `/public-transport/bookings/${ids.Y}`, t.test)
    assert.deepEqual(tickets, read.body.data)
  })

  it('filters by type (repeated or comma separated) and pages by offset across pages', async () => {
    assert.deepEqual(summary(await list('?type=CAR')), [
      ['CAR', ids.Z],
      ['CAR', ids.X],
    ])
    assert.deepEqual(summary(await list('?type=PUBLIC_TRANSPORT')), [['PUBLIC_TRANSPORT', ids.Y]])
    assert.equal((await list('?type=CAR,PUBLIC_TRANSPORT')).body.data.pagination.total, 3)
    assert.equal((await list('?type=CAR&type=PUBLIC_TRANSPORT')).body.data.pagination.total, 3)
    const pages = []
    for (let page = 0; page < 4; page++) {
      const res = await list(`?limit=1&page=${page}`)
      assert.equal(res.body.data.pagination.total, 3)
      assert.equal(res.body.data.pagination.currentPage, page)
      pages.push(...summary(res))
    }
    assert.deepEqual(pages, [
      ['CAR', ids.Z],
      ['PUBLIC_TRANSPORT', ids.Y],
      ['CAR', ids.X],
    ])
    const second = await list('?limit=1&page=1&type=CAR')
    assert.deepEqual(summary(second), [['CAR', ids.X]])
    assert.equal(second.body.data.pagination.total, 2)
  })

  it('another tenant and the other environment see none of them', async () => {
    const other = await createTenant(h)
    const foreign = await list('', other.test)
    assert.deepEqual(summary(foreign), [])
    assert.equal(foreign.body.data.pagination.total, 0)
    assert.deepEqual(summary(await list('', t.secret)), [], 'live keys do not see test bookings')
  })

  it('refuses bad types (400), retention NONE (403 DATA_RETENTION_NONE) and publishable keys (403)', async () => {
    expectError(await list('?type=BIKE'), 400, 'INVALID_REQUEST')
    expectError(await list('?type=car'), 400, 'INVALID_REQUEST')
    expectError(await list('?type='), 400, 'INVALID_REQUEST')
    expectError(await list('?limit=101'), 400, 'INVALID_REQUEST')
    const none = await createTenant(h, { dataRetention: 'NONE' })
    expectError(await list('', none.secret), 403, 'DATA_RETENTION_NONE')
    expectError(await list('?type=PUBLIC_TRANSPORT', none.secret), 403, 'DATA_RETENTION_NONE')
    const pk = await h.request({
      url: '/mobility-api/v2/bookings',
      key: t.publishable,
      headers: { origin: 'https://app.example.com' },
    })
    expectError(pk, 403, 'FORBIDDEN')
    assert.equal(pk.body.error.details.reason, 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY')
  })

  it('a key without public-transport:booking:read lists car bookings only', async () => {
    const carsOnly = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'test',
      permissions: ['cars:booking:read'],
    })
    assert.deepEqual(summary(await list('', carsOnly.secret)), [
      ['CAR', ids.Z],
      ['CAR', ids.X],
    ])
    const refused = await list('?type=PUBLIC_TRANSPORT', carsOnly.secret)
    expectError(refused, 403, 'FORBIDDEN')
    assert.equal(refused.body.error.details.requiredPermission, 'public-transport:booking:read')
  })
})
