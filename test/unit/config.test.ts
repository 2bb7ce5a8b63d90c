import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.ts'

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({})
    assert.equal(config.port, 3000)
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.searchTimeoutMs, 20_000)
    assert.equal(config.offerTokenTtlSeconds, 1200)
    assert.equal(config.adminToken, undefined)
  })

  it('lists every bad variable at once', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://x',
        SEARCH_TIMEOUT_MS: '-1',
        ADMIN_TOKEN: 'short',
      })
      assert.fail('should throw')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      const text = error.problems.join('\n')
      for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'SEARCH_TIMEOUT_MS', 'ADMIN_TOKEN', 'TOKEN_KEYS']) {
        assert.match(text, new RegExp(name))
      }
    }
  })
})
