import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { and, eq, sql } from 'drizzle-orm'
import type { CarConnector } from '../../src/connectors/types/cars.ts'
import { jobs } from '../../src/store/schema.ts'
import { DRIVER, period, searchCars } from '../helpers/cars.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'
import { notRecorded, providerContext, runJobs, storeFaults } from '../helpers/store-faults.ts'

/** Past the minute a booking the service could not record waits at the provider for the client's retry. */
const PAST_GRACE_MS = 61_000
/** Past the first backoff of a job whose run failed (30 s). */
const PAST_BACKOFF_MS = 31_000

const roomyKey = { type: 'secret', environment: 'live', rateLimit: { limit: 10_000, windowSeconds: 60 } }

/** Search and prebook with the first offer of `providerId`; the prebooked token. */
async function prebooked(h: Harness, key: string, providerId: string): Promise<string> {
  const search = await searchCars(h, key, { estimatedKilometers: 100, limit: 100 })
  assert.equal(search.status, 200, search.text)
  const offer = search.body.data.offers.find((o: any) => o.provider.id === providerId)
  assert.ok(offer, `an offer of ${providerId}`)
  const prebook = await h.api('POST', '/cars/prebook', key, { offerToken: offer.offerToken })
  assert.equal(prebook.status, 200, prebook.text)
  return prebook.body.data.prebookedOfferToken
}

const book = (h: Harness, key: string, token: string) =>
  h.api('POST', '/cars/bookings', key, {
    prebookedOfferToken: token,
    driver: DRIVER,
    additionalFields: { flightNumber: 'LH1234' },
  })

/** The provider's own record of a booking (the sandbox's state, not the service's). */
const atProvider = (h: Harness, tenantId: string, providerId: string, reference: string) =>
  (h.runtimes[0].registry.get(providerId)!.connector as CarConnector).getBooking(
    reference,
    providerContext(h, tenantId),
  )

describe('car bookings: after the provider said yes, nothing is lost', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  const faults = storeFaults()
  before(async () => {
    h = await startHarness({ decorate: faults.decorate })
    t = await createTenant(h)
    t.secret = (await createKey(h, t.tenant.id, roomyKey)).secret
  })
  after(() => h.close())

  /** What the service tried to insert when the store failed: the booking's id and the provider's reference. */
  const attempted = () => {
    const calls = faults.failed('carBookings.insert')
    return calls[calls.length - 1][0] as { id: string; providerReference: string }
  }

  it('a store that fails twice right after the booking: the retried write records it (201)', async () => {
    const token = await prebooked(h, t.secret, 'sandbox-rent')
    const before = faults.failed('carBookings.insert').length
    faults.fail('carBookings.insert', 2)
    const res = await book(h, t.secret, token)
    faults.heal()
    assert.equal(res.status, 201, res.text)
    assert.equal(faults.failed('carBookings.insert').length, before + 2)
    const read = await h.api('GET', `/cars/bookings/${res.body.data.bookingId}`, t.secret)
    assert.equal(read.status, 200, read.text)
    const provider = await atProvider(h, t.tenant.id, 'sandbox-rent', res.body.data.providerReference)
    assert.equal(provider.status, 'CONFIRMED')
  })

  it('a store that keeps failing: 503, the token stays usable, and the retry takes over the provider’s booking', async () => {
    const token = await prebooked(h, t.secret, 'sandbox-rent')
    faults.fail('carBookings.insert')
    const failed = await book(h, t.secret, token)
    faults.heal()
    notRecorded(failed)
    const tried = attempted()
    assert.equal((await atProvider(h, t.tenant.id, 'sandbox-rent', tried.providerReference)).status, 'CONFIRMED')
    // Nothing stored, nothing that claims to be: the token is not spent.
    assert.equal((await h.api('GET', `/cars/bookings/${tried.id}`, t.secret)).status, 404)

    const retry = await book(h, t.secret, token)
    assert.equal(retry.status, 201, retry.text)
    assert.equal(retry.body.data.providerReference, tried.providerReference, 'the same booking, not a second car')
    assert.equal(retry.body.data.bookingId, tried.id)

    // The undo finds the booking recorded and leaves it alone.
    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    assert.equal((await atProvider(h, t.tenant.id, 'sandbox-rent', tried.providerReference)).status, 'CONFIRMED')
    const read = await h.api('GET', `/cars/bookings/${tried.id}`, t.secret)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.status, 'CONFIRMED')
    const again = await book(h, t.secret, token)
    assert.equal(again.status, 409, again.text)
    assert.equal(again.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.equal(again.body.error.details.bookingId, tried.id)
  })

  it('no retry within the minute: the job cancels the provider’s booking, and a later retry books anew', async () => {
    const token = await prebooked(h, t.secret, 'sandbox-rent')
    faults.fail('carBookings.insert')
    notRecorded(await book(h, t.secret, token))
    faults.heal()
    const tried = attempted()

    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    const undone = await atProvider(h, t.tenant.id, 'sandbox-rent', tried.providerReference)
    assert.equal(undone.status, 'CANCELLED', 'no provider booking without a service record')

    const retry = await book(h, t.secret, token)
    assert.equal(retry.status, 201, retry.text)
    assert.notEqual(retry.body.data.providerReference, tried.providerReference)
    const fresh = await atProvider(h, t.tenant.id, 'sandbox-rent', retry.body.data.providerReference)
    assert.equal(fresh.status, 'CONFIRMED')
    const read = await h.api('GET', `/cars/bookings/${retry.body.data.bookingId}`, t.secret)
    assert.equal(read.status, 200, read.text)
    const again = await book(h, t.secret, token)
    assert.equal(again.body.error.details.bookingId, retry.body.data.bookingId)
  })

  it('retention NONE: the single-use marker is the record; not written, the booking is undone and the token stays usable', async () => {
    const none = await createTenant(h, { dataRetention: 'NONE' })
    const key = (await createKey(h, none.tenant.id, roomyKey)).secret
    const undoJobs = () =>
      h.runtimes[0].store.db
        .select()
        .from(jobs)
        .where(and(eq(jobs.kind, 'cars.undo-booking'), sql`${jobs.payload}->>'tenantId' = ${none.tenant.id}`))

    // Not written at all: the provider's booking is cancelled after the minute, and the token books anew.
    const first = await prebooked(h, key, 'sandbox-share')
    faults.fail('kv.set', Number.POSITIVE_INFINITY, ([k]) => String(k).startsWith('cars:booked:'))
    notRecorded(await book(h, key, first))
    faults.heal()
    const [undo] = await undoJobs()
    const reference = String(undo.payload.reference)
    assert.equal(undo.payload.bookingId, undefined, 'no booking id is kept under retention NONE')
    assert.ok(!JSON.stringify(undo.payload).includes(DRIVER.email), 'nor personal data')
    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    assert.equal((await atProvider(h, none.tenant.id, 'sandbox-share', reference)).status, 'CANCELLED')
    const anew = await book(h, key, first)
    assert.equal(anew.status, 201, anew.text)
    assert.match(anew.body.data.bookingId, /^zr1_/)
    assert.notEqual(anew.body.data.providerReference, reference)
    const spent = await book(h, key, first)
    assert.equal(spent.status, 409, spent.text)
    assert.equal(spent.body.error.code, 'OFFER_TOKEN_ALREADY_USED')

    // Retried in time: the retry takes the provider's booking over and the token is spent.
    const second = await prebooked(h, key, 'sandbox-share')
    faults.fail('kv.set', Number.POSITIVE_INFINITY, ([k]) => String(k).startsWith('cars:booked:'))
    notRecorded(await book(h, key, second))
    faults.heal()
    const pending = (await undoJobs()).find((j) => j.status === 'pending')!
    const taken = await book(h, key, second)
    assert.equal(taken.status, 201, taken.text)
    assert.equal(taken.body.data.providerReference, pending.payload.reference)
    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    const read = await h.api('GET', `/cars/bookings/${taken.body.data.bookingId}`, key)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.status, 'CONFIRMED')
    assert.equal((await book(h, key, second)).status, 409)
  })

  it('a change the store cannot take at once: answered as the provider made it, and recorded by a job', async () => {
    const created = await book(h, t.secret, await prebooked(h, t.secret, 'sandbox-rent'))
    assert.equal(created.status, 201, created.text)
    const id = created.body.data.bookingId
    const rentalPeriod = period(h, 96, 2)
    faults.fail('carBookings.update')
    const changed = await h.api('PATCH', `/cars/bookings/${id}`, t.secret, { rentalPeriod, notes: 'arrives late' })
    faults.heal()
    assert.equal(changed.status, 200, changed.text)
    assert.equal(changed.body.data.rentalPeriod.start, rentalPeriod.start)
    const provider = await atProvider(h, t.tenant.id, 'sandbox-rent', created.body.data.providerReference)
    assert.equal(provider.rentalPeriod.start, rentalPeriod.start)

    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const stored = await storedBooking(id)
    assert.equal(stored.rentalPeriod.start, rentalPeriod.start, 'the stored copy has the change')
    assert.equal(stored.notes, 'arrives late', 'and what only the service keeps')
  })

  it('a cancellation the store cannot take at once: answered CANCELLED, and recorded by a job', async () => {
    const created = await book(h, t.secret, await prebooked(h, t.secret, 'sandbox-rent'))
    assert.equal(created.status, 201, created.text)
    const id = created.body.data.bookingId
    faults.fail('carBookings.update')
    const cancelled = await h.api('POST', `/cars/bookings/${id}/cancel`, t.secret, { reason: 'plans changed' })
    faults.heal()
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')

    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const stored = await storedBooking(id)
    assert.equal(stored.status, 'CANCELLED')
    assert.equal(stored.statusHistory.at(-1).reason, 'plans changed')
  })

  /** The booking as the service stored it (GET /bookings lists the stored copies; GET by id asks the provider). */
  async function storedBooking(id: string) {
    const list = await h.api('GET', '/bookings?limit=100', t.secret)
    assert.equal(list.status, 200, list.text)
    const found = list.body.data.bookings.find((b: any) => b.bookingId === id)
    assert.ok(found, `booking ${id} is listed`)
    return found
  }
})

describe('car bookings: an undo pending when the service stopped runs after the restart', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  const faults = storeFaults()
  before(async () => {
    h = await startHarness({ persistent: true, decorate: faults.decorate })
    t = await createTenant(h)
  })
  after(() => h.close())

  it('the provider’s booking is cancelled once, by the restarted service, and the token books anew', async () => {
    const token = await prebooked(h, t.secret, 'sandbox-rent')
    faults.fail('carBookings.insert')
    notRecorded(await book(h, t.secret, token))
    faults.heal()
    const [tried] = faults.failed('carBookings.insert').map((args) => args[0] as { providerReference: string })

    await h.restart()
    assert.equal((await atProvider(h, t.tenant.id, 'sandbox-rent', tried.providerReference)).status, 'CONFIRMED')
    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    assert.equal((await atProvider(h, t.tenant.id, 'sandbox-rent', tried.providerReference)).status, 'CANCELLED')
    const [undo] = await h.runtimes[0].store.db.select().from(jobs).where(eq(jobs.kind, 'cars.undo-booking'))
    assert.equal(undo.status, 'done')
    assert.equal(undo.attempts, 1, 'run once, across instances')

    const retry = await book(h, t.secret, token)
    assert.equal(retry.status, 201, retry.text)
    assert.notEqual(retry.body.data.providerReference, tried.providerReference)
  })
})
