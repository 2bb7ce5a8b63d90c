import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bookFirst, period } from '../helpers/cars.ts'
import { type RecordingSink, recordingSink } from '../helpers/events.ts'
import { beginTrip, bookTickets, subscribe } from '../helpers/flows.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'
import { runJobs } from '../helpers/store-faults.ts'

/** Personal data the fixtures send: none of it may appear in an event under retention NONE. */
const PERSONAL = ['Ada', 'Lovelace', 'ada@example.com', 'rider@example.com', 'Rider', '52.52', '13.41']

describe('events at every status change (EventSink)', { skip: skipReason }, () => {
  let h: Harness
  let rec: RecordingSink
  let t: TenantFixture
  before(async () => {
    rec = recordingSink()
    h = await startHarness({ decorate: rec.decorate })
    t = await createTenant(h)
  })
  after(() => h.close())

  it('car.booking.confirmed carries the booking as the API answers it, in the key environment', async () => {
    const live = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(live.booking.status, 201, live.booking.text)
    const booking = live.booking.body.data
    const [event] = rec.of('car.booking.confirmed', booking.bookingId)
    assert.equal(event.tenantId, t.tenant.id)
    assert.equal(event.environment, 'live')
    assert.deepEqual(event.data, booking, 'the data is the answer: no extra read needed')
    assert.equal((event.data.driver as any).email, 'ada@example.com', 'retention STANDARD keeps the driver')

    const sandbox = await bookFirst(h, t.test, { providerId: 'sandbox-share' })
    const test = rec.of('car.booking.confirmed', sandbox.booking.body.data.bookingId)
    assert.equal(test.length, 1)
    assert.equal(test[0].environment, 'test', 'sandbox activity of a test key publishes test events')
  })

  it('a PENDING booking confirmed later: car.booking.confirmed once, from the watch job without a client read', async () => {
    const pending = await bookFirst(h, t.test, {
      providerId: 'sandbox-rent',
      headers: { 'x-sandbox-scenario': 'booking-pending:sandbox-rent' },
    })
    const id = pending.booking.body.data.bookingId
    assert.equal(pending.booking.body.data.status, 'PENDING')
    assert.equal(rec.of('car.booking.confirmed', id).length, 0, 'nothing to announce yet')
    h.clock.advance(5_000)
    await runJobs(h)
    const [event] = rec.of('car.booking.confirmed', id)
    assert.equal(event.data.status, 'CONFIRMED')
    assert.deepEqual(
      (event.data.statusHistory as any[]).map((s) => s.status),
      ['PENDING', 'CONFIRMED'],
    )
    const read = await h.api('GET', `/cars/bookings/${id}`, t.test)
    assert.equal(read.body.data.status, 'CONFIRMED')
    assert.equal(rec.of('car.booking.confirmed', id).length, 1, 'a later read announces nothing new')
  })

  it('car.booking.changed after a change, car.booking.cancelled once however often it is cancelled', async () => {
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    const id = booking.body.data.bookingId
    const changed = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { notes: 'child seat please' })
    assert.equal(changed.status, 200, changed.text)
    const [change] = rec.of('car.booking.changed', id)
    assert.equal(change.data.notes, 'child seat please')
    assert.deepEqual(change.data, changed.body.data)
    for (let i = 0; i < 2; i++) assert.equal((await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret)).status, 200)
    const cancelled = rec.of('car.booking.cancelled', id)
    assert.equal(cancelled.length, 1)
    assert.equal(cancelled[0].data.status, 'CANCELLED')
    assert.ok(cancelled[0].data.refund, 'with the fee and refund applied')
    assert.deepEqual(
      rec.about(id).map((e) => e.type),
      ['car.booking.confirmed', 'car.booking.changed', 'car.booking.cancelled'],
    )
  })

  it('trips: reserved, started, paused, resumed, completed (with the price), cancelled by the user', async () => {
    const trip = await beginTrip(h, t.test, 'RESERVE', { userEmail: 'rider@example.com', userName: 'Rider' })
    assert.equal((await rec.next('micromobility.trip.reserved', trip.tripId)).environment, 'test')
    const started = await h.api('POST', '/micromobility/trips', t.test, { action: 'START', tripId: trip.tripId })
    assert.equal(started.status, 201, started.text)
    assert.equal((await rec.next('micromobility.trip.started', trip.tripId)).data.status, 'ACTIVE')
    for (const action of ['LOCK', 'UNLOCK']) {
      const res = await h.api('POST', `/micromobility/trips/${trip.tripId}/vehicle-action`, t.test, { action })
      assert.equal(res.status, 202, res.text)
    }
    assert.equal((await rec.next('micromobility.trip.paused', trip.tripId)).data.status, 'PAUSED')
    assert.equal((await rec.next('micromobility.trip.resumed', trip.tripId)).data.status, 'ACTIVE')
    h.clock.advance(3 * 60_000)
    const ended = await h.api('POST', `/micromobility/trips/${trip.tripId}/end`, t.test, {})
    assert.equal(ended.status, 200, ended.text)
    const completed = await rec.next('micromobility.trip.completed', trip.tripId)
    assert.deepEqual(completed.data, ended.body.data, 'the end answer, price breakdown included')
    assert.deepEqual(
      rec.about(trip.tripId).map((e) => e.type),
      [
        'micromobility.trip.reserved',
        'micromobility.trip.started',
        'micromobility.trip.paused',
        'micromobility.trip.resumed',
        'micromobility.trip.completed',
      ],
    )

    const other = await beginTrip(h, t.test, 'RESERVE')
    const cancel = await h.api('POST', `/micromobility/trips/${other.tripId}/cancel`, t.test)
    assert.equal(cancel.status, 200, cancel.text)
    const cancelled = await rec.next('micromobility.trip.cancelled', other.tripId)
    assert.equal(cancelled.data.cancellationReason, 'CANCELLED_BY_USER')

    const direct = await beginTrip(h, t.test, 'START')
    assert.equal((await rec.next('micromobility.trip.started', direct.tripId)).data.status, 'ACTIVE')
  })

  it('a reservation that runs out: micromobility.trip.cancelled with RESERVATION_EXPIRED, from the expiry job', async () => {
    const trip = await beginTrip(h, t.test, 'RESERVE')
    h.clock.advance(601_000)
    await runJobs(h)
    const [event] = rec.of('micromobility.trip.cancelled', trip.tripId)
    assert.equal(event.data.status, 'CANCELLED')
    assert.equal(event.data.cancellationReason, 'RESERVATION_EXPIRED')
    const read = await h.api('GET', `/micromobility/trips/${trip.tripId}`, t.test)
    assert.equal(read.body.data.cancellationReason, 'RESERVATION_EXPIRED')
    assert.equal(rec.of('micromobility.trip.cancelled', trip.tripId).length, 1, 'announced once')
  })

  it('micromobility.action.failed names the action and the error code (vehicle-rejects, and a command that kept timing out)', async () => {
    const trip = await beginTrip(h, t.test, 'RESERVE')
    const rejected = await h.api(
      'POST',
      `/micromobility/trips/${trip.tripId}/vehicle-action`,
      t.test,
      { action: 'HONK' },
      { 'x-sandbox-scenario': 'vehicle-rejects:sandbox-scoot' },
    )
    assert.equal(rejected.status, 500, rejected.text)
    const event = await rec.next('micromobility.action.failed', trip.tripId)
    assert.equal(event.environment, 'test')
    assert.equal(event.data.action, 'HONK')
    assert.deepEqual(event.data.error, { code: 'PROVIDER_ERROR', reason: 'VEHICLE_REJECTED' })
    assert.equal((event.data.lastAction as any).status, 'FAILED')
    assert.equal(event.data.status, 'RESERVED', 'the trip itself is unchanged')

    // A command that times out is retried by its job; after the last try the trip says FAILED, and so does an event.
    const queued = await h.api(
      'POST',
      `/micromobility/trips/${trip.tripId}/vehicle-action`,
      t.test,
      { action: 'HONK' },
      { 'x-sandbox-scenario': 'provider-timeout:sandbox-scoot' },
    )
    assert.equal(queued.status, 202, queued.text)
    for (let i = 0; i < 4 && rec.of('micromobility.action.failed', trip.tripId).length < 2; i++) {
      h.clock.advance(5 * 60_000)
      await runJobs(h)
      await new Promise((resolve) => setTimeout(resolve, 400))
    }
    const failures = rec.of('micromobility.action.failed', trip.tripId)
    assert.equal(failures.length, 2, JSON.stringify(failures.map((e) => e.data.error)))
    assert.equal((failures[1].data.error as any).code, 'TIMEOUT')
    const read = await h.api('GET', `/micromobility/trips/${trip.tripId}`, t.test)
    assert.equal(read.body.data.lastAction.status, 'FAILED')
  })

  it('public transport: ticket.issued from the watch job a few seconds after booking, booking.cancelled once', async () => {
    const booking = await bookTickets(h, t.test)
    assert.equal(booking.tickets[0].status, 'PENDING')
    assert.equal(rec.of('public-transport.ticket.issued', booking.bookingId).length, 0)
    h.clock.advance(5_000)
    await runJobs(h)
    const [issued] = rec.of('public-transport.ticket.issued', booking.bookingId)
    assert.equal(issued.environment, 'test')
    assert.ok(
      (issued.data.tickets as any[]).every((x) => x.status === 'ISSUED' && x.data),
      'with the barcodes',
    )
    const read = await h.api('GET', `/public-transport/bookings/${booking.bookingId}`, t.test)
    assert.deepEqual(issued.data, read.body.data, 'the ticket booking as the API answers it')
    const tickets = await h.api('GET', `/public-transport/bookings/${booking.bookingId}/tickets`, t.test)
    assert.equal(tickets.status, 200, tickets.text)
    assert.equal(rec.of('public-transport.ticket.issued', booking.bookingId).length, 1, 'reads announce nothing new')

    for (let i = 0; i < 2; i++) {
      const res = await h.api('POST', `/public-transport/bookings/${booking.bookingId}/cancel`, t.test)
      assert.equal(res.status, 200, res.text)
    }
    const cancelled = rec.of('public-transport.booking.cancelled', booking.bookingId)
    assert.equal(cancelled.length, 1)
    assert.equal(cancelled[0].data.status, 'CANCELLED')

    // Tickets issued while the client reads first: the read records and announces them (once).
    const read2 = await bookTickets(h, t.secret)
    h.clock.advance(5_000)
    const got = await h.api('GET', `/public-transport/bookings/${read2.bookingId}`, t.secret)
    assert.equal(got.body.data.status, 'CONFIRMED')
    await runJobs(h)
    const once = rec.of('public-transport.ticket.issued', read2.bookingId)
    assert.equal(once.length, 1)
    assert.equal(once[0].environment, 'live')
  })

  it('public transport: subscription.created and subscription.cancelled', async () => {
    const subscription = await subscribe(h, t.secret)
    const [created] = rec.of('public-transport.subscription.created', subscription.subscriptionId)
    assert.deepEqual(created.data, subscription)
    assert.ok(!JSON.stringify(created.data).includes('L01X00T47'), 'identification numbers stay masked')
    const cancel = await h.api(
      'POST',
      `/public-transport/subscriptions/${subscription.subscriptionId}/cancel`,
      t.secret,
    )
    assert.equal(cancel.status, 200, cancel.text)
    const cancelled = rec.of('public-transport.subscription.cancelled', subscription.subscriptionId)
    assert.equal(cancelled.length, 1)
    assert.equal(cancelled[0].data.status, 'CANCELLED')
  })

  it('retention NONE: events carry ids and statuses only', async () => {
    const none = await createTenant(h, { dataRetention: 'NONE' })
    const { booking } = await bookFirst(h, none.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const ref = booking.body.data.bookingId
    const changed = await h.api('PATCH', `/cars/bookings/${ref}`, none.secret, { rentalPeriod: period(h, 96, 2) })
    assert.equal(changed.status, 200, changed.text)
    assert.equal((await h.api('POST', `/cars/bookings/${ref}/cancel`, none.secret)).status, 200)
    const carEvents = rec.about(ref)
    assert.deepEqual(
      carEvents.map((e) => e.type),
      ['car.booking.confirmed', 'car.booking.changed', 'car.booking.cancelled'],
    )
    assert.deepEqual(carEvents[0].data, {
      bookingId: ref,
      status: 'CONFIRMED',
      provider: { id: 'sandbox-rent' },
      providerReference: booking.body.data.providerReference,
      pickupLocation: { id: booking.body.data.pickupLocation.id },
      dropoffLocation: { id: booking.body.data.dropoffLocation.id },
      dataRetention: 'NONE',
    })
    assert.equal(carEvents[2].data.status, 'CANCELLED')

    const trip = await beginTrip(h, none.test, 'START', {
      userEmail: 'rider@example.com',
      userName: 'Rider',
      userLocation: { latitude: 52.5219, longitude: 13.4132 },
    })
    const started = await rec.next('micromobility.trip.started', trip.tripId)
    assert.equal(started.data.tripId, trip.tripId)
    assert.equal(started.data.status, 'ACTIVE')
    assert.equal(started.environment, 'test')
    await h.api('POST', `/micromobility/trips/${trip.tripId}/end`, none.test, {})
    const completed = await rec.next('micromobility.trip.completed', trip.tripId)
    assert.equal(completed.data.priceBreakdown, undefined, 'no prices, no places, no times')

    for (const event of [...carEvents, started, completed]) {
      // Ids are this service's random tokens (base64url), which may spell "Ada" or "Rider" by chance (a bookingId held
      // "...hqDmfd3Adai1..." once): the check reads every other value.
      const text = JSON.stringify(event.data, (key, value) =>
        key.endsWith('Id') && typeof value === 'string' ? '' : value,
      )
      for (const personal of PERSONAL) assert.ok(!text.includes(personal), `${event.type} holds ${personal}: ${text}`)
      for (const key of ['driver', 'customer', 'holder', 'userLocation', 'startLocation', 'rentalPeriod'])
        assert.ok(!(key in event.data), `${event.type} holds ${key}`)
    }
  })

  it('a sink that fails is logged and never fails the request; what was recorded stays', async () => {
    rec.fail()
    try {
      const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
      assert.equal(booking.status, 201, booking.text)
      const id = booking.body.data.bookingId
      assert.equal((await h.api('GET', `/cars/bookings/${id}`, t.secret)).status, 200)
      const cancelled = await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret)
      assert.equal(cancelled.status, 200, cancelled.text)
      const trip = await beginTrip(h, t.test, 'RESERVE')
      assert.equal((await h.api('GET', `/micromobility/trips/${trip.tripId}`, t.test)).body.data.status, 'RESERVED')
      assert.equal(rec.about(id).length, 0)
    } finally {
      rec.fail(false)
    }
  })
})
