import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createLoadGuard, type LoadReading, processReading } from '../../src/platform/load-guard.ts'

const MiB = 1024 * 1024
const calm: LoadReading = { heapUsed: 100 * MiB, heapLimit: 1000 * MiB, rss: 300 * MiB, eventLoopDelayMs: 5 }

/** Enough readings to fill the guard's window of five. */
const settle = (guard: { sample(): void }) => {
  for (let i = 0; i < 5; i++) guard.sample()
}

describe('load guard', () => {
  it('refuses at the heap threshold and admits again only clearly below it', () => {
    let reading = calm
    const changes: [boolean, string | undefined][] = []
    const guard = createLoadGuard({
      heapFraction: 0.85,
      eventLoopDelayLimitMs: 0,
      read: () => reading,
      intervalMs: 0,
      onChange: (overloaded, _reading, why) => changes.push([overloaded, why]),
    })
    settle(guard)
    assert.equal(guard.overloaded(), undefined)
    reading = { ...calm, heapUsed: 850 * MiB }
    settle(guard)
    assert.equal(guard.overloaded(), 'heap')
    reading = { ...calm, heapUsed: 820 * MiB }
    settle(guard)
    assert.equal(guard.overloaded(), 'heap', 'still within 5 % of the threshold')
    reading = { ...calm, heapUsed: 800 * MiB }
    settle(guard)
    assert.equal(guard.overloaded(), undefined)
    assert.deepEqual(changes, [
      [true, 'heap'],
      [false, undefined],
    ])
    guard.close()
  })

  it('refuses above an RSS limit and, when set, above an event-loop delay', () => {
    let reading = calm
    const guard = createLoadGuard({
      heapFraction: 0.85,
      rssLimitBytes: 512 * MiB,
      eventLoopDelayLimitMs: 200,
      read: () => reading,
      intervalMs: 0,
    })
    reading = { ...calm, rss: 600 * MiB }
    settle(guard)
    assert.equal(guard.overloaded(), 'rss')
    reading = { ...calm, eventLoopDelayMs: 450 }
    settle(guard)
    assert.equal(guard.overloaded(), 'event-loop')
    reading = calm
    settle(guard)
    assert.equal(guard.overloaded(), undefined)
    const off = createLoadGuard({ heapFraction: 0.85, eventLoopDelayLimitMs: 0, read: () => reading, intervalMs: 0 })
    reading = { ...calm, eventLoopDelayMs: 5000, rss: 100_000 * MiB }
    settle(off)
    assert.equal(off.overloaded(), undefined, 'no RSS limit, no delay limit')
    guard.close()
    off.close()
  })

  it('does not refuse for a peak of garbage that the next collection removes', () => {
    let reading = calm
    const guard = createLoadGuard({ heapFraction: 0.85, eventLoopDelayLimitMs: 0, read: () => reading, intervalMs: 0 })
    settle(guard)
    reading = { ...calm, heapUsed: 900 * MiB }
    guard.sample()
    guard.sample()
    reading = calm
    guard.sample()
    reading = { ...calm, heapUsed: 900 * MiB }
    guard.sample()
    assert.equal(guard.overloaded(), undefined)
    for (let i = 0; i < 4; i++) guard.sample()
    assert.equal(guard.overloaded(), 'heap', 'five readings in a row above the threshold')
    guard.close()
  })

  it("reads this process's heap, RSS and event-loop delay", async () => {
    const { read, stop } = processReading()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const reading = read()
    stop()
    assert.ok(reading.heapUsed > 0 && reading.heapLimit > reading.heapUsed)
    assert.ok(reading.rss > reading.heapUsed / 2)
    assert.ok(reading.eventLoopDelayMs >= 0 && Number.isFinite(reading.eventLoopDelayMs))
  })
})
