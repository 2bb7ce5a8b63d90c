import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import type { LoadReading } from '../../src/platform/load-guard.ts'
import { generateTokenKeys } from '../../src/platform/tokens.ts'
import { openRuntime, type Runtime } from '../../src/runtime.ts'
import { ADMIN_TOKEN } from '../helpers/harness.ts'

const MiB = 1024 * 1024
const calm: LoadReading = { heapUsed: 200 * MiB, heapLimit: 4096 * MiB, rss: 400 * MiB, eventLoopDelayMs: 3 }

// The guard judges the process, not the store: one embedded instance shows it for both shapes.
describe('load shedding', () => {
  let reading = calm
  let runtime: Runtime
  let app: Awaited<ReturnType<typeof createApp>>
  let dataDir: string
  let secret: string
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mas-shed-'))
    const config = loadConfig({
      ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      TOKEN_KEYS: generateTokenKeys(),
      MEMORY_LIMIT_MB: '1024',
    })
    runtime = await openRuntime(config, { inMemory: true, logger: false, loadReading: () => reading })
    app = await createApp(runtime)
    const tenant = await app.inject({
      method: 'POST',
      url: '/admin/v1/tenants',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { name: 'Shed' },
    })
    const key = await app.inject({
      method: 'POST',
      url: `/admin/v1/tenants/${tenant.json().data.tenant.id}/keys`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: {},
    })
    secret = key.json().data.key.secret
  })
  after(async () => {
    await app.close()
    await runtime.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const check = () =>
    app.inject({ method: 'GET', url: '/mobility-api/v2/auth/check', headers: { authorization: `Bearer ${secret}` } })
  const set = (next: LoadReading) => {
    reading = next
    // The guard judges memory over its last five readings.
    for (let i = 0; i < 5; i++) runtime.loadGuard.sample()
  }

  it('answers 503 SERVICE_UNAVAILABLE (OVERLOADED) with Retry-After near the heap limit, and recovers', async () => {
    assert.equal((await check()).statusCode, 200)
    set({ ...calm, heapUsed: 3900 * MiB })
    for (const request of [
      check(),
      app.inject({ method: 'POST', url: '/mobility-api/v2/cars', headers: { authorization: `Bearer ${secret}` } }),
      app.inject({ method: 'GET', url: '/mobility-api/v2/auth/check' }),
      app.inject({ method: 'GET', url: '/admin/v1/tenants/x', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    ]) {
      const res = await request
      assert.equal(res.statusCode, 503, res.body)
      assert.equal(res.headers['retry-after'], '5')
      assert.ok(res.headers['x-request-id'])
      const body = res.json()
      assert.equal(body.success, false)
      assert.equal(body.error.code, 'SERVICE_UNAVAILABLE')
      assert.equal(body.error.details.reason, 'OVERLOADED')
      assert.equal(body.meta.requestId, res.headers['x-request-id'])
    }
    set({ ...calm, heapUsed: 3000 * MiB })
    const back = await check()
    assert.equal(back.statusCode, 200, back.body)
  })

  it('keeps answering /health, /ready and /metrics while it refuses work', async () => {
    set({ ...calm, heapUsed: 3900 * MiB })
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200)
    assert.notEqual((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 503)
    const metrics = await app.inject({
      method: 'GET',
      url: '/metrics?x=1',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
    assert.equal(metrics.statusCode, 200)
    assert.equal((await check()).statusCode, 503)
    set(calm)
  })

  it('refuses at MEMORY_LIMIT_MB of resident memory', async () => {
    set({ ...calm, rss: 1100 * MiB })
    const res = await check()
    assert.equal(res.statusCode, 503)
    assert.equal(res.json().error.details.reason, 'OVERLOADED')
    set(calm)
    assert.equal((await check()).statusCode, 200)
  })
})
