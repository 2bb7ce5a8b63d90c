import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.ts'

describe('configuration of memory bounds and load shedding', () => {
  it('has defaults that bound sessions and shed at 85 % of the heap limit', () => {
    // The runtime turns an unset SEARCH_SESSIONS_MAX_MB into its default (it depends on the heap limit).
    const config = loadConfig({})
    assert.equal(config.searchSessionsMax, 100_000)
    assert.equal(config.searchSessionsMaxBytes, undefined, '128 MiB, at most an eighth of the heap limit in memory')
    assert.equal(config.heapLimitFraction, 0.85)
    assert.equal(config.memoryLimitBytes, undefined)
    assert.equal(config.eventLoopDelayLimitMs, 0)
  })

  it('reads every variable and lists the bad ones together', () => {
    const config = loadConfig({
      SEARCH_SESSIONS_MAX: '500',
      SEARCH_SESSIONS_MAX_MB: '64',
      HEAP_LIMIT_PERCENT: '70',
      MEMORY_LIMIT_MB: '900',
      EVENT_LOOP_DELAY_LIMIT_MS: '250',
    })
    assert.equal(config.searchSessionsMax, 500)
    assert.equal(config.searchSessionsMaxBytes, 64 * 1024 * 1024)
    assert.equal(config.heapLimitFraction, 0.7)
    assert.equal(config.memoryLimitBytes, 900 * 1024 * 1024)
    assert.equal(config.eventLoopDelayLimitMs, 250)
    try {
      loadConfig({
        SEARCH_SESSIONS_MAX: '0',
        SEARCH_SESSIONS_MAX_MB: 'lots',
        HEAP_LIMIT_PERCENT: '120',
        MEMORY_LIMIT_MB: '1',
        EVENT_LOOP_DELAY_LIMIT_MS: '-5',
      })
      assert.fail('should throw')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      const names = ['SEARCH_SESSIONS_MAX ', 'SEARCH_SESSIONS_MAX_MB', 'HEAP_LIMIT_PERCENT', 'MEMORY_LIMIT_MB']
      for (const name of [...names, 'EVENT_LOOP_DELAY_LIMIT_MS'])
        assert.ok(
          error.problems.some((p) => p.startsWith(name)),
          name,
        )
    }
  })
})
