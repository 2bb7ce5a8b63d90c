import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, configWarnings, loadConfig } from '../../src/config.ts'

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
      })
      assert.fail('should throw')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      const text = error.problems.join('\n')
      for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'SEARCH_TIMEOUT_MS', 'TOKEN_KEYS']) {
        assert.match(text, new RegExp(name))
      }
    }
  })

  it('lists a malformed TOKEN_KEYS with the others instead of failing later', () => {
    try {
      loadConfig({ TOKEN_KEYS: 'bad', PORT: 'abc' })
      assert.fail('should throw')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      assert.equal(error.problems.length, 2, error.problems.join('\n'))
      assert.ok(error.problems.some((p) => /^TOKEN_KEYS entry 1: key/.test(p)))
    }
  })

  it('takes any admin token and small timeouts (DECISIONS sets no bounds), warning about a short token', () => {
    const config = loadConfig({ ADMIN_TOKEN: 'admin', OFFER_TOKEN_TTL_SECONDS: '1', SEARCH_TIMEOUT_MS: '50' })
    assert.equal(config.adminToken, 'admin')
    assert.equal(config.offerTokenTtlSeconds, 1)
    assert.equal(config.searchTimeoutMs, 50)
    assert.match(configWarnings(config).join('\n'), /ADMIN_TOKEN/)
    assert.deepEqual(configWarnings(loadConfig({ ADMIN_TOKEN: 'a'.repeat(32) })), [])
  })

  it('throttles failed authentications by default (100 per 60 s), trusts no proxy, and checks both settings', () => {
    const config = loadConfig({})
    assert.equal(config.authFailureLimit, 100)
    assert.equal(config.authFailureWindowSeconds, 60)
    assert.equal(config.trustProxy, false)
    const set = loadConfig({ AUTH_FAILURE_LIMIT: '0', AUTH_FAILURE_WINDOW_SECONDS: '600', TRUST_PROXY: '2' })
    assert.deepEqual([set.authFailureLimit, set.authFailureWindowSeconds, set.trustProxy], [0, 600, 2])
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true)
    const list = '10.0.0.0/8, loopback,2001:db8::/32'
    assert.equal(loadConfig({ TRUST_PROXY: list }).trustProxy, list)
    try {
      loadConfig({
        AUTH_FAILURE_LIMIT: '-1',
        AUTH_FAILURE_WINDOW_SECONDS: '0',
        TRUST_PROXY: '10.0.0.0/33,proxy.example',
      })
      assert.fail('should throw')
    } catch (error) {
      assert.ok(error instanceof ConfigError)
      const text = error.problems.join('\n')
      assert.match(text, /AUTH_FAILURE_LIMIT/)
      assert.match(text, /AUTH_FAILURE_WINDOW_SECONDS/)
      assert.match(text, /TRUST_PROXY: not an address or CIDR range: 10\.0\.0\.0\/33, proxy\.example/)
    }
  })
})
