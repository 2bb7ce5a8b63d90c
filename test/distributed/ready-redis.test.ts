import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { describe, it } from 'node:test'
import { createApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { generateTokenKeys } from '../../src/platform/tokens.ts'
import { openRuntime } from '../../src/runtime.ts'
import { freshDatabase, SHAPE, skipReason } from '../helpers/harness.ts'

const skip = SHAPE !== 'distributed' ? 'runs with TEST_SHAPE=distributed (npm run test:distributed)' : skipReason

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** A Redis of this test's own (never the shared one: it gets killed), without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  const until = Date.now() + 10_000
  while (Date.now() < until) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = createServer()
      // The port is taken once Redis listens.
      probe.once('error', () => resolve(true))
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)))
    })
    if (up) return child
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error('redis-server did not start')
}

describe('GET /ready follows Redis going away and coming back', { skip }, () => {
  it('503 naming redis while it is down, 200 again once it is back; /health 200 throughout', async () => {
    const port = await freePort()
    let redis = await startRedis(port)
    const db = await freshDatabase('ready')
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.url,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      TOKEN_KEYS: generateTokenKeys(),
    })
    const runtime = await openRuntime(config, { logger: false, redisPrefix: 'ready:' })
    const app = await createApp(runtime)
    const get = async (url: string) => {
      const res = await app.inject({ url })
      return { status: res.statusCode, body: res.json() as any }
    }
    const waitFor = async (want: number, withinMs: number) => {
      const until = performance.now() + withinMs
      const seen: number[] = []
      for (;;) {
        const started = performance.now()
        const ready = await get('/ready')
        // Each probe answers within the check deadline, outage or not.
        assert.ok(performance.now() - started < 2500, 'a readiness probe hung')
        seen.push(ready.status)
        assert.equal((await get('/health')).status, 200)
        if (ready.status === want) return ready
        if (performance.now() > until) assert.fail(`no ${want} within ${withinMs} ms: ${seen.join(',')}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    try {
      assert.equal((await waitFor(200, 5000)).body.data.checks.redis, 'OK')

      redis.kill('SIGKILL')
      await new Promise((resolve) => redis.once('exit', resolve))
      const down = await waitFor(503, 5000)
      assert.equal(down.body.error.code, 'SERVICE_UNAVAILABLE')
      assert.equal(down.body.error.details.checks.store, 'OK')
      assert.notEqual(down.body.error.details.checks.redis, 'OK')

      redis = await startRedis(port)
      const back = await waitFor(200, 15_000)
      assert.deepEqual(back.body.data.checks, { store: 'OK', redis: 'OK' })
    } finally {
      await app.close()
      await runtime.close().catch(() => {})
      redis.kill('SIGKILL')
      await db.drop()
    }
  })
})
