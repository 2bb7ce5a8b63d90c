import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { createGtfsConnector } from '../../src/connectors/gtfs/index.ts'
import { SANDBOX_PROFILES } from '../../src/connectors/sandbox/index.ts'
import { buildFeed, FEED_DIR } from '../../src/connectors/sandbox/transit/make-feed.ts'
import type { Scenario } from '../../src/connectors/types/common.ts'
import {
  isPublicTransportConnector,
  type ProviderTicketOffer,
  type PublicTransportConnector,
  type SubscriptionHolder,
  type TransitJourney,
  type TransitTicketing,
  type TravellerCategory,
} from '../../src/connectors/types/public-transport.ts'
import type { ApiError } from '../../src/contract/errors.ts'
import { SANDBOX_SCENARIOS } from '../../src/contract/sandbox.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { buildConnector, type ConnectorSetup, inMemory, type KvFactory, rejectsWith } from '../helpers/connectors.ts'
import { testRedis } from '../helpers/redis.ts'
import { type PtProfile, type PtSetup, publicTransportSuite } from './suites/public-transport.ts'

// ---------------------------------------------------------------------------------------------------------------
// Set-up

const ID = 'sandbox-transit'
/** Tuesday 3 June 2031, 10:00 in Berlin. */
const T0 = Date.parse('2031-06-03T08:00:00.000Z')
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const ALEXANDERPLATZ = { latitude: 52.5219, longitude: 13.4132 }

/** Stop ids of the bundled feed (VBB-like numbers; platforms as `<station>_<group>`). */
const STOP = {
  alexanderplatz: '900100003',
  hauptbahnhof: '900003201',
  hermannplatz: '900078101',
  rotesRathaus: '900100045',
  ber: '900260005',
  frankfurterTor: '900120008',
}

interface Setup extends ConnectorSetup<PublicTransportConnector> {
  ticketing: TransitTicketing
}

/** Builds the provider through the registry, as the service does; `shared` makes a second instance. */
function build(makeKv: KvFactory = inMemory, shared?: Pick<Setup, 'clock' | 'kv'>, start = T0): Setup {
  const setup = buildConnector(
    ID,
    { is: isPublicTransportConnector, name: 'public-transport' },
    { shared, makeKv, start },
  )
  assert.ok(setup.connector.ticketing, 'sandbox-transit sells tickets')
  return { ...setup, ticketing: setup.connector.ticketing }
}

const twin = (s: Setup) => build(inMemory, { kv: s.kv, clock: s.clock })
const scenario = (name: string, target: string = ID): Scenario[] => [{ name, target }]

async function plan(s: Setup, from: string, to: string, at = s.clock()): Promise<TransitJourney[]> {
  const journeys = await s.connector.journeys(
    { origin: { stopId: from }, destination: { stopId: to }, departAt: at, limit: 3 },
    s.ctx(),
  )
  assert.ok(journeys.length > 0, `a journey from ${from} to ${to}`)
  return journeys
}

const rides = (j: TransitJourney) => j.legs.filter((l) => l.mode !== 'WALK')
const byProduct = (offers: ProviderTicketOffer[], category: TravellerCategory) =>
  Object.fromEntries(offers.filter((o) => o.travellerCategory === category).map((o) => [o.productId, o]))

const customer = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }

/** Offers for a journey 30 minutes from now, bought as one booking. */
async function buy(s: Setup, travellers: TravellerCategory[] = ['ADULT'], product = 'single-ab') {
  const [journey] = await plan(s, STOP.hauptbahnhof, STOP.alexanderplatz, new Date(s.clock().getTime() + 30 * MINUTE))
  const offers = (await s.ticketing.offers(journey, travellers, s.ctx())).filter((o) => o.productId === product)
  const prebooked = await s.ticketing.prebook(
    offers.map((o) => o.offerRef),
    s.ctx(),
  )
  const booking = await s.ticketing.book(prebooked.prebookRef, customer, s.ctx())
  return { journey, offers, prebooked, booking }
}

// ---------------------------------------------------------------------------------------------------------------
// The public-transport suite

const suiteSetup = (): PtSetup => ({ providerId: ID, entry: ID, ...build() })

const sandboxTransitProfile: PtProfile = {
  name: ID,
  async make() {
    const s = suiteSetup()
    await s.connector.start?.()
    return s
  },
  capabilities: {
    ...SANDBOX_PROFILES.transit,
    operations: [...SANDBOX_PROFILES.transit.operations],
    modalities: [...SANDBOX_PROFILES.transit.modalities],
  },
  place: { ...ALEXANDERPLATZ, radiusMeters: 600, minStops: 3 },
  stop: { id: STOP.alexanderplatz, search: 'alexanderplatz' },
  trip: { from: STOP.hauptbahnhof, to: STOP.alexanderplatz, withinMs: 30 * MINUTE },
  at: new Date(T0),
  failing: async () => {
    const s = suiteSetup()
    return { s, ctx: s.ctx({ scenarios: scenario('provider-error') }), reason: 'SCENARIO' }
  },
  hanging: async (signal) => {
    const s = suiteSetup()
    return { s, ctx: s.ctx({ scenarios: scenario('provider-timeout'), signal }) }
  },
  badOptions: [{ latencyMs: -1 }, { failureRate: 2 }, { latencyMs: 'slow' }],
}

publicTransportSuite(sandboxTransitProfile)

// ---------------------------------------------------------------------------------------------------------------
// The bundled feed through the GTFS connector

describe('sandbox-transit: the bundled Berlin feed', () => {
  it('is what make-feed.ts writes (deterministic), small, and loads without problems', async () => {
    const files = buildFeed()
    assert.deepEqual(readdirSync(FEED_DIR).sort(), Object.keys(files).sort())
    for (const [name, text] of Object.entries(files)) {
      assert.equal(readFileSync(`${FEED_DIR}${name}`, 'utf8'), text, `${name} is up to date: run make-feed.ts`)
    }
    const stopTimes = files['stop_times.txt'].trim().split('\n').length - 1
    assert.ok(stopTimes > 500 && stopTimes < 5000, `${stopTimes} stop_times`)
    assert.match(files['agency.txt'], /Sandbox Transit Berlin,[^,]+,Europe\/Berlin/)
    assert.match(files['calendar_dates.txt'], /WD,20261225,2/)
    assert.match(files['stop_times.txt'], /,2[45]:\d\d:\d\d,/, 'trips past midnight as 24:xx:xx')

    // Straight through the GTFS connector: every row is read, nothing is reported.
    const gtfs = createGtfsConnector(
      {
        id: 'feed',
        name: 'feed',
        connector: 'gtfs',
        environments: ['test'],
        options: { url: pathToFileURL(FEED_DIR).href },
      },
      { kv: memoryKv(), clock: () => new Date(T0) },
    )
    await gtfs.start?.()
    assert.deepEqual(gtfs.problems(), [])
    const stats = gtfs.stats()
    assert.equal(stats.stopTimes, stopTimes)
    assert.equal(stats.routes, 12)
    assert.ok((stats.frequencyTrips ?? 0) > 0 && (stats.tripInstances ?? 0) > 5000, 'frequencies.txt expands')
    await gtfs.stop?.()

    const s = build()
    await s.connector.start?.()
    const routes = files['routes.txt']
    for (const [line, color] of [
      ['U2', 'DA421E'],
      ['U5', '7E5330'],
      ['U8', '224F86'],
      ['S5', 'EB7405'],
      ['S7', '816DA6'],
      ['M10', 'D82020'],
      ['100', 'A5027D'],
    ]) {
      assert.match(routes, new RegExp(`^${line},STB,${line},[^\\n]*,${color},`, 'm'), line)
    }
  })

  it('declares the transit capabilities and the new scenarios', () => {
    const s = build()
    assert.deepEqual(s.connector.capabilities, {
      ...SANDBOX_PROFILES.transit,
      operations: [...SANDBOX_PROFILES.transit.operations],
      modalities: [...SANDBOX_PROFILES.transit.modalities],
    })
    const names = SANDBOX_SCENARIOS.map((x) => x.name as string)
    for (const name of ['provider-error', 'provider-timeout', 'booking-fails', 'ticket-delay']) {
      assert.ok(names.includes(name), name)
    }
  })

  it('finds stops near Alexanderplatz and by text, with platforms as child stops', async () => {
    const s = build()
    const near = await s.connector.stopsNear(ALEXANDERPLATZ.latitude, ALEXANDERPLATZ.longitude, 600, 5, s.ctx())
    assert.equal(near[0].id, STOP.alexanderplatz)
    assert.equal(near[0].name, 'S+U Alexanderplatz')
    assert.ok(near[0].distanceMeters < 50)
    for (const mode of ['SUBWAY', 'RAIL', 'BUS'] as const) assert.ok(near[0].modes.includes(mode), mode)
    assert.ok(near.some((x) => x.name === 'U Rotes Rathaus'))

    const alex = await s.connector.searchStops('alexanderplatz', 5, s.ctx())
    assert.equal(alex[0].id, STOP.alexanderplatz)
    const hbf = await s.connector.searchStops('hauptbahnhof', 5, s.ctx())
    assert.equal(hbf[0].name, 'S+U Berlin Hauptbahnhof')
    assert.ok(Math.abs(hbf[0].latitude - 52.5251) < 1e-4 && Math.abs(hbf[0].longitude - 13.3694) < 1e-4)
    const ber = await s.connector.searchStops('flughafen ber', 5, s.ctx())
    assert.equal(ber[0].id, STOP.ber)
    const sued = await s.connector.searchStops('Sudkreuz', 5, s.ctx())
    assert.equal(sued[0].name, 'S Südkreuz')

    const u5 = await s.connector.stopById(`${STOP.alexanderplatz}_U5`, s.ctx())
    assert.equal(u5?.parentStation, STOP.alexanderplatz)
    assert.equal(u5?.platform, 'U5')
    assert.deepEqual(u5?.modes, ['SUBWAY'])
  })

  it('departs from Alexanderplatz by U2, U5, U8 and S-Bahn, in time order, with the line colours', async () => {
    const s = build()
    const departures = await s.connector.departures(STOP.alexanderplatz, s.clock(), 40, s.ctx())
    assert.equal(departures.length, 40)
    const times = departures.map((d) => d.scheduled.getTime())
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    )
    assert.ok(times[0] >= T0 && times[39] - T0 < 30 * MINUTE, 'every 5 to 10 minutes per line')
    const lines = new Set(departures.map((d) => d.line.name))
    for (const line of ['U2', 'U5', 'U8', 'S5', 'S7', '100', '200']) assert.ok(lines.has(line), line)
    const u2 = departures.find((d) => d.line.name === 'U2')!
    assert.equal(u2.line.color, '#DA421E')
    assert.equal(u2.line.mode, 'SUBWAY')
    assert.equal(u2.line.agency, 'Sandbox Transit Berlin')
    assert.equal(u2.stopId, `${STOP.alexanderplatz}_U2`)
    assert.ok(['S+U Pankow', 'U Ernst-Reuter-Platz'].includes(u2.headsign))
    assert.equal(departures.find((d) => d.line.name === 'S5')?.line.mode, 'RAIL')
  })

  it('runs from about 04:30 to about 01:30, weekdays and weekends, and Christmas Day 2026 as a Sunday', async () => {
    const s = build()
    // Tuesday night, 23:50 in Berlin: trains until about half past one.
    const night = await s.connector.departures(STOP.alexanderplatz, new Date('2031-06-03T21:50:00Z'), 200, s.ctx())
    const between = (from: string, to: string) =>
      night.filter((d) => d.scheduled >= new Date(from) && d.scheduled < new Date(to)).length
    assert.ok(between('2031-06-03T22:00:00Z', '2031-06-03T23:00:00Z') > 5, 'trains after midnight')
    assert.ok(between('2031-06-03T23:00:00Z', '2031-06-03T23:30:00Z') > 0, 'the last ones after 01:00')
    assert.equal(between('2031-06-03T23:30:00Z', '2031-06-04T02:30:00Z'), 0, 'a night break')
    const firstOf = async (from: string) =>
      (await s.connector.departures(STOP.alexanderplatz, new Date(from), 1, s.ctx()))[0].scheduled
    // 02:00 in Berlin: the first train is after 04:30 on a Wednesday, after 05:00 on a Sunday.
    const wednesday = await firstOf('2031-06-04T00:00:00Z')
    assert.ok(wednesday >= new Date('2031-06-04T02:30:00Z') && wednesday < new Date('2031-06-04T03:00:00Z'))
    const sunday = await firstOf('2031-06-08T00:00:00Z')
    assert.ok(sunday >= new Date('2031-06-08T03:00:00Z'), `Sunday ${sunday.toISOString()}`)
    // CET in December: 03:00Z is 04:00 in Berlin.
    const thursday = await firstOf('2026-12-24T03:00:00Z')
    const christmas = await firstOf('2026-12-25T03:00:00Z')
    assert.ok(thursday < new Date('2026-12-24T04:00:00Z'), `24 Dec ${thursday.toISOString()}`)
    assert.ok(christmas >= new Date('2026-12-25T04:00:00Z'), `25 Dec ${christmas.toISOString()}`)
  })

  it('plans Hauptbahnhof → Alexanderplatz directly (S-Bahn or U5) and Hermannplatz → Hauptbahnhof with a change', async () => {
    const s = build()
    const direct = await plan(s, STOP.hauptbahnhof, STOP.alexanderplatz)
    const [first] = direct
    assert.equal(first.transfers, 0)
    assert.equal(rides(first).length, 1)
    assert.ok(['S5', 'S7', 'U5'].includes(rides(first)[0].line!.name), rides(first)[0].line!.name)
    assert.ok(first.departure.getTime() >= T0 && first.arrival.getTime() - first.departure.getTime() <= 15 * MINUTE)

    const changing = await plan(s, STOP.hermannplatz, STOP.hauptbahnhof)
    assert.ok(changing.every((j) => j.transfers >= 1))
    assert.equal(changing[0].transfers, 1)
    assert.equal(rides(changing[0])[0].line?.name, 'U8')
    assert.ok(changing[0].arrival.getTime() - changing[0].departure.getTime() < 40 * MINUTE)

    const airport = await plan(s, STOP.alexanderplatz, STOP.ber)
    assert.ok(airport.some((j) => rides(j).some((l) => ['FEX', 'RE8'].includes(l.line?.name ?? ''))))
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Fares

describe('sandbox-transit: fares (VBB-like)', () => {
  it('offers single, short trip and 24-hour tickets per traveller, from the departure', async () => {
    const s = build()
    const [journey] = await plan(s, STOP.hauptbahnhof, STOP.alexanderplatz)
    assert.equal(rides(journey)[0].intermediateStops?.length ?? 0, rides(journey)[0].line?.name === 'U5' ? 5 : 2)
    const offers = await s.ticketing.offers(journey, ['ADULT', 'CHILD', 'REDUCED'], s.ctx())
    const adult = byProduct(offers, 'ADULT')
    const child = byProduct(offers, 'CHILD')
    assert.equal(adult['single-ab'].price.amount, 380)
    assert.equal(adult['single-ab'].price.currency, 'EUR')
    assert.equal(child['single-ab'].price.amount, 240)
    assert.equal(byProduct(offers, 'REDUCED')['single-ab'].price.amount, 240)
    assert.equal(adult['day-ab'].price.amount, 1060)
    assert.equal(adult['single-abc'], undefined)
    // Hauptbahnhof → Alexanderplatz by S-Bahn is 3 stations: a short trip.
    if (rides(journey)[0].line?.name !== 'U5') {
      assert.equal(adult['short-trip'].price.amount, 260)
      assert.equal(child['short-trip'].price.amount, 200)
    }
    for (const o of offers) {
      assert.equal(o.validFrom.getTime(), journey.departure.getTime())
      const hours = o.productId.startsWith('day') ? 24 : 2
      assert.equal(o.validUntil.getTime() - o.validFrom.getTime(), hours * HOUR)
      assert.deepEqual(o.fareZones, ['A', 'B'])
      assert.ok(o.name && o.description)
    }
    assert.equal(new Set(offers.map((o) => o.offerRef)).size, offers.length, 'every offer has its own reference')
    const twoAdults = await s.ticketing.offers(journey, ['ADULT', 'ADULT'], s.ctx())
    assert.equal(new Set(twoAdults.map((o) => o.offerRef)).size, twoAdults.length)
    const german = await s.ticketing.offers(journey, ['ADULT'], s.ctx({ language: 'de' }))
    assert.equal(german[0].name, 'Einzelfahrschein Berlin AB')
  })

  it('charges ABC to Flughafen BER (zone C), never a short trip on regional trains', async () => {
    const s = build()
    const journeys = await plan(s, STOP.alexanderplatz, STOP.ber)
    for (const journey of journeys) {
      const adult = byProduct(await s.ticketing.offers(journey, ['ADULT', 'CHILD'], s.ctx()), 'ADULT')
      assert.equal(adult['single-abc'].price.amount, 470)
      assert.deepEqual(adult['single-abc'].fareZones, ['A', 'B', 'C'])
      assert.equal(adult['day-abc'].price.amount, 1230)
      assert.equal(adult['single-ab'], undefined)
      assert.equal(adult['short-trip'], undefined)
    }
    const child = byProduct(await s.ticketing.offers(journeys[0], ['CHILD'], s.ctx()), 'CHILD')
    assert.equal(child['single-abc'].price.amount, 340)
  })

  it('sells short trips for up to 3 stations by U-Bahn, 6 stops by tram, and not with a change', async () => {
    const s = build()
    const products = async (j: TransitJourney) =>
      (await s.ticketing.offers(j, ['ADULT'], s.ctx())).map((o) => o.productId)
    const [one] = await plan(s, STOP.alexanderplatz, STOP.rotesRathaus)
    assert.ok((await products(one)).includes('short-trip'))
    const [six] = await plan(s, STOP.hauptbahnhof, STOP.rotesRathaus)
    assert.equal(rides(six)[0].line?.name, 'U5')
    assert.ok(!(await products(six)).includes('short-trip'), '5 stations by U5')
    const [changing] = await plan(s, STOP.hermannplatz, STOP.hauptbahnhof)
    assert.ok(!(await products(changing)).includes('short-trip'))

    const tram = (stops: number): TransitJourney => {
      const at = new Date(T0 + HOUR)
      const intermediateStops = Array.from({ length: stops - 1 }, (_, i) => ({
        stopId: `90011050${i}`,
        name: `stop ${i}`,
        arrival: at,
        departure: at,
      }))
      const leg = {
        mode: 'TRAM' as const,
        from: {
          stopId: `${STOP.hauptbahnhof}_TRAM`,
          name: 'S+U Berlin Hauptbahnhof',
          latitude: 52.5265,
          longitude: 13.3689,
        },
        to: { stopId: `${STOP.frankfurterTor}_TRAM`, name: 'U Frankfurter Tor', latitude: 52.5163, longitude: 13.4537 },
        departure: at,
        arrival: at,
        line: { routeId: 'M10', name: 'M10', mode: 'TRAM' as const },
        intermediateStops,
      }
      return { legs: [leg], departure: at, arrival: at, transfers: 0 }
    }
    assert.ok((await products(tram(6))).includes('short-trip'))
    assert.ok(!(await products(tram(7))).includes('short-trip'))
    const walking: TransitJourney = {
      legs: [{ ...tram(1).legs[0], mode: 'WALK', line: undefined }],
      departure: new Date(T0),
      arrival: new Date(T0),
      transfers: 0,
    }
    assert.deepEqual(await s.ticketing.offers(walking, ['ADULT'], s.ctx()), [], 'walking needs no ticket')
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Tickets and subscriptions, on the in-memory store and on Redis

function ticketSuite(name: string, makeKv: KvFactory, options: { skip?: string } = {}) {
  describe(`sandbox-transit tickets: ${name}`, { skip: options.skip }, () => {
    it('offers → prebook → book: PENDING, ISSUED as QR 5 s later, cancel refused once valid', async () => {
      const s = build(makeKv)
      const { journey, offers, prebooked, booking } = await buy(s)
      assert.equal(prebooked.total.amount, 380)
      assert.deepEqual(
        prebooked.offers.map((o) => o.offerRef),
        offers.map((o) => o.offerRef),
      )
      assert.match(booking.reference, /^ST-[0-9A-Z]{6}$/)
      assert.equal(booking.status, 'PENDING')
      assert.equal(booking.total.amount, 380)
      assert.equal(booking.tickets.length, 1)
      const [pending] = booking.tickets
      assert.equal(pending.status, 'PENDING')
      assert.equal(pending.data, undefined)
      assert.equal(pending.ticketId, `${booking.reference}-1`)
      assert.equal(pending.validFrom.getTime(), journey.departure.getTime())
      assert.equal(pending.holderName, 'Ada Lovelace')

      s.clock.advance(4_999)
      assert.equal((await s.ticketing.getBooking(booking.reference, s.ctx())).tickets[0].status, 'PENDING')
      s.clock.advance(1)
      const issued = await s.ticketing.getBooking(booking.reference, s.ctx())
      assert.equal(issued.status, 'CONFIRMED')
      const [ticket] = issued.tickets
      assert.equal(ticket.status, 'ISSUED')
      assert.equal(ticket.format, 'QR')
      assert.equal(ticket.issuedAt?.getTime(), T0 + 5_000)
      assert.match(ticket.data ?? '', /^STB1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
      const payload = JSON.parse(Buffer.from(ticket.data!.split('.')[1], 'base64url').toString())
      assert.equal(payload.t, ticket.ticketId)
      assert.equal(payload.r, booking.reference)

      // Another instance on the same store answers the same booking.
      assert.deepEqual(await twin(s).ticketing.getBooking(booking.reference, s.ctx()), issued)

      s.clock.set(journey.departure.getTime())
      await rejectsWith(s.ticketing.cancel(booking.reference, s.ctx()), 'BOOKING_FAILED', {
        reason: 'TICKET_ALREADY_VALID',
      })
      assert.equal((await s.ticketing.getBooking(booking.reference, s.ctx())).status, 'CONFIRMED')
    })

    it('cancels free of charge before validFrom, and answers a cancelled booking as it is', async () => {
      const s = build(makeKv)
      const { booking } = await buy(s, ['ADULT', 'ADULT', 'CHILD'])
      assert.equal(booking.total.amount, 380 + 380 + 240)
      assert.deepEqual(
        booking.tickets.map((t) => t.ticketId),
        [1, 2, 3].map((n) => `${booking.reference}-${n}`),
      )
      s.clock.advance(MINUTE)
      const cancelled = await twin(s).ticketing.cancel(booking.reference, s.ctx())
      assert.equal(cancelled.status, 'CANCELLED')
      assert.deepEqual(cancelled.cancellation?.refund, { amount: 1000, currency: 'EUR' })
      assert.deepEqual(cancelled.cancellation?.fee, { amount: 0, currency: 'EUR' })
      assert.ok(cancelled.tickets.every((t) => t.status === 'CANCELLED' && t.data === undefined))
      s.clock.advance(2 * HOUR)
      assert.deepEqual(await s.ticketing.cancel(booking.reference, s.ctx()), cancelled)
      assert.deepEqual(await s.ticketing.getBooking(booking.reference, s.ctx()), cancelled)
    })

    it('checks references: INVALID_OFFER_TOKEN, OFFER_EXPIRED once the journey departed, NOT_FOUND', async () => {
      const s = build(makeKv)
      const [journey] = await plan(s, STOP.hauptbahnhof, STOP.alexanderplatz, new Date(T0 + 10 * MINUTE))
      const [offer] = await s.ticketing.offers(journey, ['ADULT'], s.ctx())
      await rejectsWith(s.ticketing.prebook(['to1.bm9wZQ'], s.ctx()), 'INVALID_OFFER_TOKEN')
      const tampered = `to1.${Buffer.from(JSON.stringify({ p: 'free-ride', c: 'ADULT', f: journey.departure, n: 0 })).toString('base64url')}`
      await rejectsWith(s.ticketing.prebook([tampered], s.ctx()), 'INVALID_OFFER_TOKEN')
      await rejectsWith(s.ticketing.book(offer.offerRef, customer, s.ctx()), 'INVALID_OFFER_TOKEN')
      const prebooked = await s.ticketing.prebook([offer.offerRef], s.ctx())

      s.clock.set(journey.departure.getTime())
      await rejectsWith(s.ticketing.prebook([offer.offerRef], s.ctx()), 'OFFER_EXPIRED', { reason: 'JOURNEY_DEPARTED' })
      await rejectsWith(s.ticketing.book(prebooked.prebookRef, customer, s.ctx()), 'OFFER_EXPIRED')
      await rejectsWith(s.ticketing.getBooking('ST-000000', s.ctx()), 'NOT_FOUND')
      await rejectsWith(s.ticketing.cancel('nope', s.ctx()), 'NOT_FOUND')
    })

    it('scenarios: booking-fails, ticket-delay, cancel-refused, provider-error, provider-timeout', async () => {
      const s = build(makeKv)
      const [journey] = await plan(s, STOP.hauptbahnhof, STOP.alexanderplatz, new Date(T0 + HOUR))
      const [offer] = await s.ticketing.offers(journey, ['ADULT'], s.ctx())
      const { prebookRef } = await s.ticketing.prebook([offer.offerRef], s.ctx())
      await rejectsWith(
        s.ticketing.book(prebookRef, customer, s.ctx({ scenarios: scenario('booking-fails') })),
        'BOOKING_FAILED',
      )
      // Another provider's scenario does not apply.
      const booking = await s.ticketing.book(
        prebookRef,
        customer,
        s.ctx({ scenarios: [...scenario('booking-fails', 'sandbox-rent'), ...scenario('ticket-delay')] }),
      )
      s.clock.advance(30 * MINUTE)
      const delayed = await s.ticketing.getBooking(booking.reference, s.ctx())
      assert.equal(delayed.status, 'PENDING')
      assert.equal(delayed.tickets[0].status, 'PENDING')
      await rejectsWith(
        s.ticketing.cancel(booking.reference, s.ctx({ scenarios: scenario('cancel-refused') })),
        'BOOKING_FAILED',
        { reason: 'CANCELLATION_REFUSED' },
      )
      assert.equal((await s.ticketing.cancel(booking.reference, s.ctx())).status, 'CANCELLED')

      const failing = s.ctx({ scenarios: scenario('provider-error') })
      await rejectsWith(s.connector.stopsNear(52.52, 13.41, 500, 5, failing), 'PROVIDER_ERROR', { reason: 'SCENARIO' })
      await rejectsWith(s.connector.departures(STOP.alexanderplatz, s.clock(), 5, failing), 'PROVIDER_ERROR')
      await rejectsWith(s.ticketing.offers(journey, ['ADULT'], failing), 'PROVIDER_ERROR')
      await rejectsWith(s.ticketing.products(failing), 'PROVIDER_ERROR')

      const controller = new AbortController()
      const hanging = s.connector.searchStops(
        'alex',
        5,
        s.ctx({ scenarios: scenario('provider-timeout'), signal: controller.signal }),
      )
      setTimeout(() => controller.abort(), 30)
      await rejectsWith(hanging, 'TIMEOUT')
    })

    it('keeps live and test apart', async () => {
      const s = build(makeKv)
      const { booking } = await buy(s)
      await rejectsWith(s.ticketing.getBooking(booking.reference, s.ctx({ environment: 'live' })), 'NOT_FOUND')
    })

    it('two instances on one store: distinct references, one cancellation', async () => {
      const a = build(makeKv)
      const b = twin(a)
      const [journey] = await plan(a, STOP.hauptbahnhof, STOP.alexanderplatz, new Date(T0 + HOUR))
      const [offer] = await a.ticketing.offers(journey, ['ADULT'], a.ctx())
      const { prebookRef } = await a.ticketing.prebook([offer.offerRef], a.ctx())
      const bookings = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).ticketing.book(prebookRef, customer, a.ctx())),
      )
      assert.equal(new Set(bookings.map((x) => x.reference)).size, 12)
      const [one, other] = await Promise.all([
        a.ticketing.cancel(bookings[0].reference, a.ctx()),
        b.ticketing.cancel(bookings[0].reference, b.ctx()),
      ])
      assert.equal(one.status, 'CANCELLED')
      assert.deepEqual(one, other)
    })
  })

  describe(`sandbox-transit subscriptions: ${name}`, { skip: options.skip }, () => {
    const holder: SubscriptionHolder = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      dateOfBirth: '1990-12-10',
      identification: { type: 'ID_CARD', number: 'L01X00T47' },
    }

    it('lists the Deutschlandticket, the VBB-Abo and an unavailable job ticket, at the price of the month', async () => {
      const s = build(makeKv)
      const products = await s.ticketing.products(s.ctx())
      const by = Object.fromEntries(products.map((p) => [p.productId, p]))
      assert.deepEqual(by.deutschlandticket, {
        productId: 'deutschlandticket',
        name: 'Deutschlandticket',
        description: by.deutschlandticket.description,
        price: { amount: 6300, currency: 'EUR' },
        billingPeriod: 'MONTH',
        validIn: ['DE'],
        cancellationDeadlineDay: 10,
        requiresIdentification: true,
        requiresPin: false,
        available: true,
      })
      assert.equal(by['vbb-abo-ab'].requiresPin, true)
      assert.equal(by['vbb-abo-ab'].requiresIdentification, false)
      assert.deepEqual(by['vbb-abo-ab'].validIn, ['VBB-AB'])
      assert.equal(by['deutschlandticket-job'].available, false)
      s.clock.set(Date.parse('2025-03-15T12:00:00Z'))
      const in2025 = await s.ticketing.products(s.ctx())
      assert.equal(in2025.find((p) => p.productId === 'deutschlandticket')?.price.amount, 5800)
    })

    it('answers every subscribe error code', async () => {
      const s = build(makeKv)
      const subscribe = (productId: string, h: Partial<SubscriptionHolder>, start = '2031-07-01', pin?: string) =>
        s.ticketing.subscribe(productId, { ...holder, ...h } as SubscriptionHolder, start, pin, s.ctx())
      await rejectsWith(subscribe('monatskarte-mars', {}), 'PRODUCT_NOT_AVAILABLE')
      await rejectsWith(subscribe('deutschlandticket-job', {}), 'PRODUCT_NOT_AVAILABLE')
      await rejectsWith(subscribe('deutschlandticket', { identification: undefined }), 'INVALID_IDENTIFICATION', {
        reason: 'MISSING',
      })
      for (const number of ['l01x00t47', 'AB123', 'ABCDEFGHIJKLM', 'L01 X00T47']) {
        await rejectsWith(
          subscribe('deutschlandticket', { identification: { type: 'PASSPORT', number } }),
          'INVALID_IDENTIFICATION',
          { reason: 'INVALID_NUMBER' },
        )
      }
      await rejectsWith(
        subscribe('deutschlandticket', { identification: { type: 'LIBRARY_CARD' as 'ID_CARD', number: 'C01X00T47' } }),
        'INVALID_IDENTIFICATION',
        { reason: 'INVALID_TYPE' },
      )
      await rejectsWith(subscribe('vbb-abo-ab', {}), 'PIN_REQUIRED', { reason: 'MISSING' })
      for (const pin of ['12a4', '123', '12345', '']) {
        await rejectsWith(subscribe('vbb-abo-ab', {}, '2031-07-01', pin), 'PIN_REQUIRED')
      }
      for (const start of ['2031-07-15', '2031-05-01', '2031-02-30', '2031-7-01', '2032-07-01']) {
        await rejectsWith(subscribe('deutschlandticket', {}, start), 'INVALID_REQUEST')
      }
      const abo = await subscribe('vbb-abo-ab', { identification: undefined }, '2031-06-01', '4711')
      assert.equal(abo.status, 'ACTIVE')
      assert.equal(abo.price.amount, 8600)
      assert.match(abo.reference, /^SUB-[0-9A-Z]{6}$/)
      assert.equal((await subscribe('deutschlandticket', {}, '2032-06-01')).status, 'PENDING')
    })

    it('withdraws before the start; refuses during the minimum term; ends by the deadline rule; expires', async () => {
      const s = build(makeKv)
      const pending = await s.ticketing.subscribe('deutschlandticket', holder, '2031-07-01', undefined, s.ctx())
      assert.deepEqual(
        { status: pending.status, nextBillingDate: pending.nextBillingDate, price: pending.price.amount },
        { status: 'PENDING', nextBillingDate: '2031-07-01', price: 6300 },
      )
      const withdrawn = await twin(s).ticketing.cancelSubscription(pending.reference, s.ctx())
      assert.equal(withdrawn.status, 'CANCELLED')
      assert.equal(withdrawn.endDate, undefined)
      assert.equal(withdrawn.nextBillingDate, undefined)
      assert.equal(withdrawn.cancelledAt?.getTime(), T0)
      await rejectsWith(s.ticketing.cancelSubscription(pending.reference, s.ctx()), 'SUBSCRIPTION_ALREADY_CANCELLED')

      // Started this month (June 2031): the first month is the minimum term.
      const active = await s.ticketing.subscribe('deutschlandticket', holder, '2031-06-01', undefined, s.ctx())
      assert.equal(active.status, 'ACTIVE')
      assert.equal(active.nextBillingDate, '2031-07-01')
      await rejectsWith(s.ticketing.cancelSubscription(active.reference, s.ctx()), 'SUBSCRIPTION_NOT_CANCELLABLE', {
        reason: 'MINIMUM_TERM',
        cancellableFrom: '2031-07-01',
      })
      const late = await s.ticketing.subscribe('deutschlandticket', holder, '2031-06-01', undefined, s.ctx())

      // 10 July, 23:30 in Berlin (21:30Z): by the deadline, so it ends with July.
      s.clock.set(Date.parse('2031-07-10T21:30:00Z'))
      const cancelled = await s.ticketing.cancelSubscription(active.reference, s.ctx())
      assert.deepEqual(
        { status: cancelled.status, endDate: cancelled.endDate, next: cancelled.nextBillingDate },
        { status: 'CANCELLED', endDate: '2031-07-31', next: undefined },
      )
      // 11 July, 00:30 in Berlin: after the deadline, so it ends with August (one more bill on 1 August).
      s.clock.set(Date.parse('2031-07-10T22:30:00Z'))
      const later = await s.ticketing.cancelSubscription(late.reference, s.ctx())
      assert.deepEqual(
        { status: later.status, endDate: later.endDate, next: later.nextBillingDate },
        { status: 'CANCELLED', endDate: '2031-08-31', next: '2031-08-01' },
      )
      await rejectsWith(s.ticketing.cancelSubscription(late.reference, s.ctx()), 'SUBSCRIPTION_ALREADY_CANCELLED')

      // 1 August in Berlin: July's subscription has expired.
      s.clock.set(Date.parse('2031-07-31T22:30:00Z'))
      assert.equal((await s.ticketing.getSubscription(active.reference, s.ctx())).status, 'EXPIRED')
      assert.equal((await s.ticketing.getSubscription(late.reference, s.ctx())).status, 'CANCELLED')
      assert.equal((await s.ticketing.getSubscription(pending.reference, s.ctx())).status, 'CANCELLED')
      await rejectsWith(s.ticketing.cancelSubscription(active.reference, s.ctx()), 'SUBSCRIPTION_EXPIRED')
      await rejectsWith(s.ticketing.getSubscription('SUB-000000', s.ctx()), 'SUBSCRIPTION_NOT_FOUND')
      await rejectsWith(
        s.ticketing.getSubscription(active.reference, s.ctx({ environment: 'live' })),
        'SUBSCRIPTION_NOT_FOUND',
      )
    })

    it('two instances on one store: one of two concurrent cancellations wins', async () => {
      const a = build(makeKv)
      const b = twin(a)
      const created = await a.ticketing.subscribe('deutschlandticket', holder, '2031-06-01', undefined, a.ctx())
      assert.deepEqual(await b.ticketing.getSubscription(created.reference, b.ctx()), created)
      a.clock.set(Date.parse('2031-08-05T10:00:00Z'))
      const outcomes = await Promise.allSettled([
        a.ticketing.cancelSubscription(created.reference, a.ctx()),
        b.ticketing.cancelSubscription(created.reference, b.ctx()),
      ])
      const won = outcomes.filter((o) => o.status === 'fulfilled')
      const lost = outcomes.filter((o) => o.status === 'rejected')
      assert.equal(won.length, 1)
      assert.equal(((lost[0] as PromiseRejectedResult).reason as ApiError).code, 'SUBSCRIPTION_ALREADY_CANCELLED')
      assert.equal((await a.ticketing.getSubscription(created.reference, a.ctx())).endDate, '2031-08-31')
    })
  })
}

const shared = await testRedis('transit')
const redis = shared.skip ?? shared.redis!
const onRedis: KvFactory = shared.kv

ticketSuite('in memory', inMemory)
ticketSuite('on Redis', onRedis, { skip: typeof redis === 'string' ? redis : undefined })
