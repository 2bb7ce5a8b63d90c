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
      ['live-only', 'broken'],
    )
    const broken = live.body.data.providers.find((p: any) => p.id === 'broken')
    assert.equal(broken.status, 'UNAVAILABLE')
    assert.match(broken.statusMessage, /unavailable/)
    assert.ok(!broken.statusMessage.includes('warp-drive'), 'internal causes stay in the log')
    const test = await h.api('GET', '/mobility-providers', t.test)
    assert.deepEqual(
      test.body.data.providers.map((p: any) => p.id),
      ['test-only', 'broken'],
    )
  })
})
