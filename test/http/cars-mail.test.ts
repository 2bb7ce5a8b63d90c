import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { bookFirst, searchCars } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'

const outbox = (h: Harness) => {
  const dir = join(h.dataDir, 'outbox')
  return existsSync(dir) ? readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')) : []
}
const runJobs = async (h: Harness) => {
  for (const runtime of h.runtimes) await runtime.jobs.runDue(100)
}

describe('booking mails and the remaining car codes', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('sends a confirmation and a cancellation mail in the tenant language, once each', async () => {
    const t = await createTenant(h, { defaultLanguage: 'de' })
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId
    await runJobs(h)
    let mails = outbox(h).filter((m) => m.includes(id))
    assert.equal(mails.length, 1)
    assert.match(mails[0], /To: ada@example\.com/)
    assert.match(mails[0], /Buchung|best=C3=A4tigt|bestätigt/i)
    await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret)
    await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret)
    await runJobs(h)
    mails = outbox(h).filter((m) => m.includes(id))
    assert.equal(mails.length, 2, 'one confirmation, one cancellation')
  })

  it('retention NONE: the cancellation mail goes to the driver the zr1_ reference carries, once', async () => {
    const t = await createTenant(h, { dataRetention: 'NONE', defaultLanguage: 'fr' })
    const known = new Set(outbox(h))
    const fresh = () => outbox(h).filter((m) => !known.has(m))
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const ref = booking.body.data.bookingId
    assert.match(ref, /^zr1_/)
    const settle = () => new Promise((resolve) => setTimeout(resolve, 200))
    await settle()
    assert.equal(fresh().length, 1, 'the confirmation')
    for (let i = 0; i < 2; i++) {
      const cancelled = await h.api('POST', `/cars/bookings/${ref}/cancel`, t.secret)
      assert.equal(cancelled.status, 200, cancelled.text)
    }
    await settle()
    const mails = fresh()
    assert.equal(mails.length, 2, 'one confirmation, one cancellation, although cancelled twice')
    assert.ok(mails.every((m) => /To: ada@example\.com/.test(m)))
  })

  it('sends nothing to tenants that opted out', async () => {
    const t = await createTenant(h, { emailOptOut: true })
    const before = outbox(h).length
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-share' })
    assert.equal(booking.status, 201)
    await runJobs(h)
    assert.equal(outbox(h).length, before)
  })

  it('409 INTERNAL_ERROR while another request prebooks the same offer; the token stays usable after a failure', async () => {
    const t = await createTenant(h)
    const search = await searchCars(h, t.test, { limit: 100 })
    const offer = search.body.data.offers.find((o: any) => o.provider.id === 'sandbox-rent')
    // The first prebook is held by a provider that misses its deadline; the second arrives meanwhile.
    const slow = h.api(
      'POST',
      '/cars/prebook',
      t.test,
      { offerToken: offer.offerToken },
      { 'x-sandbox-scenario': 'provider-timeout:sandbox-rent' },
    )
    await new Promise((r) => setTimeout(r, 50))
    const concurrent = await h.api('POST', '/cars/prebook', t.test, { offerToken: offer.offerToken })
    assert.equal(concurrent.status, 409)
    assert.equal(concurrent.body.error.code, 'INTERNAL_ERROR')
    const timedOut = await slow
    assert.equal(timedOut.status, 504)
    assert.equal(timedOut.body.error.code, 'TIMEOUT')
    const retried = await h.api('POST', '/cars/prebook', t.test, { offerToken: offer.offerToken })
    assert.equal(retried.status, 200, retried.text)
  })

  it('OFFER_EXPIRED when the offer sold out since the search', async () => {
    const t = await createTenant(h)
    const search = await searchCars(h, t.test, { limit: 100 })
    const offer = search.body.data.offers.find((o: any) => o.provider.id === 'sandbox-share')
    const res = await h.api(
      'POST',
      '/cars/prebook',
      t.test,
      { offerToken: offer.offerToken },
      { 'x-sandbox-scenario': 'sold-out:sandbox-share' },
    )
    assert.equal(res.status, 404)
    assert.equal(res.body.error.code, 'OFFER_EXPIRED')
  })
})
