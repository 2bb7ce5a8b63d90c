import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

const SAMPLE = new URL('../../src/connectors/gbfs/fixtures/v3.0/gbfs.json', import.meta.url).href

/** The value of one series of the Prometheus text, or undefined when it is not exported. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('operations metrics', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'metrics-')), 'providers.yaml')
    writeFileSync(
      file,
      [
        'providers:',
        '  - { id: steady, name: Steady, connector: sandbox, environments: [live], options: { profile: rent } }',
        '  - { id: failing, name: Failing, connector: sandbox, environments: [live], options: { profile: rent, failureRate: 1 } }',
        `  - { id: old-feed, name: Old Feed, connector: gbfs, environments: [live], options: { url: "${SAMPLE}", localFeeds: true } }`,
      ].join('\n'),
    )
    // Nobody listens on port 1: every mail delivery fails.
    h = await startHarness({ env: { PROVIDERS_FILE: file, SMTP_URL: 'smtp://127.0.0.1:1' } })
    t = await createTenant(h)
  })
  after(() => h.close())

  // Each instance exports its own process's figures; the tests read instance 0 and send it the requests.
  const metrics = async () => {
    const res = await h.request({ url: '/metrics', key: 'test-admin-token-0123456789', instance: 0 })
    assert.equal(res.status, 200)
    return res.text
  }

  it('counts refused authentications and rate-limited requests', async () => {
    const before = await metrics()
    const limited = await createKey(h, t.tenant.id, {
      type: 'secret',
      environment: 'live',
      rateLimit: { limit: 1, windowSeconds: 60 },
    })
    for (const key of [undefined, 'svc_live_nope', 'garbage']) {
      const res = await h.request({ url: '/mobility-api/v2/auth/check', key, instance: 0 })
      assert.equal(res.status, 401)
    }
    assert.equal(
      (await h.request({ url: '/mobility-api/v2/auth/check', key: limited.secret, instance: 0 })).status,
      200,
    )
    for (let i = 0; i < 2; i++) {
      assert.equal(
        (await h.request({ url: '/mobility-api/v2/auth/check', key: limited.secret, instance: 0 })).status,
        429,
      )
    }
    const after = await metrics()
    assert.equal((value(after, 'auth_failures_total') ?? 0) - (value(before, 'auth_failures_total') ?? 0), 3)
    assert.equal((value(after, 'rate_limited_total') ?? 0) - (value(before, 'rate_limited_total') ?? 0), 2)
  })

  it('shows each provider breaker: open for a provider that keeps failing, closed for the others', async () => {
    const start = new Date(h.clock().getTime() + 72 * 3600_000)
    start.setUTCMinutes(0, 0, 0)
    const search = {
      pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 20_000 },
      dates: { start: start.toISOString(), end: new Date(start.getTime() + 3 * 86_400_000).toISOString() },
    }
    for (let i = 0; i < 4; i++) {
      const res = await h.request({
        method: 'POST',
        url: '/mobility-api/v2/cars',
        key: t.secret,
        body: search,
        instance: 0,
      })
      assert.equal(res.status, 200, res.text)
    }
    const text = await metrics()
    assert.equal(value(text, 'provider_circuit_state{provider="failing",environment="live"}'), 2)
    assert.equal(value(text, 'provider_circuit_state{provider="steady",environment="live"}'), 0)
    assert.match(text, /# HELP provider_circuit_state .*0 closed, 1 half-open, 2 open/)
  })

  it('exports pending and failed jobs by kind, and failed mail deliveries', async () => {
    const runtime = h.runtimes[0]
    const before = await metrics()
    await runtime.jobs.enqueue('metrics.test', {}, { id: `job_metrics_${Date.now()}` })
    const pending = await metrics()
    assert.equal(value(pending, 'jobs_pending{kind="metrics.test"}'), 1)

    // A mail job whose delivery fails, and one whose payload can never be sent (given up at once).
    await runtime.jobs.enqueue('mail.send', { to: 'a@example.com', subject: 'Hi', text: 'Hello' })
    await runtime.jobs.enqueue('mail.send', { nonsense: true })
    await runtime.jobs.runDue()
    const after = await metrics()
    assert.equal(
      (value(after, 'jobs_failed_total{kind="mail.send"}') ?? 0) -
        (value(before, 'jobs_failed_total{kind="mail.send"}') ?? 0),
      1,
    )
    assert.equal(value(after, 'jobs_pending{kind="mail.send"}'), 1, 'the undelivered mail waits for its retry')
    assert.ok((value(after, 'mails_failed_total') ?? 0) >= 1)
  })

  it('exports the age of a feed-based provider’s data', async () => {
    const until = Date.now() + 20_000
    let age: number | undefined
    while (age === undefined && Date.now() < until) {
      age = value(await metrics(), 'feed_age_seconds{provider="old-feed"}')
      if (age === undefined) await new Promise((r) => setTimeout(r, 100))
    }
    // The bundled GBFS 3.0 sample was published in 2019.
    assert.ok(age !== undefined && age > 365 * 86_400, `feed_age_seconds ${age}`)
    assert.equal(value(await metrics(), 'feed_age_seconds{provider="steady"}'), undefined)
  })
})
