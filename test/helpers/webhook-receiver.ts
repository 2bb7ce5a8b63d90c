import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before } from 'node:test'
import { type Harness, type HarnessOptions, startHarness } from './harness.ts'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  event: { id: string; type: string; createdAt: string; environment: string; data: Record<string, unknown> }
  at: number
}

/**
 * A real webhook receiver on 127.0.0.1. `answer` decides each status (default 200); `stop()` closes the port while
 * keeping it, `start()` listens on it again (a receiver that is down for a while).
 */
export async function startReceiver(answer: (r: Received, index: number) => number = () => 200) {
  const received: Received[] = []
  const waiters = new Set<() => void>()
  let server: Server
  let port = 0
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = []
        req.on('data', (chunk: Buffer) => chunks.push(chunk))
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          const entry: Received = { headers: req.headers, body, event: JSON.parse(body), at: performance.now() }
          received.push(entry)
          res.statusCode = receiver.answer(entry, received.length - 1)
          res.end('ok')
          for (const wake of waiters) wake()
        })
      })
      server.keepAliveTimeout = 1
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port
        resolve()
      })
    })
  await listen()
  const receiver = {
    answer,
    received,
    get port() {
      return port
    },
    get url() {
      return `http://127.0.0.1:${port}/hooks`
    },
    /** Waits until `count` requests arrived (or fails after `ms`). */
    async waitFor(count: number, ms = 5000): Promise<Received[]> {
      const deadline = Date.now() + ms
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests in ${ms} ms`)
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake)
            resolve()
          }
          waiters.add(wake)
          setTimeout(wake, 50)
        })
      }
      return received
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
    start: listen,
  }
  return receiver
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/**
 * A service and a receiver for the tests of the describe block it is called in: started before them, stopped after
 * them. The tests read `h` and `receiver` off the answer (set once the block's `before` ran).
 */
export function withReceiver(options?: HarnessOptions) {
  const running = {} as { h: Harness; receiver: Receiver }
  before(async () => {
    running.h = await startHarness(options)
    running.receiver = await startReceiver()
  })
  after(async () => {
    await running.h.close()
    await running.receiver.stop()
  })
  return running
}

/** Polls `check` until it returns something truthy. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Runs due jobs on every instance (the test clock decides what is due). */
export async function runJobs(h: Harness, rounds = 1) {
  for (let i = 0; i < rounds; i++) for (const runtime of h.runtimes) await runtime.jobs.runDue(100)
}

/** Registers an endpoint; answers it with its secret. */
export async function createWebhook(h: Harness, key: string, body: Record<string, unknown>) {
  const res = await h.api('POST', '/webhooks', key, body)
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.text}`)
  return res.body.data.webhook as { id: string; secret: string; url: string; events: string[] }
}
