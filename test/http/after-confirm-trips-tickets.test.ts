import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { eq } from 'drizzle-orm'
import { stateKeyPrefix } from '../../src/connectors/sandbox/common.ts'
import type { PublicTransportConnector } from '../../src/connectors/types/public-transport.ts'
import { ptBookings, subscriptions } from '../../src/store/schema.ts'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'
import { notRecorded, providerContext, runJobs, storeFaults } from '../helpers/store-faults.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }
const PAST_GRACE_MS = 61_000
const PAST_BACKOFF_MS = 31_000

describe('trips, tickets and subscriptions: after the provider said yes, nothing is lost', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  const faults = storeFaults()
  before(async () => {
    h = await startHarness({ decorate: faults.decorate })
    t = await createTenant(h)
    t.secret = (
      await createKey(h, t.tenant.id, {
        type: 'secret',
        environment: 'live',
        rateLimit: { limit: 10_000, windowSeconds: 60 },
      })
    ).secret
  })
  after(() => h.close())

  const lastFailed = (name: string) => {
    const calls = faults.failed(name)
    assert.ok(calls.length > 0, `${name} failed`)
    return calls[calls.length - 1][0] as Record<string, any>
  }

  // --- micromobility ---------------------------------------------------------------------------------------------

  const taken = new Set<string>()
  /** A fresh vehicle token of a free, charged scooter no other test used. */
  async function scooter(): Promise<string> {
    const res = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    assert.equal(res.status, 200, res.text)
    const v = res.body.data.results.find(
      (x: any) => x.isAvailable && x.vehicleToken && (x.batteryPercent ?? 100) > 30 && !taken.has(x.vehicleId),
    )
    assert.ok(v, 'a free scooter')
    taken.add(v.vehicleId)
    return v.vehicleToken
  }
  const trip = (body: Record<string, unknown>) =>
    h.api('POST', '/micromobility/trips', t.secret, { userEmail: 'rider@example.com', userName: 'Rider', ...body })
  /** The sandbox provider's own record of a trip. */
  const providerTrip = async (reference: string) => {
    const text = await h.runtimes[0].kv.get(`${stateKeyPrefix('sandbox-scoot', 'live')}trip:${reference}`)
    assert.ok(text, `the provider knows trip ${reference}`)
    return JSON.parse(text) as { status: string }
  }

  it('START, store failing twice: the retried write records the trip (201)', async () => {
    faults.fail('trips.insert', 2)
    const started = await trip({ action: 'START', vehicleToken: await scooter() })
    faults.heal()
    assert.equal(started.status, 201, started.text)
    assert.equal((await h.api('GET', `/micromobility/trips/${started.body.data.tripId}`, t.secret)).status, 200)
  })

  it('START the store cannot record: the ride is ended at the provider at once, and the same token starts again', async () => {
    const token = await scooter()
    faults.fail('trips.insert')
    notRecorded(await trip({ action: 'START', vehicleToken: token }))
    faults.heal()
    const tried = lastFailed('trips.insert')
    assert.equal((await providerTrip(tried.providerReference)).status, 'ENDED', 'no ride without a service record')
    assert.equal((await h.api('GET', `/micromobility/trips/${tried.id}`, t.secret)).status, 404)

    const retry = await trip({ action: 'START', vehicleToken: token })
    assert.equal(retry.status, 201, retry.text)
    assert.equal(retry.body.data.status, 'ACTIVE')
    const read = await h.api('GET', `/micromobility/trips/${retry.body.data.tripId}`, t.secret)
    assert.equal(read.status, 200, read.text)
  })

  it('RESERVE the store cannot record: the vehicle is released at once, and the same token reserves again', async () => {
    const token = await scooter()
    faults.fail('trips.insert')
    notRecorded(await trip({ action: 'RESERVE', vehicleToken: token }))
    faults.heal()
    const tried = lastFailed('trips.insert')
    assert.equal((await providerTrip(tried.providerReference)).status, 'RELEASED')
    const retry = await trip({ action: 'RESERVE', vehicleToken: token })
    assert.equal(retry.status, 201, retry.text)
    assert.equal(retry.body.data.status, 'RESERVED')
  })

  it('START of a reservation and END the store cannot take at once: answered as the provider did it, recorded by jobs', async () => {
    const reserved = await trip({ action: 'RESERVE', vehicleToken: await scooter() })
    assert.equal(reserved.status, 201, reserved.text)
    const tripId = reserved.body.data.tripId

    faults.fail('trips.update')
    const started = await trip({ action: 'START', tripId })
    faults.heal()
    assert.equal(started.status, 201, started.text)
    assert.equal(started.body.data.status, 'ACTIVE')
    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const active = await h.api('GET', `/micromobility/trips/${tripId}`, t.secret)
    assert.equal(active.body.data.status, 'ACTIVE', active.text)

    h.clock.advance(4 * 60_000)
    faults.fail('trips.update')
    const ended = await h.api('POST', `/micromobility/trips/${tripId}/end`, t.secret, {
      endLocation: { latitude: ALEX.latitude + 0.002, longitude: ALEX.longitude },
    })
    faults.heal()
    assert.equal(ended.status, 200, ended.text)
    assert.equal(ended.body.data.status, 'COMPLETED')
    assert.ok(ended.body.data.priceBreakdown.total.amount > 0)
    const reference = lastFailed('trips.update') as { providerReference?: string }
    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const read = await h.api('GET', `/micromobility/trips/${tripId}`, t.secret)
    assert.equal(read.body.data.status, 'COMPLETED', read.text)
    assert.equal(read.body.data.endedAt, ended.body.data.endedAt)
    assert.equal((await providerTrip(String(reference.providerReference))).status, 'ENDED')
  })

  it('CANCEL of a reservation the store cannot take at once: answered CANCELLED, recorded by a job', async () => {
    const reserved = await trip({ action: 'RESERVE', vehicleToken: await scooter() })
    assert.equal(reserved.status, 201, reserved.text)
    const tripId = reserved.body.data.tripId
    faults.fail('trips.update')
    const cancelled = await h.api('POST', `/micromobility/trips/${tripId}/cancel`, t.secret)
    faults.heal()
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    const reference = String(lastFailed('trips.update').providerReference)
    assert.equal((await providerTrip(reference)).status, 'RELEASED')
    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const read = await h.api('GET', `/micromobility/trips/${tripId}`, t.secret)
    assert.equal(read.body.data.status, 'CANCELLED', read.text)
    assert.equal(read.body.data.cancellationReason, 'CANCELLED_BY_USER')
  })

  // --- public transport -------------------------------------------------------------------------------------------

  const transit = () => h.runtimes[0].registry.get('sandbox-transit')!.connector as PublicTransportConnector
  let hour = 8
  /** A prebooked ticket token, for a journey of its own (an offer can be prebooked once). */
  async function prebookedTicket(): Promise<string> {
    const departAt = new Date(h.clock().getTime() + 86_400_000)
    departAt.setUTCHours(hour++, 0, 0, 0)
    const stop = async (query: string) =>
      (await h.api('GET', `/public-transport/stops?query=${encodeURIComponent(query)}`, t.secret)).body.data.stops[0]
    const plan = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: (await stop('Hauptbahnhof')).stopId },
      destination: { type: 'stop', stopId: (await stop('Alexanderplatz')).stopId },
      departAt: departAt.toISOString(),
      limit: 3,
    })
    assert.equal(plan.status, 200, plan.text)
    const journey = plan.body.data.journeys.find((j: any) => j.ticketOffers.length > 0)
    assert.ok(journey, 'a journey with ticket offers')
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, {
      offerToken: journey.ticketOffers[0].offerToken,
    })
    assert.equal(prebook.status, 200, prebook.text)
    return prebook.body.data.prebookedOfferToken
  }
  const buyTickets = (token: string) =>
    h.api('POST', '/public-transport/bookings', t.secret, {
      prebookedOfferToken: token,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    })
  const ticketsAtProvider = (reference: string) =>
    transit().ticketing!.getBooking(reference, providerContext(h, t.tenant.id))

  it('tickets the store cannot record: 503, the token stays usable, and the retry takes them over', async () => {
    const token = await prebookedTicket()
    faults.fail('publicTransport.insertBooking')
    notRecorded(await buyTickets(token))
    faults.heal()
    const tried = lastFailed('publicTransport.insertBooking')
    assert.notEqual((await ticketsAtProvider(tried.providerReference)).status, 'CANCELLED')

    const retry = await buyTickets(token)
    assert.equal(retry.status, 201, retry.text)
    assert.equal(retry.body.data.providerReference, tried.providerReference, 'the same tickets, not bought twice')
    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    assert.notEqual((await ticketsAtProvider(tried.providerReference)).status, 'CANCELLED')
    const read = await h.api('GET', `/public-transport/bookings/${retry.body.data.bookingId}`, t.secret)
    assert.equal(read.status, 200, read.text)
    const again = await buyTickets(token)
    assert.equal(again.status, 409, again.text)
    assert.equal(again.body.error.details.bookingId, retry.body.data.bookingId)
  })

  it('tickets not retried within the minute: the job cancels them at the provider, and the token buys anew', async () => {
    const token = await prebookedTicket()
    faults.fail('publicTransport.insertBooking')
    notRecorded(await buyTickets(token))
    faults.heal()
    const tried = lastFailed('publicTransport.insertBooking')
    h.clock.advance(PAST_GRACE_MS)
    await runJobs(h)
    assert.equal((await ticketsAtProvider(tried.providerReference)).status, 'CANCELLED')
    const retry = await buyTickets(token)
    assert.equal(retry.status, 201, retry.text)
    assert.notEqual(retry.body.data.providerReference, tried.providerReference)
  })

  it('attempts meeting one that cannot record: 409 BOOKING_IN_PROGRESS (retry), never ALREADY_USED without a booking', async () => {
    const token = await prebookedTicket()
    faults.fail('publicTransport.insertBooking')
    const first = buyTickets(token)
    // The first attempt holds the token while it retries its write; these meet it there.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const others = await Promise.all([buyTickets(token), buyTickets(token), buyTickets(token)])
    notRecorded(await first)
    faults.heal()
    for (const res of others) {
      assert.equal(res.status, 409, res.text)
      assert.equal(res.body.error.code, 'INTERNAL_ERROR', 'no booking exists, so the token is not spent')
      assert.equal(res.body.error.details.retryable, true)
    }
    const retry = await buyTickets(token)
    assert.equal(retry.status, 201, retry.text)
    const again = await buyTickets(token)
    assert.equal(again.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assert.equal(again.body.error.details.bookingId, retry.body.data.bookingId)
  })

  it('a ticket cancellation the store cannot take at once: answered CANCELLED, recorded by a job', async () => {
    const bought = await buyTickets(await prebookedTicket())
    assert.equal(bought.status, 201, bought.text)
    const id = bought.body.data.bookingId
    faults.fail('publicTransport.updateBooking')
    const cancelled = await h.api('POST', `/public-transport/bookings/${id}/cancel`, t.secret)
    faults.heal()
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const [row] = await h.runtimes[0].store.db.select().from(ptBookings).where(eq(ptBookings.id, id))
    assert.equal(row.status, 'CANCELLED')
    // The tickets' watch job (issue 16) may run in the same round and record the provider's CANCELLED first (then
    // without the client's reason): what must hold is that the cancellation is recorded, once.
    assert.equal(row.statusHistory.filter((e) => e.status === 'CANCELLED').length, 1, JSON.stringify(row.statusHistory))
  })

  const holder = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', dateOfBirth: '1990-12-10' }
  const identification = { type: 'ID_CARD', number: 'L01X00T47' }
  const nextMonth = () => {
    const now = h.clock()
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
  }
  const subscribe = () =>
    h.api('POST', '/public-transport/subscriptions', t.secret, {
      productId: 'deutschlandticket',
      holder: { ...holder, identification },
      startDate: nextMonth(),
    })

  it('a subscription the store cannot record: 503, withdrawn at the provider at once, and the retry subscribes', async () => {
    faults.fail('publicTransport.insertSubscription')
    notRecorded(await subscribe())
    faults.heal()
    const tried = lastFailed('publicTransport.insertSubscription')
    const atProvider = await transit().ticketing!.getSubscription(
      tried.providerReference,
      providerContext(h, t.tenant.id),
    )
    assert.equal(atProvider.status, 'CANCELLED', 'no subscription without a service record')
    const retry = await subscribe()
    assert.equal(retry.status, 201, retry.text)
    const read = await h.api('GET', `/public-transport/subscriptions/${retry.body.data.subscriptionId}`, t.secret)
    assert.equal(read.status, 200, read.text)
  })

  it('a subscription cancellation the store cannot take at once: answered, recorded by a job', async () => {
    const created = await subscribe()
    assert.equal(created.status, 201, created.text)
    const id = created.body.data.subscriptionId
    faults.fail('publicTransport.updateSubscription')
    const cancelled = await h.api('POST', `/public-transport/subscriptions/${id}/cancel`, t.secret)
    faults.heal()
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    h.clock.advance(PAST_BACKOFF_MS)
    await runJobs(h)
    const [row] = await h.runtimes[0].store.db.select().from(subscriptions).where(eq(subscriptions.id, id))
    assert.equal(row.status, 'CANCELLED')
  })
})
