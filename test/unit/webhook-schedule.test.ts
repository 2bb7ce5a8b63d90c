import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import {
  DISABLE_AFTER_MS,
  MAX_DELIVERY_ATTEMPTS,
  RETRY_DELAYS_MS,
  retryDelayMs,
} from '../../src/domain/webhooks/schedule.ts'

const HOUR = 3_600_000
/** The delays a delivery that always fails waits, with the given jitter source. */
const delays = (random: () => number) => {
  const out: number[] = []
  for (let attempt = 1; ; attempt++) {
    const delay = retryDelayMs(attempt, random)
    if (delay === undefined) return out
    out.push(delay)
  }
}

describe('webhook retry schedule', () => {
  it('first retry within 10 s, then growing waits, for at least 24 hours and past the 3 days that disable an endpoint', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(Number.NaN, -1, 2)), (r) => {
        const waits = delays(() => r)
        assert.equal(waits.length + 1, MAX_DELIVERY_ATTEMPTS)
        assert.ok(waits[0] > 0 && waits[0] <= 10_000, `first retry after ${waits[0]} ms`)
        const total = waits.reduce((a, b) => a + b, 0)
        assert.ok(total >= 24 * HOUR, `retried for ${total / HOUR} h`)
        assert.ok(total >= DISABLE_AFTER_MS, 'the last attempt comes after the disable threshold')
        for (let i = 1; i < waits.length; i++) {
          assert.ok(waits[i] >= 0.9 * RETRY_DELAYS_MS[i] && waits[i] <= RETRY_DELAYS_MS[i])
        }
      }),
    )
  })

  it('follows Standard Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h', () => {
    assert.deepEqual(delays(() => 0).slice(0, 6), [5000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR])
    assert.equal(retryDelayMs(MAX_DELIVERY_ATTEMPTS), undefined, 'no retry after the last attempt')
    assert.equal(retryDelayMs(0), undefined)
  })
})
