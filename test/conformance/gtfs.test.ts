import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createGtfsConnector, type GtfsConnector, parseGtfsOptions } from '../../src/connectors/gtfs/index.ts'
import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'
import { generateCityFeed } from '../../src/connectors/gtfs/synthetic.ts'
import { buildRegistry, CONNECTORS } from '../../src/connectors/registry.ts'
import type { CallContext, ProviderEntry } from '../../src/connectors/types/common.ts'
import {
  isPublicTransportConnector,
  type JourneyQuery,
  type TransitDeparture,
  type TransitJourney,
} from '../../src/connectors/types/public-transport.ts'
import { ApiError } from '../../src/contract/errors.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { buildConnector } from '../helpers/connectors.ts'
import { type PtProfile, type PtSetup, publicTransportSuite } from './suites/public-transport.ts'

// ---------------------------------------------------------------------------------------------------------------
// Set-up: Google's sample-feed-1 (folder and zip) and the project's edge-case feed, over file: and over HTTP.

const FIXTURES = fileURLToPath(new URL('../../src/connectors/gtfs/fixtures/', import.meta.url))
const SAMPLE_DIR = join(FIXTURES, 'sample-feed-1/folder')
const SAMPLE_ZIP = join(FIXTURES, 'sample-feed-1/sample-feed-1.zip')
const EDGE_DIR = join(FIXTURES, 'edge-feed')

const deps = { kv: memoryKv(), clock: () => new Date() }
const ctx = (now = new Date()): CallContext => ({
  signal: AbortSignal.timeout(10_000),
  now,
  language: 'en',
  tenantId: 't',
  environment: 'test',
  scenarios: [],
})
const entry = (options: Record<string, unknown>): ProviderEntry => ({
  id: 'gtfs-test',
  name: 'GTFS Test',
  connector: 'gtfs',
  environments: ['test'],
  options,
})
const connectors: GtfsConnector[] = []
async function started(options: Record<string, unknown>): Promise<GtfsConnector> {
  const connector = createGtfsConnector(entry(options), deps)
  connectors.push(connector)
  await connector.start?.()
  return connector
}
const fileUrl = (path: string) => pathToFileURL(path).href

/** sample-feed-1 runs in America/Los_Angeles: in June 2007 that is PDT, UTC-7. */
const pdt = (date: string, time: string) => new Date(`${date}T${time}-07:00`)
/** edge-feed runs in Europe/Berlin. */
const berlin = (date: string, time: string, offset = '+02:00') => new Date(`${date}T${time}${offset}`)

const brief = (d: TransitDeparture) => ({
  trip: d.tripId,
  line: d.line.name,
  at: d.scheduled.toISOString(),
  headsign: d.headsign,
})
const legs = (j: TransitJourney) =>
  j.legs.map(
    (l) =>
      `${l.mode}${l.line ? ` ${l.line.name}` : ''} ${l.from.stopId ?? l.from.name}->${l.to.stopId ?? l.to.name} ` +
      `${l.departure.toISOString().slice(11, 16)}-${l.arrival.toISOString().slice(11, 16)}`,
  )

/** Serves the fixtures folder; any path can be answered differently, and answers can be slowed down. */
class FixtureServer {
  readonly overrides = new Map<string, { status: number; body: Buffer | string }>()
  readonly hits = new Map<string, number>()
  /** Paths never answered (the connection stays open until the client gives up). */
  readonly hanging = new Set<string>()
  delayMs = 0
  private server?: Server
  base = ''

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1)
      if (this.hanging.has(path)) return
      setTimeout(() => {
        const override = this.overrides.get(path)
        if (override) {
          res.writeHead(override.status)
          res.end(override.body)
          return
        }
        try {
          const body = readFileSync(join(FIXTURES, path))
          res.writeHead(200)
          res.end(body)
        } catch {
          res.writeHead(404)
          res.end('not found')
        }
      }, this.delayMs)
    })
    const listening = this.server
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    this.server?.closeAllConnections()
    return new Promise((resolve) => this.server?.close(() => resolve()))
  }
}

const server = new FixtureServer()
const scratch = mkdtempSync(join(tmpdir(), 'gtfs-test-'))
before(() => server.listen())
after(async () => {
  await Promise.all(connectors.map((c) => c.stop?.()))
  await server.close()
  rmSync(scratch, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs: options and registration', () => {
  it('validates options at build time, with defaults', () => {
    const options = parseGtfsOptions({ url: 'file:src/connectors/gtfs/fixtures/edge-feed' })
    assert.equal(options.url.protocol, 'file:')
    assert.equal(options.realtimeRefreshSeconds, 30)
    assert.equal(options.transferWalkMeters, 400)
    assert.equal(options.maxWalkToStopMeters, 800)
    assert.throws(() => parseGtfsOptions({}), /options.url is required/)
    assert.throws(() => parseGtfsOptions({ url: 'ftp://x/feed.zip' }), /http:, https: or file:/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', realtimeUrl: 'nope' }), /realtimeUrl/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', transferWalkMeters: -1 }), /transferWalkMeters/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', realtimeRefreshSeconds: 0 }), /realtimeRefreshSeconds/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', colour: 'red' }), /colour not known/)
  })

  it('is the `gtfs` connector of the registry; a feed that cannot be loaded makes the provider UNAVAILABLE', async () => {
    assert.equal(typeof CONNECTORS.gtfs, 'function')
    const problems: string[] = []
    const registry = buildRegistry(
      [
        entry({ url: fileUrl(SAMPLE_DIR) }),
        { ...entry({ url: fileUrl(join(scratch, 'missing')) }), id: 'gtfs-missing' },
        { ...entry({ url: 'gopher://x' }), id: 'gtfs-bad' },
      ],
      deps,
      (id, message) => problems.push(`${id}: ${message}`),
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(registry.get('gtfs-test')?.status, 'ACTIVE')
    assert.ok(isPublicTransportConnector(registry.get('gtfs-test')?.connector))
    assert.equal(registry.get('gtfs-missing')?.status, 'UNAVAILABLE')
    assert.match(registry.get('gtfs-missing')?.error ?? '', /could not be loaded/)
    assert.equal(registry.get('gtfs-bad')?.status, 'UNAVAILABLE')
    assert.equal(problems.length, 2)
    await registry.stop()
  })

  it("reports a realtime feed that fails to the service's logger, naming the provider", async () => {
    const warned: string[] = []
    const registry = buildRegistry(
      [{ ...entry({ url: fileUrl(SAMPLE_DIR), realtimeUrl: fileUrl(join(scratch, 'no-such.pb')) }), id: 'gtfs-rt' }],
      { ...deps, logger: { warn: (message) => warned.push(message) } },
      () => {},
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(registry.get('gtfs-rt')?.status, 'ACTIVE')
    assert.ok(
      warned.some((line) => /^gtfs gtfs-rt: realtime .*no-such\.pb/.test(line)),
      `expected a realtime warning, got ${JSON.stringify(warned)}`,
    )
    await registry.stop()
  })
})

// ---------------------------------------------------------------------------------------------------------------
// The public-transport suite, over sample-feed-1 (Tuesday 2007-06-05, 06:50 in Nevada)

const SAMPLE_AT = pdt('2007-06-05', '06:50:00')

/** sample-feed-1 through the registry, as the service builds it, on a test clock at SAMPLE_AT. */
function sampleBuild(url: string): PtSetup {
  const providerEntry = entry({ url })
  const setup = buildConnector(
    providerEntry,
    { is: isPublicTransportConnector, name: 'public-transport' },
    { start: SAMPLE_AT.getTime() },
  )
  connectors.push(setup.connector as GtfsConnector)
  return { providerId: providerEntry.id, entry: providerEntry, ...setup }
}

const sampleProfile: PtProfile = {
  name: 'gtfs sample-feed-1',
  async make() {
    const s = sampleBuild(fileUrl(SAMPLE_DIR))
    await s.connector.start?.()
    return s
  },
  capabilities: {
    modalities: ['PUBLIC_TRANSPORT'],
    operations: ['STOPS', 'DEPARTURES', 'JOURNEYS'],
    stationBased: true,
    freeFloating: false,
    requiresStoredBooking: false,
  },
  place: { latitude: 36.9, longitude: -116.76, radiusMeters: 3_000, minStops: 5 },
  stop: { id: 'STAGECOACH', search: 'stagecoach' },
  // CITY1 leaves STAGECOACH at 07:00, 07:30, 08:00 and reaches DADAN 19 min later.
  trip: { from: 'STAGECOACH', to: 'DADAN', withinMs: 90 * 60_000 },
  at: SAMPLE_AT,
  // A feed that cannot be loaded (its folder is missing): the provider answers PROVIDER_ERROR.
  failing: async () => {
    const s = sampleBuild(fileUrl(join(scratch, 'no-such-feed')))
    return { s, ctx: s.ctx() }
  },
  // A feed server that never answers: calls wait for the first load.
  hanging: async (signal) => {
    server.hanging.add('/hanging/feed.zip')
    const s = sampleBuild(`${server.base}/hanging/feed.zip`)
    return { s, ctx: s.ctx({ signal }) }
  },
  badOptions: [
    { url: 'ftp://x/feed.zip' },
    { realtimeUrl: 'nope' },
    { transferWalkMeters: -1 },
    { realtimeRefreshSeconds: 0 },
    { colour: 'red' },
  ],
}

publicTransportSuite(sampleProfile)

// ---------------------------------------------------------------------------------------------------------------
// sample-feed-1, loaded four ways: the answers must not depend on how the feed is packed or reached.

const SOURCES = {
  'folder over file:': () => fileUrl(SAMPLE_DIR),
  'zip over file:': () => fileUrl(SAMPLE_ZIP),
  'folder over http': () => `${server.base}/sample-feed-1/folder/`,
  'zip over http': () => `${server.base}/sample-feed-1/sample-feed-1.zip`,
}

for (const [how, url] of Object.entries(SOURCES)) {
  describe(`gtfs: sample-feed-1, ${how}`, () => {
    let c: GtfsConnector
    before(async () => {
      c = await started({ url: url() })
    })

    it('loads every stop, route, trip and stop time, frequencies expanded', () => {
      const stats = c.stats()
      assert.equal(stats.loaded, true)
      assert.equal(stats.stops, 9)
      assert.equal(stats.routes, 5)
      assert.equal(stats.trips, 11)
      assert.equal(stats.stopTimes, 28)
      // STBA 06:00-22:00 every 30 min: 32 runs. CITY1 and CITY2: 4 + 12 + 12 + 18 + 6 = 52 runs each.
      // 8 scheduled trips + 32 + 52 + 52 = 144.
      assert.equal(stats.tripInstances, 144)
      assert.equal(stats.firstServiceDay, '20070101')
      assert.deepEqual(c.problems(), [])
    })

    it('finds stops near a point, nearest first, with their modes', async () => {
      const near = await c.stopsNear(36.9, -116.76, 3000, 10, ctx())
      assert.deepEqual(
        near.map((s) => s.id),
        ['EMSI', 'DADAN', 'NANAA', 'NADAV', 'STAGECOACH'],
      )
      // EMSI (36.905697, -116.76218) from (36.9, -116.76): 633 m north, 196 m west (equirectangular) → 662 m.
      assert.ok(Math.abs(near[0].distanceMeters - 662) <= 2)
      assert.deepEqual(near[0].modes, ['BUS'])
      assert.ok(near.every((s, i) => i === 0 || s.distanceMeters >= near[i - 1].distanceMeters))
      assert.deepEqual(await c.stopsNear(36.9, -116.76, 500, 10, ctx()), [])
    })

    it('searches stop names case-insensitively, and stop ids', async () => {
      const bullfrog = await c.searchStops('bullfrog', 5, ctx())
      assert.equal(bullfrog[0].id, 'BULLFROG')
      assert.equal(bullfrog[0].name, 'Bullfrog (Demo)')
      // "BEATTY" is only in the id BEATTY_AIRPORT (its name is Nye County Airport).
      const beatty = await c.searchStops('BEATTY', 5, ctx())
      assert.deepEqual(
        beatty.map((s) => s.id),
        ['BEATTY_AIRPORT'],
      )
      const avenue = await c.searchStops('north ave', 5, ctx())
      assert.deepEqual(avenue.map((s) => s.id).sort(), ['NADAV', 'NANAA'])
      assert.deepEqual(await c.searchStops('zzz', 5, ctx()), [])
      assert.equal((await c.stopById('AMV', ctx()))?.name, 'Amargosa Valley (Demo)')
      assert.equal(await c.stopById('NOPE', ctx()), undefined)
    })

    it('lists departures of a weekday in time order, frequencies expanded (hand-checked)', async () => {
      // Tuesday 2007-06-05, FULLW runs. At STAGECOACH: STBA (frequencies 06:00-22:00 every 1800 s) and CITY1
      // (06:00-07:59:59 every 1800 s, then 08:00-09:59:59 every 600 s) leave at their start times; CITY2 ends
      // there (no departure). From 06:50 PDT: 07:00 STBA, 07:00 CITY1, 07:30 STBA, 07:30 CITY1, 08:00 STBA, 08:00 CITY1.
      const departures = await c.departures('STAGECOACH', pdt('2007-06-05', '06:50:00'), 6, ctx())
      assert.deepEqual(departures.map(brief), [
        { trip: 'STBA', line: '30', at: '2007-06-05T14:00:00.000Z', headsign: 'Shuttle' },
        { trip: 'CITY1', line: '40', at: '2007-06-05T14:00:00.000Z', headsign: 'E Main St / S Irving St (Demo)' },
        { trip: 'STBA', line: '30', at: '2007-06-05T14:30:00.000Z', headsign: 'Shuttle' },
        { trip: 'CITY1', line: '40', at: '2007-06-05T14:30:00.000Z', headsign: 'E Main St / S Irving St (Demo)' },
        { trip: 'STBA', line: '30', at: '2007-06-05T15:00:00.000Z', headsign: 'Shuttle' },
        { trip: 'CITY1', line: '40', at: '2007-06-05T15:00:00.000Z', headsign: 'E Main St / S Irving St (Demo)' },
      ])
      assert.ok(departures.every((d) => !d.cancelled && !d.realtime && d.line.mode === 'BUS'))
      assert.equal(departures[0].line.agency, 'Demo Transit Authority')
      assert.equal(departures[0].stopName, 'Stagecoach Hotel & Casino (Demo)')

      // NANAA is CITY1's 2nd stop (departs start + 7 min) and CITY2's 4th (start + 51 min). From 08:00:
      // CITY1 08:00 → 08:07, CITY1 08:10 → 08:17, CITY2 07:30 → 08:21, CITY1 08:20 → 08:27.
      const nanaa = await c.departures('NANAA', pdt('2007-06-05', '08:00:00'), 4, ctx())
      assert.deepEqual(
        nanaa.map((d) => [d.tripId, d.scheduled.toISOString().slice(11, 16)]),
        [
          ['CITY1', '15:07'],
          ['CITY1', '15:17'],
          ['CITY2', '15:21'],
          ['CITY1', '15:27'],
        ],
      )
      assert.equal(nanaa[2].headsign, 'Stagecoach Hotel & Casino (Demo)')
    })

    it('applies calendar_dates (FULLW removed on 2007-06-04) and weekend services', async () => {
      // Monday 2007-06-04 has no service at all: the next departures are Tuesday's first ones, 06:00.
      const monday = await c.departures('STAGECOACH', pdt('2007-06-04', '00:00:00'), 2, ctx())
      assert.deepEqual(
        monday.map((d) => [d.tripId, d.scheduled.toISOString()]),
        [
          ['STBA', '2007-06-05T13:00:00.000Z'],
          ['CITY1', '2007-06-05T13:00:00.000Z'],
        ],
      )
      // Saturday 2007-06-09: AAMV (WE) runs besides AB (FULLW): AB1 08:00, AAMV1 08:00, AAMV3 13:00.
      const saturday = await c.departures('BEATTY_AIRPORT', pdt('2007-06-09', '07:00:00'), 3, ctx())
      assert.deepEqual(saturday.map(brief), [
        { trip: 'AB1', line: '10', at: '2007-06-09T15:00:00.000Z', headsign: 'to Bullfrog' },
        { trip: 'AAMV1', line: '50', at: '2007-06-09T15:00:00.000Z', headsign: 'to Amargosa Valley' },
        { trip: 'AAMV3', line: '50', at: '2007-06-09T20:00:00.000Z', headsign: 'to Amargosa Valley' },
      ])
      // On a Tuesday only AB1 leaves the airport (STBA and AB2 end there).
      const tuesday = await c.departures('BEATTY_AIRPORT', pdt('2007-06-05', '07:00:00'), 2, ctx())
      assert.deepEqual(
        tuesday.map((d) => [d.tripId, d.scheduled.toISOString()]),
        [
          ['AB1', '2007-06-05T15:00:00.000Z'],
          ['AB1', '2007-06-06T15:00:00.000Z'],
        ],
      )
    })

    it('answers NOT_FOUND for departures at an unknown stop', async () => {
      await assert.rejects(
        c.departures('NOPE', new Date(), 5, ctx()),
        (e: unknown) => e instanceof ApiError && e.code === 'NOT_FOUND',
      )
    })

    it('plans a journey with a transfer, leaving as late as it can (hand-checked)', async () => {
      // STAGECOACH → BULLFROG from 06:00 on Tuesday 2007-06-05: only AB1 (airport 08:00 → Bullfrog 08:10) reaches
      // Bullfrog; the shuttle STBA (every 30 min, 20 min ride) that still makes it is the 07:30 one (→ 07:50).
      const journeys = await c.journeys(
        {
          origin: { stopId: 'STAGECOACH' },
          destination: { stopId: 'BULLFROG' },
          departAt: pdt('2007-06-05', '06:00:00'),
          limit: 3,
        },
        ctx(),
      )
      assert.equal(journeys.length, 1)
      const [j] = journeys
      assert.deepEqual(legs(j), [
        'BUS 30 STAGECOACH->BEATTY_AIRPORT 14:30-14:50',
        'BUS 10 BEATTY_AIRPORT->BULLFROG 15:00-15:10',
      ])
      assert.equal(j.transfers, 1)
      assert.equal(j.departure.toISOString(), '2007-06-05T14:30:00.000Z')
      assert.equal(j.arrival.toISOString(), '2007-06-05T15:10:00.000Z')
      assert.equal(j.legs[0].tripId, 'STBA')
      assert.equal(j.legs[0].headsign, 'Shuttle')
      assert.equal(j.legs[1].headsign, 'to Bullfrog')

      // Two transfers: … Bullfrog 08:10, then BFC1 08:20 → Furnace Creek 09:20.
      const [far] = await c.journeys(
        {
          origin: { stopId: 'STAGECOACH' },
          destination: { stopId: 'FUR_CREEK_RES' },
          departAt: pdt('2007-06-05', '06:00:00'),
          limit: 1,
        },
        ctx(),
      )
      assert.deepEqual(legs(far), [
        'BUS 30 STAGECOACH->BEATTY_AIRPORT 14:30-14:50',
        'BUS 10 BEATTY_AIRPORT->BULLFROG 15:00-15:10',
        'BUS 20 BULLFROG->FUR_CREEK_RES 15:20-16:20',
      ])
      assert.equal(far.transfers, 2)
    })

    it('gives later departures up to the limit, with intermediate stops', async () => {
      // CITY1 leaves STAGECOACH at 07:00, 07:30, 08:00 and reaches DADAN (4th stop) 19 min later.
      const journeys = await c.journeys(
        {
          origin: { stopId: 'STAGECOACH' },
          destination: { stopId: 'DADAN' },
          departAt: pdt('2007-06-05', '06:50:00'),
          limit: 3,
        },
        ctx(),
      )
      assert.deepEqual(
        journeys.map((j) => legs(j)),
        [
          ['BUS 40 STAGECOACH->DADAN 14:00-14:19'],
          ['BUS 40 STAGECOACH->DADAN 14:30-14:49'],
          ['BUS 40 STAGECOACH->DADAN 15:00-15:19'],
        ],
      )
      assert.deepEqual(
        journeys[0].legs[0].intermediateStops?.map((s) => [
          s.stopId,
          s.arrival.toISOString().slice(11, 16),
          s.departure.toISOString().slice(11, 16),
        ]),
        [
          ['NANAA', '14:05', '14:07'],
          ['NADAV', '14:12', '14:14'],
        ],
      )
      assert.ok(journeys.every((j) => j.transfers === 0))
    })

    it('plans by arrival time: the latest departures that arrive in time', async () => {
      // Arrive at DADAN by 08:00: CITY1 07:30 (→ 07:49), then CITY1 07:00 (→ 07:19); 08:00 would arrive 08:19.
      const journeys = await c.journeys(
        {
          origin: { stopId: 'STAGECOACH' },
          destination: { stopId: 'DADAN' },
          arriveBy: pdt('2007-06-05', '08:00:00'),
          limit: 2,
        },
        ctx(),
      )
      assert.deepEqual(
        journeys.map((j) => [j.departure.toISOString(), j.arrival.toISOString()]),
        [
          ['2007-06-05T14:30:00.000Z', '2007-06-05T14:49:00.000Z'],
          ['2007-06-05T14:00:00.000Z', '2007-06-05T14:19:00.000Z'],
        ],
      )
    })
  })
}

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs: edge-feed (Berlin: BOM, CRLF, diacritics, stations, past midnight, DST, frequencies, transfers)', () => {
  let c: GtfsConnector
  before(async () => {
    c = await started({ url: fileUrl(EDGE_DIR) })
  })

  it('loads the rest of a feed with broken rows, and reports each', () => {
    const problems = c.problems().join('\n')
    assert.match(problems, /stops\.txt: row 10: stop BROKEN has no valid position/)
    assert.match(problems, /trips\.txt: row 12: trip ORPHAN: unknown route_id NOPE/)
    assert.match(
      problems,
      /stop_times\.txt: row 17: trip U1_0800: arrival_time\/departure_time 08:1x:00\/08:10:00 malformed/,
    )
    assert.match(problems, /stop_times\.txt: row 25: trip N1_2350: unknown stop_id NOWHERE/)
    const stats = c.stats()
    assert.equal(stats.stops, 9)
    assert.equal(stats.trips, 11)
    // 9 scheduled trips + M10 at 06:00, 06:15, 06:30, 06:45 (exact_times=1, 07:00 excluded) + X9 at 06:00, 06:10, 06:20.
    assert.equal(stats.tripInstances, 16)
  })

  it('searches without regard to case and diacritics, ranked exact > prefix > word prefix > substring', async () => {
    const search = async (text: string) => (await c.searchStops(text, 10, ctx())).map((s) => s.id)
    assert.deepEqual(await search('MÜLLERSTRASSE'), ['MUE'])
    assert.deepEqual(await search('mullerstraße'), ['MUE'])
    assert.deepEqual(await search('cafe grossenwahn'), ['CAFE'])
    assert.deepEqual(await search('GORLITZER'), ['GOE'])
    // Exact match scores 1; platforms (HBF_1, HBF_2) are found through their station only.
    const hbf = await c.searchStops('hauptbahnhof', 10, ctx())
    assert.deepEqual(
      hbf.map((s) => [s.id, s.score]),
      [['HBF', 1]],
    )
    // Two prefixes: the shorter name first ("zoo busbahnhof" 14 < "zoologischer garten" 19).
    assert.deepEqual(await search('zoo'), ['ZOO_B', 'ZOO'])
    // Word prefix ("görlitzer STRASSE") ranks above substring ("müllerSTRASSE") although that name is shorter.
    assert.deepEqual(await search('strasse'), ['GOE', 'MUE'])
    assert.deepEqual(await search('ottbus'), ['KOT'])
    // stop_code
    assert.deepEqual(await search('m1'), ['MUE'])
    const scores = (await c.searchStops('strasse', 10, ctx())).map((s) => s.score)
    assert.ok(scores[0] > scores[1])
  })

  it('maps stations, platforms, modes (extended route types) and wheelchair access', async () => {
    const hbf = await c.stopById('HBF', ctx())
    assert.deepEqual(hbf?.modes, ['TRAM', 'RAIL', 'BUS'])
    assert.equal(hbf?.wheelchairBoarding, 'POSSIBLE')
    const platform = await c.stopById('HBF_2', ctx())
    assert.equal(platform?.parentStation, 'HBF')
    assert.equal(platform?.platform, '2')
    assert.equal(platform?.wheelchairBoarding, 'POSSIBLE', 'a platform inherits its station’s value')
    assert.deepEqual((await c.stopById('MUE', ctx()))?.modes, ['SUBWAY', 'RAIL', 'BUS'])
    assert.equal((await c.stopById('ZOO_B', ctx()))?.name, 'Zoo, Busbahnhof')
    assert.equal((await c.stopById('ZOO', ctx()))?.wheelchairBoarding, 'NOT_POSSIBLE')
    const near = await c.stopsNear(52.525, 13.369, 100, 10, ctx())
    assert.deepEqual(
      near.map((s) => s.id),
      ['HBF'],
    )
  })

  it('lists a station’s departures from all its platforms (hand-checked)', async () => {
    // Monday 2024-06-03 (CEST, UTC+2) from 05:50: M10 (platform 2) every 15 min 06:00-06:45, B2 07:00 and RE1
    // 07:05 / 08:00 (platform 1), then Tuesday's first M10.
    const departures = await c.departures('HBF', berlin('2024-06-03', '05:50:00'), 8, ctx())
    assert.deepEqual(
      departures.map((d) => [d.tripId, d.line.name, d.line.mode, d.platform, d.scheduled.toISOString()]),
      [
        ['M10_F', 'M10', 'TRAM', '2', '2024-06-03T04:00:00.000Z'],
        ['M10_F', 'M10', 'TRAM', '2', '2024-06-03T04:15:00.000Z'],
        ['M10_F', 'M10', 'TRAM', '2', '2024-06-03T04:30:00.000Z'],
        ['M10_F', 'M10', 'TRAM', '2', '2024-06-03T04:45:00.000Z'],
        ['B2_0700', 'B2', 'BUS', '1', '2024-06-03T05:00:00.000Z'],
        ['RE1_0705', 'RE1', 'RAIL', '1', '2024-06-03T05:05:00.000Z'],
        ['RE1_0800', 'RE1', 'RAIL', '1', '2024-06-03T06:00:00.000Z'],
        ['M10_F', 'M10', 'TRAM', '2', '2024-06-04T04:00:00.000Z'],
      ],
    )
    assert.equal(departures[5].line.color, '#E3000F')
    assert.equal(departures[5].line.textColor, '#FFFFFF')
    assert.equal(departures[5].line.agency, 'Edge Verkehr')
    assert.equal(departures[0].headsign, 'Zoologischer Garten')
    assert.equal(departures[0].stopId, 'HBF_2')
    // A platform alone shows its own departures only.
    const platform1 = await c.departures('HBF_1', berlin('2024-06-03', '05:50:00'), 2, ctx())
    assert.deepEqual(
      platform1.map((d) => d.tripId),
      ['B2_0700', 'RE1_0705'],
    )
  })

  it('applies calendar_dates: a service removed and one added on a holiday, a service defined only by dates', async () => {
    // Wednesday 2024-05-01: WD (B2, RE1 weekday trips) removed, SA added (RE1_SAT 09:00).
    const holiday = await c.departures('HBF_1', berlin('2024-05-01', '05:00:00'), 2, ctx())
    assert.deepEqual(
      holiday.map((d) => [d.tripId, d.scheduled.toISOString()]),
      [
        ['RE1_SAT', '2024-05-01T07:00:00.000Z'],
        ['B2_0700', '2024-05-02T05:00:00.000Z'],
      ],
    )
    // ONLYDATES runs on 2024-06-15 only (RE1_EXTRA 12:00).
    const only = async (date: string) =>
      (await c.departures('HBF_1', berlin(date, '11:00:00'), 1, ctx())).map((d) => [
        d.tripId,
        d.scheduled.toISOString(),
      ])
    assert.deepEqual(await only('2024-06-15'), [['RE1_EXTRA', '2024-06-15T10:00:00.000Z']])
    // The next Saturday, RE1_SAT (09:00) has left by 11:00 and nothing else leaves platform 1 until Monday.
    assert.deepEqual(await only('2024-06-22'), [])
  })

  it('runs trips past midnight on the previous service day', async () => {
    // N1 runs on Friday and Saturday service days: GOE 23:50, HBF 24:20, MUE (untimed: interpolated 24:45),
    // ZOO 25:10, CAFE 25:20. Friday 2024-06-07's trip is at ZOO on Saturday 01:10 CEST = 2024-06-07T23:10Z.
    const friday = await c.departures('ZOO', berlin('2024-06-08', '00:00:00'), 2, ctx())
    assert.deepEqual(
      friday.map((d) => [d.tripId, d.scheduled.toISOString(), d.headsign]),
      [
        ['N1_2350', '2024-06-07T23:10:00.000Z', 'Café Größenwahn'],
        ['N1_2350', '2024-06-08T23:10:00.000Z', 'Café Größenwahn'],
      ],
    )
    const mue = await c.departures('MUE', berlin('2024-06-08', '00:30:00'), 1, ctx())
    assert.deepEqual(
      mue.map((d) => [d.tripId, d.scheduled.toISOString()]),
      [['N1_2350', '2024-06-07T22:45:00.000Z']],
    )
    const goe = await c.departures('GOE', berlin('2024-06-07', '23:00:00'), 1, ctx())
    assert.equal(goe[0].headsign, 'Zoologischer Garten via Hbf', 'stop_headsign wins')
    // Sunday night: the Sunday service day has no N1, Saturday's has passed.
    const sunday = await c.departures('ZOO', berlin('2024-06-10', '00:00:00'), 5, ctx())
    assert.ok(sunday.every((d) => d.tripId !== 'N1_2350' || d.scheduled > berlin('2024-06-13', '00:00:00')))
  })

  it('counts GTFS times from “noon minus 12 h” of the service day (DST-correct through Intl)', async () => {
    const u1 = async (from: Date) =>
      (await c.departures('MUE', from, 3, ctx()))
        .filter((d) => d.line.name === 'U1')
        .map((d) => d.scheduled.toISOString())
    // Saturday 2024-03-30, CET (UTC+1): 02:30 → 01:30Z, 07:20 → 06:20Z.
    assert.deepEqual((await u1(new Date('2024-03-30T00:00:00Z'))).slice(0, 2), [
      '2024-03-30T01:30:00.000Z',
      '2024-03-30T06:20:00.000Z',
    ])
    // Sunday 2024-03-31, clocks go 02:00 CET → 03:00 CEST. Noon is CEST (10:00Z), noon minus 12 h is 22:00Z the day
    // before, so 02:30 → 00:30Z (01:30 CET on the wall) and 07:20 → 05:20Z (07:20 CEST), 08:00 → 06:00Z.
    assert.deepEqual(await u1(new Date('2024-03-31T00:00:00Z')), [
      '2024-03-31T00:30:00.000Z',
      '2024-03-31T05:20:00.000Z',
      '2024-03-31T06:00:00.000Z',
    ])
    // Sunday 2024-10-27, clocks go 03:00 CEST → 02:00 CET. Noon is CET (11:00Z): 02:30 → 01:30Z, 07:20 → 06:20Z.
    assert.deepEqual((await u1(new Date('2024-10-27T00:00:00Z'))).slice(0, 2), [
      '2024-10-27T01:30:00.000Z',
      '2024-10-27T06:20:00.000Z',
    ])
  })

  it('returns the Pareto set by transfers: a quicker journey with a transfer and a slower direct one', async () => {
    // HBF → GOE on Monday 2024-06-03 from 06:55: B2 direct 07:00 → 07:50 (0 transfers); RE1 07:05 → MUE 07:15,
    // U1 07:20 → GOE 07:30 (1 transfer, 20 min earlier).
    const journeys = await c.journeys(
      {
        origin: { stopId: 'HBF' },
        destination: { stopId: 'GOE' },
        departAt: berlin('2024-06-03', '06:55:00'),
        limit: 2,
      },
      ctx(),
    )
    assert.deepEqual(
      journeys.map((j) => [j.transfers, legs(j)]),
      [
        [0, ['BUS B2 HBF_1->GOE 05:00-05:50']],
        [1, ['RAIL RE1 HBF_1->MUE 05:05-05:15', 'SUBWAY U1 MUE->GOE 05:20-05:30']],
      ],
    )
    assert.deepEqual(
      journeys[0].legs[0].intermediateStops?.map((s) => s.stopId),
      ['KOT'],
    )
  })

  it('uses transfers.txt: 300 s between ZOO and ZOO_B instead of a one-minute walk', async () => {
    // HBF → CAFE from 05:55: M10 06:00 → ZOO 06:08. Walking 71 m would reach ZOO_B at 06:09 for X9 06:10, but
    // transfers.txt asks 300 s: 06:13, so X9 06:20 → CAFE 06:25.
    const [j] = await c.journeys(
      {
        origin: { stopId: 'HBF' },
        destination: { stopId: 'CAFE' },
        departAt: berlin('2024-06-03', '05:55:00'),
        limit: 1,
      },
      ctx(),
    )
    assert.deepEqual(legs(j), [
      'TRAM M10 HBF_2->ZOO 04:00-04:08',
      'WALK ZOO->ZOO_B 04:08-04:13',
      'BUS X9 ZOO_B->CAFE 04:20-04:25',
    ])
    assert.equal(j.legs[1].distanceMeters, 71)
    assert.equal(j.transfers, 1)
  })

  it('walks from and to points: access and egress legs within maxWalkToStopMeters', async () => {
    const query: JourneyQuery = {
      origin: { latitude: 52.5245, longitude: 13.3685, name: 'Home' },
      destination: { latitude: 52.5028, longitude: 13.3275 },
      departAt: berlin('2024-06-03', '05:55:00'),
      limit: 1,
    }
    const [j] = await c.journeys(query, ctx())
    // 52 m to platform 2 (44 s at 1.2 m/s, leaving 05:59:16), M10 06:00 → ZOO 06:08, 558 m (465 s) to the point.
    assert.deepEqual(legs(j), [
      'WALK Home->HBF_2 03:59-04:00',
      'TRAM M10 HBF_2->ZOO 04:00-04:08',
      'WALK ZOO->Destination 04:08-04:15',
    ])
    assert.equal(j.legs[0].distanceMeters, 52)
    assert.equal(j.legs[2].distanceMeters, 558)
    assert.equal(j.departure.toISOString(), '2024-06-03T03:59:16.000Z')
    assert.equal(j.arrival.toISOString(), '2024-06-03T04:15:45.000Z')
    assert.equal(j.transfers, 0)
    // Nowhere near a stop: no journey.
    assert.deepEqual(await c.journeys({ ...query, destination: { latitude: 52.6, longitude: 13.6 } }, ctx()), [])
    await assert.rejects(
      c.journeys({ ...query, origin: { stopId: 'NOPE' } }, ctx()),
      (e: unknown) => e instanceof ApiError && e.code === 'NOT_FOUND',
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------

/** A TripUpdates feed encoded with the bindings (the spec's .asciipb text format cannot be decoded directly). */
// Plain objects in the bindings' fromObject form (enums by name).
type Entity = Record<string, any>

function encodeFeed(timestamp: Date, entities: Entity[]): Uint8Array {
  const message = transit_realtime.FeedMessage.fromObject({
    header: { gtfsRealtimeVersion: '2.0', incrementality: 'FULL_DATASET', timestamp: timestamp.getTime() / 1000 },
    entity: entities,
  })
  return transit_realtime.FeedMessage.encode(message).finish()
}

const SAMPLE_UPDATES: Entity[] = [
  // AB1 leaves the airport 2 min late; the delay carries on to Bullfrog.
  {
    id: '1',
    tripUpdate: {
      trip: { tripId: 'AB1', startDate: '20070605' },
      stopTimeUpdate: [{ stopSequence: 1, departure: { delay: 120 } }],
    },
  },
  // The 07:30 run of the frequency-based shuttle is cancelled.
  {
    id: '2',
    tripUpdate: {
      trip: { tripId: 'STBA', startDate: '20070605', startTime: '07:30:00', scheduleRelationship: 'CANCELED' },
    },
  },
  // The 08:00 run of CITY1 reaches NANAA (scheduled 08:05, leaves 08:07) at 08:20 by absolute time: 900 s late.
  {
    id: '3',
    tripUpdate: {
      trip: { tripId: 'CITY1', startDate: '20070605', startTime: '08:00:00' },
      stopTimeUpdate: [{ stopSequence: 2, arrival: { time: pdt('2007-06-05', '08:20:00').getTime() / 1000 } }],
    },
  },
  // BFC1 skips Bullfrog.
  {
    id: '4',
    tripUpdate: {
      trip: { tripId: 'BFC1', startDate: '20070605' },
      stopTimeUpdate: [{ stopSequence: 1, scheduleRelationship: 'SKIPPED' }],
    },
  },
  // Not in the timetable: ignored.
  {
    id: '5',
    tripUpdate: {
      trip: { tripId: 'GHOST', startDate: '20070605' },
      stopTimeUpdate: [{ stopSequence: 1, arrival: { delay: 60 } }],
    },
  },
  { id: '6', tripUpdate: { trip: { tripId: 'NEW1', scheduleRelationship: 'ADDED' } } },
]

describe('gtfs: GTFS-Realtime trip updates', () => {
  let c: GtfsConnector
  before(async () => {
    server.overrides.set('/rt/trip-updates.pb', {
      status: 200,
      body: Buffer.from(encodeFeed(pdt('2007-06-05', '07:00:00'), SAMPLE_UPDATES)),
    })
    c = await started({ url: fileUrl(SAMPLE_DIR), realtimeUrl: `${server.base}/rt/trip-updates.pb` })
  })

  it('applies a delay, propagated to later stops', async () => {
    const [ab1] = await c.departures('BEATTY_AIRPORT', pdt('2007-06-05', '07:55:00'), 1, ctx())
    assert.equal(ab1.tripId, 'AB1')
    assert.equal(ab1.scheduled.toISOString(), '2007-06-05T15:00:00.000Z')
    assert.equal(ab1.estimated?.toISOString(), '2007-06-05T15:02:00.000Z')
    assert.equal(ab1.delaySeconds, 120)
    assert.equal(ab1.realtime, true)
    assert.equal(ab1.cancelled, false)
    // The next day's AB1 has no update.
    const next = await c.departures('BEATTY_AIRPORT', pdt('2007-06-06', '07:55:00'), 1, ctx())
    assert.equal(next[0].realtime, false)
    assert.equal(next[0].estimated, undefined)
    const stats = c.stats()
    assert.equal(stats.realtime?.tripUpdates, 5)
    assert.equal(stats.realtime?.matchedTrips, 4)
  })

  it('orders by estimated time: an absolute time 15 min late moves a departure back', async () => {
    // CITY1 08:00 run: NANAA departure 08:07 + 900 s = 08:22, after CITY1 08:10 run (08:17) and CITY2 (08:21).
    const nanaa = await c.departures('NANAA', pdt('2007-06-05', '08:00:00'), 3, ctx())
    assert.deepEqual(
      nanaa.map((d) => [
        d.tripId,
        d.scheduled.toISOString().slice(11, 16),
        d.estimated?.toISOString().slice(11, 16),
        d.delaySeconds,
      ]),
      [
        ['CITY1', '15:17', undefined, undefined],
        ['CITY2', '15:21', undefined, undefined],
        ['CITY1', '15:07', '15:22', 900],
      ],
    )
    // Propagated to NADAV (08:14 → 08:29).
    const nadav = await c.departures('NADAV', pdt('2007-06-05', '08:25:00'), 1, ctx())
    assert.deepEqual(
      [nadav[0].scheduled.toISOString(), nadav[0].estimated?.toISOString()],
      ['2007-06-05T15:14:00.000Z', '2007-06-05T15:29:00.000Z'],
    )
  })

  it('marks a cancelled trip and a skipped stop, and routes around them', async () => {
    const stagecoach = await c.departures('STAGECOACH', pdt('2007-06-05', '07:20:00'), 3, ctx())
    assert.deepEqual(
      stagecoach.map((d) => [d.tripId, d.scheduled.toISOString().slice(11, 16), d.cancelled, d.realtime]),
      [
        ['STBA', '14:30', true, true],
        ['CITY1', '14:30', false, false],
        ['STBA', '15:00', false, false],
      ],
    )
    const bullfrog = await c.departures('BULLFROG', pdt('2007-06-05', '08:15:00'), 2, ctx())
    assert.deepEqual(
      bullfrog.map((d) => [d.tripId, d.cancelled]),
      [
        ['BFC1', true],
        ['AB2', false],
      ],
    )
    // Without the 07:30 shuttle, the 07:00 one is the last that makes AB1.
    const [j] = await c.journeys(
      {
        origin: { stopId: 'STAGECOACH' },
        destination: { stopId: 'BULLFROG' },
        departAt: pdt('2007-06-05', '06:00:00'),
        limit: 1,
      },
      ctx(),
    )
    assert.deepEqual(legs(j), [
      'BUS 30 STAGECOACH->BEATTY_AIRPORT 14:00-14:20',
      'BUS 10 BEATTY_AIRPORT->BULLFROG 15:00-15:10',
    ])
    // BFC1 cannot be boarded at Bullfrog: Furnace Creek is out of reach that day.
    const far = await c.journeys(
      {
        origin: { stopId: 'BULLFROG' },
        destination: { stopId: 'FUR_CREEK_RES' },
        departAt: pdt('2007-06-05', '08:00:00'),
        limit: 1,
      },
      ctx(),
    )
    assert.ok(far.every((x) => x.departure > pdt('2007-06-05', '23:59:00')))
  })

  it('keeps the last good update when a read fails', async () => {
    server.overrides.set('/rt/trip-updates.pb', { status: 500, body: 'down' })
    await c.refreshRealtime()
    assert.match(c.stats().realtime?.lastError ?? '', /HTTP 500/)
    const [ab1] = await c.departures('BEATTY_AIRPORT', pdt('2007-06-05', '07:55:00'), 1, ctx())
    assert.equal(ab1.delaySeconds, 120)
    server.overrides.set('/rt/trip-updates.pb', { status: 200, body: 'not protobuf at all, surely' })
    await c.refreshRealtime()
    assert.equal((await c.departures('BEATTY_AIRPORT', pdt('2007-06-05', '07:55:00'), 1, ctx()))[0].delaySeconds, 120)
    assert.match(c.problems().join('\n'), /realtime/)
  })

  it('reads a file: feed on its interval; an update without start_date applies to the trip nearest in time', async () => {
    const file = join(scratch, 'rt.pb')
    // Timestamp Wednesday 2007-06-06 07:00 PDT: AB1 without start_date means that day's AB1 (08:00).
    const feed = (delay: number) =>
      encodeFeed(pdt('2007-06-06', '07:00:00'), [
        {
          id: 'a',
          tripUpdate: { trip: { tripId: 'AB1' }, stopTimeUpdate: [{ stopSequence: 1, departure: { delay } }] },
        },
      ])
    writeFileSync(file, feed(60))
    const rt = await started({ url: fileUrl(SAMPLE_DIR), realtimeUrl: fileUrl(file), realtimeRefreshSeconds: 1 })
    const delayOn = async (date: string) =>
      (await rt.departures('BEATTY_AIRPORT', pdt(date, '07:55:00'), 1, ctx()))[0].delaySeconds
    assert.equal(await delayOn('2007-06-05'), undefined)
    assert.equal(await delayOn('2007-06-06'), 60)
    writeFileSync(file, feed(240))
    const until = Date.now() + 5000
    while ((await delayOn('2007-06-06')) !== 240 && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
    assert.equal(await delayOn('2007-06-06'), 240)
    await rt.stop?.()
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs: reload and broken feeds', () => {
  it('reloads without downtime: queries during a reload answer from the timetable in use', async () => {
    const c = await started({ url: `${server.base}/sample-feed-1/folder/` })
    const stops = readFileSync(join(SAMPLE_DIR, 'stops.txt'), 'utf8')
    server.overrides.set('/sample-feed-1/folder/stops.txt', {
      status: 200,
      body: stops.replace('Bullfrog (Demo)', 'Bullfrog Junction'),
    })
    server.delayMs = 100
    const reloading = c.reload()
    // Queries answered while the reload runs (each of its files takes 100 ms) did not wait for it; their time is not
    // asserted (a loaded machine makes any bound flaky), their number is.
    const answers: { name?: string; departures: number }[] = []
    try {
      while (c.stats().reloading) {
        const stop = await c.stopById('BULLFROG', ctx())
        const departures = await c.departures('STAGECOACH', pdt('2007-06-05', '06:50:00'), 3, ctx())
        answers.push({ name: stop?.name, departures: departures.length })
        await new Promise((r) => setTimeout(r, 50))
      }
      await reloading
    } finally {
      server.delayMs = 0
      server.overrides.delete('/sample-feed-1/folder/stops.txt')
    }
    assert.ok(answers.length >= 5, `${answers.length} queries during the reload`)
    assert.ok(answers.every((a) => a.name === 'Bullfrog (Demo)' && a.departures === 3))
    assert.equal((await c.stopById('BULLFROG', ctx()))?.name, 'Bullfrog Junction')
    // A reload that fails keeps the timetable in use.
    server.overrides.set('/sample-feed-1/folder/stops.txt', { status: 500, body: 'down' })
    await assert.rejects(c.reload(), /could not be loaded/)
    server.overrides.delete('/sample-feed-1/folder/stops.txt')
    assert.equal((await c.stopById('BULLFROG', ctx()))?.name, 'Bullfrog Junction')
  })

  it('loads a feed with optional files missing and malformed rows, reporting them', async () => {
    const dir = join(scratch, 'broken')
    cpSync(SAMPLE_DIR, dir, { recursive: true })
    for (const file of [
      'calendar_dates.txt',
      'frequencies.txt',
      'shapes.txt',
      'fare_rules.txt',
      'fare_attributes.txt',
    ]) {
      unlinkSync(join(dir, file))
    }
    const times = readFileSync(join(dir, 'stop_times.txt'), 'utf8')
    writeFileSync(
      join(dir, 'stop_times.txt'),
      `${times}AB1,8:xx:00,8:20:00,AMV,3,,,,\nAB1,8:30:00,8:30:00,NOWHERE,4,,,,\nAB2,"12:25:00,12:25:00,AMV,3,,,,\n`,
    )
    const c = await started({ url: fileUrl(dir) })
    const problems = c.problems().join('\n')
    assert.match(problems, /stop_times\.txt: row 29: trip AB1: arrival_time\/departure_time 8:xx:00\/8:20:00 malformed/)
    assert.match(problems, /stop_times\.txt: row 30: trip AB1: unknown stop_id NOWHERE/)
    assert.match(problems, /stop_times\.txt: line 32: a quoted field is never closed/)
    assert.equal(c.stats().stopTimes, 28)
    // Without calendar_dates.txt, Monday 2007-06-04 has service; without frequencies.txt STBA runs once, at 06:00.
    const monday = await c.departures('STAGECOACH', pdt('2007-06-04', '05:00:00'), 3, ctx())
    assert.deepEqual(
      monday.map((d) => [d.tripId, d.scheduled.toISOString()]),
      [
        ['STBA', '2007-06-04T13:00:00.000Z'],
        ['CITY1', '2007-06-04T13:00:00.000Z'],
        ['STBA', '2007-06-05T13:00:00.000Z'],
      ],
    )
  })

  it('fails to start without a required file, and answers PROVIDER_ERROR', async () => {
    const dir = join(scratch, 'no-stops')
    cpSync(SAMPLE_DIR, dir, { recursive: true })
    unlinkSync(join(dir, 'stops.txt'))
    const c = createGtfsConnector(entry({ url: fileUrl(dir) }), deps)
    connectors.push(c)
    await assert.rejects(c.start?.() ?? Promise.resolve(), /stops\.txt is missing/)
    assert.equal(c.stats().loaded, false)
    await assert.rejects(
      c.departures('STAGECOACH', new Date(), 1, ctx()),
      (e: unknown) => e instanceof ApiError && e.code === 'PROVIDER_ERROR',
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs: generateCityFeed', () => {
  it('writes the same feed for the same seed, of the size asked for, that loads and routes', async () => {
    const options = { stops: 400, routes: 30, stopsPerRoute: 12, tripsPerRoute: 40, seed: 7 }
    const a = await generateCityFeed({ ...options, dir: join(scratch, 'city-a') })
    const b = await generateCityFeed({ ...options, dir: join(scratch, 'city-b') })
    assert.deepEqual({ ...a, dir: '' }, { dir: '', stops: 400, routes: 30, trips: 1200, stopTimes: 30 * 40 * 12 })
    const hash = (dir: string) =>
      readdirSync(dir)
        .sort()
        .map(
          (file) =>
            `${file}:${createHash('sha1')
              .update(readFileSync(join(dir, file)))
              .digest('hex')}`,
        )
        .join(',')
    assert.equal(hash(a.dir), hash(b.dir))

    const c = await started({ url: fileUrl(a.dir) })
    assert.equal(c.stats().stopTimes, a.stopTimes)
    assert.deepEqual(c.problems(), [])
    const monday = new Date('2025-06-02T08:00:00+02:00')
    const near = await c.stopsNear(52.52, 13.405, 20_000, 1000, ctx())
    const served = near.filter((s) => s.modes.length > 0)
    assert.ok(served.length > 100)
    const departures = await c.departures(served[0].id, monday, 5, ctx())
    assert.equal(departures.length, 5)
    let routed = 0
    for (let i = 1; i <= 10; i++) {
      const journeys = await c.journeys(
        { origin: { stopId: served[0].id }, destination: { stopId: served[i * 9].id }, departAt: monday, limit: 1 },
        ctx(),
      )
      if (journeys.length > 0) routed++
    }
    assert.ok(routed >= 8, `${routed} of 10 journeys found`)
    // Generated names carry diacritics, found without them.
    assert.equal((await c.searchStops('mullerstrasse', 1, ctx()))[0]?.name, 'Müllerstraße')
  })
})
