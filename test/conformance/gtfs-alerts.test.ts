import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ALERT_LIMITS, decodeAlerts } from '../../src/connectors/gtfs/alerts.ts'
import { createGtfsConnector, type GtfsConnector, parseGtfsOptions } from '../../src/connectors/gtfs/index.ts'
import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'
import type { CallContext, ProviderEntry } from '../../src/connectors/types/common.ts'
import type { TransitAlert, TransitDeparture, TransitJourney } from '../../src/connectors/types/public-transport.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { encodeProtoText } from '../helpers/proto-text.ts'

// GTFS-Realtime service alerts in the GTFS connector: the specification's example, a generated feed with every
// kind of informed entity, period and translation, bad entities, and broken feeds.

const FIXTURES = fileURLToPath(new URL('../../src/connectors/gtfs/fixtures/', import.meta.url))
const SAMPLE_DIR = join(FIXTURES, 'sample-feed-1/folder')
const EDGE_DIR = join(FIXTURES, 'edge-feed')
const RT = join(FIXTURES, 'realtime-alerts')

const ctx = (language = 'en'): CallContext => ({
  signal: AbortSignal.timeout(10_000),
  now: new Date(),
  language,
  tenantId: 't',
  environment: 'test',
  scenarios: [],
})
const entry = (options: Record<string, unknown>): ProviderEntry => ({
  id: 'gtfs-alerts',
  name: 'GTFS Alerts',
  connector: 'gtfs',
  environments: ['test'],
  options,
})
const connectors: GtfsConnector[] = []
async function started(options: Record<string, unknown>): Promise<GtfsConnector> {
  const connector = createGtfsConnector(entry(options), { kv: memoryKv(), clock: () => new Date() })
  connectors.push(connector)
  await connector.start?.()
  return connector
}
const fileUrl = (path: string) => pathToFileURL(path).href
/** sample-feed-1 runs in America/Los_Angeles: in June 2007 that is PDT, UTC-7. */
const pdt = (date: string, time: string) => new Date(`${date}T${time}-07:00`)
const unix = (d: Date) => d.getTime() / 1000
/** edge-feed runs in Europe/Berlin. */
const berlin = (date: string, time: string) => new Date(`${date}T${time}+02:00`)

/** Plain objects in the bindings' fromObject form. */
type Entity = Record<string, any>
function encodeAlerts(entities: Entity[], timestamp = pdt('2007-06-05', '06:00:00')): Buffer {
  const message = transit_realtime.FeedMessage.fromObject({
    header: { gtfsRealtimeVersion: '2.0', incrementality: 'FULL_DATASET', timestamp: unix(timestamp) },
    entity: entities,
  })
  return Buffer.from(transit_realtime.FeedMessage.encode(message).finish())
}
const en = (text: string) => ({ translation: [{ text, language: 'en' }] })
const alert = (id: string, informedEntity: Entity[], extra: Entity = {}): Entity => ({
  id,
  alert: { informedEntity, headerText: en(`header ${id}`), ...extra },
})

const ids = (list: { alerts?: TransitAlert[] }) => (list.alerts ?? []).map((a) => a.id).sort()
const byTrip = (deps: TransitDeparture[]) =>
  deps.map((d) => [d.tripId, d.scheduled.toISOString().slice(11, 16), ids(d)])

/** Serves feeds by path; a path can answer a status, garbage, or late. */
class FeedServer {
  readonly bodies = new Map<string, { status: number; body: Buffer | string; delayMs?: number }>()
  private server?: Server
  base = ''
  async listen() {
    this.server = createServer((req, res) => {
      const answer = this.bodies.get(new URL(req.url ?? '/', 'http://x').pathname)
      setTimeout(() => {
        res.writeHead(answer?.status ?? 404)
        res.end(answer?.body ?? 'not found')
      }, answer?.delayMs ?? 0)
    })
    const server = this.server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
  close() {
    this.server?.closeAllConnections()
    return new Promise<void>((resolve) => this.server?.close(() => resolve()))
  }
}

const server = new FeedServer()
const scratch = mkdtempSync(join(tmpdir(), 'gtfs-alerts-'))
before(() => server.listen())
after(async () => {
  await Promise.all(connectors.map((c) => c.stop?.()))
  await server.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe('gtfs alerts: options and the specification’s samples', () => {
  it('takes alertsUrl as http(s): or file:, and publishes alerts (capability ALERTS) only with it', async () => {
    assert.equal(
      parseGtfsOptions({ url: 'file:/x', alertsUrl: 'https://x.example/alerts.pb' }).alertsUrl?.protocol,
      'https:',
    )
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', alertsUrl: 'ftp://x/a.pb' }), /alertsUrl/)
    assert.throws(() => parseGtfsOptions({ url: 'file:/x', alertsUrl: 42 }), /alertsUrl/)
    assert.equal(parseGtfsOptions({ url: 'file:/x' }).realtimeRefreshSeconds, 30)
    const plain = await started({ url: fileUrl(SAMPLE_DIR) })
    assert.ok(!plain.capabilities.operations.includes('ALERTS'))
    assert.equal(plain.alerts, undefined)
    assert.equal(plain.stats().alerts, undefined)
  })

  it('reads the specification’s example alert (text format, encoded): selectors, cause, effect, texts, period', () => {
    const problems: string[] = []
    const text = readFileSync(join(RT, 'alerts.asciipb'), 'utf8')
    const snapshot = decodeAlerts(encodeProtoText(text), 0, (m) => problems.push(m))
    assert.deepEqual(problems, [])
    assert.equal(snapshot.timestamp, Date.parse('2010-09-14T09:44:28Z'))
    assert.equal(snapshot.alerts.length, 1)
    const [a] = snapshot.alerts
    assert.deepEqual(a.selectors, [{ routeId: '219' }, { stopId: '16230' }, { routeId: '100', stopId: '16299' }])
    assert.deepEqual([a.cause, a.effect, a.severity], ['CONSTRUCTION', 'DETOUR', 'UNKNOWN_SEVERITY'])
    assert.deepEqual(a.periods, [
      { start: Date.parse('2010-09-14T09:44:28Z'), end: Date.parse('2010-09-14T12:41:12Z') },
    ])
    assert.equal(a.header[0].text, 'Stop at Elm street is closed, temporary stop at Oak street')
    assert.match(a.description[0].text, /^Due to construction at Elm street/)
    assert.deepEqual(a.url, [{ text: 'http://www.sometransitagency/alerts', language: 'en' }])
  })

  it('takes a feed of vehicle positions (the bindings’ sample) as a feed without alerts', async () => {
    const c = await started({ url: fileUrl(SAMPLE_DIR), alertsUrl: fileUrl(join(RT, 'vehicle_position.pb')) })
    assert.equal(c.stats().alerts?.alerts, 0)
    assert.equal(c.stats().alerts?.lastError, undefined)
    assert.deepEqual(await c.alerts?.({ from: new Date(), until: new Date() }, ctx()), [])
  })
})

// ---------------------------------------------------------------------------------------------------------------

const TUESDAY = '2007-06-05'
const GENERATED: Entity[] = [
  // Every kind of informed entity.
  alert('agency', [{ agencyId: 'DTA' }], {
    activePeriod: [{ start: unix(pdt(TUESDAY, '08:00:00')), end: unix(pdt(TUESDAY, '08:05:00')) }],
  }),
  alert('route', [{ routeId: 'AB' }], { activePeriod: [{ start: unix(pdt('2007-06-01', '00:00:00')) }] }),
  alert('route-type', [{ routeType: 3 }], { activePeriod: [{ start: unix(pdt('2007-06-10', '00:00:00')) }] }),
  alert('trip', [{ trip: { tripId: 'BFC1' } }], { effect: 'SIGNIFICANT_DELAYS', severityLevel: 'WARNING' }),
  alert('trip-run', [{ trip: { tripId: 'CITY1', startDate: '20070605', startTime: '08:00:00' } }]),
  alert('stop', [{ stopId: 'BULLFROG' }], {
    cause: 'CONSTRUCTION',
    effect: 'NO_SERVICE',
    severityLevel: 'SEVERE',
    // A past period and the current one.
    activePeriod: [
      { start: unix(pdt('2007-01-01', '00:00:00')), end: unix(pdt('2007-01-02', '00:00:00')) },
      { start: unix(pdt(TUESDAY, '00:00:00')), end: unix(pdt(TUESDAY, '23:59:59')) },
    ],
  }),
  alert('direction', [{ routeId: 'CITY', directionId: 1 }]),
  alert('route-at-stop', [{ routeId: 'AB', stopId: 'BEATTY_AIRPORT' }]),
  alert('past', [{ agencyId: 'DTA' }], { activePeriod: [{ end: unix(pdt('2007-06-01', '00:00:00')) }] }),
  alert('future', [{ stopId: 'NANAA' }], { activePeriod: [{ start: unix(pdt('2007-06-06', '00:00:00')) }] }),
  {
    id: 'translated',
    alert: {
      informedEntity: [{ stopId: 'AMV' }],
      headerText: {
        translation: [
          { text: 'Amargosa Valley: bus replaced', language: 'en' },
          { text: 'Amargosa Valley: Ersatzverkehr', language: 'DE' },
          { text: 'Amargosa Valley : bus de remplacement', language: 'fr' },
        ],
      },
      // German is missing here: English is the fallback.
      descriptionText: {
        translation: [
          { text: 'Use the replacement bus.', language: 'en' },
          { text: 'Prenez le bus de remplacement.', language: 'fr' },
        ],
      },
      url: { translation: [{ text: 'https://dta.example/amv' }] },
    },
  },
  // Bad entities: skipped, or kept without the bad part, and reported.
  { id: 'no-entity', alert: { headerText: en('nothing selected') } },
  alert('direction-only', [{ directionId: 0 }]),
  alert('backwards', [{ stopId: 'BULLFROG' }], {
    activePeriod: [{ start: unix(pdt(TUESDAY, '10:00:00')), end: unix(pdt(TUESDAY, '09:00:00')) }],
  }),
  alert('half-bad', [{ stopId: 'STAGECOACH' }], {
    activePeriod: [{ start: 20, end: 10 }, { start: unix(pdt(TUESDAY, '00:00:00')) }],
  }),
  alert('huge', [{ stopId: 'FUR_CREEK_RES' }], {
    headerText: en(`Closed ${'very '.repeat(5000)}long`),
    descriptionText: en('Lorem ipsum. '.repeat(100_000)),
    url: en('javascript:alert(1)'),
  }),
  { id: 'textless', alert: { informedEntity: [{ stopId: 'BULLFROG' }] } },
  alert('route', [{ routeId: 'BFC' }]),
  { id: '', alert: { informedEntity: [{ stopId: 'BULLFROG' }], headerText: en('no id') } },
  // Not an alert: ignored.
  { id: 'tu', tripUpdate: { trip: { tripId: 'AB1' } } },
]

describe('gtfs alerts: a generated feed with every kind of entity, period and translation', () => {
  let c: GtfsConnector
  before(async () => {
    server.bodies.set('/alerts.pb', { status: 200, body: encodeAlerts(GENERATED) })
    c = await started({ url: fileUrl(SAMPLE_DIR), alertsUrl: `${server.base}/alerts.pb` })
  })

  it('keeps the usable alerts, skips the others and reports each problem', () => {
    const stats = c.stats().alerts
    assert.equal(stats?.alerts, 13)
    assert.equal(stats?.skipped, 6)
    assert.ok(c.capabilities.operations.includes('ALERTS'))
    const problems = c.problems().join('\n')
    for (const expected of [
      /"no-entity": skipped: no usable informed_entity/,
      /"direction-only": informed_entity 0 left out: direction_id without route_id/,
      /"backwards": active_period 0 ends before it starts/,
      /"backwards": skipped: no usable active_period/,
      /"half-bad": active_period 0 ends before it starts/,
      /"huge": header_text longer than 300 characters, cut/,
      /"huge": description_text longer than 4000 characters, cut/,
      /"huge": url "javascript:alert\(1\)" is not an http\(s\) URL/,
      /"textless": skipped: neither header_text nor description_text/,
      /"route": the id appears twice/,
      /without a usable id/,
    ]) {
      assert.match(problems, expected)
    }
  })

  it('puts on each departure the alerts for its agency, route, trip, run, direction and stop at its time', async () => {
    // 08:00-08:05 on Tuesday: the agency-wide alert is on, the route type's is not yet (from 2007-06-10).
    const airport = await c.departures('BEATTY_AIRPORT', pdt(TUESDAY, '07:55:00'), 2, ctx())
    assert.deepEqual(
      airport.map((d) => [d.tripId, d.scheduled.toISOString().slice(5, 16), ids(d)]),
      [
        ['AB1', '06-05T15:00', ['agency', 'route', 'route-at-stop']],
        ['AB1', '06-06T15:00', ['route', 'route-at-stop']],
      ],
    )
    // The stop's closure is on every departure there on Tuesday (and carries its cause and effect), not at others.
    const bullfrog = await c.departures('BULLFROG', pdt(TUESDAY, '08:10:00'), 2, ctx())
    // (AB1 ends at Bullfrog: it departs from there no more.)
    assert.deepEqual(byTrip(bullfrog), [
      ['BFC1', '15:20', ['stop', 'trip']],
      ['AB2', '19:05', ['route', 'stop']],
    ])
    const closure = bullfrog[0].alerts?.[0]
    assert.deepEqual(
      [closure?.id, closure?.effect, closure?.cause, closure?.severity],
      ['stop', 'NO_SERVICE', 'CONSTRUCTION', 'SEVERE'],
    )
    assert.deepEqual(closure?.activePeriods.length, 2, 'both periods, the past one too')
    // On Wednesday the closure (Tuesday only) and the agency's alert (Tuesday 08:00-08:05) are over.
    const wednesday = await c.departures('BULLFROG', pdt('2007-06-06', '08:10:00'), 1, ctx())
    assert.deepEqual(byTrip(wednesday), [['BFC1', '15:20', ['trip']]])
    // The run of CITY1 that starts at 08:00 on Tuesday carries its alert; the runs before and after do not.
    const nanaa = await c.departures('NANAA', pdt(TUESDAY, '07:50:00'), 6, ctx())
    const city1 = nanaa
      .filter((d) => d.tripId === 'CITY1')
      .map((d) => [d.scheduled.toISOString().slice(11, 16), ids(d)])
    assert.deepEqual(city1.slice(0, 3), [
      ['15:07', ['trip-run']], // 08:07: the agency's alert ended at 08:05
      ['15:17', []],
      ['15:27', []],
    ])
    assert.equal(
      nanaa.find((d) => d.tripId === 'CITY1' && d.scheduled < pdt(TUESDAY, '08:00:00')),
      undefined,
    )
    // Direction 1 of route CITY is CITY2.
    assert.ok(nanaa.filter((d) => d.tripId === 'CITY2').every((d) => ids(d).includes('direction')))
    // From 2007-06-10 the route type's alert is on every bus; the future stop alert at NANAA is on.
    const later = await c.departures('NANAA', pdt('2007-06-11', '09:00:00'), 2, ctx())
    assert.ok(later.every((d) => ids(d).includes('route-type') && ids(d).includes('future')))
  })

  it('answers in the caller’s language where the feed has it, else in English', async () => {
    const at = pdt('2007-06-09', '09:30:00') // Saturday: AAMV runs
    const texts = async (language: string) => {
      const [d] = await c.departures('AMV', at, 1, ctx(language))
      const a = d.alerts?.find((x) => x.id === 'translated')
      return [a?.header, a?.description, a?.url]
    }
    assert.deepEqual(await texts('de'), [
      'Amargosa Valley: Ersatzverkehr',
      'Use the replacement bus.',
      'https://dta.example/amv',
    ])
    assert.deepEqual(await texts('fr'), [
      'Amargosa Valley : bus de remplacement',
      'Prenez le bus de remplacement.',
      'https://dta.example/amv',
    ])
    assert.deepEqual(await texts('en'), [
      'Amargosa Valley: bus replaced',
      'Use the replacement bus.',
      'https://dta.example/amv',
    ])
    assert.deepEqual((await texts('it'))[0], 'Amargosa Valley: bus replaced')
  })

  it('bounds huge texts and drops URLs that are not http(s)', async () => {
    const [d] = await c.departures('FUR_CREEK_RES', pdt(TUESDAY, '10:00:00'), 1, ctx())
    const huge = d.alerts?.find((a) => a.id === 'huge')
    assert.ok(huge)
    assert.equal(Array.from(huge.header).length, ALERT_LIMITS.headerChars)
    assert.ok(huge.header.endsWith('…'))
    assert.ok(Array.from(huge.description ?? '').length <= ALERT_LIMITS.descriptionChars)
    assert.equal(huge.url, undefined)
    // The half-bad alert keeps its good period.
    const [s] = await c.departures('STAGECOACH', pdt(TUESDAY, '10:00:00'), 1, ctx())
    const half = s.alerts?.find((a) => a.id === 'half-bad')
    assert.deepEqual(half?.activePeriods, [{ start: pdt(TUESDAY, '00:00:00') }])
  })

  it('puts alerts on journey legs: trip, boarding, passing and alighting stops, over the leg’s time', async () => {
    const [j]: TransitJourney[] = await c.journeys(
      {
        origin: { stopId: 'STAGECOACH' },
        destination: { stopId: 'BULLFROG' },
        departAt: pdt(TUESDAY, '06:00:00'),
        limit: 1,
      },
      ctx(),
    )
    const legs = j.legs.map((l) => [l.tripId, l.from.stopId, l.to.stopId, ids(l)])
    // The shuttle to the airport: the agency alert is not on yet (08:00); AB1 from the airport at 08:00 alights at
    // Bullfrog (closed) and is on route AB (and at the airport, route-at-stop).
    assert.deepEqual(legs, [
      ['STBA', 'STAGECOACH', 'BEATTY_AIRPORT', ['half-bad']],
      ['AB1', 'BEATTY_AIRPORT', 'BULLFROG', ['agency', 'route', 'route-at-stop', 'stop']],
    ])
  })

  it('lists the alerts active at a time, of a stop (its departures’) and of a line, most severe first', async () => {
    const list = async (query: { stopId?: string; routeId?: string }, at = pdt(TUESDAY, '08:02:00')) =>
      (await c.alerts?.({ ...query, from: at, until: at }, ctx()))?.map((a) => a.id)
    assert.deepEqual(await list({}), [
      'stop',
      'trip',
      'agency',
      'direction',
      'half-bad',
      'huge',
      'route',
      'route-at-stop',
      'translated',
      'trip-run',
    ])
    assert.deepEqual(await list({ stopId: 'BULLFROG' }), ['stop', 'trip', 'agency', 'route'])
    assert.deepEqual(await list({ stopId: 'BEATTY_AIRPORT' }), ['agency', 'route', 'route-at-stop'])
    assert.deepEqual(await list({ routeId: 'CITY' }), ['agency', 'direction', 'half-bad', 'trip-run'])
    assert.deepEqual(await list({ routeId: 'AB', stopId: 'BULLFROG' }), ['stop', 'agency', 'route'])
    assert.deepEqual(await list({ routeId: 'NOPE' }), [])
    // A week later: the stop's future alert and the route type's are on, the run of 2007-06-05 is long over.
    assert.deepEqual(await list({ stopId: 'NANAA' }, pdt('2007-06-12', '12:00:00')), [
      'direction',
      'future',
      'route-type',
    ])
    assert.deepEqual(await list({ stopId: 'NANAA' }, pdt(TUESDAY, '20:00:00')), ['direction', 'trip-run'])
    assert.deepEqual(
      await list({ stopId: 'NANAA' }, pdt(TUESDAY, '23:00:00')),
      ['direction'],
      'the last trip of the day has run',
    )
    await assert.rejects(
      c.alerts?.({ stopId: 'NOWHERE', from: new Date(), until: new Date() }, ctx()) ?? Promise.reject(),
      {
        code: 'NOT_FOUND',
      },
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs alerts: stations and platforms (edge-feed)', () => {
  let c: GtfsConnector
  before(async () => {
    const file = join(scratch, 'edge-alerts.pb')
    writeFileSync(
      file,
      encodeAlerts(
        [
          alert('station', [{ stopId: 'HBF' }]),
          alert('platform-2', [{ stopId: 'HBF_2' }]),
          alert('regional', [{ routeType: 106 }]),
          alert('kottbusser', [{ stopId: 'KOT' }]),
        ],
        berlin('2024-05-06', '06:00:00'),
      ),
    )
    c = await started({ url: fileUrl(EDGE_DIR), alertsUrl: fileUrl(file) })
  })

  it('an alert on a station is on its platforms’ departures; one on a platform only there', async () => {
    const board = await c.departures('HBF', berlin('2024-05-06', '06:55:00'), 10, ctx())
    const seen = board.map((d) => [d.tripId, d.stopId, ids(d)])
    assert.deepEqual(seen.slice(0, 3), [
      ['B2_0700', 'HBF_1', ['station']],
      ['RE1_0705', 'HBF_1', ['regional', 'station']],
      ['RE1_0800', 'HBF_1', ['regional', 'station']],
    ])
    const platform1 = await c.departures('HBF_1', berlin('2024-05-06', '06:55:00'), 1, ctx())
    assert.deepEqual(ids(platform1[0]), ['station'])
    const list = async (stopId: string) =>
      (await c.alerts?.({ stopId, from: new Date(), until: new Date() }, ctx()))?.map((a) => a.id)
    assert.deepEqual(await list('HBF'), ['platform-2', 'regional', 'station'])
    assert.deepEqual(await list('HBF_1'), ['regional', 'station'])
    const wide = await c.alerts?.({ stopId: 'HBF_1', from: new Date(), until: new Date(), stopWide: true }, ctx())
    assert.deepEqual(
      wide?.map((a) => a.id),
      ['station'],
      'the board shows the closure, not the line’s alerts',
    )
  })

  it('a leg passing a stop carries that stop’s alert', async () => {
    const [j] = await c.journeys(
      {
        origin: { stopId: 'HBF' },
        destination: { stopId: 'GOE' },
        departAt: berlin('2024-05-06', '06:55:00'),
        limit: 1,
      },
      ctx(),
    )
    const bus = j.legs.find((l) => l.tripId === 'B2_0700')
    assert.ok(bus, JSON.stringify(j.legs.map((l) => l.tripId)))
    assert.deepEqual(
      bus.intermediateStops?.map((s) => s.stopId),
      ['KOT'],
    )
    assert.deepEqual(ids(bus), ['kottbusser', 'station'])
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('gtfs alerts: broken feeds never break the provider', () => {
  const good = () => encodeAlerts([alert('closed', [{ stopId: 'BULLFROG' }])])
  const at = pdt(TUESDAY, '08:10:00')
  const carried = async (c: GtfsConnector) => ids((await c.departures('BULLFROG', at, 1, ctx()))[0])

  it('starts with an unreachable or garbage feed: departures answer, without alerts, and the problem is reported', async () => {
    for (const [name, alertsUrl] of [
      ['missing file', fileUrl(join(scratch, 'no-such.pb'))],
      ['refused connection', 'http://127.0.0.1:9/alerts.pb'],
    ]) {
      const c = await started({ url: fileUrl(SAMPLE_DIR), alertsUrl })
      assert.deepEqual(await carried(c), [], name)
      assert.ok(c.stats().alerts?.lastError, name)
      assert.match(c.problems().join('\n'), /alerts /, name)
    }
  })

  it('keeps the last good alerts through garbage, an empty answer, HTTP 500 and a timeout', async () => {
    server.bodies.set('/flaky.pb', { status: 200, body: good() })
    const c = await started({ url: fileUrl(SAMPLE_DIR), alertsUrl: `${server.base}/flaky.pb`, timeoutMs: 300 })
    assert.deepEqual(await carried(c), ['closed'])
    const cases: [string, { status: number; body: Buffer | string; delayMs?: number }, RegExp][] = [
      [
        'garbage',
        { status: 200, body: Buffer.from([0xff, 0x00, 0x13, 0x37, 0xde, 0xad, 0xbe, 0xef]) },
        /not a GTFS-Realtime FeedMessage/,
      ],
      ['empty', { status: 200, body: '' }, /not a GTFS-Realtime FeedMessage/],
      ['HTTP 500', { status: 500, body: 'down' }, /HTTP 500/],
      ['timeout', { status: 200, body: good(), delayMs: 2000 }, /did not answer within 300 ms/],
    ]
    for (const [name, answer, error] of cases) {
      server.bodies.set('/flaky.pb', answer)
      await c.refreshAlerts()
      assert.match(c.stats().alerts?.lastError ?? '', error, name)
      assert.deepEqual(await carried(c), ['closed'], `${name}: the last good alerts stay`)
    }
    // A good feed again: its (now different) alerts replace the old ones.
    server.bodies.set('/flaky.pb', { status: 200, body: encodeAlerts([alert('reopened', [{ stopId: 'BULLFROG' }])]) })
    await c.refreshAlerts()
    assert.deepEqual(await carried(c), ['reopened'])
    assert.equal(c.stats().alerts?.lastError, undefined)
    assert.ok((c.feedAgeSeconds?.() ?? 0) > 0, 'the alert feed’s age counts towards the provider’s feed age')
  })

  it('reads a file: feed again every realtimeRefreshSeconds', async () => {
    const file = join(scratch, 'refreshed.pb')
    writeFileSync(file, good())
    const c = await started({ url: fileUrl(SAMPLE_DIR), alertsUrl: fileUrl(file), realtimeRefreshSeconds: 1 })
    assert.deepEqual(await carried(c), ['closed'])
    writeFileSync(file, encodeAlerts([alert('moved', [{ stopId: 'BULLFROG' }], { effect: 'STOP_MOVED' })]))
    const until = Date.now() + 5000
    while ((await carried(c))[0] !== 'moved' && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
    assert.deepEqual(await carried(c), ['moved'])
  })
})
