import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'
import { deref } from '../helpers/openapi.ts'

// Service alerts over HTTP (DECISIONS "Real-time transit and GBFS out"): on departures and journey legs, the
// departure board's own `alerts`, GET /public-transport/alerts, and the sandbox's transit-alert scenario.

const BERLIN_FEED = fileURLToPath(new URL('../../src/connectors/sandbox/transit/feed/', import.meta.url))
const ORIGIN = 'https://app.example'
const SCENARIO = { 'x-sandbox-scenario': 'transit-alert:sandbox-transit' }
const CLOSED = 'sandbox-transit:transit-alert-900100001'

const translated = (en: string, de: string, fr: string) => ({
  translation: [
    { text: en, language: 'en' },
    { text: de, language: 'de' },
    { text: fr, language: 'fr' },
  ],
})

/** The feed of provider `gtfs-alerts` (the sandbox's Berlin timetable), written before the service starts. */
function alertFeed(now: number): Buffer {
  const s = (ms: number) => Math.floor(ms / 1000)
  const message = transit_realtime.FeedMessage.fromObject({
    header: { gtfsRealtimeVersion: '2.0', incrementality: 'FULL_DATASET', timestamp: s(now) },
    entity: [
      {
        id: 'u2-alex',
        alert: {
          activePeriod: [{ start: s(now - 3_600_000) }],
          informedEntity: [{ routeId: 'U2', stopId: '900100003' }],
          cause: 'TECHNICAL_PROBLEM',
          effect: 'SIGNIFICANT_DELAYS',
          severityLevel: 'WARNING',
          headerText: translated(
            'U2: delays at Alexanderplatz',
            'U2: Verspätungen am Alexanderplatz',
            'U2 : retards à Alexanderplatz',
          ),
          descriptionText: { translation: [{ text: 'A signal failure.', language: 'en' }] },
        },
      },
      {
        id: 'alex-lift',
        alert: {
          activePeriod: [{ start: s(now - 3_600_000), end: s(now + 10 * 86_400_000) }],
          informedEntity: [{ stopId: '900100003_U2' }],
          effect: 'ACCESSIBILITY_ISSUE',
          headerText: { translation: [{ text: 'Lift to the U2 platform out of order' }] },
        },
      },
      {
        id: 'hbf-later',
        alert: {
          activePeriod: [{ start: s(now + 2 * 86_400_000) }],
          informedEntity: [{ stopId: '900003201' }],
          effect: 'NO_SERVICE',
          headerText: translated('Hauptbahnhof closed', 'Hauptbahnhof geschlossen', 'Hauptbahnhof fermée'),
        },
      },
      {
        id: 's5-over',
        alert: {
          activePeriod: [{ end: s(now - 3_600_000) }],
          informedEntity: [{ routeId: 'S5' }],
          headerText: translated('S5 diverted', 'S5 umgeleitet', 'S5 déviée'),
        },
      },
      // Skipped: it selects nothing.
      { id: 'empty', alert: { headerText: { translation: [{ text: 'nothing' }] } } },
    ],
  })
  return Buffer.from(transit_realtime.FeedMessage.encode(message).finish())
}

describe('transit alerts', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  const dir = mkdtempSync(join(tmpdir(), 'transit-alerts-'))
  before(async () => {
    writeFileSync(join(dir, 'alerts.pb'), alertFeed(Date.now()))
    writeFileSync(join(dir, 'garbage.pb'), 'this is not protobuf, not at all')
    const gtfs = (id: string, extra: Record<string, unknown>) => ({
      id,
      name: id,
      connector: 'gtfs',
      environments: ['live', 'test'],
      options: { url: pathToFileURL(BERLIN_FEED).href, ...extra },
    })
    const file = join(dir, 'providers.json')
    writeFileSync(
      file,
      JSON.stringify({
        providers: [
          { id: 'sandbox-transit', name: 'Sandbox Transit', connector: 'sandbox', environments: ['live', 'test'] },
          gtfs('gtfs-alerts', { alertsUrl: pathToFileURL(join(dir, 'alerts.pb')).href }),
          gtfs('gtfs-garbage', { alertsUrl: pathToFileURL(join(dir, 'garbage.pb')).href }),
          gtfs('gtfs-plain', {}),
        ],
      }),
    )
    h = await startHarness({ env: { PROVIDERS_FILE: file } })
    t = await createTenant(h, { allowedOrigins: [ORIGIN] })
  })
  after(async () => {
    await h.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Tomorrow at `hour` Berlin summer time (an hour off in winter: any daytime hour will do). */
  const tomorrowAt = (hour: number) => {
    const d = new Date(h.clock().getTime() + 86_400_000)
    d.setUTCHours(hour - 2, 0, 0, 0)
    return d.toISOString()
  }
  const board = (stopId: string, key: string, query = '', headers: Record<string, string> = {}) =>
    h.api(
      'GET',
      `/public-transport/stops/${encodeURIComponent(stopId)}/departures?from=${encodeURIComponent(tomorrowAt(9))}&limit=40${query}`,
      key,
      undefined,
      headers,
    )
  const alertIds = (list: { alertId: string }[] | undefined) => (list ?? []).map((a) => a.alertId).sort()
  const list = (query: string, key = t.secret, headers: Record<string, string> = {}) =>
    h.api('GET', `/public-transport/alerts${query}`, key, undefined, headers)

  it("puts a feed's alerts on the departures they concern, the stop's own on the board, in the caller's language", async () => {
    const texts: Record<string, string> = {}
    for (const language of ['en', 'de', 'fr']) {
      const res = await board('gtfs-alerts:900100003', t.secret, '', { 'accept-language': language })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.headers['content-language'], language)
      const departures = res.body.data.departures
      const u2 = departures.filter((d: any) => d.line.id === 'U2')
      const others = departures.filter((d: any) => d.line.id !== 'U2')
      assert.ok(u2.length > 0 && others.length > 0, 'U2 and other lines leave Alexanderplatz')
      for (const d of u2) assert.deepEqual(alertIds(d.alerts), ['gtfs-alerts:alex-lift', 'gtfs-alerts:u2-alex'])
      for (const d of others) assert.deepEqual(d.alerts, [], `${d.line.id} at ${d.stop.stopId}`)
      const alert = u2[0].alerts.find((a: any) => a.alertId === 'gtfs-alerts:u2-alex')
      assert.deepEqual(
        [alert.cause, alert.effect, alert.severity],
        ['TECHNICAL_PROBLEM', 'SIGNIFICANT_DELAYS', 'WARNING'],
      )
      assert.equal(alert.description, 'A signal failure.', 'English where the feed has nothing else')
      assert.equal(alert.activePeriods.length, 1)
      assert.ok(Date.parse(alert.activePeriods[0].start) < h.clock().getTime() && !alert.activePeriods[0].end)
      texts[language] = alert.header
      // The board's own alerts: those about the stop itself (the lift), not the line's.
      assert.deepEqual(alertIds(res.body.data.alerts), ['gtfs-alerts:alex-lift'])
    }
    assert.deepEqual(texts, {
      en: 'U2: delays at Alexanderplatz',
      de: 'U2: Verspätungen am Alexanderplatz',
      fr: 'U2 : retards à Alexanderplatz',
    })
    // An alert that begins in two days shows on departures from then on, not before; one that ended never.
    const hbfNow = await board('gtfs-alerts:900003201', t.secret)
    assert.ok(hbfNow.body.data.departures.every((d: any) => d.alerts.length === 0))
    assert.deepEqual(hbfNow.body.data.alerts, [])
    const inThreeDays = new Date(Date.parse(tomorrowAt(9)) + 2 * 86_400_000).toISOString()
    const hbfLater = await h.api(
      'GET',
      `/public-transport/stops/gtfs-alerts%3A900003201/departures?from=${encodeURIComponent(inThreeDays)}&limit=5`,
      t.secret,
      undefined,
      { 'accept-language': 'fr' },
    )
    assert.ok(hbfLater.body.data.departures.length > 0)
    for (const d of hbfLater.body.data.departures) assert.deepEqual(alertIds(d.alerts), ['gtfs-alerts:hbf-later'])
    assert.equal(hbfLater.body.data.alerts[0].header, 'Hauptbahnhof fermée')
    // A provider whose alert feed is garbage still answers its departures, without alerts.
    const garbage = await board('gtfs-garbage:900100003', t.secret)
    assert.equal(garbage.status, 200, garbage.text)
    assert.ok(garbage.body.data.departures.every((d: any) => d.alerts.length === 0))
  })

  it('puts the alerts on the journey legs that touch the stop, at their time', async () => {
    const res = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: 'gtfs-alerts:900100003' },
      destination: { type: 'stop', stopId: 'gtfs-alerts:900110006' },
      departAt: tomorrowAt(10),
      limit: 2,
    })
    assert.equal(res.status, 200, res.text)
    const journeys = res.body.data.journeys
    assert.ok(journeys.length > 0)
    for (const j of journeys) {
      for (const leg of j.legs) {
        assert.ok(Array.isArray(leg.alerts), 'every leg has alerts, maybe none')
        if (leg.line?.id === 'U2' && leg.from.stopId === 'gtfs-alerts:900100003_U2') {
          assert.deepEqual(alertIds(leg.alerts), ['gtfs-alerts:alex-lift', 'gtfs-alerts:u2-alex'])
        } else {
          assert.deepEqual(leg.alerts, [], `${leg.mode} ${leg.line?.id} from ${leg.from.stopId}`)
        }
      }
    }
    assert.ok(journeys.some((j: any) => j.legs.some((l: any) => l.alerts.length > 0)))
  })

  it('lists the active alerts of every provider that publishes them, filtered by provider, stop and line', async () => {
    const all = await list('')
    assert.equal(all.status, 200, all.text)
    assert.deepEqual(
      all.body.data.alerts.map((a: any) => a.alertId),
      ['gtfs-alerts:u2-alex', 'gtfs-alerts:alex-lift'],
      'active now, most severe (WARNING) first',
    )
    const u2 = all.body.data.alerts[0]
    assert.deepEqual(u2.provider, { id: 'gtfs-alerts', name: 'gtfs-alerts' })
    assert.deepEqual(u2.informedEntities, [{ routeId: 'U2', stopId: 'gtfs-alerts:900100003' }])
    assert.deepEqual(
      all.body.data.providers.map((p: any) => [p.id, p.status, p.alerts]).sort(),
      [
        ['gtfs-alerts', 'OK', 2],
        ['gtfs-garbage', 'OK', 0],
        ['sandbox-transit', 'OK', 0],
      ],
      'a provider without an alert feed is not asked',
    )
    assert.deepEqual(all.body.data.pagination, { hasMore: false })
    const ids = async (query: string) => {
      const res = await list(query)
      assert.equal(res.status, 200, `${query}: ${res.text}`)
      return res.body.data.alerts.map((a: any) => a.alertId)
    }
    assert.deepEqual(await ids('?provider=gtfs-alerts'), ['gtfs-alerts:u2-alex', 'gtfs-alerts:alex-lift'])
    assert.deepEqual(await ids('?provider=sandbox-transit'), [])
    assert.deepEqual(await ids('?provider=gtfs-plain'), [])
    assert.deepEqual(await ids('?stopId=gtfs-alerts%3A900100003'), ['gtfs-alerts:u2-alex', 'gtfs-alerts:alex-lift'])
    assert.deepEqual(await ids('?stopId=gtfs-alerts%3A900100003_U2'), ['gtfs-alerts:u2-alex', 'gtfs-alerts:alex-lift'])
    assert.deepEqual(await ids('?stopId=gtfs-alerts%3A900100003_U5'), [], 'no U2 leaves from the U5 platform')
    assert.deepEqual(await ids('?routeId=U2'), ['gtfs-alerts:u2-alex', 'gtfs-alerts:alex-lift'])
    assert.deepEqual(await ids('?routeId=U5'), [])
    assert.deepEqual(await ids('?routeId=U2&stopId=gtfs-alerts%3A900110006'), [])
    assert.deepEqual(await ids('?routeId=NO-SUCH-LINE'), [])
    assert.deepEqual(await ids('?stopId=gtfs-alerts%3A900003201'), [], 'the closure in two days is not active yet')
    // German where the feed has it.
    const de = await list('?provider=gtfs-alerts', t.secret, { 'accept-language': 'de-DE' })
    assert.equal(de.body.data.alerts[0].header, 'U2: Verspätungen am Alexanderplatz')
  })

  it('pages with a cursor', async () => {
    const first = await list('?limit=1')
    assert.equal(first.status, 200, first.text)
    assert.deepEqual(alertIds(first.body.data.alerts), ['gtfs-alerts:u2-alex'])
    assert.equal(first.body.data.pagination.hasMore, true)
    const second = await list(`?limit=1&cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`)
    assert.equal(second.status, 200, second.text)
    assert.deepEqual(alertIds(second.body.data.alerts), ['gtfs-alerts:alex-lift'])
    assert.deepEqual(second.body.data.pagination, { hasMore: false })
    const garbage = await list('?cursor=nonsense')
    assert.equal(garbage.status, 400)
    assert.equal(garbage.body.error.code, 'INVALID_CURSOR')
  })

  it('answers 400 for bad filters, 404 for an unknown provider or stop, 401 without a key', async () => {
    for (const [query, field] of [
      ['?stopId=900100003', 'stopId'],
      ['?provider=gtfs-alerts&stopId=sandbox-transit%3A900100003', 'stopId'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?severity=SEVERE', 'severity'],
      ['?routeId=', 'routeId'],
    ]) {
      const res = await list(query)
      assert.equal(res.status, 400, `${query}: ${res.text}`)
      assert.equal(res.body.error.code, 'INVALID_REQUEST', query)
      assert.ok(res.body.error.details?.[field], `${query}: ${JSON.stringify(res.body.error.details)}`)
    }
    const provider = await list('?provider=no-such-provider')
    assert.equal(provider.status, 404, provider.text)
    assert.equal(provider.body.error.code, 'NOT_FOUND')
    const stop = await list('?stopId=gtfs-alerts%3Anope')
    assert.equal(stop.status, 404, stop.text)
    assert.equal(stop.body.error.code, 'NOT_FOUND')
    assert.equal((await list('', '')).status, 401)
  })

  it('serves a publishable key from an allowed origin', async () => {
    const res = await list('', t.publishable, { origin: ORIGIN })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.headers['access-control-allow-origin'], ORIGIN)
    assert.equal(res.body.data.alerts.length, 2)
    const elsewhere = await list('', t.publishable, { origin: 'https://evil.example' })
    assert.equal(elsewhere.status, 403)
  })

  it('one failing provider fails only its own part; all failing is an error', async () => {
    const one = await list('', t.test, { 'x-sandbox-scenario': 'provider-error:gtfs-alerts' })
    assert.equal(one.status, 200, one.text)
    assert.deepEqual(one.body.data.alerts, [])
    const failed = one.body.data.providers.find((p: any) => p.id === 'gtfs-alerts')
    assert.equal(failed.status, 'FAILED')
    assert.equal(failed.error.code, 'PROVIDER_ERROR')
    assert.ok(one.body.data.providers.filter((p: any) => p.id !== 'gtfs-alerts').every((p: any) => p.status === 'OK'))
    const all = await list('', t.test, { 'x-sandbox-scenario': 'provider-error' })
    assert.equal(all.status, 500, all.text)
    assert.equal(all.body.error.code, 'PROVIDER_ERROR')
    // One provider asked, and it misses its deadline: 504.
    const timeout = await list('?provider=gtfs-alerts', t.test, {
      'x-sandbox-scenario': 'provider-timeout:gtfs-alerts',
    })
    assert.equal(timeout.status, 504, timeout.text)
    assert.equal(timeout.body.error.code, 'TIMEOUT')
  })

  it('is documented: operation listTransitAlerts, its query, the alert schema with an example, the scenario', async () => {
    const body = deref((await h.request({ url: '/mobility-api/v2/openapi.json' })).body)
    const op = body.paths['/mobility-api/v2/public-transport/alerts'].get
    assert.equal(op.operationId, 'listTransitAlerts')
    assert.deepEqual(op.tags, ['Public Transport'])
    const params = op.parameters.map((p: any) => p.name)
    for (const name of ['provider', 'stopId', 'routeId', 'limit', 'cursor']) assert.ok(params.includes(name), name)
    const alert = op.responses['200'].content['application/json'].schema.properties.data.properties.alerts.items
    assert.deepEqual(Object.keys(alert.properties).slice(0, 8), [
      'alertId',
      'header',
      'description',
      'url',
      'cause',
      'effect',
      'severity',
      'activePeriods',
    ])
    assert.ok(alert.examples?.[0]?.alertId)
    assert.ok(alert.properties.effect.enum.includes('NO_SERVICE'))
    const scenario = JSON.stringify(body).includes('transit-alert')
    assert.ok(scenario, 'the scenario is listed under X-Sandbox-Scenario')
  })

  describe('sandbox scenario transit-alert: S+U Friedrichstraße closed', () => {
    it('is on every departure there, and on the board, in English, German and French', async () => {
      const headers: Record<string, string> = {}
      for (const [language, header] of [
        ['en', 'S+U Friedrichstraße closed'],
        ['de', 'S+U Friedrichstraße geschlossen'],
        ['fr', 'S+U Friedrichstraße fermée'],
      ]) {
        for (const stopId of ['sandbox-transit:900100001', 'sandbox-transit:900100001_S1']) {
          const res = await board(stopId, t.test, '', { ...SCENARIO, 'accept-language': language })
          assert.equal(res.status, 200, res.text)
          const departures = res.body.data.departures
          assert.ok(departures.length > 0)
          for (const d of departures) {
            assert.deepEqual(alertIds(d.alerts), [CLOSED])
            assert.equal(d.alerts[0].effect, 'NO_SERVICE')
            assert.equal(d.alerts[0].header, header)
          }
          assert.deepEqual(alertIds(res.body.data.alerts), [CLOSED])
          headers[language] = res.body.data.alerts[0].description
        }
      }
      assert.match(headers.de, /Bauarbeiten/)
      assert.match(headers.fr, /travaux/)
      // Without the scenario, with a live key, or at another stop: no alert.
      const without = await board('sandbox-transit:900100001', t.test)
      assert.ok(without.body.data.departures.every((d: any) => d.alerts.length === 0))
      assert.deepEqual(without.body.data.alerts, [])
      const live = await board('sandbox-transit:900100001', t.secret, '', SCENARIO)
      assert.deepEqual(live.body.data.alerts, [], 'live keys ignore the header')
      const alex = await board('sandbox-transit:900100003', t.test, '', SCENARIO)
      assert.ok(alex.body.data.departures.every((d: any) => d.alerts.length === 0))
    })

    it('is on the journey legs touching the stop and in GET /public-transport/alerts', async () => {
      const res = await h.api(
        'POST',
        '/public-transport/journeys',
        t.test,
        {
          origin: { type: 'stop', stopId: 'sandbox-transit:900100001' },
          destination: { type: 'stop', stopId: 'sandbox-transit:900100003' },
          departAt: tomorrowAt(10),
          limit: 2,
        },
        { ...SCENARIO, 'accept-language': 'de' },
      )
      assert.equal(res.status, 200, res.text)
      const first = res.body.data.journeys[0].legs.find((l: any) => l.mode !== 'WALK')
      assert.equal(first.from.stopId.startsWith('sandbox-transit:900100001'), true)
      assert.deepEqual(alertIds(first.alerts), [CLOSED])
      assert.equal(first.alerts[0].header, 'S+U Friedrichstraße geschlossen')

      const ids = async (query: string) => {
        const answer = await list(query, t.test, SCENARIO)
        assert.equal(answer.status, 200, `${query}: ${answer.text}`)
        return alertIds(answer.body.data.alerts)
      }
      assert.deepEqual(await ids('?provider=sandbox-transit'), [CLOSED])
      assert.deepEqual(await ids('?stopId=sandbox-transit%3A900100001'), [CLOSED])
      assert.deepEqual(await ids('?stopId=sandbox-transit%3A900100001_S2'), [CLOSED])
      assert.deepEqual(await ids('?routeId=S5&provider=sandbox-transit'), [CLOSED])
      assert.deepEqual(await ids('?routeId=U2&provider=sandbox-transit'), [])
      assert.deepEqual(await ids('?stopId=sandbox-transit%3A900100003'), [])
      const entry = (await list('?provider=sandbox-transit', t.test, { ...SCENARIO, 'accept-language': 'fr' })).body
        .data.alerts[0]
      assert.equal(entry.header, 'S+U Friedrichstraße fermée')
      assert.deepEqual(entry.informedEntities, [{ stopId: 'sandbox-transit:900100001' }])
      assert.deepEqual([entry.cause, entry.effect, entry.severity], ['CONSTRUCTION', 'NO_SERVICE', 'SEVERE'])
      const typo = await list('', t.test, { 'x-sandbox-scenario': 'transit-alerts:sandbox-transit' })
      assert.equal(typo.status, 400)
      assert.equal(typo.body.error.code, 'INVALID_REQUEST')
    })

    it('shows on the departures of the multimodal search near the stop', async () => {
      const res = await h.api(
        'POST',
        '/multimodal',
        t.test,
        { location: { latitude: 52.5203, longitude: 13.387 }, radiusMeters: 200, include: ['PUBLIC_TRANSPORT'] },
        SCENARIO,
      )
      assert.equal(res.status, 200, res.text)
      const closed = res.body.data.results.filter(
        (r: any) =>
          r.kind === 'DEPARTURE' && r.provider.id === 'sandbox-transit' && r.stop.stopId.includes('900100001'),
      )
      assert.ok(closed.length > 0, JSON.stringify(res.body.data.results.slice(0, 2)))
      for (const d of closed) assert.deepEqual(alertIds(d.alerts), [CLOSED])
    })
  })
})
