import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyRequest } from 'fastify'
import { ok } from '../../src/http/envelope.ts'

test('envelope timestamp: what toISOString writes, for every millisecond, across seconds, years and 1970', () => {
  const request = { id: 'req_x', language: 'en' } as FastifyRequest
  const realNow = Date.now
  try {
    for (const base of [-5_000, 0, 1_795_573_707_000, 1_700_000_000_999, 253_402_300_795_000]) {
      for (let t = base; t < base + 10_000; t += 7) {
        Date.now = () => t
        assert.equal(ok(request, {}).meta.timestamp, new Date(t).toISOString())
      }
    }
  } finally {
    Date.now = realNow
  }
})
