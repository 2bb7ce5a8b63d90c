import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, it } from 'node:test'
import { createTenant, startHarness } from '../helpers/harness.ts'
import { call, listenAll } from '../helpers/listen.ts'

describe('graceful shutdown', () => {
  it('ends keep-alive connections after the answer in flight, so nothing new starts while closing', async () => {
    const h = await startHarness()
    const app = h.apps[0]
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered: () => void = () => {}
    const inside = new Promise<void>((resolve) => {
      entered = resolve
    })
    app.get('/slow', async () => {
      entered()
      await gate
      return { success: true, data: {}, meta: {} }
    })
    const [base] = await listenAll(h)
    const { port } = new URL(base)
    // Two pipelined requests on one connection: the second is read only after the first is answered.
    const socket = connect(Number(port), '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString()
    })
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n')
    await inside
    const closing = app.close()
    await new Promise((r) => setTimeout(r, 50))
    release()
    await new Promise((resolve) => socket.on('close', resolve))
    await closing
    assert.match(received, /HTTP\/1.1 200/)
    assert.match(received, /connection: close/i)
    // The pipelined request was never started; a client retries it elsewhere.
    assert.equal(received.match(/HTTP\/1.1/g)?.length, 1)
    for (const runtime of h.runtimes) await runtime.close()
  })

  it('turns an unexpected exception into 500 INTERNAL_ERROR without internals', async () => {
    const h = await startHarness()
    h.apps[0].get('/boom', async () => {
      throw new TypeError('secret internal detail at /srv/app.ts:12')
    })
    const res = await h.request({ url: '/boom' })
    assert.equal(res.status, 500)
    assert.equal(res.body.success, false)
    assert.equal(res.body.error.code, 'INTERNAL_ERROR')
    assert.ok(!res.text.includes('secret internal detail'))
    assert.ok(!res.text.includes('.ts:'))
    await h.close()
  })

  it('finishes requests in flight, accepts no new connections, then closes', async () => {
    const h = await startHarness()
    const app = h.apps[0]
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered: () => void = () => {}
    const inside = new Promise<void>((resolve) => {
      entered = resolve
    })
    app.get('/slow', async () => {
      entered()
      await gate
      return { success: true, data: { done: true }, meta: {} }
    })
    const t = await createTenant(h)
    const [base] = await listenAll(h)

    const inFlight = fetch(`${base}/slow`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    // Close only once the request is really being handled (a loaded machine may take a while to get there).
    await inside
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
