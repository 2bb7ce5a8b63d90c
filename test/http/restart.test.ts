import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bookFirst } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/**
 * What was booked stays usable after the service restarts: the service's own records are in the database, and the
 * sandbox providers' records (their side of a booking, trip or ticket) outlive the restart too, in the embedded
 * shape as `npm start` runs it (PGlite in DATA_DIR) and on PostgreSQL + Redis.
 */
describe('a restart keeps bookings, trips and tickets usable', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness({ persistent: true })
    t = await createTenant(h)
  })
  after(() => h.close())

  it('car booking: read and cancelled after a restart', async () => {
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId

    await h.restart()

    const read = await h.api('GET', `/cars/bookings/${id}`, t.secret)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.status, 'CONFIRMED')
    assert.equal(read.body.data.providerReference, booking.body.data.providerReference)
    const cancel = await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret, {})
    assert.equal(cancel.status, 200, cancel.text)
    assert.equal(cancel.body.data.status, 'CANCELLED')
  })

  it('car booking under retention NONE: the zr1_ reference still reads from the provider', async () => {
    const none = await createTenant(h, { dataRetention: 'NONE' })
    const { booking } = await bookFirst(h, none.secret, { providerId: 'sandbox-share' })
    assert.equal(booking.status, 201, booking.text)
    const ref = booking.body.data.bookingId
    assert.match(ref, /^zr1_/)

    await h.restart()

    const read = await h.api('GET', `/cars/bookings/${ref}`, none.secret)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.status, 'CONFIRMED')
  })

  it('micromobility trip started before a restart ends after it', async () => {
    const search = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    const v = search.body.data.results.find(
      (x: any) => x.isAvailable && x.vehicleToken && (x.batteryPercent ?? 100) > 20,
    )
    const started = await h.api('POST', '/micromobility/trips', t.secret, {
      action: 'START',
      vehicleToken: v.vehicleToken,
      userEmail: 'rider@example.com',
      userName: 'Rider',
    })
    assert.equal(started.status, 201, started.text)
    const tripId = started.body.data.tripId

    await h.restart()
    h.clock.advance(5 * 60_000)

    const end = await h.api('POST', `/micromobility/trips/${tripId}/end`, t.secret, {
      endLocation: { latitude: ALEX.latitude + 0.002, longitude: ALEX.longitude },
    })
    assert.equal(end.status, 200, end.text)
    assert.equal(end.body.data.status, 'COMPLETED')
  })

  it('public-transport booking: tickets and cancellation after a restart', async () => {
    const stop = async (text: string) =>
      (await h.api('GET', `/public-transport/stops?query=${encodeURIComponent(text)}`, t.secret)).body.data.stops[0]
    const departAt = new Date(h.clock().getTime() + 86_400_000)
    departAt.setUTCHours(9, 0, 0, 0)
    const plan = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: (await stop('Hauptbahnhof')).stopId },
      destination: { type: 'stop', stopId: (await stop('Alexanderplatz')).stopId },
      departAt: departAt.toISOString(),
      limit: 1,
    })
    const offer = plan.body.data.journeys[0].ticketOffers[0]
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    const booking = await h.api('POST', '/public-transport/bookings', t.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    })
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId

    await h.restart()
    h.clock.advance(10_000)

    const tickets = await h.api('GET', `/public-transport/bookings/${id}/tickets`, t.secret)
    assert.equal(tickets.status, 200, tickets.text)
    assert.ok(tickets.body.data.tickets.every((x: any) => x.status === 'ISSUED'))
    const cancel = await h.api('POST', `/public-transport/bookings/${id}/cancel`, t.secret)
    assert.equal(cancel.status, 200, cancel.text)
    assert.equal(cancel.body.data.status, 'CANCELLED')
  })
})
