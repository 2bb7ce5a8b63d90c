import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { buildRegistry } from '../../src/connectors/registry.ts'
import { createTompConnector, parseTompOptions, type TompConnector } from '../../src/connectors/tomp/index.ts'
import type { CallContext, ProviderEntry } from '../../src/connectors/types/common.ts'
import { isMicromobilityConnector } from '../../src/connectors/types/micromobility.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { type TestClock, testClock } from '../helpers/clock.ts'
import { buildConnector, inMemory, rejectsWith } from '../helpers/connectors.ts'
import { fixture } from '../helpers/tomp-fleet.ts'
import { startTompOperator, type TompOperator, type TompOperatorOptions } from '../helpers/tomp-operator.ts'
import { BERLIN, berlinWorldSuite, type MicroSetup, micromobilitySuite } from './suites/micromobility.ts'
import { assertReservedBy, RIDER, rideable as rideableOf, type TripProfile, tripSuite } from './suites/trips.ts'

/**
 * The TOMP connector: the micromobility and trip suites against a test operator, then what it does beyond them: the headers
 * TOMP asks for, keeping reads between refreshes, mapping every asset class and fare, quirky operator data, the
 * planning variants and the failures of HTTP.
 */

const T0 = Date.parse('2031-05-05T08:00:00.000Z')
const operators: TompOperator[] = []
after(() => Promise.all(operators.map((o) => o.close())))

async function setup(options: Record<string, unknown> = {}, operatorOptions: TompOperatorOptions = {}) {
  const clock = testClock(T0)
  const operator = await startTompOperator({ clock, ...operatorOptions })
  operators.push(operator)
  const connector = createTompConnector(entry({ url: operator.url, trips: true, ...options }), {
    kv: memoryKv(),
    clock,
  })
  return { clock, operator, connector, ctx: (o: Partial<CallContext> = {}) => ctxOf(clock, o) }
}

const entry = (options: Record<string, unknown>): ProviderEntry => ({
  id: 'tomp-test',
  name: 'TOMP test',
  connector: 'tomp',
  environments: ['test'],
  options,
})

const ctxOf = (clock: TestClock, o: Partial<CallContext> = {}): CallContext => ({
  signal: new AbortController().signal,
  now: clock(),
  language: 'en',
  tenantId: 't',
  environment: 'test',
  scenarios: [],
  ...o,
})

const hits = (operator: TompOperator, path: string) => operator.requests.filter((r) => r.path === path).length
const rider = { email: 'ada@example.com', name: 'Ada King Lovelace' }

async function rideable(s: { connector: TompConnector; ctx: () => CallContext }) {
  const { vehicles } = await s.connector.fleet(s.ctx())
  return vehicles.filter((v) => v.isAvailable && (v.batteryPercent ?? 0) >= 30)
}

// ---------------------------------------------------------------------------------------------------------------
// The micromobility and trip suites, against a test operator

const TOMP_ID = 'tomp-freebike'
/** Past the TOMP connector's default refresh (30 s) and maxStaleSeconds (300 s). */
const PAST_STALE_MS = 301_000
/** The longest timeout the options allow: a hanging operator's calls end when the caller gives up, not before. */
const HANG_TIMEOUT_MS = 120_000
const suiteOperators = new Map<MicroSetup['clock'], TompOperator>()
const micromobility = { is: isMicromobilityConnector, name: 'micromobility' }

/**
 * A TOMP connector with trips against a test operator of its own (test/helpers/tomp-operator.ts) on the setup's
 * clock, with the default refresh: what a second instance sees of the first's bookings comes through the store they
 * share, as in a deployment. Making the operator fail or hang also moves the clock past the refresh and the time a
 * failed read may be answered from the last copy (maxStaleSeconds), so the next call reads.
 */
function tompProfile(): TripProfile {
  const providerEntry = (url: string): ProviderEntry => ({
    id: TOMP_ID,
    name: 'FreeBike (TOMP)',
    connector: 'tomp',
    environments: ['live', 'test'],
    options: { url, trips: true, timeoutMs: 2000 },
  })
  const build = (
    operator: TompOperator,
    options: Record<string, unknown>,
    shared: Pick<MicroSetup, 'clock' | 'kv'>,
  ): MicroSetup => ({
    providerId: TOMP_ID,
    entry: providerEntry(operator.url),
    ...buildConnector(providerEntry(operator.url), micromobility, { options, shared, start: T0 }),
    twin: async () => build(operator, options, shared),
  })
  const operatorOf = (s: MicroSetup) => suiteOperators.get(s.clock)!
  async function make(options: Record<string, unknown> = {}) {
    const clock = testClock(T0)
    const operator = await startTompOperator({ clock })
    operators.push(operator)
    suiteOperators.set(clock, operator)
    const setup = build(operator, options, { clock, kv: inMemory(clock) })
    await setup.connector.start?.()
    return setup
  }
  return {
    name: 'tomp (test operator)',
    make,
    capabilities: {
      modalities: ['SCOOTER', 'BIKE', 'MOPED'],
      operations: ['SEARCH', 'ZONES', 'TRIPS', 'VEHICLE_ACTIONS'],
      stationBased: false,
      freeFloating: true,
      requiresStoredBooking: false,
    },
    fleetSize: 300,
    vehicleId: /^FB-\d{4}$/,
    area: { center: BERLIN, radiusMeters: 6_100, bounds: [13, 52, 14, 53] },
    reference: /^BK-[0-9A-F]{10}\|BK-[0-9A-F]{10}-L1\|FB-\d{4}$/,
    unknownVehicles: ['FB-9999', 'scoot-0001'],
    unknownReference: { vehicleId: 'FB-0001', reference: 'BK-0000000000|BK-0000000000-L1|FB-0001' },
    commands: ['LOCK', 'UNLOCK'],
    reserved: 'unavailable',
    async failing() {
      const s = await make()
      operatorOf(s).mode = 'error'
      s.clock.advance(PAST_STALE_MS)
      const restore = () => {
        operatorOf(s).mode = undefined
      }
      return { s, ctxs: [s.ctx()], reason: 'OPERATOR_ERROR', restore }
    },
    async hanging(signal) {
      // Only the caller's giving up ends a call (the profile's own 2 s timeout could end it first on a loaded machine).
      const s = await make({ timeoutMs: HANG_TIMEOUT_MS })
      operatorOf(s).mode = 'hang'
      s.clock.advance(PAST_STALE_MS)
      const restore = () => {
        operatorOf(s).mode = undefined
      }
      return { s, ctx: s.ctx({ signal }), restore }
    },
    rejecting(s) {
      operatorOf(s).jammed = true
      const restore = () => {
        operatorOf(s).jammed = false
      }
      return { ctx: s.ctx(), restore }
    },
    badOptions: [
      { url: 'ftp://operator.example/' },
      { url: '' },
      { apiVersion: '2.0' },
      { apiKey: 'key', token: 'token' },
      { trips: 'yes' },
      { refreshSeconds: -1 },
      { planning: 'maybe' },
      { maasId: '' },
      { fleetSize: 10 },
    ],
  }
}

const suiteProfile = tompProfile()
micromobilitySuite(suiteProfile)
berlinWorldSuite(suiteProfile)
tripSuite(suiteProfile)

describe('TOMP specifics (suite operator)', () => {
  it('live and test: one operator for both; a vehicle held in test is held in live', async () => {
    const s = await suiteProfile.make()
    const [vehicle] = await rideableOf(s)
    await s.connector.trips!.reserve(vehicle.vehicleId, RIDER, s.ctx({ environment: 'test' }))
    const live = await s.connector.fleet(s.ctx({ environment: 'live' }))
    // The README says to configure a real operator's test system as a provider of its own for `test`.
    assertReservedBy(suiteProfile, live.vehicles, vehicle.vehicleId, 'the operator holds it for every environment')
  })
})

describe('TOMP options', () => {
  it('defaults, and a base URL that paths resolve below', () => {
    const options = parseTompOptions({ url: 'https://to.example/tomp/v1' })
    assert.equal(options.url.href, 'https://to.example/tomp/v1/')
    assert.equal(options.apiVersion, '1.6.1')
    assert.equal(options.maasId, 'mobility-aggregation-service')
    assert.equal(options.trips, false)
    assert.equal(options.planning, 'offers')
    assert.equal(options.refreshSeconds, 30)
    assert.equal(options.maxStaleSeconds, 300)
  })

  it('refuses what cannot work, saying why', () => {
    const refused = (raw: Record<string, unknown>, pattern: RegExp) =>
      assert.throws(() => parseTompOptions(raw), pattern)
    refused({}, /options.url is required/)
    refused({ url: 'file:///tmp/tomp' }, /http: or https:/)
    refused({ url: 'not a url' }, /is not a URL/)
    refused({ url: 'https://x.example', apiVersion: '2.0.0' }, /2.0 is not supported yet/)
    refused({ url: 'https://x.example', apiKey: 'a', token: 'b' }, /not both/)
    refused({ url: 'https://x.example', token: 'line\nbreak' }, /one line/)
    refused({ url: 'https://x.example', maasId: 'has space' }, /maasId/)
    refused({ url: 'https://x.example', profile: 'scoot' }, /not known to the tomp connector/)
  })
})

describe('TOMP connector', () => {
  it('sends the headers TOMP asks for: Api, Api-Version, maas-id, Accept-Language (the caller’s), the API key', async () => {
    const s = await setup({ apiKey: 'secret-key', maasId: 'mas-42', apiVersion: '1.5.0' }, { apiKey: 'secret-key' })
    await s.connector.start?.()
    await s.connector.zones(s.ctx({ language: 'de' }))
    const [vehicle] = await rideable(s)
    await s.connector.trips!.reserve(vehicle.vehicleId, rider, s.ctx({ language: 'fr' }))
    for (const r of s.operator.requests) {
      assert.equal(r.headers.api, 'TOMP')
      assert.equal(r.headers['api-version'], '1.5.0')
      assert.equal(r.headers['maas-id'], 'mas-42')
      assert.equal(r.headers['x-api-key'], 'secret-key')
    }
    const language = (path: string) => s.operator.requests.find((r) => r.path === path)?.headers['accept-language']
    assert.equal(language('operator/available-assets'), 'en', 'the shared fleet in options.language')
    assert.equal(language('operator/regions'), 'de')
    assert.equal(language('planning/offers'), 'fr')
    assert.equal(language('bookings'), 'fr')

    const bearer = await setup({ token: 'tok-1' })
    await bearer.connector.fleet(bearer.ctx())
    assert.equal(bearer.operator.requests[0].headers.authorization, 'Bearer tok-1')
  })

  it('a wrong key: the provider is UNAVAILABLE from the start; calls answer PROVIDER_ERROR OPERATOR_UNAUTHORIZED', async () => {
    const operator = await startTompOperator({ apiKey: 'right' })
    operators.push(operator)
    const problems: string[] = []
    const clock = testClock(T0)
    const registry = buildRegistry([entry({ url: operator.url, apiKey: 'wrong' })], { kv: memoryKv(), clock }, (_, m) =>
      problems.push(m),
    )
    const provider = registry.get('tomp-test')!
    await assert.rejects(provider.connector!.start!())
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(provider.status, 'UNAVAILABLE')
    assert.match(problems[0], /401/)
    const connector = provider.connector as TompConnector
    await rejectsWith(connector.fleet(ctxOf(clock)), 'PROVIDER_ERROR', { reason: 'OPERATOR_UNAUTHORIZED' })
  })

  it('keeps the fleet between refreshes; one read for callers at once; reads again after its own bookings', async () => {
    const s = await setup({ refreshSeconds: 30 })
    const first = await s.connector.fleet(s.ctx())
    const reads = hits(s.operator, 'operator/available-assets')
    s.clock.advance(29_000)
    assert.equal(await s.connector.fleet(s.ctx()), first, 'the same snapshot from memory')
    assert.equal(hits(s.operator, 'operator/available-assets'), reads)
    s.clock.advance(2_000)
    const [a, b] = await Promise.all([s.connector.fleet(s.ctx()), s.connector.fleet(s.ctx())])
    assert.equal(hits(s.operator, 'operator/available-assets'), reads + 1, 'one read for both')
    assert.equal(a, b)
    assert.equal(a.version, first.version, 'nothing changed')

    const [vehicle] = await rideable(s)
    await s.connector.trips!.reserve(vehicle.vehicleId, rider, s.ctx())
    const after = await s.connector.fleet(s.ctx())
    assert.notEqual(after.version, first.version, 'its own reservation shows at once')
    const held = after.vehicles.find((v) => v.vehicleId === vehicle.vehicleId)!
    assert.equal(held.isAvailable, false)
    assert.equal(held.lastUpdated, s.clock().toISOString(), 'changed now')
    const other = after.vehicles.find((v) => v.vehicleId !== vehicle.vehicleId)!
    assert.equal(other.lastUpdated, new Date(T0).toISOString(), 'the others changed nothing')
  })

  it("another instance's booking shows at once through the store they share; elsewhere at the next refresh", async () => {
    const s = await setup({ refreshSeconds: 30 })
    const kv = memoryKv()
    const build = (store: typeof kv) =>
      createTompConnector(entry({ url: s.operator.url, trips: true }), { kv: store, clock: s.clock })
    const [a, b, apart] = [build(kv), build(kv), build(memoryKv())]
    const [vehicle] = await rideable({ connector: a, ctx: s.ctx })
    await b.fleet(s.ctx())
    await apart.fleet(s.ctx())
    await a.trips!.reserve(vehicle.vehicleId, rider, s.ctx())
    const held = (c: TompConnector) =>
      c.fleet(s.ctx()).then((f) => f.vehicles.find((v) => v.vehicleId === vehicle.vehicleId))
    assert.equal((await held(b))?.isAvailable, false, 'the same store: at once')
    assert.equal((await held(apart))?.isAvailable, true, 'another store: not before its refresh')
    s.clock.advance(30_000)
    assert.equal((await held(apart))?.isAvailable, false)
  })

  it('a failed read answers the last good copy while it is younger than maxStaleSeconds, then the failure', async () => {
    const s = await setup({ refreshSeconds: 10, maxStaleSeconds: 60 })
    const good = await s.connector.fleet(s.ctx())
    s.operator.mode = 'error'
    s.clock.advance(30_000)
    assert.equal(await s.connector.fleet(s.ctx()), good)
    assert.ok(s.connector.problems().some((p) => /answering the copy read before/.test(p)))
    s.clock.advance(31_000)
    await rejectsWith(s.connector.fleet(s.ctx()), 'PROVIDER_ERROR', { reason: 'OPERATOR_ERROR', operatorStatus: 500 })
    s.operator.mode = undefined
    assert.equal((await s.connector.fleet(s.ctx())).version, good.version)
  })

  it('maps every asset class, propulsion, charge and fare of the operator; deep links from rentalUrl', async () => {
    const s = await setup()
    const { vehicles } = await s.connector.fleet(s.ctx())
    const byType = (id: string) => s.operator.assets.filter((a) => a.type.id === id).map((a) => a.id)
    const shown = (id: string) => vehicles.filter((v) => byType(id).includes(v.vehicleId))
    const kinds = (id: string) => [
      ...new Set(shown(id).map((v) => `${v.type}/${v.propulsionType}/${v.pricingPlan?.planId}`)),
    ]
    assert.deepEqual(kinds('escooter'), ['SCOOTER/ELECTRIC/escooter-minute'])
    assert.deepEqual(kinds('ebike'), ['BICYCLE/ELECTRIC_ASSIST/ebike-minute'])
    assert.deepEqual(kinds('bike'), ['BICYCLE/HUMAN/bike-hour'])
    assert.deepEqual(kinds('cargo'), ['CARGO_BICYCLE/ELECTRIC_ASSIST/cargo-minute'])
    assert.deepEqual(kinds('emoped'), ['MOPED/ELECTRIC/emoped-minute'])
    assert.ok(
      shown('bike').every((v) => v.batteryPercent === undefined),
      'no charge without a motor',
    )
    assert.ok(shown('ebike').every((v) => Number.isInteger(v.batteryPercent)))
    // 6 EUR per hour, embedded in the asset type: 10 cents a minute, and it says how it is really charged.
    assert.deepEqual(shown('bike')[0].pricingPlan, {
      planId: 'bike-hour',
      name: 'Classic',
      currency: 'EUR',
      unlockFee: { amount: 100, currency: 'EUR' },
      perMinuteRate: { amount: 10, currency: 'EUR', description: '6 EUR per 1 hour(s)' },
    })
    const v = vehicles[0]
    assert.deepEqual(v.deepLinks, { web: `https://freebike.example/rent?asset=${v.vehicleId}` })
    assert.equal(v.name, 'FreeBike E-Scooter')
  })

  it('quirky operator data is skipped and recorded, never fatal; the sample plan is read', async () => {
    const s = await setup()
    const location = (lat: unknown, lng: unknown) => ({ location: { coordinates: { lat, lng } } })
    s.operator.override('operator/available-assets', [
      {
        id: 'quirks',
        assetClass: 'OTHER',
        assetSubClass: 'kick scooter',
        defaultPricingPlan: { planId: 'P0001' },
        assets: [
          { id: 'ok-1', overriddenProperties: location('52.52', 13.4), stateOfCharge: 150 },
          { id: 'ok-2', overriddenProperties: { location: { coordinates: { lat: 52.51, lon: 13.41 } } } },
          { id: 'ok-1', overriddenProperties: location(52.5, 13.4) },
          { overriddenProperties: location(52.5, 13.4) },
          { id: 'nowhere', overriddenProperties: { location: null } },
          { id: 'null-island', overriddenProperties: location(0, 0) },
          { id: 'off-earth', overriddenProperties: location(95, 13) },
          'not an asset',
          { id: 'reserved', isReserved: true, overriddenProperties: location(52.5, 13.4) },
          {
            id: 'reserved-later',
            isReserved: true,
            isReservedFrom: '2031-05-06T00:00:00Z',
            overriddenProperties: location(52.5, 13.4),
          },
          { id: 'javascript', rentalUrl: 'javascript:alert(1)', overriddenProperties: location(52.5, 13.4) },
        ],
      },
      { id: 'bus', assetClass: 'BUS', assets: [{ id: 'bus-1', overriddenProperties: location(52.5, 13.4) }] },
      null,
    ])
    // The sample's pricing plans file is one plan, not a list; its regions have no geometry.
    s.operator.override('operator/pricing-plans', fixture('pricing-plans.json'))
    s.operator.override('operator/regions', { not: 'a list' })
    const { vehicles } = await s.connector.fleet(s.ctx())
    assert.deepEqual(
      vehicles.map((v) => [v.vehicleId, v.type, v.isAvailable]),
      [
        ['ok-1', 'SCOOTER', true],
        ['ok-2', 'SCOOTER', true],
        ['reserved', 'SCOOTER', false],
        ['reserved-later', 'SCOOTER', true],
        ['javascript', 'SCOOTER', true],
      ],
    )
    assert.equal(vehicles[0].batteryPercent, undefined, 'a charge of 150 % is not one')
    assert.equal(vehicles.find((v) => v.vehicleId === 'javascript')?.deepLinks, undefined)
    assert.deepEqual(vehicles[0].pricingPlan, {
      planId: 'P0001',
      name: 'default price',
      currency: 'EUR',
      unlockFee: { amount: 300, currency: 'EUR' },
      perMinuteRate: { amount: 0, currency: 'EUR', description: 'charged by distance, not by time' },
    })
    assert.deepEqual(await s.connector.zones(s.ctx()), [])
    const problems = s.connector.problems().join('\n')
    for (const expected of [
      /ok-1 appears twice/,
      /without a usable id/,
      /nowhere: no usable location/,
      /null-island/,
      /BUS/,
      /stateOfCharge 150/,
      /region #0: no regionId/,
    ]) {
      assert.match(problems, expected)
    }

    s.operator.override('operator/regions', fixture('regions.json'))
    s.clock.advance(60_000)
    assert.deepEqual(await s.connector.zones(s.ctx()), [], 'regions without serviceArea are no zones')
    assert.match(s.connector.problems().join('\n'), /SL_34829: no serviceArea/)
  })

  it('an answer larger than maxFeedBytes is OPERATOR_BAD_RESPONSE, and recorded', async () => {
    const s = await setup({ maxFeedBytes: 4096 })
    await rejectsWith(s.connector.fleet(s.ctx()), 'PROVIDER_ERROR', { reason: 'OPERATOR_BAD_RESPONSE' })
    assert.match(s.connector.problems().join('\n'), /larger than the limit of 4096 bytes/)
  })

  it('planning through POST /plannings?booking-intent=true; PREPARE before SET_IN_USE; the customer data an offer asks for', async () => {
    const s = await setup({ planning: 'plannings', prepareLeg: true }, { requireEmail: true })
    const [vehicle] = await rideable(s)
    const { reference } = await s.connector.trips!.reserve(vehicle.vehicleId, rider, s.ctx())
    const planning = s.operator.requests.find((r) => r.path === 'plannings')!
    assert.deepEqual(planning.query, { 'booking-intent': 'true' })
    assert.deepEqual((planning.body as { useAssets: string[] }).useAssets, [vehicle.vehicleId])
    const bookingId = reference.split('|')[0]
    assert.deepEqual(s.operator.booking(bookingId)?.customer, { email: 'ada@example.com' })
    await s.connector.trips!.start(vehicle.vehicleId, reference, rider, s.ctx())
    const events = s.operator.requests
      .filter((r) => r.path.startsWith('legs/'))
      .map((r) => (r.body as { event: string }).event)
    assert.deepEqual(events, ['PREPARE', 'SET_IN_USE'])
    assert.equal(s.operator.booking(bookingId)?.legState, 'IN_USE')
  })

  it('a booking whose answer is lost is cancelled again, so the vehicle is not left held; the caller gets TIMEOUT', async () => {
    const s = await setup({ timeoutMs: 200 })
    const [vehicle] = await rideable(s)
    s.operator.lose('POST bookings')
    await rejectsWith(s.connector.trips!.reserve(vehicle.vehicleId, rider, s.ctx()), 'TIMEOUT', {
      reason: 'OPERATOR_TIMEOUT',
    })
    assert.equal(s.operator.bookingOf(vehicle.vehicleId)?.state, 'CANCELLED')
    const again = (await s.connector.fleet(s.ctx())).vehicles.find((v) => v.vehicleId === vehicle.vehicleId)
    assert.equal(again?.isAvailable, true)
  })

  it('HONK is not a TOMP 1.6.1 event: PROVIDER_ERROR COMMAND_NOT_SUPPORTED, nothing sent', async () => {
    const s = await setup()
    const [vehicle] = await rideable(s)
    const { reference } = await s.connector.trips!.start(vehicle.vehicleId, undefined, rider, s.ctx())
    const before = s.operator.requests.length
    await rejectsWith(s.connector.trips!.command(reference, 'HONK', s.ctx()), 'PROVIDER_ERROR', {
      reason: 'COMMAND_NOT_SUPPORTED',
    })
    assert.equal(s.operator.requests.length, before)
  })

  it('search only without options.trips: no trips, SEARCH and ZONES', async () => {
    const s = await setup({ trips: false })
    await s.connector.fleet(s.ctx())
    assert.equal(s.connector.trips, undefined)
    assert.deepEqual(s.connector.capabilities.operations, ['SEARCH', 'ZONES'])
  })

  it('an operator that is too slow is TIMEOUT (OPERATOR_TIMEOUT); one that cannot be reached OPERATOR_UNREACHABLE', async () => {
    const s = await setup({ timeoutMs: 150 })
    s.operator.mode = 'hang'
    await rejectsWith(s.connector.fleet(s.ctx()), 'TIMEOUT', { reason: 'OPERATOR_TIMEOUT' })
    s.operator.mode = undefined
    await s.operator.close()
    s.clock.advance(1000)
    await rejectsWith(s.connector.zones(s.ctx()), 'PROVIDER_ERROR', { reason: 'OPERATOR_UNREACHABLE' })
  })
})
