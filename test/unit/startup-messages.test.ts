import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { loadConfig } from '../../src/config.ts'
import { DEFAULT_PROVIDERS, quietSamples } from '../../src/connectors/default-providers.ts'
import { buildRegistry, loadProviderEntries } from '../../src/connectors/registry.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { StartupError } from '../../src/platform/startup-error.ts'
import { waitForDatabase } from '../../src/store/wait-for-database.ts'
import { POSTGRES_URL } from '../helpers/harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'mas-startup-'))
const write = (name: string, text: string) => {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe('start-up messages', () => {
  it('WORKERS: 1 by default, auto is one per core, more than one needs DATABASE_URL and REDIS_URL', () => {
    assert.equal(loadConfig({}).workers, 1)
    const distributed = {
      DATABASE_URL: 'postgres://127.0.0.1/x',
      REDIS_URL: 'redis://127.0.0.1',
      TOKEN_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    }
    assert.equal(loadConfig({ ...distributed, WORKERS: 'auto' }).workers, availableParallelism())
    assert.equal(loadConfig({ ...distributed, WORKERS: '4' }).workers, 4)
    assert.throws(
      () => loadConfig({ WORKERS: '2' }),
      /WORKERS=2 \(2 processes\) needs DATABASE_URL and REDIS_URL: the embedded database belongs to one process/,
    )
    assert.throws(
      () => loadConfig({ WORKERS: '2', DATABASE_URL: distributed.DATABASE_URL, TOKEN_KEYS: distributed.TOKEN_KEYS }),
      /needs DATABASE_URL and REDIS_URL/,
    )
    assert.throws(() => loadConfig({ WORKERS: 'many' }), /WORKERS must be an integer between 1 and 256/)
  })

  it('a PROVIDERS_FILE that is missing or unreadable names the variable and the path, without a stack', () => {
    assert.throws(
      () => loadProviderEntries('./config/providers.yaml'),
      (error: unknown) =>
        error instanceof StartupError &&
        /^PROVIDERS_FILE=\.\/config\/providers\.yaml cannot be read: there is no such file \(resolved to \/.*config\/providers\.yaml\)$/.test(
          error.message,
        ),
    )
    assert.throws(() => loadProviderEntries(dir), /PROVIDERS_FILE=.* it is a directory, not a file/)
    assert.throws(
      () => loadProviderEntries(write('broken.yaml', 'providers: [\n  - id: x\n   name: bad indent\n')),
      (error: unknown) =>
        error instanceof StartupError && /^PROVIDERS_FILE=.*broken\.yaml is not valid YAML: /.test(error.message),
    )
    assert.throws(() => loadProviderEntries(write('broken.json', '{"providers": [')), /is not valid JSON/)
  })

  it('a wrong provider environments value is one readable sentence', () => {
    const file = write(
      'envs.yaml',
      [
        'providers:',
        '  - { id: prod-bikes, name: Bikes, connector: sandbox, environments: [production], options: { profile: bike } }',
        '  - { id: one-env, name: One, connector: sandbox, environments: live, options: { profile: bike } }',
      ].join('\n'),
    )
    const list = loadProviderEntries(file)
    assert.deepEqual(
      list.skipped.map((s) => s.message),
      [
        'PROVIDERS_FILE providers[0] is invalid and cannot be listed: environments[0] must be one of live, test (got "production")',
        'PROVIDERS_FILE providers[1] is invalid and cannot be listed: environments must be a list (got "live")',
      ],
    )
  })

  it('an unreachable database is retried with backoff, then named with a hint; the password is never shown', async () => {
    const notices: string[] = []
    const waits: number[] = []
    const url = 'postgres://app:s3cret@127.0.0.1:1/mobility'
    await assert.rejects(
      waitForDatabase(url, {
        attempts: 4,
        onRetry: (m) => notices.push(m),
        sleep: async (ms) => {
          waits.push(ms)
        },
      }),
      (error: unknown) => {
        assert.ok(error instanceof StartupError)
        assert.match(
          error.message,
          /^DATABASE_URL=postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/mobility: the database did not answer after 4 attempts/,
        )
        assert.match(error.message, /ECONNREFUSED/)
        assert.match(error.message, /Check that PostgreSQL runs/)
        assert.doesNotMatch(error.message, /s3cret/)
        return true
      },
    )
    assert.deepEqual(waits, [500, 1000, 2000])
    assert.equal(notices.length, 3)
    assert.match(notices[0], /attempt 1 of 4, trying again in 0\.5 s/)
    assert.ok(notices.every((n) => !n.includes('s3cret')))
  })

  it('a database that does not exist fails at once: waiting would not change it', async (t) => {
    const url = new URL(POSTGRES_URL)
    url.pathname = '/mas_no_such_database_here'
    const retries: string[] = []
    try {
      await waitForDatabase(url.toString(), { attempts: 3, onRetry: (m) => retries.push(m), connectTimeoutMs: 2000 })
      assert.fail('should not connect')
    } catch (error) {
      if (/ECONNREFUSED|timeout/i.test((error as Error).message)) return t.skip(`no PostgreSQL at ${POSTGRES_URL}`)
      assert.ok(error instanceof StartupError)
      assert.match(error.message, /the database does not exist/)
      assert.deepEqual(retries, [])
    }
  })

  it('the bundled GBFS samples say once, at info, that they are old demo data; details at debug, no warnings', async () => {
    const info: string[] = []
    const debug: string[] = []
    const warn: string[] = []
    const registry = buildRegistry(
      quietSamples(DEFAULT_PROVIDERS, { info: (m) => info.push(m), debug: (m) => debug.push(m) }),
      { kv: memoryKv(), clock: () => new Date(), logger: { warn: (m) => warn.push(m) } },
      (id, m) => warn.push(`${id}: ${m}`),
    )
    try {
      const until = Date.now() + 20_000
      while (
        !debug.some((m) => m.includes('gbfs-sample-paris')) ||
        !debug.some((m) => m.includes('gbfs-sample-oslo'))
      ) {
        if (Date.now() > until) assert.fail(`the samples reported nothing: ${JSON.stringify({ info, debug, warn })}`)
        await new Promise((r) => setTimeout(r, 50))
      }
      assert.equal(info.length, 1)
      assert.match(info[0], /bundled GBFS samples .* fixed demo data/)
      assert.ok(debug.some((m) => /stale data served/.test(m)))
      assert.deepEqual(warn, [])
    } finally {
      await registry.stop()
    }
  })
})
