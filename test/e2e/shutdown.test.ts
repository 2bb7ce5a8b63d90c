import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createTenant, startHarness } from '../helpers/harness.ts'
import { call, listenAll } from '../helpers/listen.ts'

describe('graceful shutdown', () => {
  it('finishes requests in flight, accepts no new connections, then closes', async () => {
    const h = await startHarness()
    const app = h.apps[0]
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    app.get('/slow', async () => {
      await gate
      return { success: true, data: { done: true }, meta: {} }
    })
    const t = await createTenant(h)
    const [base] = await listenAll(h)

    const inFlight = fetch(`${base}/slow`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    await new Promise((r) => setTimeout(r, 50))
    const closing = app.close()
    try {
      await new Promise((r) => setTimeout(r, 50))
      // No new connections once closing has begun.
      await assert.rejects(fetch(`${base}/health`))
    } finally {
      release()
    }
    const finished = await inFlight
    assert.equal(finished.status, 200)
    assert.equal(finished.body.data.done, true)
    await closing
    assert.equal(await call(base, 'GET', '/health').catch(() => 'refused'), 'refused')
    void t
    for (const runtime of h.runtimes) await runtime.close()
  })
})
