import assert from 'node:assert/strict'
import type { Harness } from './harness.ts'

/** Near Alexanderplatz, where the sandbox scooters are. */
export const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/** The `skip`-th available sandbox scooter with a vehicle token, for `key`. */
export async function scooter(h: Harness, key: string, skip = 0) {
  const res = await h.api('POST', '/micromobility', key, {
    location: ALEX,
    radiusMeters: 3000,
    providers: ['sandbox-scoot'],
    limit: 100,
  })
  assert.equal(res.status, 200, res.text)
  const available = res.body.data.results.filter(
    (v: any) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 20,
  )
  assert.ok(available[skip], 'an available scooter')
  return available[skip]
}

/** RESERVE or START a trip on the `skip`-th available scooter; answers the 201's trip. */
export async function beginTrip(
  h: Harness,
  key: string,
  action: 'RESERVE' | 'START',
  extra: Record<string, unknown> = {},
  skip = 0,
) {
  const v = await scooter(h, key, skip)
  const res = await h.api('POST', '/micromobility/trips', key, { action, vehicleToken: v.vehicleToken, ...extra })
  assert.equal(res.status, 201, res.text)
  return res.body.data
}

const tomorrowAt = (h: Harness, hour: number) => {
  const d = new Date(h.clock().getTime() + 86_400_000)
  d.setUTCHours(hour - 1, 0, 0, 0)
  return d.toISOString()
}

/** Journey → prebook → book of sandbox-transit tickets for tomorrow morning; answers the 201's booking. */
export async function bookTickets(h: Harness, key: string, headers?: Record<string, string>) {
  const stop = async (text: string) => {
    const res = await h.api('GET', `/public-transport/stops?query=${encodeURIComponent(text)}`, key)
    assert.equal(res.status, 200, res.text)
    return res.body.data.stops[0].stopId
  }
  const journeys = await h.api('POST', '/public-transport/journeys', key, {
    origin: { type: 'stop', stopId: await stop('Hauptbahnhof') },
    destination: { type: 'stop', stopId: await stop('Alexanderplatz') },
    departAt: tomorrowAt(h, 10),
    limit: 1,
  })
  assert.equal(journeys.status, 200, journeys.text)
  const offer = journeys.body.data.journeys[0].ticketOffers[0]
  const prebook = await h.api('POST', '/public-transport/prebook', key, { offerToken: offer.offerToken }, headers)
  assert.equal(prebook.status, 200, prebook.text)
  const booking = await h.api(
    'POST',
    '/public-transport/bookings',
    key,
    {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    },
    headers,
  )
  assert.equal(booking.status, 201, booking.text)
  return booking.body.data
}

/** A Deutschlandticket subscription from the first of next month; answers the 201's subscription. */
export async function subscribe(h: Harness, key: string) {
  const next = h.clock()
  const startDate = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
  const res = await h.api('POST', '/public-transport/subscriptions', key, {
    productId: 'deutschlandticket',
    holder: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      dateOfBirth: '1990-12-10',
      identification: { type: 'ID_CARD', number: 'L01X00T47' },
    },
    startDate,
  })
  assert.equal(res.status, 201, res.text)
  return res.body.data
}
