import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { bookFirst } from '../helpers/cars.ts'
import { createTenant, skipReason } from '../helpers/harness.ts'
import { createWebhook, withReceiver } from '../helpers/webhook-receiver.ts'

// The two halves of issue 16 together: sandbox activity with a test key reaches the tenant's endpoint, signed.
describe('webhooks from real activity', { skip: skipReason }, () => {
  const running = withReceiver()

  it('a car booking and its cancellation made with a test key arrive as signed events, once each', async () => {
    const { h, receiver } = running
    const t = await createTenant(h)
    const hook = await createWebhook(h, t.test, {
      url: receiver.url,
      events: ['car.booking.confirmed', 'car.booking.cancelled'],
    })
    const { booking } = await bookFirst(h, t.test, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const bookingId = booking.body.data.bookingId
    const cancel = await h.api('POST', `/cars/bookings/${bookingId}/cancel`, t.test)
    assert.equal(cancel.status, 200, cancel.text)
    const got = await receiver.waitFor(2)
    const events = got.map((r) => new Webhook(hook.secret).verify(r.body, r.headers as Record<string, string>) as any)
    assert.deepEqual(events.map((e) => e.type).sort(), ['car.booking.cancelled', 'car.booking.confirmed'])
    for (const event of events) {
      assert.equal(event.environment, 'test')
      assert.equal(event.data.bookingId, bookingId)
    }
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 2)
  })
})
