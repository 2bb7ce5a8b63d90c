import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { permanentProviderError, vehicleNotAvailable } from '../../src/connectors/refusals.ts'
import { classifyFailure, createResilience, REFUSAL_REASONS } from '../../src/connectors/resilience.ts'
import { ApiError, ERROR_CODES, type ErrorCode } from '../../src/contract/errors.ts'
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

  it('an open breaker lets one call test the provider after its delay: a fault opens it again, a success closes it', async () => {
    const { r } = setup({ breakerThreshold: 1, halfOpenAfterMs: 30 })
    const opts = { provider: 'flaky', operation: 'search', deadline: Date.now() + 5000 }
    const open = (error: ApiError) => error.details?.reason === 'CIRCUIT_OPEN'
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    await assert.rejects(r.call(opts, async () => Promise.reject(new Error('500'))))
    await assert.rejects(
      r.call(opts, async () => 1),
      open,
    )
    await sleep(40)
    await assert.rejects(
      r.call(opts, async () => Promise.reject(new Error('500'))),
      (error: ApiError) => error.code === 'PROVIDER_ERROR',
    )
    await assert.rejects(
      r.call(opts, async () => 1),
      open,
    )
    await sleep(40)
    // The test call runs alone; a call meanwhile waits for its outcome, then runs on the closed breaker.
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const order: string[] = []
    const test = r.call(opts, () => gate.then(() => order.push('test')))
    const waiting = r.call(opts, async () => order.push('waiting'))
    await sleep(5)
    assert.deepEqual(order, [])
    release()
    await Promise.all([test, waiting])
    assert.deepEqual(order, ['test', 'waiting'])
    assert.equal(await r.call(opts, async () => 2), 2)
  })

  it('queues calls beyond the concurrency, up to the queue, and runs them in order as calls end', async () => {
    const { r } = setup({ concurrency: 1, queue: 1 })
    const opts = { provider: 'queued', operation: 'search', deadline: Date.now() + 5000 }
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const first = r.call(opts, () => gate.then(() => 'first'))
    const second = r.call(opts, async () => 'second')
    await assert.rejects(
      r.call(opts, async () => 'third'),
      (error: ApiError) => error.details?.reason === 'BULKHEAD_FULL',
    )
    release()
    assert.deepEqual(await Promise.all([first, second]), ['first', 'second'])
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

  it("refusals never open a breaker: a race for one vehicle, definitive no's, rejected commands", async () => {
    const { r, metrics } = setup({ breakerThreshold: 3, halfOpenAfterMs: 60_000 })
    const opts = { provider: 'scoot', operation: 'start', deadline: Date.now() + 5000 }
    const refusals = [
      () => vehicleNotAvailable(),
      () => new ApiError('PROVIDER_ERROR', undefined, { reason: 'VEHICLE_NOT_AVAILABLE' }),
      () => permanentProviderError('RESERVATION_ENDED'),
      () => new ApiError('PROVIDER_ERROR', undefined, { reason: 'VEHICLE_REJECTED' }),
      () => new ApiError('NOT_FOUND'),
      () => new ApiError('MISSING_REQUIRED_FIELD', undefined, { requiredFields: [], retryable: true }),
      () => new ApiError('VEHICLE_MISMATCH'),
      () => new ApiError('BOOKING_FAILED', undefined, { reason: 'CANCELLATION_REFUSED' }),
    ]
    for (let i = 0; i < 49; i++) {
      const refusal = refusals[i % refusals.length]()
      await assert.rejects(
        r.call(opts, async () => Promise.reject(refusal)),
        (error: ApiError) => error.code === refusal.code,
      )
    }
    assert.equal(await r.call(opts, async () => 'ride'), 'ride', 'the breaker stayed closed')
    assert.equal(await outcome(metrics, 'scoot', 'refused'), 49)
    assert.equal(await outcome(metrics, 'scoot', 'open'), 0)
    // Faults still open it.
    for (let i = 0; i < 3; i++) {
      await assert.rejects(r.call(opts, async () => Promise.reject(new ApiError('PROVIDER_ERROR', undefined, {}))))
    }
    await assert.rejects(
      r.call(opts, async () => 1),
      (error: ApiError) => error.details?.reason === 'CIRCUIT_OPEN',
    )
  })

  it('failures a test scenario asked for (staged) are neither counted nor retried', async () => {
    const { r } = setup({ breakerThreshold: 2, halfOpenAfterMs: 60_000 })
    const opts = { provider: 'p', operation: 'read', deadline: Date.now() + 5000, idempotent: true, staged: true }
    let calls = 0
    for (let i = 0; i < 5; i++) {
      await assert.rejects(
        r.call(opts, async () => {
          calls++
          throw new ApiError('PROVIDER_ERROR', undefined, { reason: 'SCENARIO' })
        }),
      )
    }
    assert.equal(calls, 5, 'no retries')
    assert.equal(await r.call({ ...opts, staged: false }, async () => 'ok'), 'ok', 'the breaker stayed closed')
  })

  it('reads are retried for faults only', async () => {
    for (const [failure, expected] of [
      [() => new ApiError('TIMEOUT'), 3],
      [() => new ApiError('PROVIDER_ERROR', undefined, { reason: 'OPERATOR_ERROR' }), 3],
      [() => new Error('socket hang up'), 3],
      [() => new ApiError('PROVIDER_ERROR', undefined, { reason: 'OPERATOR_REJECTED', retryable: false }), 1],
      [() => vehicleNotAvailable(), 1],
      [() => new ApiError('NOT_FOUND'), 1],
    ] as const) {
      const { r } = setup()
      let calls = 0
      await assert.rejects(
        r.call({ provider: 'p', operation: 'read', deadline: Date.now() + 5000, idempotent: true }, async () => {
          calls++
          throw failure()
        }),
      )
      assert.equal(calls, expected, String(failure()))
    }
  })
})

describe('classifyFailure: only provider faults count', () => {
  const FAULT_CODES: ErrorCode[] = ['PROVIDER_ERROR', 'TIMEOUT', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']
  const answerCodes = ERROR_CODES.filter((c) => !FAULT_CODES.includes(c))
  const details = fc.dictionary(
    fc.string({ maxLength: 12 }).filter((k) => k !== 'retryable' && k !== 'reason'),
    fc.oneof(fc.string({ maxLength: 20 }), fc.boolean(), fc.integer()),
    { maxKeys: 4 },
  )
  const reason = fc.oneof(fc.constantFrom(...REFUSAL_REASONS), fc.string({ maxLength: 20 }))

  it('anything that is not the one error type is a fault (network errors, unreadable answers, bugs)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string().map((m) => new Error(m)),
          fc.anything(),
        ),
        (thrown) => {
          assert.equal(classifyFailure(thrown), 'fault')
        },
      ),
    )
  })

  it('every code that describes the request (4xx, BOOKING_FAILED, OPERATION_NOT_SUPPORTED) is a refusal', () => {
    fc.assert(
      fc.property(fc.constantFrom(...answerCodes), details, (code, d) => {
        assert.equal(classifyFailure(new ApiError(code, undefined, d)), 'refusal')
      }),
    )
  })

  it('provider errors, timeouts and outages are faults unless definitive or a known refusal reason', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FAULT_CODES), details, reason, fc.boolean(), (code, d, why, definitive) => {
        const error = new ApiError(code, undefined, { ...d, reason: why, ...(definitive ? { retryable: false } : {}) })
        const expected = definitive || REFUSAL_REASONS.has(why) ? 'refusal' : 'fault'
        assert.equal(classifyFailure(error), expected, JSON.stringify(error.details))
      }),
    )
    for (const reason of ['OPERATOR_ERROR', 'OPERATOR_UNREACHABLE', 'OPERATOR_BAD_RESPONSE', 'SIMULATED_FAILURE']) {
      assert.equal(classifyFailure(new ApiError('PROVIDER_ERROR', undefined, { reason })), 'fault', reason)
    }
    assert.equal(classifyFailure(new ApiError('PROVIDER_ERROR', undefined, { retryable: true })), 'fault')
  })

  it('the shared refusals are refusals', () => {
    assert.equal(classifyFailure(vehicleNotAvailable()), 'refusal')
    assert.equal(vehicleNotAvailable().code, 'OFFER_EXPIRED')
    assert.equal(classifyFailure(permanentProviderError('TRIP_ENDED')), 'refusal')
    assert.equal(permanentProviderError('TRIP_ENDED').details?.retryable, false)
  })

  it('contention on one trip or booking is not a provider fault; a busy station or fleet is', () => {
    for (const reason of ['TRIP_BUSY', 'BOOKING_BUSY'])
      assert.equal(classifyFailure(new ApiError('PROVIDER_ERROR', undefined, { reason })), 'refusal', reason)
    for (const reason of ['STATION_BUSY', 'FLEET_BUSY'])
      assert.equal(classifyFailure(new ApiError('PROVIDER_ERROR', undefined, { reason })), 'fault', reason)
  })
})
