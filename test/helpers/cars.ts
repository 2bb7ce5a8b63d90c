import type { Harness } from './harness.ts'

export const BERLIN = { latitude: 52.52, longitude: 13.405 }
export const BER_AIRPORT = { latitude: 52.3667, longitude: 13.5033 }

/** A rental period `days` long starting `inHours` from the harness clock, on the full hour. */
export function period(h: Harness, inHours = 72, days = 3) {
  const start = new Date(h.clock().getTime() + inHours * 3600_000)
  start.setUTCMinutes(0, 0, 0)
  const end = new Date(start.getTime() + days * 86_400_000)
  return { start: start.toISOString(), end: end.toISOString() }
}

export const near = (coordinates = BERLIN, radiusMeters = 20_000) => ({
  type: 'coordinates',
  coordinates,
  radiusMeters,
})

export async function searchCars(
  h: Harness,
  key: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) {
  return h.api('POST', '/cars', key, { pickup: near(), dates: period(h), ...body }, headers)
}

/** Search → prebook → book with the first offer of `providerId`; answers every intermediate response. */
export async function bookFirst(
  h: Harness,
  key: string,
  options: {
    providerId?: string
    search?: Record<string, unknown>
    headers?: Record<string, string>
    additionalFields?: Record<string, string>
  } = {},
) {
  const search = await searchCars(h, key, { estimatedKilometers: 100, limit: 100, ...options.search }, options.headers)
  if (search.status !== 200) throw new Error(`search failed: ${search.text}`)
  const offer = search.body.data.offers.find((o: any) => !options.providerId || o.provider.id === options.providerId)
  if (!offer) throw new Error(`no offer of ${options.providerId}`)
  const prebook = await h.api('POST', '/cars/prebook', key, { offerToken: offer.offerToken }, options.headers)
  if (prebook.status !== 200) throw new Error(`prebook failed: ${prebook.text}`)
  const booking = await h.api(
    'POST',
    '/cars/bookings',
    key,
    {
      prebookedOfferToken: prebook.body.data.prebookedOfferToken,
      driver: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      // Airport stations ask for a flight number; others ignore it.
      additionalFields: options.additionalFields ?? { flightNumber: 'LH1234' },
    },
    options.headers,
  )
  return { search, offer, prebook, booking }
}

export const DRIVER = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }
