import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'

describe('PROVIDERS_FILE', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.yaml')
    writeFileSync(
      file,
      [
        'providers:',
        '  - { id: live-only, name: Live Only, connector: sandbox, environments: [live], options: { profile: rent } }',
        '  - { id: test-only, name: Test Only, connector: sandbox, environments: [test], options: { profile: scoot } }',
        '  - { id: broken, name: Broken, connector: warp-drive, environments: [live, test] }',
        // The binding sandbox ids need no options.profile.
        '  - { id: sandbox-bike, name: Sandbox Bike, connector: sandbox, environments: [test] }',
        // Wrong entries never stop the start: listed UNAVAILABLE when they name themselves, else left out.
        '  - { id: bad-colour, name: Bad Colour, connector: sandbox, environments: [live], branding: { primaryColor: red } }',
        '  - { name: No Id, connector: sandbox, environments: [live] }',
      ].join('\n'),
    )
    h = await startHarness({ env: { PROVIDERS_FILE: file } })
  })
  after(() => h.close())

  it('serves the configured providers per environment, a broken one as UNAVAILABLE with its reason', async () => {
    const t = await createTenant(h)
    const live = await h.api('GET', '/mobility-providers', t.secret)
    assert.deepEqual(
      live.body.data.providers.map((p: any) => p.id),
      ['live-only', 'broken', 'bad-colour'],
    )
    assert.equal(live.body.data.providers.find((p: any) => p.id === 'bad-colour').status, 'UNAVAILABLE')
    const broken = live.body.data.providers.find((p: any) => p.id === 'broken')
    assert.equal(broken.status, 'UNAVAILABLE')
    assert.match(broken.statusMessage, /unavailable/)
    assert.ok(!broken.statusMessage.includes('warp-drive'), 'internal causes stay in the log')
    const test = await h.api('GET', '/mobility-providers', t.test)
    assert.deepEqual(
      test.body.data.providers.map((p: any) => p.id),
      ['test-only', 'broken', 'sandbox-bike'],
    )
    assert.equal(test.body.data.providers.find((p: any) => p.id === 'sandbox-bike').status, 'ACTIVE')
    const bikes = await h.api('POST', '/micromobility', t.test, {
      location: { latitude: 52.5219, longitude: 13.4132 },
      radiusMeters: 3000,
      providers: ['sandbox-bike'],
    })
    assert.equal(bikes.status, 200, bikes.text)
    assert.ok(bikes.body.data.results.length > 0)
  })
})
