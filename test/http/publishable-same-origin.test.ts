import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

/**
 * A page the service serves itself (the explorer) reads tiles with a publishable key. Browsers send no Origin on a
 * same-origin GET; they send `Sec-Fetch-Site: same-origin`, and the request's own origin then has to be allowed.
 */
describe('publishable keys on pages of the service itself', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  const PAGE = 'http://localhost:3000'
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: [PAGE] })
  })
  after(() => h.close())

  const tile = (headers: Record<string, string>) =>
    h.request({ url: '/mobility-api/v2/multimodal/tiles/12/2200/1343.mvt', key: t.publishable, headers })

  it('answers a same-origin browser request from an allowed origin, without an Origin header', async () => {
    const res = await tile({ host: 'localhost:3000', 'sec-fetch-site': 'same-origin' })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], 'application/vnd.mapbox-vector-tile')
  })

  it('refuses it when the page’s origin is not allowed: 403 ORIGIN_NOT_ALLOWED naming the origin', async () => {
    const res = await tile({ host: 'elsewhere.example:3000', 'sec-fetch-site': 'same-origin' })
    assert.equal(res.status, 403, res.text)
    assert.equal(res.body.error.code, 'FORBIDDEN')
    assert.equal(res.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
    assert.equal(res.body.error.details.origin, 'http://elsewhere.example:3000')
  })

  it('still needs an Origin from anything else: cross-site without Origin, or no browser headers at all', async () => {
    const cases: Record<string, string>[] = [
      { host: 'localhost:3000', 'sec-fetch-site': 'cross-site' },
      { host: 'localhost:3000' },
    ]
    for (const headers of cases) {
      const res = await tile(headers)
      assert.equal(res.status, 403, JSON.stringify(headers))
      assert.equal(res.body.error.details.reason, 'ORIGIN_NOT_ALLOWED')
      assert.equal(res.body.error.details.origin, null)
    }
    // An Origin, when sent, is what counts.
    const other = await tile({
      host: 'localhost:3000',
      'sec-fetch-site': 'same-origin',
      origin: 'https://evil.example',
    })
    assert.equal(other.status, 403)
  })
})
