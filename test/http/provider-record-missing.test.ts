import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bookFirst } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

/** The sandbox providers keep their records in the shared key-value store under this prefix. */
const recordKey = (providerId: string, reference: string) => `sandbox:${providerId}:live:booking:${reference}`

describe('a stored booking its provider no longer knows', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  /** Makes the provider forget a booking, as a provider that lost its records would. */
  const forget = (providerId: string, reference: string) => h.runtimes[0].kv.delete(recordKey(providerId, reference))

  it('car booking: 502 PROVIDER_ERROR on GET and PATCH with the stored record, never 404', async () => {
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const stored = booking.body.data
    await forget('sandbox-rent', stored.providerReference)

    for (const res of [
      await h.api('GET', `/cars/bookings/${stored.bookingId}`, t.secret),
      await h.api('PATCH', `/cars/bookings/${stored.bookingId}`, t.secret, { notes: 'later' }),
    ]) {
      assert.equal(res.status, 502, res.text)
      assert.equal(res.body.error.code, 'PROVIDER_ERROR')
      assert.equal(res.body.error.details.reason, 'PROVIDER_RECORD_MISSING')
      assert.equal(res.body.error.details.providerId, 'sandbox-rent')
      const kept = res.body.error.details.booking
      assert.equal(kept.bookingId, stored.bookingId)
      assert.equal(kept.status, 'CONFIRMED')
      assert.equal(kept.providerReference, stored.providerReference)
      assert.deepEqual(kept.driver, stored.driver)
      assert.deepEqual(kept.rentalPeriod, stored.rentalPeriod)
    }
    // Cancelling it is the provider's failure too (500 there: spec 7.2 sets no other status), with the record.
    const cancel = await h.api('POST', `/cars/bookings/${stored.bookingId}/cancel`, t.secret)
    assert.equal(cancel.status, 500, cancel.text)
    assert.equal(cancel.body.error.code, 'PROVIDER_ERROR')
    assert.equal(cancel.body.error.details.booking.bookingId, stored.bookingId)
    // The stored booking is still listed.
    const list = await h.api('GET', '/bookings?limit=100', t.secret)
    assert.ok(list.body.data.bookings.some((b: any) => b.bookingId === stored.bookingId))
  })

  it('public-transport booking: PROVIDER_ERROR with the stored record, never 404', async () => {
    const stop = async (q: string) =>
      (await h.api('GET', `/public-transport/stops?query=${q}`, t.secret)).body.data.stops.find(
        (s: any) => s.provider.id === 'sandbox-transit',
      ).stopId
    const departAt = new Date(h.clock().getTime() + 86_400_000)
    departAt.setUTCHours(9, 0, 0, 0)
    const plan = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: await stop('Hauptbahnhof') },
      destination: { type: 'stop', stopId: await stop('Alexanderplatz') },
      departAt: departAt.toISOString(),
    })
    assert.equal(plan.status, 200, plan.text)
    const offer = plan.body.data.journeys.flatMap((j: any) => j.ticketOffers)[0]
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(prebook.status, 200, prebook.text)
    const booking = await h.api('POST', '/public-transport/bookings', t.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    })
    assert.equal(booking.status, 201, booking.text)
    const stored = booking.body.data
    await forget('sandbox-transit', stored.providerReference)

    for (const res of [
      await h.api('GET', `/public-transport/bookings/${stored.bookingId}`, t.secret),
      await h.api('POST', `/public-transport/bookings/${stored.bookingId}/cancel`, t.secret),
    ]) {
      assert.equal(res.status, 500, res.text)
      assert.equal(res.body.error.code, 'PROVIDER_ERROR')
      assert.equal(res.body.error.details.reason, 'PROVIDER_RECORD_MISSING')
      const kept = res.body.error.details.booking
      assert.equal(kept.bookingId, stored.bookingId)
      assert.equal(kept.providerReference, stored.providerReference)
      assert.deepEqual(kept.customer, stored.customer)
    }
  })
})
