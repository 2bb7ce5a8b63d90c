import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { watchLoopStalls } from '../../src/platform/loop-stalls.ts'

/** The event loop held for `ms`, as a machine too busy to run the process holds it. */
function block(ms: number) {
  const until = performance.now() + ms
  while (performance.now() < until) {}
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('loop stalls: what tells a late timer from a server that did not answer', () => {
  it('a loop that runs explains no timeout', async () => {
    const stalls = watchLoopStalls()
    try {
      await pause(300)
      assert.equal(stalls.explains(1500), false)
      assert.equal(stalls.explains(200), false)
    } finally {
      stalls.close()
    }
  })

  it('a stall explains a timeout at once (before the watch has run again) and afterwards, for two timeouts', async () => {
    const stalls = watchLoopStalls()
    try {
      await pause(150)
      const before = performance.now()
      block(600)
      // A query's late timer may run before the watch's: the stall under way counts.
      assert.ok(stalls.stalledSince(before) >= 450, `stalled ${stalls.stalledSince(before)} ms`)
      assert.equal(stalls.explains(1500), true, 'a third of a 1.5 s timeout')
      assert.equal(stalls.explains(200), true)
      await pause(150)
      assert.ok(stalls.stalledSince(before) >= 450, 'and once the watch has run')
      assert.equal(stalls.explains(1500), true)
      // Two timeouts of 200 ms later the stall explains no 200 ms timeout any more.
      await pause(450)
      assert.equal(stalls.explains(200), false)
      assert.equal(stalls.explains(1500), true)
    } finally {
      stalls.close()
    }
  })

  it('a stall shorter than a third of the timeout does not explain it', async () => {
    const stalls = watchLoopStalls()
    try {
      await pause(150)
      block(200)
      assert.equal(stalls.explains(1500), false)
    } finally {
      stalls.close()
    }
  })
})
