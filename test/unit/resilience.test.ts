import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createResilience } from '../../src/connectors/resilience.ts'
import { ApiError } from '../../src/http/errors.ts'
import { createMetrics } from '../../src/platform/metrics.ts'

const setup = (options = {}) => {
  const metrics = createMetrics()
  return { metrics, r: createResilience({ metrics, ...options }) }
}
const outcome = async (metrics: ReturnType<typeof createMetrics>, provider: string, value: string) => {
  const data = await metrics.providerCalls.get()
  return data.values.find((v) => v.labels.provider === provider && v.labels.outcome === value)?.value ?? 0
}

describe('resilience around provider calls', () => {
  it('answers TIMEOUT at the deadline even when the connector ignores its signal', async () => {
    const { r, metrics } = setup()
    const started = Date.now()
    let aborted = false
    await assert.rejects(
      r.call({ provider: 'slow', operation: 'search', deadline: Date.now() + 50 }, (signal) => {
        signal.addEventListener('abort', () => {
          aborted = true
        })
        return new Promise(() => {})
      }),
      (error: ApiError) => error.code === 'TIMEOUT' && error.details?.providerId === 'slow',
    )
    assert.ok(Date.now() - started < 500)
    assert.ok(aborted, 'the connector is told to stop')
    assert.equal(await outcome(metrics, 'slow', 'timeout'), 1)
  })

  it('retries reads, never writes', async () => {
    const { r } = setup()
    let reads = 0
    const value = await r.call(
      { provider: 'p', operation: 'read', deadline: Date.now() + 5000, idempotent: true },
      async () => {
        reads++
        if (reads < 2) throw new Error('flaky')
        return 'ok'
      },
    )
    assert.equal(value, 'ok')
    assert.equal(reads, 2)
    let writes = 0
    await assert.rejects(
      r.call({ provider: 'p', operation: 'book', deadline: Date.now() + 5000 }, async () => {
        writes++
        throw new Error('network')
      }),
      (error: ApiError) => error.code === 'PROVIDER_ERROR',
    )
    assert.equal(writes, 1)
  })

  it('gives a failing read up after the configured retries, and never retries an answer such as sold out', async () => {
    for (const retries of [0, 1, 2, 3]) {
      const { r } = setup({ retries })
      let calls = 0
      await assert.rejects(
        r.call({ provider: 'p', operation: 'read', deadline: Date.now() + 5000, idempotent: true }, async () => {
          calls++
          throw new Error('down')
        }),
        (error: ApiError) => error.code === 'PROVIDER_ERROR',
      )
      assert.equal(calls, retries + 1, `retries: ${retries}`)
    }
    const { r } = setup()
    let calls = 0
    await assert.rejects(
      r.call({ provider: 'p', operation: 'read', deadline: Date.now() + 5000, idempotent: true }, async () => {
        calls++
        throw new ApiError('NO_AVAILABLE_CARD')
      }),
      (error: ApiError) => error.code === 'NO_AVAILABLE_CARD',
    )
    assert.equal(calls, 1)
  })

  it('opens the breaker after consecutive failures; business answers do not count', async () => {
    const { r, metrics } = setup({ breakerThreshold: 3, halfOpenAfterMs: 60_000 })
    const opts = { provider: 'bad', operation: 'search', deadline: Date.now() + 5000 }
    for (let i = 0; i < 5; i++) {
      await assert.rejects(r.call(opts, async () => Promise.reject(new ApiError('NO_AVAILABLE_CARD'))))
    }
    assert.equal(await r.call(opts, async () => 1), 1, 'still closed after business errors')
    for (let i = 0; i < 3; i++) await assert.rejects(r.call(opts, async () => Promise.reject(new Error('500'))))
    let called = false
    await assert.rejects(
      r.call(opts, async () => {
        called = true
        return 1
      }),
      (error: ApiError) => error.code === 'SERVICE_UNAVAILABLE' && error.details?.reason === 'CIRCUIT_OPEN',
    )
    assert.equal(called, false)
    assert.equal(await outcome(metrics, 'bad', 'open'), 1)
    // Another provider is unaffected.
    assert.equal(await r.call({ ...opts, provider: 'good' }, async () => 2), 2)
  })

  it('bounds concurrency per provider', async () => {
    const { r } = setup({ concurrency: 2, queue: 0 })
    const opts = { provider: 'busy', operation: 'search', deadline: Date.now() + 5000 }
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const running = [r.call(opts, () => gate), r.call(opts, () => gate)]
    await assert.rejects(
      r.call(opts, async () => undefined),
      (error: ApiError) => error.details?.reason === 'BULKHEAD_FULL',
    )
    release()
    await Promise.all(running)
  })
})
