import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'

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

/** A car search that the service answers only after about a second (the sandbox's `provider-slow`). */
const slowSearch = (base: string, key: string) => {
  const start = new Date(Date.now() + 72 * 3600_000)
  start.setUTCMinutes(0, 0, 0)
  return fetch(`${base}/mobility-api/v2/cars`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-sandbox-scenario': 'provider-slow:sandbox-rent',
    },
    body: JSON.stringify({
      pickup: { type: 'coordinates', coordinates: { latitude: 52.52, longitude: 13.405 }, radiusMeters: 20_000 },
      dates: { start: start.toISOString(), end: new Date(start.getTime() + 3 * 86_400_000).toISOString() },
    }),
  })
}

describe('npm start', () => {
  it('passes SIGTERM sent to the npm process on to node: in-flight requests finish, the port is freed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mas-npm-start-'))
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    // What a process manager does: start `npm start` and later signal only the process it started.
    const npm = spawn('npm', ['start'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let stdout = ''
    let stderr = ''
    npm.stdout.on('data', (chunk) => {
      output += chunk.toString()
      stdout += chunk.toString()
    })
    npm.stderr.on('data', (chunk) => {
      output += chunk.toString()
      stderr += chunk.toString()
    })
    let nodePid: number | undefined
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)))
    try {
      // The first start on an empty DATA_DIR prints the demo tenant's keys; the test key reaches the sandbox scenarios.
      const until = Date.now() + 60_000
      let key: string | undefined
      // The JSON log reaches stdout asynchronously: wait for the demo tenant's line too, not only the port and the keys.
      while (!(key && /demo tenant created/.test(stdout) && (await listening(port)))) {
        if (Date.now() > until) assert.fail(`the service did not start:\n${output}`)
        key ??= /svc_test_[A-Za-z0-9]+/.exec(output)?.[0]
        await new Promise((r) => setTimeout(r, 200))
      }
      // The demo keys are for the terminal (stderr), never in the JSON log stream (stdout); npm's own "> start" header
      // is the only other thing there.
      for (const prefix of ['svc_live_', 'svc_pk_live_', 'svc_test_']) assert.match(stderr, new RegExp(prefix))
      assert.doesNotMatch(stdout, /svc_/)
      for (const line of stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('> '))) {
        assert.doesNotThrow(() => JSON.parse(line), `not a JSON log line: ${line}`)
      }
      assert.match(stdout, /demo tenant created/)

      const warm = await slowSearch(base, key)
      assert.equal(warm.status, 200, await warm.text())
      // The node process, from the pid in its JSON log lines (npm is its grandparent or, with exec, its parent).
      nodePid = Number(/"pid":(\d+)/.exec(output)?.[1])
      assert.ok(nodePid > 0 && nodePid !== npm.pid, 'node logs its pid')

      const sent = performance.now()
      const inFlight = slowSearch(base, key).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any,
        after: performance.now() - sent,
      }))
      await new Promise((r) => setTimeout(r, 300))
      npm.kill('SIGTERM')

      const answer = await inFlight
      assert.equal(answer.status, 200, JSON.stringify(answer.body))
      assert.ok(answer.after >= 900, `the slow search answered after ${Math.round(answer.after)} ms`)
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 30_000))])
      // 0: node shut down by itself and npm passed its exit code on (a node killed by the signal would not give 0).
      assert.equal(code, 0, output)
      assert.match(output, /shutting down/)
      // A clean first start warns about nothing; the bundled GBFS samples' age is said once, at info level.
      assert.doesNotMatch(stdout, /"level":(40|50)/)
      assert.equal(stdout.match(/bundled GBFS samples/g)?.length, 1)
      assert.equal(await listening(port), false, 'the port is free')
      assert.throws(() => process.kill(nodePid as number, 0), /ESRCH/, 'no node process left behind')
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL')
      if (nodePid) {
        try {
          process.kill(nodePid, 'SIGKILL')
        } catch {}
      }
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
