import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { serverLimits } from '../../src/http/server-limits.ts'

describe('server limits', () => {
  it('default to a 30 s request timeout, 10 s for headers, 72 s keep-alive and 10,000 connections', () => {
    const limits = serverLimits(loadConfig({}))
    assert.deepEqual(limits, {
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      idleTimeoutMs: 144_000,
      checkIntervalMs: 1000,
      maxConnections: 10_000,
    })
  })

  it('keep the headers timeout within the request timeout and check deadlines often enough to keep short ones', () => {
    const limits = serverLimits(loadConfig({ REQUEST_TIMEOUT_MS: '1500', MAX_CONNECTIONS: '20' }))
    assert.equal(limits.headersTimeoutMs, 1500)
    assert.equal(limits.checkIntervalMs, 375)
    assert.equal(limits.maxConnections, 20)
    // Never shorter than the longest answer the service may compute without writing a byte.
    assert.ok(serverLimits(loadConfig({ SEARCH_TIMEOUT_MS: '120000' })).idleTimeoutMs >= 240_000)
  })

  it('refuses values that would disable them', () => {
    assert.throws(
      () => loadConfig({ REQUEST_TIMEOUT_MS: '0', MAX_CONNECTIONS: '0', KEEP_ALIVE_TIMEOUT_MS: 'x' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        ['REQUEST_TIMEOUT_MS', 'MAX_CONNECTIONS', 'KEEP_ALIVE_TIMEOUT_MS'].every((name) =>
          error.problems.some((p) => p.startsWith(name)),
        ),
    )
  })
})
