import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { generateTokenKeys } from '../../src/platform/tokens.ts'
import { ADMIN_TOKEN, freshDatabase, REDIS_URL, SHAPE, skipReason } from '../helpers/harness.ts'

const skip = SHAPE !== 'distributed' ? 'runs with TEST_SHAPE=distributed (npm run test:distributed)' : skipReason

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('WORKERS=2: one machine, two processes of the distributed shape', { skip }, () => {
  it('balances over both, replaces a worker that dies, merges their metrics, and drains all on SIGTERM', async () => {
    const db = await freshDatabase('workers')
    const dataDir = mkdtempSync(join(tmpdir(), 'mas-workers-'))
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const primary = spawn(process.execPath, ['src/main.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: {
        PATH: process.env.PATH ?? '',
        WORKERS: '2',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.url,
        REDIS_URL,
        TOKEN_KEYS: generateTokenKeys(),
        ADMIN_TOKEN,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    primary.stdout.on('data', (c) => {
      stdout += c
    })
    primary.stderr.on('data', (c) => {
      stderr += c
    })
    const exited = new Promise<number | null>((resolve) => primary.once('exit', (code) => resolve(code)))
    const workerPids = () => [
      ...new Set(
        stdout
          .split('\n')
          .filter((l) => l.includes('Server listening'))
          .map((l) => Number(/"pid":(\d+)/.exec(l)?.[1])),
      ),
    ]
    const waitUntil = async (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000) => {
      const until = Date.now() + ms
      while (!(await ok())) {
        if (Date.now() > until) assert.fail(`${what} did not happen\n${stdout.slice(-3000)}\n${stderr}`)
        await sleep(100)
      }
    }
    /** Request id prefixes name the instance that answered; a fresh connection each time lets the primary choose. */
    const answeredBy = async (n: number) => {
      const seen = new Set<string>()
      for (let i = 0; i < n; i++) {
        const { status, requestId } = await new Promise<{ status?: number; requestId: string }>((resolve, reject) =>
          get(`${base}/health`, { agent: false }, (res) => {
            res.resume()
            res.on('end', () => resolve({ status: res.statusCode, requestId: String(res.headers['x-request-id']) }))
          }).on('error', reject),
        )
        assert.equal(status, 200)
        seen.add(requestId.slice(0, 12))
      }
      return seen
    }
    try {
      await waitUntil('two workers listening', () => /2 workers listening/.test(stdout) && workerPids().length === 2)
      assert.match(stderr, /\(2 worker processes\)/)
      const [first, second] = workerPids()
      assert.ok(first && second && first !== second && first !== primary.pid)

      assert.equal((await answeredBy(20)).size, 2, 'both workers answer')
      // A scrape reaches one worker and answers for both.
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      const total = Number(
        /^http_requests_total\{method="GET",route="\/health",status="200"\} (\d+)/m.exec(await metrics.text())?.[1],
      )
      assert.ok(total >= 20, `http_requests_total of /health is ${total}, not the sum of both workers`)

      // A worker that dies is replaced; the service answers meanwhile.
      process.kill(first, 'SIGKILL')
      await waitUntil('a replacement', () => workerPids().length === 3)
      assert.match(stdout, /worker died \(signal SIGKILL\); starting a replacement/)
      const prefixes = await answeredBy(20)
      assert.equal(prefixes.size, 2, 'the replacement and the survivor answer')

      // SIGTERM to the primary drains every worker: a request in flight still gets its answer.
      const tenant = await fetch(`${base}/admin/v1/tenants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Workers' }),
      }).then((r) => r.json() as Promise<any>)
      const key = await fetch(`${base}/admin/v1/tenants/${tenant.data.tenant.id}/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'secret', environment: 'test' }),
      }).then((r) => r.json() as Promise<any>)
      const start = new Date(Date.now() + 72 * 3600_000)
      start.setUTCMinutes(0, 0, 0)
      // The body is read before the status is looked at: undici trips over a connection the server ends
      // (`connection: close` while draining) under a body nobody reads.
      const inFlight = fetch(`${base}/mobility-api/v2/cars`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key.data.key.secret}`,
          'content-type': 'application/json',
          'x-sandbox-scenario': 'provider-slow:sandbox-rent',
        },
        body: JSON.stringify({
          pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 20_000 },
          dates: { start: start.toISOString(), end: new Date(start.getTime() + 86_400_000).toISOString() },
        }),
      }).then(async (r) => {
        await r.arrayBuffer()
        return r.status
      })
      await sleep(300)
      primary.kill('SIGTERM')
      assert.equal(await inFlight, 200)
      assert.equal(await exited, 0, stdout.slice(-3000))
      assert.equal(await listening(port), false)
      for (const pid of workerPids()) assert.equal(alive(pid), false, `worker ${pid} left behind`)
    } finally {
      if (primary.exitCode === null) primary.kill('SIGKILL')
      for (const pid of workerPids()) if (alive(pid)) process.kill(pid, 'SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
      await db.drop()
    }
  })
})
