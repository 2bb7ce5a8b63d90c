import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { ApiKey, CreatedApiKey, Tenant } from '../../src/contract/admin.ts'
import { openPglite } from '../../src/store/pglite.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

interface Run {
  code: number
  stdout: string
  stderr: string
  json: <T>() => T
}

describe('admin command line (npm run admin)', { timeout: 600_000 }, () => {
  let dataDir: string
  let tenantId: string
  let keyId: string

  /** Runs the tool as a separate process, in embedded mode on the temporary DATA_DIR. */
  const admin = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const env = {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        REDIS_URL: '',
        TOKEN_KEYS: '',
        PROVIDERS_FILE: '',
      }
      execFile(
        process.execPath,
        ['src/cli/admin.ts', ...args],
        // Each run starts Node and the embedded database: seconds when idle, far more on a loaded CI machine.
        { cwd: ROOT, env, timeout: 150_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
          resolve({ code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T })
        },
      )
    })

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mas-admin-cli-'))
  })
  after(() => rmSync(dataDir, { recursive: true, force: true }))

  test('refuses what the API refuses, naming the field, before opening the store', async () => {
    const run = await admin('tenants', 'create', '--name', 'Acme', '--data-retention', 'MAYBE')
    assert.equal(run.code, 1, run.stderr)
    assert.equal(run.stdout, '')
    assert.match(run.stderr, /INVALID_REQUEST/)
    assert.match(run.stderr, /dataRetention \(--data-retention\): must be one of STANDARD, NONE/)
    assert.equal(existsSync(join(dataDir, 'db')), false)
  })

  test('an unknown command or option is a usage error (exit 2); no command prints the usage', async () => {
    const [unknown, option, help] = await Promise.all([
      admin('tenants', 'explode'),
      admin('keys', 'list', 'ten_x', '--bogus'),
      admin(),
    ])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown command "tenants explode"/)
    assert.equal(option.code, 2)
    assert.match(option.stderr, /Unknown option '--bogus'/)
    assert.equal(help.code, 0)
    assert.match(help.stdout, /^Usage: npm run admin/)
  })

  test('tenants create', async () => {
    const run = await admin(
      'tenants',
      'create',
      '--name',
      'Acme',
      '--providers',
      'sandbox-rent,sandbox-bike',
      '--allowed-origins',
      'https://a.example',
      '--reservation-window-seconds',
      '900',
    )
    assert.equal(run.code, 0, run.stderr)
    const { tenant } = run.json<{ tenant: Tenant }>()
    assert.match(tenant.id, /^ten_/)
    assert.equal(tenant.name, 'Acme')
    assert.deepEqual(tenant.providers, ['sandbox-rent', 'sandbox-bike'])
    assert.deepEqual(tenant.allowedOrigins, ['https://a.example'])
    assert.equal(tenant.reservationWindowSeconds, 900)
    assert.equal(tenant.dataRetention, 'STANDARD')
    tenantId = tenant.id
    assert.equal(existsSync(join(dataDir, 'db', '.lock')), false, 'the lock is released on exit')
  })

  test('keys create', async () => {
    const run = await admin(
      'keys',
      'create',
      tenantId,
      '--type',
      'secret',
      '--environment',
      'live',
      '--rate-limit',
      '3600/3600',
      '--name',
      'backend',
    )
    assert.equal(run.code, 0, run.stderr)
    const { key } = run.json<{ key: CreatedApiKey }>()
    assert.match(key.secret, /^svc_live_/)
    assert.deepEqual(key.rateLimit, { limit: 3600, windowSeconds: 3600 })
    assert.equal(key.name, 'backend')
    keyId = key.id
  })

  test('keys create refuses what the API refuses: a publishable key with booking permissions, an expiry past', async () => {
    const publishable = await admin(
      'keys',
      'create',
      tenantId,
      '--type',
      'publishable',
      '--environment',
      'live',
      '--permissions',
      'cars:offer:read,cars:booking:read',
    )
    assert.equal(publishable.code, 1, publishable.stdout)
    assert.match(publishable.stderr, /^error: FORBIDDEN: /)
    assert.match(publishable.stderr, /reason: NOT_ALLOWED_FOR_PUBLISHABLE_KEY/)
    assert.match(publishable.stderr, /refusedPermissions: \["cars:booking:read"\]/)
    const past = await admin('keys', 'create', tenantId, '--expires-at', '2020-01-01T00:00:00Z')
    assert.equal(past.code, 1, past.stdout)
    assert.match(past.stderr, /INVALID_REQUEST/)
    assert.match(past.stderr, /expiresAt \(--expires-at\): must be in the future/)
  })

  test('keys list (after taking over a stale lock)', async () => {
    // A lock left behind by a process that is gone does not block.
    const gone = spawnSync(process.execPath, ['-e', '']).pid
    writeFileSync(join(dataDir, 'db', '.lock'), String(gone))
    const run = await admin('keys', 'list', tenantId)
    assert.equal(run.code, 0, run.stderr)
    const { keys } = run.json<{ keys: ApiKey[] }>()
    assert.equal(keys.length, 1)
    assert.equal(keys[0].id, keyId)
    assert.equal(keys[0].revokedAt, null)
    assert.equal((keys[0] as Partial<CreatedApiKey>).secret, undefined, 'the secret is shown only at creation')
  })

  test('keys revoke', async () => {
    const run = await admin('keys', 'revoke', keyId)
    assert.equal(run.code, 0, run.stderr)
    const { key } = run.json<{ key: ApiKey }>()
    assert.equal(key.id, keyId)
    assert.ok(key.revokedAt)
  })

  test('a domain refusal exits 1 with the code and details', async () => {
    const run = await admin('tenants', 'get', 'ten_doesnotexist')
    assert.equal(run.code, 1)
    assert.match(run.stderr, /^error: NOT_FOUND: /)
    assert.match(run.stderr, /id: ten_doesnotexist/)
  })

  test('refuses to open the embedded database while another process has it open', async () => {
    const dir = join(dataDir, 'db')
    mkdirSync(dir, { recursive: true })
    const store = await openPglite(dir)
    try {
      assert.equal(existsSync(join(dir, '.lock')), true)
      const run = await admin('tenants', 'list')
      assert.equal(run.code, 1)
      assert.equal(run.stdout, '')
      assert.match(run.stderr, new RegExp(`is in use by process ${process.pid}; stop it, or use the admin API`))
    } finally {
      await store.close()
    }
    assert.equal(existsSync(join(dir, '.lock')), false)
  })
})
