import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

/** What `npm run fuzz` found, each answered as the spec says from now on. */
describe('fuzz findings', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('a leap second (valid RFC 3339, no JavaScript date) is 400 naming the field on every date-time field', async () => {
    const year = h.clock().getUTCFullYear() + 1
    const leap = `${year}-06-30T23:59:60Z`
    const stops = await h.api('GET', '/public-transport/stops?query=Alexanderplatz&limit=1', t.secret)
    const stopId = stops.body.data.stops[0].stopId
    const cases: [string, Promise<any>, string][] = [
      [
        'journeys departAt',
        h.api('POST', '/public-transport/journeys', t.secret, {
          origin: { type: 'address', address: 'Alexanderplatz, Berlin' },
          destination: { type: 'address', address: 'Hauptbahnhof, Berlin' },
          departAt: leap,
        }),
        'departAt',
      ],
      [
        'departures from',
        h.api('GET', `/public-transport/stops/${encodeURIComponent(stopId)}/departures?from=${leap}`, t.secret),
        'from',
      ],
      ['key expiresAt', h.admin('POST', `/tenants/${t.tenant.id}/keys`, { expiresAt: leap }), 'expiresAt'],
    ]
    for (const [label, pending, field] of cases) {
      const res = await pending
      assert.equal(res.status, 400, `${label}: ${res.text}`)
      assert.equal(res.body.error.code, 'INVALID_REQUEST', label)
      assert.ok(res.body.error.details[field], `${label} names ${field}: ${res.text}`)
    }
    // Car searches already said so (their own date check), and still do.
    const search = await h.api('POST', '/cars', t.secret, {
      pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 } },
      dates: { start: leap, end: `${year}-07-03T10:00:00Z` },
    })
    assert.equal(search.status, 400, search.text)
    assert.equal(search.body.error.code, 'INVALID_DATE_RANGE')
    assert.ok(search.body.error.details['dates.start'])
  })
})
