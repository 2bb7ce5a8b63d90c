import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { DEFAULT_PROVIDERS } from '../../src/connectors/default-providers.ts'
import { buildRegistry, loadProviderEntries } from '../../src/connectors/registry.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'

const dir = mkdtempSync(join(tmpdir(), 'providers-'))
const write = (name: string, text: string) => {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe('providers file and registry', () => {
  it('without a file: the five sandbox providers and the GBFS samples, in both environments', () => {
    const { entries } = loadProviderEntries(undefined)
    assert.deepEqual(
      entries.map((e) => e.id),
      [
        'sandbox-rent',
        'sandbox-share',
        'sandbox-scoot',
        'sandbox-bike',
        'sandbox-transit',
        'gbfs-sample-oslo',
        'gbfs-sample-paris',
      ],
    )
    for (const e of entries) assert.deepEqual(e.environments, ['live', 'test'])
  })

  it('reads YAML and JSON files; the file is the whole list', () => {
    const yaml = write(
      'p.yaml',
      `providers:\n  - id: city-bikes\n    name: City Bikes\n    connector: sandbox\n    environments: [live]\n    options: { profile: bike }\n`,
    )
    assert.deepEqual(
      loadProviderEntries(yaml).entries.map((e) => e.id),
      ['city-bikes'],
    )
    const json = write('p.json', JSON.stringify({ providers: [DEFAULT_PROVIDERS[0]] }))
    assert.equal(loadProviderEntries(json).entries[0].id, 'sandbox-rent')
  })

  it('a wrong entry never stops the start: listed as UNAVAILABLE with every problem when it names itself, else skipped', () => {
    const file = write(
      'bad.json',
      JSON.stringify({
        providers: [
          {
            id: 'bad-branding',
            name: 'Bad',
            connector: 'sandbox',
            environments: ['live'],
            branding: { primaryColor: 'red' },
            extra: 1,
          },
          { id: 'Bad Id', name: '', connector: 'sandbox', environments: ['prod'] },
          DEFAULT_PROVIDERS[0],
          DEFAULT_PROVIDERS[0],
        ],
      }),
    )
    const list = loadProviderEntries(file)
    assert.deepEqual(
      list.entries.map((e) => e.id),
      ['bad-branding', 'sandbox-rent'],
    )
    assert.match(list.rejected.get('bad-branding') ?? '', /primaryColor.*pattern|pattern.*primaryColor|\/branding/)
    assert.match(list.rejected.get('bad-branding') ?? '', /additional/)
    assert.equal(list.skipped.length, 2)
    assert.match(list.skipped[0].message, /providers\[1\].*id.*environments|providers\[1\].*environments.*id/s)
    assert.match(list.skipped[0].message, /name/)
    assert.match(list.skipped[1].message, /"sandbox-rent" appears twice/)
    const problems: string[] = []
    const registry = buildRegistry(
      list.entries,
      { kv: memoryKv(), clock: () => new Date() },
      (id, message) => problems.push(`${id}: ${message}`),
      undefined,
      list.rejected,
    )
    assert.equal(registry.get('bad-branding')?.status, 'UNAVAILABLE')
    assert.equal(registry.get('sandbox-rent')?.status, 'ACTIVE')
    assert.ok(problems.some((p) => p.startsWith('bad-branding: PROVIDERS_FILE providers[0] is invalid')))
    // Only a file that is not { providers: [...] } at all stops the start.
    assert.throws(() => loadProviderEntries(write('none.json', JSON.stringify({ provider: [] }))), /must be an object/)
  })

  it('keeps a provider that cannot be built as UNAVAILABLE, with the reason, and builds the rest', () => {
    const problems: string[] = []
    const registry = buildRegistry(
      [
        { id: 'ok', name: 'OK', connector: 'sandbox', environments: ['live'], options: { profile: 'rent' } },
        { id: 'nope', name: 'Nope', connector: 'carrier-pigeon', environments: ['live'] },
        {
          id: 'misconfigured',
          name: 'Mis',
          connector: 'sandbox',
          environments: ['live'],
          options: { profile: 'boat' },
        },
      ],
      { kv: memoryKv(), clock: () => new Date() },
      (id, message) => problems.push(`${id}: ${message}`),
    )
    assert.equal(registry.get('ok')?.status, 'ACTIVE')
    assert.equal(registry.get('nope')?.status, 'UNAVAILABLE')
    assert.match(registry.get('nope')?.error ?? '', /unknown connector/)
    assert.equal(registry.get('misconfigured')?.status, 'UNAVAILABLE')
    assert.match(registry.get('misconfigured')?.error ?? '', /profile/)
    assert.equal(problems.length, 2)
  })
})
