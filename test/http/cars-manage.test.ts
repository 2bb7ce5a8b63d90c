import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { bookFirst, DRIVER, near, period } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

describe('managing car bookings', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('changes rental times per policy; refuses changes the policy does not allow', async () => {
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    const id = booking.body.data.bookingId
    const later = period(h, 24 * 6, 4)
    const changed = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, {
      rentalPeriod: later,
      notes: 'late arrival',
    })
    assert.equal(changed.status, 200, changed.text)
    assert.equal(Date.parse(changed.body.data.rentalPeriod.start) >= Date.parse(later.start), true)
    assert.equal(changed.body.data.notes, 'late arrival')
    const reread = await h.api('GET', `/cars/bookings/${id}`, t.secret)
    assert.equal(reread.body.data.notes, 'late arrival')
    assert.equal(reread.body.data.rentalPeriod.end, changed.body.data.rentalPeriod.end)
    // A change shorter than the rounding step still leaves a rental with a length.
    const day = new Date(Date.parse(later.start))
    day.setUTCHours(11, 5, 0, 0)
    const short = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, {
      rentalPeriod: { start: day.toISOString(), end: new Date(day.getTime() + 60_000).toISOString() },
    })
    assert.equal(short.status, 200, short.text)
    const { rentalPeriod } = short.body.data
    assert.ok(Date.parse(rentalPeriod.end) > Date.parse(rentalPeriod.start), JSON.stringify(rentalPeriod))
    const badDates = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, {
      rentalPeriod: { start: later.end, end: later.start },
    })
    assert.equal(badDates.body.error.code, 'INVALID_DATE_RANGE')
    const category = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { vehicleCategory: 'VAN' })
    assert.equal(category.status, 501)
    assert.equal(category.body.error.code, 'OPERATION_NOT_SUPPORTED')
    const empty = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, {})
    assert.equal(empty.status, 400)
  })

  it('reading a booking changes nothing: updatedAt stays until the booking changes', async () => {
    const { booking } = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    const id = booking.body.data.bookingId
    const first = await h.api('GET', `/cars/bookings/${id}`, t.secret)
    assert.equal(first.status, 200, first.text)
    h.clock.advance(5_000)
    const second = await h.api('GET', `/cars/bookings/${id}`, t.secret)
    assert.equal(second.body.data.updatedAt, first.body.data.updatedAt)
    assert.deepEqual(second.body.data, first.body.data)
    h.clock.advance(5_000)
    const changed = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { notes: 'window seat' })
    assert.equal(changed.status, 200, changed.text)
    assert.ok(Date.parse(changed.body.data.updatedAt) > Date.parse(first.body.data.updatedAt))
  })

  it('a read that raced a cancellation never writes the older status back (compare-and-set on the stored row)', async () => {
    const { booking } = await bookFirst(h, t.test, { providerId: 'sandbox-rent' })
    const id = booking.body.data.bookingId
    // The read gets its answer (CONFIRMED) at once but delivers it 1 s later; the cancellation lands in between.
    const slowRead = h.api('GET', `/cars/bookings/${id}`, t.test, undefined, {
      'x-sandbox-scenario': 'provider-slow:sandbox-rent',
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const cancel = await h.api('POST', `/cars/bookings/${id}/cancel`, t.test)
    assert.equal(cancel.status, 200, cancel.text)
    assert.equal(cancel.body.data.status, 'CANCELLED')
    const read = await slowRead
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.status, 'CANCELLED', 'the late read answers the newer stored booking')
    const list = await h.api('GET', '/bookings?limit=100', t.test)
    const stored = list.body.data.bookings.find((b: any) => b.bookingId === id)
    assert.equal(stored.status, 'CANCELLED')
    assert.deepEqual(
      stored.statusHistory.map((e: any) => e.status),
      ['CONFIRMED', 'CANCELLED'],
    )
  })

  it('cancels free of charge before the deadline, with a fee after it', async () => {
    const early = await bookFirst(h, t.secret, { providerId: 'sandbox-rent', search: { dates: period(h, 24 * 10, 2) } })
    const free = await h.api('POST', `/cars/bookings/${early.booking.body.data.bookingId}/cancel`, t.secret, {
      reason: 'plans changed',
    })
    assert.equal(free.status, 200, free.text)
    assert.equal(free.body.data.status, 'CANCELLED')
    assert.equal(free.body.data.cancellation.fee.amount, 0)
    assert.equal(free.body.data.cancellation.refund.amount, free.body.data.price.totalPrice.amount)
    assert.deepEqual(
      free.body.data.statusHistory.map((s: any) => s.status),
      ['CONFIRMED', 'CANCELLED'],
    )

    const late = await bookFirst(h, t.secret, { providerId: 'sandbox-rent', search: { dates: period(h, 24, 2) } })
    // Clients often announce JSON on every request, also without a body.
    const fee = await h.request({
      method: 'POST',
      url: `/mobility-api/v2/cars/bookings/${late.booking.body.data.bookingId}/cancel`,
      key: t.secret,
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    assert.equal(fee.status, 200, fee.text)
    assert.ok(fee.body.data.cancellation.fee.amount > 0, 'within 48 h of pickup a fee applies')
    assert.deepEqual(fee.body.data.fee, fee.body.data.cancellation.fee)
    assert.deepEqual(fee.body.data.refund, fee.body.data.cancellation.refund)
    assert.equal(
      fee.body.data.fee.amount + fee.body.data.refund.amount,
      fee.body.data.price.totalPrice.amount,
      'fee and refund split the price',
    )
  })

  it('422 BOOKING_FAILED when the provider refuses the cancellation; 502 PROVIDER_ERROR when it fails reading', async () => {
    const { booking } = await bookFirst(h, t.test, { providerId: 'sandbox-rent' })
    const id = booking.body.data.bookingId
    const refused = await h.api('POST', `/cars/bookings/${id}/cancel`, t.test, undefined, {
      'x-sandbox-scenario': 'cancel-refused:sandbox-rent',
    })
    assert.equal(refused.status, 422)
    assert.equal(refused.body.error.code, 'BOOKING_FAILED')
    assert.equal(refused.body.error.details.reason, 'CANCELLATION_REFUSED')
    assert.match(refused.body.error.message, /refused the cancellation/)
    const read = await h.api('GET', `/cars/bookings/${id}`, t.test, undefined, {
      'x-sandbox-scenario': 'provider-error:sandbox-rent',
    })
    assert.equal(read.status, 502)
    assert.equal(read.body.error.code, 'PROVIDER_ERROR')
    const change = await h.api(
      'PATCH',
      `/cars/bookings/${id}`,
      t.test,
      { rentalPeriod: period(h, 24 * 5, 1) },
      { 'x-sandbox-scenario': 'provider-error:sandbox-rent' },
    )
    assert.equal(change.status, 502)
    assert.equal(change.body.error.code, 'PROVIDER_ERROR')
  })

  it('failures a scenario asks for never open a breaker: every such request gets its own error, other tenants too', async () => {
    const { booking } = await bookFirst(h, t.test, { providerId: 'sandbox-rent' })
    const id = booking.body.data.bookingId
    const failing = { 'x-sandbox-scenario': 'provider-error:sandbox-rent' }
    // More than the breaker's threshold (5) in a row.
    for (let i = 0; i < 8; i++) {
      const read = await h.api('GET', `/cars/bookings/${id}`, t.test, undefined, failing)
      assert.equal(read.status, 502, `read ${i + 1}: ${read.text}`)
      assert.equal(read.body.error.code, 'PROVIDER_ERROR')
    }
    const search = await h.api('POST', '/cars', t.test, { pickup: near(), dates: period(h) }, failing)
    assert.equal(search.status, 200, search.text)
    const rent = search.body.data.providers.find((p: any) => p.id === 'sandbox-rent')
    assert.equal(rent.status, 'FAILED')
    assert.equal(rent.error.code, 'PROVIDER_ERROR')

    const other = await createTenant(h)
    const theirs = await bookFirst(h, other.test, { providerId: 'sandbox-rent' })
    const refused = await h.api(
      'POST',
      `/cars/bookings/${theirs.booking.body.data.bookingId}/cancel`,
      other.test,
      undefined,
      { 'x-sandbox-scenario': 'cancel-refused:sandbox-rent' },
    )
    assert.equal(refused.status, 422, refused.text)
    assert.equal(refused.body.error.code, 'BOOKING_FAILED')
    // Without a scenario the provider answers as usual.
    const plain = await h.api('GET', `/cars/bookings/${id}`, t.test)
    assert.equal(plain.status, 200, plain.text)
  })

  it('a PENDING booking becomes CONFIRMED when read, and the history shows it', async () => {
    const { booking } = await bookFirst(h, t.test, {
      providerId: 'sandbox-share',
      headers: { 'x-sandbox-scenario': 'booking-pending:sandbox-share' },
    })
    assert.equal(booking.body.data.status, 'PENDING')
    const read = await h.api('GET', `/cars/bookings/${booking.body.data.bookingId}`, t.test)
    assert.equal(read.body.data.status, 'CONFIRMED')
    assert.deepEqual(
      read.body.data.statusHistory.map((s: any) => s.status),
      ['PENDING', 'CONFIRMED'],
    )
    // Every entry has status, time and reason (DECISIONS).
    for (const entry of read.body.data.statusHistory) {
      assert.ok(entry.time && typeof entry.reason === 'string' && entry.reason.length > 0, JSON.stringify(entry))
    }
  })

  it('vehicle actions on a car-sharing booking until the rental ends; 501 for rental providers', async () => {
    const { booking } = await bookFirst(h, t.secret, {
      providerId: 'sandbox-share',
      search: { dates: period(h, 2, 1) },
    })
    const id = booking.body.data.bookingId
    // Before pickup too: a client can try its app flow at once (the sandbox car always answers).
    const early = await h.api('POST', `/cars/bookings/${id}/vehicle-action`, t.secret, { action: 'HONK' })
    assert.equal(early.status, 200, early.text)
    h.clock.advance(2 * 3600_000 + 60_000)
    const unlock = await h.api('POST', `/cars/bookings/${id}/vehicle-action`, t.secret, { action: 'UNLOCK' })
    assert.equal(unlock.status, 200, unlock.text)
    assert.equal(unlock.body.data.status, 'COMPLETED')
    const locate = await h.api('POST', `/cars/bookings/${id}/vehicle-action`, t.secret, { action: 'LOCATE' })
    assert.ok(locate.body.data.vehicleLocation.latitude)
    const bad = await h.api('POST', `/cars/bookings/${id}/vehicle-action`, t.secret, { action: 'SELF_DESTRUCT' })
    assert.equal(bad.status, 400)
    h.clock.advance(86_400_000)
    const ended = await h.api('POST', `/cars/bookings/${id}/vehicle-action`, t.secret, { action: 'UNLOCK' })
    assert.equal(ended.status, 500, ended.text)
    assert.equal(ended.body.error.code, 'PROVIDER_ERROR')
    assert.equal(ended.body.error.details.cause, 'RENTAL_ENDED')
    const rent = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    const unsupported = await h.api(
      'POST',
      `/cars/bookings/${rent.booking.body.data.bookingId}/vehicle-action`,
      t.secret,
      { action: 'UNLOCK' },
    )
    assert.equal(unsupported.status, 501)
    assert.equal(unsupported.body.error.code, 'OPERATION_NOT_SUPPORTED')
  })
})

describe('data retention NONE', { skip: skipReason }, () => {
  let h: Harness
  let none: TenantFixture
  let other: TenantFixture
  before(async () => {
    h = await startHarness()
    none = await createTenant(h, { dataRetention: 'NONE' })
    other = await createTenant(h, { dataRetention: 'NONE' })
  })
  after(() => h.close())

  it('answers a zr1_ reference that works on every instance, stores nothing, and hides it from other tenants', async () => {
    const { booking, prebook } = await bookFirst(h, none.secret, { providerId: 'sandbox-rent' })
    assert.equal(booking.status, 201, booking.text)
    const ref = booking.body.data.bookingId
    assert.match(ref, /^zr1_/)
    // Returned once (spec 4.5): booking the same token again names no reference.
    const again = await h.api('POST', '/cars/bookings', none.secret, {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      driver: DRIVER,
    })
    assert.equal(again.status, 409)
    assert.equal(again.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.equal(again.body.error.details.bookingId, undefined)
    assert.ok(!again.text.includes(ref))
    assert.equal(booking.body.data.statusHistory, undefined)
    assert.equal(booking.body.data.dataRetention, 'NONE')
    assert.deepEqual(booking.body.data.offerPrice, booking.body.data.chargedRate)
    assert.notEqual(booking.body.data.driver.email, DRIVER.email, 'driver is the operator account')
    for (let i = 0; i < h.apps.length; i++) {
      const read = await h.request({
        url: `/mobility-api/v2/cars/bookings/${encodeURIComponent(ref)}`,
        key: none.secret,
        instance: i,
      })
      assert.equal(read.status, 200, read.text)
      assert.equal(read.body.data.bookingId, ref)
    }
    assert.equal((await h.api('GET', `/cars/bookings/${ref}`, other.secret)).status, 404)
    // One character inside the tag changed (never one the reference already has, nor only the last one's spare bits).
    const at = ref.length - 5
    const tampered = `${ref.slice(0, at)}${ref[at] === 'A' ? 'B' : 'A'}${ref.slice(at + 1)}`
    assert.equal((await h.api('GET', `/cars/bookings/${tampered}`, none.secret)).status, 404)
    const list = await h.api('GET', '/bookings', none.secret)
    assert.equal(list.status, 403)
    assert.equal(list.body.error.code, 'DATA_RETENTION_NONE')
    const rows = await h.runtimes[0].store.db.execute('SELECT count(*)::int AS n FROM car_bookings' as never)
    assert.equal((rows as any).rows[0].n, 0, 'nothing stored')
  })

  it('PATCH accepts rentalPeriod only; cancel and read go to the provider', async () => {
    const { booking } = await bookFirst(h, none.secret, { providerId: 'sandbox-rent' })
    const ref = booking.body.data.bookingId
    const driver = await h.api('PATCH', `/cars/bookings/${ref}`, none.secret, { driver: { firstName: 'Grace' } })
    assert.equal(driver.status, 400)
    assert.ok(driver.body.error.details.driver)
    const notes = await h.api('PATCH', `/cars/bookings/${ref}`, none.secret, { notes: 'x' })
    assert.equal(notes.status, 400)
    const later = period(h, 24 * 7, 2)
    const moved = await h.api('PATCH', `/cars/bookings/${ref}`, none.secret, { rentalPeriod: later })
    assert.equal(moved.status, 200, moved.text)
    const cancelled = await h.api('POST', `/cars/bookings/${ref}/cancel`, none.secret)
    assert.equal(cancelled.status, 200)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    assert.equal((await h.api('GET', `/cars/bookings/${ref}`, none.secret)).body.data.status, 'CANCELLED')
  })
})
