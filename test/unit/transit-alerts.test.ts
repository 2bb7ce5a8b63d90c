import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import fc from 'fast-check'
import { alertFeed } from '../../src/connectors/gtfs/alert-feed.ts'
import { activeBetween } from '../../src/connectors/gtfs/alert-match.ts'
import {
  ALERT_LIMITS,
  type AlertSnapshot,
  bound,
  cleanText,
  decodeAlerts,
  type FeedAlert,
  pickTranslation,
  type Selector,
  type Translation,
} from '../../src/connectors/gtfs/alerts.ts'
import { openFeed } from '../../src/connectors/gtfs/client.ts'
import { departuresAt } from '../../src/connectors/gtfs/departures.ts'
import { loadTimetable } from '../../src/connectors/gtfs/engine/load.ts'
import type { Timetable } from '../../src/connectors/gtfs/engine/timetable.ts'
import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'
import { ProblemLog } from '../../src/connectors/shared/problems.ts'
import type { CallContext } from '../../src/connectors/types/common.ts'

const SAMPLE_DIR = fileURLToPath(new URL('../../src/connectors/gtfs/fixtures/sample-feed-1/folder/', import.meta.url))
const ctx = (language = 'en'): CallContext => ({
  signal: AbortSignal.timeout(10_000),
  now: new Date(),
  language,
  tenantId: 't',
  environment: 'test',
  scenarios: [],
})
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be left
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/

describe('alert texts', () => {
  it('bounds any text to its limit, marking the cut, and leaves shorter text alone', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 2, max: 300 }), (text, max) => {
        const { text: out, cut } = bound(text, max)
        assert.ok(Array.from(out).length <= max)
        if (Array.from(text).length <= max) assert.equal(out, text)
        else assert.ok(cut && out.endsWith('…'))
      }),
    )
  })

  it('keeps no control character; a header is one line, a description keeps its line breaks', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const line = cleanText(text, false)
        assert.ok(!CONTROL.test(line) && !/[\n\r\t\u2028\u2029]/.test(line), JSON.stringify(line))
        assert.equal(line, line.trim())
        assert.ok(line.isWellFormed())
        const block = cleanText(text, true)
        assert.ok(!CONTROL.test(block) && !block.includes('\r'), JSON.stringify(block))
      }),
    )
    assert.equal(cleanText('  Stop\r\nclosed\t\u0007today ', false), 'Stop closed today')
    assert.equal(cleanText('Line one\r\nLine two\u0000', true), 'Line one\nLine two')
  })

  it('picks the caller’s language, else English, else the untagged text, else the first', () => {
    const t = (text: string, language?: string): Translation => ({ text, ...(language ? { language } : {}) })
    const list = [t('Bonjour', 'fr'), t('Hello', 'en'), t('Hallo', 'de-ch'), t('Servus')]
    assert.equal(pickTranslation(list, 'fr')?.text, 'Bonjour')
    assert.equal(pickTranslation(list, 'de')?.text, 'Hallo', 'by primary subtag')
    assert.equal(pickTranslation(list, 'it')?.text, 'Hello', 'English next')
    assert.equal(pickTranslation([t('Servus'), t('Hallo', 'de')], 'fr')?.text, 'Servus', 'then the untagged one')
    assert.equal(pickTranslation([t('Hallo', 'de'), t('Hej', 'sv')], 'fr')?.text, 'Hallo', 'then the first')
    assert.equal(pickTranslation([], 'fr'), undefined)
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            text: fc.string({ minLength: 1 }),
            language: fc.option(fc.constantFrom('en', 'de', 'fr', 'it')),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.constantFrom('en', 'de', 'fr'),
        (raw, language) => {
          const list = raw.map((r) => t(r.text, r.language ?? undefined))
          const chosen = pickTranslation(list, language)
          assert.ok(chosen && list.includes(chosen))
          if (list.some((x) => x.language === language)) assert.equal(chosen.language, language)
          else if (list.some((x) => x.language === 'en')) assert.equal(chosen.language, 'en')
        },
      ),
    )
  })
})

describe('active periods', () => {
  const seconds = fc.integer({ min: 0, max: 100 })
  const period = fc
    .record({ start: fc.option(seconds, { nil: undefined }), end: fc.option(seconds, { nil: undefined }) })
    .filter((p) => p.start === undefined || p.end === undefined || p.start <= p.end)
  it('is active over a time when some period overlaps it, always when it has none', () => {
    fc.assert(
      fc.property(fc.array(period, { maxLength: 4 }), seconds, seconds, (periods, a, b) => {
        const [from, until] = a <= b ? [a, b] : [b, a]
        const alert = { periods } as FeedAlert
        // Brute force: some second of [from, until] lies in some period.
        let expected = periods.length === 0
        for (let x = from; x <= until && !expected; x++) {
          expected = periods.some((p) => (p.start ?? -1) <= x && x <= (p.end ?? 101))
        }
        assert.equal(activeBetween(alert, from, until), expected)
      }),
    )
  })
})

describe('decoding alert feeds', () => {
  it('never throws on bytes that are not a feed but “not a FeedMessage”', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          decodeAlerts(bytes, 0, () => {})
        } catch (error) {
          assert.match((error as Error).message, /not a GTFS-Realtime FeedMessage/)
        }
      }),
    )
  })

  it('keeps only alerts it can show, within the bounds, whatever the entities say', () => {
    const text = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', minLength: 290, maxLength: 5000 }))
    const translated = fc.array(
      fc.record({
        text,
        language: fc.option(fc.constantFrom('en', 'DE', 'fr-CA', 'not a tag', ''), { nil: undefined }),
      }),
      { maxLength: 3 },
    )
    const selector = fc.record(
      {
        agencyId: fc.constantFrom('DTA', ''),
        routeId: fc.constantFrom('AB', 'x'.repeat(300)),
        routeType: fc.integer({ min: -1, max: 1700 }),
        directionId: fc.integer({ min: 0, max: 3 }),
        stopId: fc.constantFrom('BULLFROG', '\u0001'),
        trip: fc.record(
          { tripId: fc.constantFrom('AB1', ''), startDate: fc.constantFrom('20070605', '2007-06-05') },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    )
    const entity = fc.record({
      id: fc.oneof(fc.constantFrom('a', 'b', ''), fc.string({ maxLength: 250 })),
      alert: fc.record(
        {
          activePeriod: fc.array(
            fc.record({ start: fc.nat(300_000_000_000), end: fc.nat(300_000_000_000) }, { requiredKeys: [] }),
            { maxLength: 3 },
          ),
          informedEntity: fc.array(selector, { maxLength: 3 }),
          cause: fc.integer({ min: 0, max: 20 }),
          effect: fc.integer({ min: 0, max: 20 }),
          headerText: fc.record({ translation: translated }),
          descriptionText: fc.record({ translation: translated }),
          url: fc.record({ translation: translated }),
        },
        { requiredKeys: [] },
      ),
    })
    fc.assert(
      fc.property(fc.array(entity, { maxLength: 6 }), (entities) => {
        const bytes = transit_realtime.FeedMessage.encode(
          transit_realtime.FeedMessage.fromObject({ header: { gtfsRealtimeVersion: '2.0' }, entity: entities }),
        ).finish()
        const problems: string[] = []
        const snapshot = decodeAlerts(bytes, 1, (m) => problems.push(m))
        assert.equal(snapshot.alerts.length + snapshot.skipped, entities.length)
        assert.equal(new Set(snapshot.alerts.map((a) => a.id)).size, snapshot.alerts.length, 'ids are unique')
        if (snapshot.skipped > 0) assert.ok(problems.length > 0, 'every skip is reported')
        for (const a of snapshot.alerts) {
          assert.ok(a.id.length > 0 && a.id.length <= ALERT_LIMITS.idChars)
          assert.ok(a.selectors.length > 0)
          for (const s of a.selectors) {
            assert.ok(
              [s.agencyId, s.routeId, s.routeType, s.tripId, s.stopId].some((v) => v !== undefined),
              'a selector selects something',
            )
            if (s.directionId !== undefined) assert.ok(s.routeId !== undefined && s.directionId <= 1)
          }
          for (const p of a.periods) {
            assert.ok(p.start !== undefined || p.end !== undefined)
            if (p.start !== undefined && p.end !== undefined) assert.ok(p.start <= p.end)
          }
          assert.ok(a.header.length > 0)
          for (const h of a.header) assert.ok(h.text && Array.from(h.text).length <= ALERT_LIMITS.headerChars)
          for (const d of a.description) assert.ok(Array.from(d.text).length <= ALERT_LIMITS.descriptionChars)
          for (const u of a.url) assert.match(u.text, /^https?:/)
        }
      }),
      { numRuns: 200 },
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------

describe('matching: what a stop or line lists is what its departures carry', () => {
  let tt: Timetable
  before(async () => {
    const source = await openFeed(pathToFileURL(SAMPLE_DIR), { timeoutMs: 10_000, maxBytes: 1e8 })
    tt = await loadTimetable(source, { transferWalkMeters: 0, report: () => {} })
    await source.close()
  })

  const ROUTES = ['AB', 'BFC', 'STBA', 'CITY', 'AAMV', 'NOPE']
  const TRIPS = ['AB1', 'AB2', 'STBA', 'CITY1', 'CITY2', 'BFC1', 'AAMV3', 'GHOST']
  const STOPS = ['BEATTY_AIRPORT', 'BULLFROG', 'STAGECOACH', 'NADAV', 'NANAA', 'FUR_CREEK_RES', 'AMV', 'NOWHERE']
  const selector: fc.Arbitrary<Selector> = fc
    .record(
      {
        agencyId: fc.constantFrom('DTA', 'OTHER'),
        routeId: fc.constantFrom(...ROUTES),
        routeType: fc.constantFrom(3, 2),
        directionId: fc.constantFrom(0, 1),
        tripId: fc.constantFrom(...TRIPS),
        stopId: fc.constantFrom(...STOPS),
      },
      { requiredKeys: [] },
    )
    .filter((s) => Object.keys(s).some((k) => k !== 'directionId') && (s.directionId === undefined || !!s.routeId))

  it('lists for a stop and for a route exactly the alerts their departures on a Saturday carry', async () => {
    // 2007-06-09 is a Saturday: every service of the sample runs (FULLW daily, WE at weekends).
    const dayStart = new Date('2007-06-09T00:00:00-07:00')
    const dayEnd = new Date('2007-06-10T03:00:00-07:00')
    const boards = new Map(
      STOPS.filter((id) => tt.stopIndex.has(id)).map((id) => [
        id,
        departuresAt(tt, undefined, tt.stopIndex.get(id) as number, dayStart, 1000).filter(
          (d) => d.scheduled <= dayEnd,
        ),
      ]),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(selector, { minLength: 1, maxLength: 3 }), async (selectors) => {
        const alert: FeedAlert = {
          id: 'x',
          periods: [],
          selectors,
          cause: 'UNKNOWN_CAUSE',
          effect: 'UNKNOWN_EFFECT',
          severity: 'UNKNOWN_SEVERITY',
          header: [{ text: 'x' }],
          description: [],
          url: [],
        }
        const snapshot: AlertSnapshot = { timestamp: 0, alerts: [alert], skipped: 0 }
        const feed = alertFeed({
          refreshSeconds: 30,
          read: { timeoutMs: 1000, maxBytes: 1000 },
          log: new ProblemLog(() => new Date()),
          clock: () => new Date(),
          scenarioAlerts: () => snapshot,
        })
        for (const [stopId, board] of boards) {
          const carried = feed.onDepartures(tt, board, ctx()).filter((d) => (d.alerts?.length ?? 0) > 0)
          const listed = feed.list(tt, { stopId, from: dayStart, until: dayEnd }, ctx()).length > 0
          assert.equal(listed, carried.length > 0, `stop ${stopId}: ${JSON.stringify(selectors)}`)
          for (const route of ROUTES) {
            const ofRoute = carried.some((d) => d.line.routeId === route)
            const both = feed.list(tt, { stopId, routeId: route, from: dayStart, until: dayEnd }, ctx()).length > 0
            assert.equal(both, ofRoute, `stop ${stopId} route ${route}: ${JSON.stringify(selectors)}`)
          }
        }
        for (const route of ROUTES) {
          const carried = [...boards.values()].some((board) =>
            feed.onDepartures(tt, board, ctx()).some((d) => d.line.routeId === route && (d.alerts?.length ?? 0) > 0),
          )
          const listed = feed.list(tt, { routeId: route, from: dayStart, until: dayEnd }, ctx()).length > 0
          assert.equal(listed, carried, `route ${route}: ${JSON.stringify(selectors)}`)
        }
      }),
      { numRuns: 150 },
    )
  })
})
