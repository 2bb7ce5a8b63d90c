import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  createMobilityClient,
  MobilityApiError,
  type MobilityClient,
  pages,
  unwrap,
} from '../../clients/typescript/src/index.ts'
import { BERLIN, period } from '../helpers/cars.ts'
import { createKey, createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { listenAll } from '../helpers/listen.ts'

// The typed client in clients/typescript against a running service: the flows an integrator writes first.
describe('the TypeScript client, end to end', { skip: skipReason }, () => {
  let h: Harness
  let client: MobilityClient
  before(async () => {
    h = await startHarness()
    const t = await createTenant(h)
    const key = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'test',
      rateLimit: { limit: 10_000, windowSeconds: 60 },
    })
    const [base] = await listenAll(h)
    client = createMobilityClient({ baseUrl: `${base}/mobility-api/v2`, apiKey: key.secret, maxRetries: 0 })
  })
  after(() => h.close())

  it('books a car: search, offer details, prebook, booking, cancel', async () => {
    const search = {
      pickup: { type: 'coordinates' as const, coordinates: BERLIN, radiusMeters: 20_000 },
      dates: period(h),
      estimatedKilometers: 100,
      limit: 20,
    }
    let offer: { offerToken: string; provider: { id: string } } | undefined
    let seen = 0
    for await (const page of pages((cursor) => client.api.POST('/cars', { body: { ...search, cursor } }), {
      maxPages: 3,
    })) {
      seen += page.offers.length
      offer ??= page.offers.find((o) => o.provider.id === 'sandbox-rent')
    }
    assert.ok(seen > 20, `pages walked (${seen} offers)`)
    assert.ok(offer, 'an offer of sandbox-rent')
    const details = await unwrap(client.api.POST('/cars/offer-details', { body: { offerToken: offer.offerToken } }))
    assert.ok(details.cancellationPolicy)
    assert.notEqual(details.offer.offerToken, offer.offerToken, 'offer details: the offer once, with a fresh token')
    const prebook = await unwrap(client.api.POST('/cars/prebook', { body: { offerToken: offer.offerToken } }))
    const booking = await unwrap(
      client.api.POST('/cars/bookings', {
        body: {
          prebookedOfferToken: prebook.prebookedOfferToken,
          driver: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
          additionalFields: { flightNumber: 'LH1234' },
        },
      }),
    )
    assert.equal(booking.status, 'CONFIRMED')
    const read = await unwrap(
      client.api.GET('/cars/bookings/{bookingId}', { params: { path: { bookingId: booking.bookingId } } }),
    )
    assert.equal(read.bookingId, booking.bookingId)
    const cancelled = await unwrap(
      client.api.POST('/cars/bookings/{bookingId}/cancel', {
        params: { path: { bookingId: booking.bookingId } },
        body: {},
      }),
    )
    assert.equal(cancelled.status, 'CANCELLED')
  })

  it('errors arrive as MobilityApiError with the envelope code and request id', async () => {
    const error = await unwrap(client.api.POST('/cars/prebook', { body: { offerToken: 'not-a-token' } })).catch(
      (e: unknown) => e,
    )
    assert.ok(error instanceof MobilityApiError)
    assert.equal(error.status, 400)
    assert.equal(error.code, 'INVALID_OFFER_TOKEN')
    assert.match(error.requestId ?? '', /\S/)
    assert.equal(error.retryable, false)
  })

  it('rides a scooter: search, start, end with the price', async () => {
    const found = await unwrap(
      client.api.POST('/micromobility', {
        body: { location: BERLIN, radiusMeters: 3000, providers: ['sandbox-scoot'], limit: 50 },
      }),
    )
    const vehicle = found.results.find((v) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 20)
    assert.ok(vehicle?.vehicleToken, 'a rentable scooter')
    const started = await unwrap(
      client.api.POST('/micromobility/trips', {
        body: {
          action: 'START',
          vehicleToken: vehicle.vehicleToken,
          userEmail: 'rider@example.com',
          userName: 'Rider',
        },
      }),
    )
    assert.equal(started.status, 'ACTIVE')
    h.clock.advance(5 * 60_000)
    const ended = await unwrap(
      client.api.POST('/micromobility/trips/{tripId}/end', {
        params: { path: { tripId: started.tripId } },
        body: { endLocation: BERLIN },
      }),
    )
    assert.equal(ended.status, 'COMPLETED')
    assert.ok(ended.priceBreakdown)
  })

  it('buys a ticket: stops, journeys, prebook, booking, tickets', async () => {
    const stops = await unwrap(
      client.api.GET('/public-transport/stops', { params: { query: { query: 'Hauptbahnhof' } } }),
    )
    const to = await unwrap(
      client.api.GET('/public-transport/stops', { params: { query: { query: 'Alexanderplatz' } } }),
    )
    const departAt = new Date(h.clock().getTime() + 86_400_000)
    departAt.setUTCHours(9, 0, 0, 0)
    const planned = await unwrap(
      client.api.POST('/public-transport/journeys', {
        body: {
          origin: { type: 'stop', stopId: stops.stops[0].stopId },
          destination: { type: 'stop', stopId: to.stops[0].stopId },
          departAt: departAt.toISOString(),
          limit: 3,
        },
      }),
    )
    const offer = planned.journeys.flatMap((j) => j.ticketOffers)[0]
    assert.ok(offer, 'a ticket offer')
    const prebook = await unwrap(
      client.api.POST('/public-transport/prebook', { body: { offerToken: offer.offerToken } }),
    )
    const booking = await unwrap(
      client.api.POST('/public-transport/bookings', {
        body: {
          prebookedOfferToken: prebook.prebookedOfferToken,
          traveller: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
        },
      }),
    )
    assert.equal(booking.traveller.lastName, 'Lovelace')
    h.clock.advance(10_000)
    const tickets = await unwrap(
      client.api.GET('/public-transport/bookings/{bookingId}/tickets', {
        params: { path: { bookingId: booking.bookingId } },
      }),
    )
    assert.ok(tickets.tickets.length > 0)
    assert.ok(tickets.tickets.every((ticket) => ticket.status === 'ISSUED'))
  })
})
