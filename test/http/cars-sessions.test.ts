import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { period, searchCars } from '../helpers/cars.ts'
import {
  ADMIN_TOKEN,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

const MINUTE = 60_000

/** The same search on every page (the dates fixed once: the clock moves between pages). */
let dates: { start: string; end: string }

/** A first page that keeps a session; answers its cursor. */
async function firstPage(h: Harness, key: string): Promise<string> {
  const res = await searchCars(h, key, { limit: 5, dates })
  assert.equal(res.status, 200, res.text.slice(0, 500))
  assert.equal(res.body.data.pagination.hasMore, true)
  return res.body.data.pagination.nextCursor
}

const nextPage = (h: Harness, key: string, cursor: string) => searchCars(h, key, { limit: 5, dates, cursor })

function assertInvalidCursor(res: { status: number; body: any; text: string }, reason: string) {
  assert.equal(res.status, 400, res.text.slice(0, 500))
  assert.equal(res.body.success, false)
  assert.equal(res.body.error.code, 'INVALID_CURSOR')
  assert.equal(res.body.error.details.reason, reason)
  assert.ok(res.body.error.message)
}

describe('car search sessions are bounded', { skip: skipReason }, () => {
  let h: Harness
  let quiet: TenantFixture
  let storm: TenantFixture
  before(async () => {
    // Two sessions at most across tenants: the third evicts one.
    h = await startHarness({ env: { SEARCH_SESSIONS_MAX: '2' } })
    quiet = await createTenant(h)
    storm = await createTenant(h)
    dates = period(h, 24 * 7)
  })
  after(() => h.close())

  it("a tenant's search storm evicts its own sessions: their cursors answer INVALID_CURSOR (SESSION_EVICTED)", async () => {
    const kept = await firstPage(h, quiet.secret)
    const cursors: string[] = []
    for (let i = 0; i < 4; i++) cursors.push(await firstPage(h, storm.secret))
    for (const cursor of cursors.slice(0, 3))
      assertInvalidCursor(await nextPage(h, storm.secret, cursor), 'SESSION_EVICTED')
    const newest = await nextPage(h, storm.secret, cursors[3])
    assert.equal(newest.status, 200, newest.text.slice(0, 500))
    const quietPage = await nextPage(h, quiet.secret, kept)
    assert.equal(quietPage.status, 200, quietPage.text.slice(0, 500))
    assert.equal(quietPage.body.data.offers.length, 5)
    // Operators see it: every instance reports what it evicted.
    let evicted = 0
    for (let instance = 0; instance < h.apps.length; instance++) {
      const metrics = await h.request({ url: '/metrics', key: ADMIN_TOKEN, instance })
      evicted += Number(/^search_sessions_evicted (\d+)$/m.exec(metrics.text)?.[1])
    }
    assert.equal(evicted, 3)
  })

  it('a session lasts 30 minutes from its last page; then its cursor answers INVALID_CURSOR (CURSOR_EXPIRED)', async () => {
    const first = await firstPage(h, quiet.secret)
    h.clock.advance(20 * MINUTE)
    const second = await nextPage(h, quiet.secret, first)
    assert.equal(second.status, 200, second.text.slice(0, 500))
    h.clock.advance(20 * MINUTE)
    // 40 minutes after the first page, 20 after the second: renewed.
    const third = await nextPage(h, quiet.secret, second.body.data.pagination.nextCursor)
    assert.equal(third.status, 200, third.text.slice(0, 500))
    h.clock.advance(31 * MINUTE)
    assertInvalidCursor(await nextPage(h, quiet.secret, third.body.data.pagination.nextCursor), 'CURSOR_EXPIRED')
  })
})
