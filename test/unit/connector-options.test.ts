import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseGbfsOptions } from '../../src/connectors/gbfs/options.ts'
import { parseGtfsOptions } from '../../src/connectors/gtfs/options.ts'
import { buildRegistry } from '../../src/connectors/registry.ts'
import { parseSandboxOptions } from '../../src/connectors/sandbox/options.ts'
import { ConnectorOptionsError } from '../../src/connectors/shared/options.ts'
import { parseTompOptions } from '../../src/connectors/tomp/options.ts'
import type { ProviderEntry } from '../../src/connectors/types/common.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { StartupError } from '../../src/platform/startup-error.ts'

const refusal = (parse: () => unknown): ConnectorOptionsError => {
  try {
    parse()
  } catch (error) {
    assert.ok(error instanceof ConnectorOptionsError, String(error))
    return error
  }
  assert.fail('the options were accepted')
}

describe('connector options: one schema, checked once, every problem in one error', () => {
  it('a provider with several wrong options is UNAVAILABLE with one error naming it and each option', () => {
    const problems: string[] = []
    const entry: ProviderEntry = {
      id: 'gbfs-wrong',
      name: 'Wrong',
      connector: 'gbfs',
      environments: ['live'],
      options: { url: 'ftp://example.com/gbfs.json', minTtlSeconds: 0, localFeeds: 'yes', minTTL: 5 },
    }
    const registry = buildRegistry([entry], { kv: memoryKv(), clock: () => new Date() }, (id, message) =>
      problems.push(`${id}: ${message}`),
    )
    const provider = registry.get('gbfs-wrong')
    assert.equal(provider?.status, 'UNAVAILABLE')
    const error = provider?.error ?? ''
    assert.match(error, /^provider gbfs-wrong, connector gbfs: /)
    assert.match(error, /options minTTL not known to the gbfs connector \(known: url, language, localFeeds/)
    assert.match(error, /options\.url must be http:, https: or file: \(got ftp:\)/)
    assert.match(error, /options\.minTtlSeconds must be a number from 0\.1 to 86400/)
    assert.match(error, /options\.localFeeds must be true or false/)
    assert.deepEqual(problems, [`gbfs-wrong: ${error}`], 'reported once')
  })

  it('is a StartupError listing each problem, for gbfs, gtfs, tomp and sandbox alike', () => {
    const gbfs = refusal(() => parseGbfsOptions({ headers: { 'bad name': 'x' }, logger: 3 }, 'g'))
    assert.ok(gbfs instanceof StartupError)
    assert.deepEqual(gbfs.problems, [
      'options.url is required: the GBFS discovery file (gbfs.json), http(s): or file:',
      'options.headers: "bad name" is not a header name',
      'options.logger must have a warn(message) function',
    ])
    assert.deepEqual(
      refusal(() => parseGtfsOptions({ url: 'file:/x', maxTrips: 2.5, alertsUrl: 42, vehiclePositionsUrl: 'nope' }))
        .problems,
      [
        'options.alertsUrl must be a URL string',
        'options.vehiclePositionsUrl "nope" is not a URL',
        'options.maxTrips must be an integer from 1 to 10',
      ],
    )
    assert.deepEqual(refusal(() => parseTompOptions({ planning: 'x', maasId: '', apiKey: 'a', token: 'b' })).problems, [
      "options.url is required: the operator's TOMP base URL, http: or https:",
      'options.maasId must be 1 to 200 visible ASCII characters',
      'options.planning must be "offers" or "plannings"',
      'options.apiKey and options.token: give one way to authenticate, not both',
    ])
    assert.deepEqual(refusal(() => parseSandboxOptions({ profile: 'bike', latencyMs: -1, seed: '' })).problems, [
      'options.latencyMs must be a number between 0 and 60000',
      'options.seed must be a number or a non-empty string',
    ])
  })

  it('defaults fill what is left out (or null), typed by the schema', () => {
    const gtfs = parseGtfsOptions({ url: 'file:/x', reloadHours: null })
    assert.equal(gtfs.url.href, 'file:///x')
    assert.equal(gtfs.reloadHours, 24)
    assert.equal(gtfs.maxTrips, 5)
    assert.equal(gtfs.timeoutMs, 120_000)
    assert.equal('headers' in gtfs, false)
    const logger = { warn: () => {} }
    assert.equal(parseGbfsOptions({ url: 'https://x.example/gbfs.json', logger }).logger, logger, 'kept, not copied')
  })

  it('the sandbox ignores options it does not name, and checks disabled operations against its profile', () => {
    assert.deepEqual(parseSandboxOptions({ colour: 'red' }, 'sandbox-scoot'), {
      profile: 'scoot',
      latencyMs: 0,
      failureRate: 0,
    })
    assert.equal(parseSandboxOptions({}, 'sandbox-rent').prebookLatencyMs, 100)
    assert.deepEqual(refusal(() => parseSandboxOptions({ profile: 'bike', disabledOperations: ['BOOK'] })).problems, [
      'options.disabledOperations: BOOK not offered by profile bike',
    ])
  })
})
