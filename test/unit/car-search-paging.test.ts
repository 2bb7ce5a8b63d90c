import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { CarSearchRequest } from '../../src/contract/cars.ts'
import { ApiError } from '../../src/contract/errors.ts'
import { SESSION_TTL_MS } from '../../src/domain/cars/search.ts'
import type { TenantRow } from '../../src/store/schema.ts'
import { BERLIN } from '../helpers/cars.ts'
import { newTestServices, type TestServices } from '../helpers/services.ts'

/** Paging of car searches through server-side sessions and sealed cursors, as the service does it, without HTTP. */
describe('car search paging (services, no HTTP)', () => {
  let s: TestServices
  let tenant: TenantRow
  before(async () => {
    s = await newTestServices()
    tenant = await s.tenant()
  })
  after(() => s.close())

  const request = (extra: Partial<CarSearchRequest> = {}): CarSearchRequest => {
    const start = new Date(s.clock().getTime() + 72 * 3600_000)
    start.setUTCMinutes(0, 0, 0)
    const end = new Date(start.getTime() + 3 * 86_400_000)
    return {
      pickup: { type: 'coordinates', coordinates: BERLIN, radiusMeters: 20_000 },
      dates: { start: start.toISOString(), end: end.toISOString() },
      limit: 3,
      sortBy: 'DISTANCE',
      ...extra,
    } as CarSearchRequest
  }
  const search = (extra: Partial<CarSearchRequest> = {}, who = tenant) =>
    s.services.cars.search(request(extra), s.caller(who))
  const idOf = (o: { provider: { id: string }; pickupLocation: { id: string }; vehicle: { model: string } }) =>
    `${o.provider.id}|${o.pickupLocation.id}|${o.vehicle.model}`
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof ApiError, String(error))
    return error
  }

  it('pages through every offer once, and the same cursor again answers the same page', async () => {
    const first = await search()
    assert.equal(first.offers.length, 3)
    assert.equal(first.pagination.hasMore, true)
    const cursor = first.pagination.nextCursor
    assert.ok(cursor)
    const seen = new Set(first.offers.map(idOf))
    let next: string | undefined = cursor
    let pages = 1
    while (next && pages < 60) {
      const page = await search({ cursor: next })
      for (const offer of page.offers) {
        assert.ok(!seen.has(idOf(offer)), `offer ${idOf(offer)} served twice`)
        seen.add(idOf(offer))
      }
      next = page.pagination.nextCursor
      if (!page.pagination.hasMore) assert.equal(next, undefined)
      pages++
    }
    assert.ok(pages > 1)
    const again = await search({ cursor })
    const twice = await search({ cursor })
    assert.deepEqual(again.offers.map(idOf), twice.offers.map(idOf))
  })

  it('starts over silently with changed parameters', async () => {
    const first = await search()
    const changed = await search({ cursor: first.pagination.nextCursor, sortBy: 'PRICE_LOW_TO_HIGH' })
    assert.equal(changed.offers.length, 3)
    assert.equal(changed.pagination.hasMore, true)
  })

  it("refuses a tampered cursor and another tenant's cursor with INVALID_CURSOR", async () => {
    const cursor = (await search()).pagination.nextCursor!
    const tampered = `${cursor.slice(0, -3)}${cursor.endsWith('A') ? 'B' : 'A'}xx`
    assert.equal((await refusal(search({ cursor: tampered }))).code, 'INVALID_CURSOR')
    const other = await s.tenant()
    assert.equal((await refusal(search({ cursor }, other))).code, 'INVALID_CURSOR')
  })

  it('answers CURSOR_EXPIRED once the session went unused for its lifetime', async () => {
    const asked = request()
    const cursor = (await s.services.cars.search(asked, s.caller(tenant))).pagination.nextCursor!
    s.clock.advance(SESSION_TTL_MS + 1000)
    const error = await refusal(s.services.cars.search({ ...asked, cursor }, s.caller(tenant)))
    assert.equal(error.code, 'INVALID_CURSOR')
    assert.equal(error.details?.reason, 'CURSOR_EXPIRED')
  })
})
