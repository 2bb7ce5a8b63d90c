import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { runFuzz } from '../fuzz/fuzzer.ts'
import { report } from '../fuzz/report.ts'
import { createTenant, type Harness, SHAPE, skipReason, startHarness } from '../helpers/harness.ts'

/**
 * A slice of `npm run fuzz` (test/fuzz/): generated bad input over every operation of the OpenAPI document. The seed
 * is fixed so the slice is the same in every run; FUZZ_SEED picks another, FUZZ_TEST_REQUESTS another size.
 */
const seed = Number(process.env.FUZZ_SEED ?? 20261124)
const requests = Number(process.env.FUZZ_TEST_REQUESTS ?? 400)

describe('generated bad input never breaks the service', { skip: skipReason }, () => {
  let h: Harness
  before(async () => {
    // Forged keys would soon have 127.0.0.1 refused (429) before any key is checked; the throttle has tests of its own.
    h = await startHarness({ env: { AUTH_FAILURE_LIMIT: '0' } })
  })
  after(() => h.close())

  it(`answers ${requests} fuzzed requests with the envelope and no 5xx that nothing asked for`, async () => {
    const result = await runFuzz(h, {
      requests,
      seed,
      concurrency: 8,
      batch: 200,
      clockStepMs: 15_000,
      timeoutMs: 30_000,
      log: () => {},
    })
    assert.equal(result.requests, requests)
    assert.equal(result.findings.size, 0, report(result, seed, `fuzz slice (${SHAPE})`))
    // Every operation was tried, and the service still answers normally afterwards.
    assert.ok(result.byRoute.size >= 40, `only ${result.byRoute.size} operations were tried`)
    const t = await createTenant(h)
    assert.equal((await h.api('GET', '/auth/check', t.secret)).status, 200)
  })
})
