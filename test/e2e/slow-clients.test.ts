import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { describe, it } from 'node:test'
import { ADMIN_TOKEN, createKey, createTenant, startHarness } from '../helpers/harness.ts'
import { listenAll } from '../helpers/listen.ts'

const REQUEST_TIMEOUT_MS = 1500

interface Trickler {
  kind: string
  openedAt: number
  closedAt?: number
  received: string
  socket: Socket
}

/** A client that sends `head` at once, then one byte of `drip` every `everyMs`, and never finishes. */
function trickle(port: number, kind: string, head: string, drip: string, everyMs: number): Trickler {
  const socket: Socket = connect(port, '127.0.0.1')
  const t: Trickler = { kind, openedAt: performance.now(), received: '', socket }
  let timer: NodeJS.Timeout | undefined
  socket.on('connect', () => {
    socket.write(head)
    let i = 0
    timer = setInterval(() => {
      if (socket.writable) socket.write(drip[i++ % drip.length])
    }, everyMs)
  })
  socket.on('data', (chunk) => {
    t.received += chunk.toString()
  })
  socket.on('error', () => {})
  socket.on('close', () => {
    clearInterval(timer)
    t.closedAt = performance.now()
  })
  return t
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

describe('slow and abusive clients', () => {
  it('closes 300 trickling connections after REQUEST_TIMEOUT_MS while keyed requests answer in milliseconds', async () => {
    const h = await startHarness({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } })
    const tricklers: Trickler[] = []
    try {
      const tenant = await createTenant(h)
      const key = await createKey(h, tenant.tenant.id, {
        type: 'secret',
        environment: 'live',
        rateLimit: { limit: 100_000, windowSeconds: 60 },
      })
      const [base] = await listenAll(h)
      const port = Number(new URL(base).port)
      // One keyed request first (in process, no socket): the key's first look-up and the route's first answer (its
      // serializer is built then) are not what this test measures, and took the whole window once on a loaded machine.
      assert.equal((await h.api('GET', '/auth/check', key.secret)).status, 200)

      for (let i = 0; i < 100; i++) {
        // Slowloris: headers that never end.
        tricklers.push(
          trickle(port, 'headers', 'POST /mobility-api/v2/cars HTTP/1.1\r\nHost: x\r\n', 'X-a: b\r\n', 300),
        )
        // A body that never ends, without a key (answered 401 at once; the rest of the body would be read forever).
        tricklers.push(
          trickle(
            port,
            'body-unauthenticated',
            'POST /mobility-api/v2/cars HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
            ' ',
            300,
          ),
        )
        // A body that never ends on a path whose body is read before anything is answered.
        tricklers.push(
          trickle(
            port,
            'body-read',
            'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
            ' ',
            300,
          ),
        )
      }
      const started = performance.now()

      // Keyed requests on connections of their own, for as long as the tricklers are being held.
      const latencies: number[] = []
      const statuses = new Map<number, number>()
      while (performance.now() - started < REQUEST_TIMEOUT_MS + 500) {
        const t0 = performance.now()
        const res = await fetch(`${base}/mobility-api/v2/auth/check`, {
          headers: { authorization: `Bearer ${key.secret}` },
        })
        await res.arrayBuffer()
        latencies.push(performance.now() - t0)
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        await new Promise((r) => setTimeout(r, 20))
      }

      // Every trickler is closed soon after the timeout (Node checks deadlines every ~375 ms here; generous slack
      // for a loaded machine).
      const deadline = started + REQUEST_TIMEOUT_MS + 8000
      while (tricklers.some((t) => t.closedAt === undefined) && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100))
      }
      const open = tricklers.filter((t) => t.closedAt === undefined)
      for (const t of open) t.closedAt = Number.NaN
      assert.equal(
        open.length,
        0,
        `${open.length} trickling connections still open ${Math.round(performance.now() - started)} ms in`,
      )

      const lifetimes = tricklers.map((t) => (t.closedAt as number) - t.openedAt)
      process.stdout.write(
        `# trickling connections closed after ${Math.round(Math.min(...lifetimes))}–${Math.round(Math.max(...lifetimes))} ms\n`,
      )
      for (const t of tricklers) {
        const lived = (t.closedAt as number) - t.openedAt
        // The timeout closed them, nothing earlier: they lived at least about REQUEST_TIMEOUT_MS.
        assert.ok(lived >= REQUEST_TIMEOUT_MS - 100, `${t.kind} closed after ${Math.round(lived)} ms`)
      }
      // Whoever gets an answer at the cut-off gets the envelope saying why.
      const timedOut = tricklers.filter((t) => t.kind === 'body-read')
      for (const t of timedOut) {
        assert.match(t.received, /^HTTP\/1.1 400/)
        assert.match(t.received, /"reason":"REQUEST_TIMEOUT"/)
      }
      // Refused at once without a key; the cut-off then closes the connection without a second, unasked-for answer.
      for (const t of tricklers.filter((x) => x.kind === 'body-unauthenticated')) {
        assert.match(t.received, /^HTTP\/1.1 401/)
        assert.equal(t.received.match(/HTTP\/1.1/g)?.length, 1)
      }

      assert.deepEqual([...statuses.keys()], [200])
      const sorted = latencies.toSorted((a, b) => a - b)
      const p50 = percentile(sorted, 0.5)
      const p95 = percentile(sorted, 0.95)
      process.stdout.write(
        `# keyed requests under 300 trickling connections: n=${sorted.length} p50=${p50.toFixed(1)} ms p95=${p95.toFixed(1)} ms max=${sorted.at(-1)?.toFixed(1)} ms\n`,
      )
      assert.ok(sorted.length >= 20, `only ${sorted.length} keyed requests in ${REQUEST_TIMEOUT_MS + 500} ms`)
      assert.ok(p50 < 200, `p50 ${p50} ms`)

      // Nothing left behind on the server.
      const connections = await new Promise<number>((resolve, reject) =>
        h.apps[0].server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      )
      assert.ok(connections <= 1, `${connections} connections still held by the server`)
    } finally {
      for (const t of tricklers) t.socket.destroy()
      await h.close()
    }
  })

  it('refuses connections beyond MAX_CONNECTIONS and accepts again once one closes', async () => {
    const h = await startHarness({ env: { MAX_CONNECTIONS: '20' } })
    const held: Socket[] = []
    try {
      const [base] = await listenAll(h)
      const port = Number(new URL(base).port)
      // 20 keep-alive connections that each got an answer and now sit idle.
      for (let i = 0; i < 20; i++) {
        const socket = connect(port, '127.0.0.1')
        socket.on('error', () => {})
        await new Promise<void>((resolve, reject) => {
          socket.once('data', () => resolve())
          socket.once('close', () => reject(new Error(`connection ${i} closed before its answer`)))
          socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
        })
        held.push(socket)
      }
      // The 21st is closed without an answer.
      const refused = connect(port, '127.0.0.1')
      let answer = ''
      refused.on('data', (chunk) => {
        answer += chunk.toString()
      })
      refused.on('error', () => {})
      refused.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
      await new Promise((resolve) => refused.on('close', resolve))
      assert.equal(answer, '')
      await assert.rejects(fetch(`${base}/health`))
      // Counted, so an operator sees the limit being hit.
      const metrics = await h.request({ url: '/metrics', key: ADMIN_TOKEN })
      assert.match(metrics.text, /^connections_refused_total [1-9]/m)

      // One closes: a new connection is served again.
      held.pop()?.destroy()
      const until = performance.now() + 5000
      let status: number | undefined
      while (status === undefined && performance.now() < until) {
        status = await fetch(`${base}/health`, { headers: { connection: 'close' } })
          .then((r) => r.status)
          .catch(() => undefined)
        if (status === undefined) await new Promise((r) => setTimeout(r, 50))
      }
      assert.equal(status, 200)
    } finally {
      for (const socket of held) socket.destroy()
      await h.close()
    }
  })
})
