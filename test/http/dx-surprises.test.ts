import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { BERLIN, bookFirst, near, period, searchCars } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/** Issue 21, "silent surprises": what the service used to decide without saying so. */
describe('no silent surprises (issue 21)', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('radiusMeters together with walkingTimeMinutes is refused, naming both; either alone is searched', async () => {
    const both = await searchCars(h, t.secret, {
      pickup: { type: 'coordinates', coordinates: BERLIN, radiusMeters: 20_000, walkingTimeMinutes: 10 },
    })
    assert.equal(both.status, 400, both.text)
    assert.equal(both.body.error.code, 'INVALID_REQUEST')
    assert.deepEqual(Object.keys(both.body.error.details).sort(), ['pickup.radiusMeters', 'pickup.walkingTimeMinutes'])
    const dropoff = await searchCars(h, t.secret, {
      dropoff: { type: 'address', address: 'Alexanderplatz, Berlin', radiusMeters: 500, walkingTimeMinutes: 10 },
    })
    assert.equal(dropoff.status, 400, dropoff.text)
    assert.ok(dropoff.body.error.details['dropoff.walkingTimeMinutes'])
    const journeys = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'coordinates', coordinates: ALEX, radiusMeters: 500, walkingTimeMinutes: 5 },
      destination: { type: 'coordinates', coordinates: BERLIN },
    })
    assert.equal(journeys.status, 400, journeys.text)
    assert.ok(journeys.body.error.details['origin.radiusMeters'])
    for (const pickup of [near(), { type: 'coordinates', coordinates: BERLIN, walkingTimeMinutes: 60 }]) {
      const alone = await searchCars(h, t.secret, { pickup, dates: period(h) })
      assert.equal(alone.status, 200, alone.text)
    }
  })

  it('ending a trip says where its end location came from: REQUEST or VEHICLE (no body)', async () => {
    const start = async () => {
      const search = await h.api('POST', '/micromobility', t.secret, {
        location: ALEX,
        radiusMeters: 3000,
        providers: ['sandbox-scoot'],
        limit: 100,
      })
      assert.equal(search.status, 200, search.text)
      const used = new Set(started)
      const v = search.body.data.results.find(
        (x: any) => x.isAvailable && x.vehicleToken && x.batteryPercent > 30 && !used.has(x.vehicleId),
      )
      started.push(v.vehicleId)
      const trip = await h.api('POST', '/micromobility/trips', t.secret, {
        action: 'START',
        vehicleToken: v.vehicleToken,
        userEmail: 'ada@example.com',
        userName: 'Ada Lovelace',
      })
      assert.equal(trip.status, 201, trip.text)
      return trip.body.data.tripId as string
    }
    const started: string[] = []
    const sent = { latitude: 52.523, longitude: 13.414 }
    const withBody = await h.api('POST', `/micromobility/trips/${await start()}/end`, t.secret, { endLocation: sent })
    assert.equal(withBody.status, 200, withBody.text)
    assert.deepEqual(withBody.body.data.endLocation, sent)
    assert.equal(withBody.body.data.endLocationSource, 'REQUEST')

    const id = await start()
    const without = await h.request({
      method: 'POST',
      url: `/mobility-api/v2/micromobility/trips/${id}/end`,
      key: t.secret,
    })
    assert.equal(without.status, 200, without.text)
    assert.equal(without.body.data.status, 'COMPLETED')
    assert.ok(without.body.data.endLocation)
    assert.equal(without.body.data.endLocationSource, 'VEHICLE')
    const polled = await h.api('GET', `/micromobility/trips/${id}`, t.secret)
    assert.equal(polled.body.data.endLocationSource, 'VEHICLE')
  })

  it('retention switched to NONE: GET /bookings answers 403, a booking stored before stays readable and cancellable by id', async () => {
    const own = await createTenant(h)
    const { booking } = await bookFirst(h, own.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const id = booking.body.data.bookingId
    const switched = await h.admin('PATCH', `/tenants/${own.tenant.id}`, { dataRetention: 'NONE' })
    assert.equal(switched.status, 200, switched.text)

    const list = await h.api('GET', '/bookings', own.secret)
    assert.equal(list.status, 403, list.text)
    assert.equal(list.body.error.code, 'DATA_RETENTION_NONE')
    const read = await h.api('GET', `/cars/bookings/${id}`, own.secret)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.bookingId, id)
    assert.equal(read.body.data.dataRetention, 'STANDARD', 'stored before the switch')
    assert.equal(read.body.data.driver.lastName, 'Lovelace')
    const cancelled = await h.api('POST', `/cars/bookings/${id}/cancel`, own.secret, {})
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    // A new booking made after the switch is a zr1_ reference the service keeps nowhere.
    const { booking: after } = await bookFirst(h, own.secret, { providerId: 'sandbox-rent' })
    assert.equal(after.status, 201, after.text)
    assert.match(after.body.data.bookingId, /^zr1_/)
  })
})
