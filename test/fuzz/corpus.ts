import { ADMIN_TOKEN, createKey, type Harness } from '../helpers/harness.ts'

/**
 * What the running service handed out (keys, tokens, ids, cursors), by slot. Generated requests name a slot and a
 * number; the corpus answers one of the slot's current values, so requests get past the first check of a token or
 * an id and reach the code behind it. Slots are refilled between batches (tokens are single use, trips end).
 */
export class Corpus {
  private readonly slots = new Map<string, string[]>()
  /** Trips the fuzzer started, ended and cancelled between batches so the fleet does not run out. */
  readonly openTrips: { tripId: string; key: string }[] = []

  add(slot: string, ...values: (string | undefined | null)[]) {
    const list = this.slots.get(slot) ?? []
    for (const v of values) if (typeof v === 'string' && v !== '') list.push(v)
    // The newest values; old tokens are still worth a try (expired, consumed), but not forever.
    this.slots.set(slot, list.slice(-60))
  }

  ref(slot: string, pick: number): string {
    const list = this.slots.get(slot)
    if (!list || list.length === 0) return FALLBACK[slot.split(':')[0]] ?? `no-${slot}`
    return list[pick % list.length]
  }

  has(slot: string) {
    return (this.slots.get(slot)?.length ?? 0) > 0
  }

  sizes(): Record<string, number> {
    return Object.fromEntries([...this.slots].map(([k, v]) => [k, v.length]))
  }
}

/** Well-formed stand-ins when a slot could not be filled (a provider down during setup). */
const FALLBACK: Record<string, string> = {
  carBooking: 'BK2345678Z',
  qr: 'sandbox:scoot-00001',
  vehicleId: 'scoot-00001',
  stopId: 'sandbox-transit:alex',
  productId: 'deutschlandticket',
}

export const BERLIN = { latitude: 52.52, longitude: 13.405 }
export const ALEX = { latitude: 52.5219, longitude: 13.4132 }
export const ALLOWED_ORIGIN = 'https://app.example'
export const DRIVER = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }
const HOUR = 3600_000

/** The kinds of credential a generated request can carry (see `keyHeader`). */
export const KEY_KINDS = [
  'live',
  'test',
  'pk',
  'pkTest',
  'foreign',
  'foreignTest',
  'retentionNone',
  'revoked',
  'limited',
  'admin',
] as const
export type KeyKind = (typeof KEY_KINDS)[number]

export interface Setup {
  corpus: Corpus
  tenants: { main: string; other: string; retentionNone: string; victim: string }
  /** A problem of a setup step (reported, never fatal: the fuzzer goes on with what it has). */
  problems: string[]
}

type Send = (
  method: string,
  url: string,
  key: string | undefined,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: any; text: string }>

const generous = { limit: 1_000_000, windowSeconds: 60 }

/** Tenants and keys of every kind; `send` is the fuzzer's own sender, so setup answers are judged too. */
export async function setUp(h: Harness, send: Send): Promise<Setup> {
  const corpus = new Corpus()
  const problems: string[] = []
  const tenant = async (name: string, settings: Record<string, unknown> = {}) => {
    const res = await send('POST', '/admin/v1/tenants', ADMIN_TOKEN, { name, ...settings })
    if (res.status !== 201) throw new Error(`fuzz setup: tenant ${name} not created: ${res.status} ${res.text}`)
    return res.body.data.tenant.id as string
  }
  const main = await tenant('Fuzz main', { allowedOrigins: [ALLOWED_ORIGIN] })
  const other = await tenant('Fuzz other', { allowedOrigins: [ALLOWED_ORIGIN] })
  const retentionNone = await tenant('Fuzz retention NONE', { dataRetention: 'NONE' })
  const victim = await tenant('Fuzz admin victim')
  const key = async (tenantId: string, body: Record<string, unknown>) =>
    (await createKey(h, tenantId, { rateLimit: generous, ...body })).secret
  corpus.add('key:live', await key(main, { type: 'secret', environment: 'live' }))
  corpus.add('key:test', await key(main, { type: 'secret', environment: 'test' }))
  corpus.add('key:pk', await key(main, { type: 'publishable', environment: 'live' }))
  corpus.add('key:pkTest', await key(main, { type: 'publishable', environment: 'test' }))
  corpus.add('key:foreign', await key(other, { type: 'secret', environment: 'live' }))
  corpus.add('key:foreignTest', await key(other, { type: 'secret', environment: 'test' }))
  corpus.add('key:retentionNone', await key(retentionNone, { type: 'secret', environment: 'live' }))
  corpus.add(
    'key:limited',
    await key(main, { type: 'secret', environment: 'live', rateLimit: { limit: 3, windowSeconds: 3600 } }),
  )
  const revoked = await createKey(h, main, { type: 'secret', environment: 'live' })
  await send('DELETE', `/admin/v1/keys/${revoked.id}`, ADMIN_TOKEN)
  corpus.add('key:revoked', revoked.secret)
  corpus.add('key:admin', ADMIN_TOKEN)
  corpus.add('tenantAny', main, other, retentionNone, victim)
  corpus.add('victimTenant', victim)
  return { corpus, tenants: { main, other, retentionNone, victim }, problems }
}

/** Fills the slots that requests consume or that age (see Corpus); `round` 0 also fills the long-lived ones. */
export async function replenish(h: Harness, setup: Setup, send: Send, round: number): Promise<void> {
  const { corpus, problems } = setup
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn()
    } catch (error) {
      problems.push(`round ${round}: ${what}: ${(error as Error).message}`)
      return undefined
    }
  }
  const expect = (what: string, res: { status: number; text: string; body: any }, ...ok: number[]) => {
    if (!ok.includes(res.status)) throw new Error(`${what} answered ${res.status}: ${res.text.slice(0, 300)}`)
    return res
  }
  const api = (method: string, path: string, key: string, body?: unknown) =>
    send(method, `/mobility-api/v2${path}`, key, body)

  // Trips the fuzzer left running hold their vehicles: end them, so the fleet stays rentable.
  for (const trip of corpus.openTrips.splice(0, 60)) {
    await api('POST', `/micromobility/trips/${trip.tripId}/end`, trip.key, { endLocation: ALEX }).catch(() => {})
    await api('POST', `/micromobility/trips/${trip.tripId}/cancel`, trip.key).catch(() => {})
  }

  const now = h.clock().getTime()
  const at = (ms: number) => new Date(Math.floor((now + ms) / HOUR) * HOUR).toISOString()
  const period = { start: at(72 * HOUR), end: at(144 * HOUR) }
  const envs: [string, string][] = [
    ['live', corpus.ref('key:live', 0)],
    ['test', corpus.ref('key:test', 0)],
  ]
  if (round % 5 === 0) envs.push(['foreign', corpus.ref('key:foreign', 0)])
  for (const [env, key] of envs) {
    await step(`cars ${env}`, async () => {
      const search = expect(
        'car search',
        await api('POST', '/cars', key, {
          pickup: { type: 'coordinates', coordinates: BERLIN, radiusMeters: 20_000 },
          dates: period,
          estimatedKilometers: 100,
          limit: 40,
        }),
        200,
      )
      const offers: any[] = search.body.data.offers
      corpus.add(`carCursor:${env}`, search.body.data.pagination.nextCursor)
      const rent = offers.filter((o) => o.provider.id === 'sandbox-rent')
      const share = offers.filter((o) => o.provider.id === 'sandbox-share')
      // The first few go to prebook below; the rest are for the fuzzer.
      corpus.add(`carOffer:${env}`, ...offers.slice(4).map((o) => o.offerToken))
      const prebook = async (offer: any, accessMethod?: string) =>
        expect(
          'prebook',
          await api('POST', '/cars/prebook', key, {
            offerToken: offer.offerToken,
            ...(accessMethod ? { accessMethod } : {}),
          }),
          200,
        ).body.data.prebookedOfferToken as string
      const book = async (token: string) =>
        expect(
          'booking',
          await api('POST', '/cars/bookings', key, {
            prebookedOfferToken: token,
            driver: DRIVER,
            additionalFields: { flightNumber: 'LH1234' },
          }),
          201,
        ).body.data.bookingId as string
      if (share[0]) {
        const booked = await book(await prebook(share[0], 'APP'))
        corpus.add(`carBooking:${env}`, booked)
        corpus.add(`carBookingShare:${env}`, booked)
      }
      if (rent[0]) corpus.add(`carBooking:${env}`, await book(await prebook(rent[0])))
      for (const offer of [rent[1], share[1]]) if (offer) corpus.add(`carPrebooked:${env}`, await prebook(offer))
    })
    if (env === 'foreign') {
      await step('trip foreign', async () => {
        const vehicles = await api('POST', '/micromobility', key, {
          location: ALEX,
          radiusMeters: 3000,
          providers: ['sandbox-scoot'],
          limit: 20,
        })
        const v = vehicles.body?.data?.results?.find((x: any) => x.isAvailable && x.vehicleToken)
        if (!v) return
        corpus.add('vehicleToken:foreign', v.vehicleToken)
        const trip = await api('POST', '/micromobility/trips', key, { action: 'RESERVE', vehicleToken: v.vehicleToken })
        if (trip.status === 201) corpus.add('trip:foreign', trip.body.data.tripId)
      })
      continue
    }
    await step(`stations ${env}`, async () => {
      const res = expect(
        'stations',
        await api(
          'GET',
          `/cars/stations?latitude=${BERLIN.latitude}&longitude=${BERLIN.longitude}&radiusMeters=20000&limit=5`,
          key,
        ),
        200,
      )
      corpus.add(`placeId:${env}`, ...res.body.data.stations.map((s: any) => s.placeId))
      corpus.add(`stationCursor:${env}`, res.body.data.pagination.nextCursor)
    })
    await step(`micromobility ${env}`, async () => {
      const res = expect(
        'vehicle search',
        await api('POST', '/micromobility', key, { location: ALEX, radiusMeters: 3000, limit: 60 }),
        200,
      )
      const vehicles: any[] = res.body.data.results
      corpus.add(`microCursor:${env}`, res.body.data.pagination.nextCursor)
      corpus.add(`vehicleId:${env}`, ...vehicles.slice(0, 20).map((v) => v.vehicleId))
      corpus.add(`qr:${env}`, ...vehicles.slice(0, 10).map((v) => `sandbox:${v.vehicleId}`))
      const rentable = vehicles.filter((v) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 20)
      corpus.add(`vehicleToken:${env}`, ...rentable.slice(2, 12).map((v) => v.vehicleToken))
      const reserve = await api('POST', '/micromobility/trips', key, {
        action: 'RESERVE',
        vehicleToken: rentable[0]?.vehicleToken,
        userEmail: 'rider@example.com',
        userName: 'Rider',
      })
      if (reserve.status === 201) {
        corpus.add(`tripReserved:${env}`, reserve.body.data.tripId)
        corpus.add(`trip:${env}`, reserve.body.data.tripId)
      }
      const start = await api('POST', '/micromobility/trips', key, {
        action: 'START',
        vehicleToken: rentable[1]?.vehicleToken,
        scannedQrCode: rentable[1] ? `sandbox:${rentable[1].vehicleId}` : undefined,
      })
      if (start.status === 201) {
        corpus.add(`tripActive:${env}`, start.body.data.tripId)
        corpus.add(`trip:${env}`, start.body.data.tripId)
        corpus.openTrips.push({ tripId: start.body.data.tripId, key })
      }
    })
    await step(`public transport ${env}`, async () => {
      if (round === 0) {
        for (const q of ['Hauptbahnhof', 'Alexanderplatz', 'Zoologischer Garten']) {
          const res = await api('GET', `/public-transport/stops?query=${encodeURIComponent(q)}&limit=2`, key)
          corpus.add(`stopId:${env}`, ...(res.body?.data?.stops ?? []).map((s: any) => s.stopId))
        }
        const near = await api(
          'GET',
          `/public-transport/stops?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radiusMeters=3000&limit=3`,
          key,
        )
        corpus.add(`stopsCursor:${env}`, near.body?.data?.pagination?.nextCursor)
        const products = await api('GET', '/public-transport/subscriptions/products', key)
        corpus.add(`productId:${env}`, ...(products.body?.data?.products ?? []).map((p: any) => p.productId))
      }
      const stops = [corpus.ref(`stopId:${env}`, round), corpus.ref(`stopId:${env}`, round + 1)]
      const journeys = expect(
        'journeys',
        await api('POST', '/public-transport/journeys', key, {
          origin: { type: 'stop', stopId: stops[0] },
          destination: { type: 'stop', stopId: stops[1] === stops[0] ? corpus.ref(`stopId:${env}`, 3) : stops[1] },
          departAt: at(26 * HOUR),
          limit: 3,
        }),
        200,
      )
      const offers = journeys.body.data.journeys.flatMap((j: any) => j.ticketOffers.map((o: any) => o.offerToken))
      corpus.add(`ptOffer:${env}`, ...offers.slice(2))
      for (const [i, offer] of offers.slice(0, 2).entries()) {
        const prebook = expect(
          'pt prebook',
          await api('POST', '/public-transport/prebook', key, { offerToken: offer }),
          200,
        )
        const token = prebook.body.data.prebookedOfferToken
        if (i === 1) {
          corpus.add(`ptPrebooked:${env}`, token)
          continue
        }
        const booking = expect(
          'pt booking',
          await api('POST', '/public-transport/bookings', key, { prebookedOfferToken: token, traveller: DRIVER }),
          201,
        )
        corpus.add(`ptBooking:${env}`, booking.body.data.bookingId)
      }
      if (round % 5 === 0) {
        const sub = await api('POST', '/public-transport/subscriptions', key, {
          productId: 'deutschlandticket',
          traveller: { ...DRIVER, dateOfBirth: '1990-12-10', identification: { type: 'ID_CARD', number: 'L01X00T47' } },
          startDate: new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1))
            .toISOString()
            .slice(0, 10),
        })
        if (sub.status === 201) corpus.add(`subscription:${env}`, sub.body.data.subscriptionId)
      }
    })
  }
  if (round % 5 === 0) {
    await step('retention NONE booking', async () => {
      const key = corpus.ref('key:retentionNone', 0)
      const search = expect(
        'search',
        await api('POST', '/cars', key, {
          pickup: { type: 'coordinates', coordinates: BERLIN, radiusMeters: 20_000 },
          dates: period,
          limit: 10,
        }),
        200,
      )
      const offer = search.body.data.offers[0]
      const prebook = expect('prebook', await api('POST', '/cars/prebook', key, { offerToken: offer.offerToken }), 200)
      const booking = expect(
        'booking',
        await api('POST', '/cars/bookings', key, {
          prebookedOfferToken: prebook.body.data.prebookedOfferToken,
          driver: DRIVER,
          additionalFields: { flightNumber: 'LH1234' },
        }),
        201,
      )
      corpus.add('zr1', booking.body.data.bookingId)
    })
  }
  await step('admin keys', async () => {
    for (const type of ['secret', 'publishable']) {
      const res = await send('POST', `/admin/v1/tenants/${setup.tenants.victim}/keys`, ADMIN_TOKEN, { type })
      if (res.status === 201) corpus.add('victimKey', res.body.data.key.id)
    }
  })
}

/** Ids and tokens in a fuzzed request's successful answer go back into the corpus. */
export function learn(corpus: Corpus, op: string, env: string, key: string | undefined, status: number, body: any) {
  if (status >= 300 || !body?.data || !key) return
  const data = body.data
  if (op === 'POST /mobility-api/v2/micromobility/trips' && data.tripId) {
    corpus.add(`trip:${env}`, data.tripId)
    if (data.status === 'ACTIVE') corpus.add(`tripActive:${env}`, data.tripId)
    if (data.status === 'RESERVED') corpus.add(`tripReserved:${env}`, data.tripId)
    corpus.openTrips.push({ tripId: data.tripId, key })
  } else if (op === 'POST /mobility-api/v2/cars/bookings' && data.bookingId)
    corpus.add(`carBooking:${env}`, data.bookingId)
  else if (op === 'POST /mobility-api/v2/cars/prebook') corpus.add(`carPrebooked:${env}`, data.prebookedOfferToken)
  else if (op === 'POST /mobility-api/v2/public-transport/bookings') corpus.add(`ptBooking:${env}`, data.bookingId)
  else if (op === 'POST /admin/v1/tenants' && data.tenant?.id) corpus.add('victimTenant', data.tenant.id)
  else if (op === 'POST /admin/v1/tenants/{tenantId}/keys' && data.key?.id) corpus.add('victimKey', data.key.id)
}
