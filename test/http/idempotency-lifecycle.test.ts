import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { searchCars } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import {
  ALEX,
  assertReplay,
  newKey,
  otherInstance,
  roomyKey,
  rowsOf,
  scooter,
  send,
  waitForRunning,
} from '../helpers/idempotency.ts'

const DAY_MS = 24 * 3_600_000
/** The lease with the default settings: the larger of REQUEST_TIMEOUT_MS and SEARCH_TIMEOUT_MS, plus 60 s. */
const LEASE_MS = 30_000 + 60_000
const SLOW = { 'x-sandbox-scenario': 'provider-slow:sandbox-scoot' }
const searchBody = (limit = 2) => ({ location: ALEX, radiusMeters: 1000, providers: ['sandbox-scoot'], limit })

describe('Idempotency-Key: what is not kept, running requests, leases and expiry', { skip: skipReason }, () => {
  let h: Harness
  let tenantId: string
  let key: string
  let testKey: string
  before(async () => {
    h = await startHarness()
    tenantId = (await createTenant(h)).tenant.id
    key = await roomyKey(h, tenantId)
    testKey = await roomyKey(h, tenantId, 'test')
  })
  after(() => h.close())

  it('a validation failure or a refusal of the input is not kept: the corrected request runs under the same key', async () => {
    const v = await scooter(h, key)
    const idem = newKey()
    const invalid = await send(h, {
      key,
      path: '/micromobility/trips',
      body: { action: 'FLY', vehicleToken: v.vehicleToken },
      idem,
    })
    assert.equal(invalid.status, 400, invalid.text)
    // Refused by the trip rules rather than the schema: a 400 all the same, nothing was done.
    const refused = await send(h, { key, path: '/micromobility/trips', body: { action: 'RESERVE' }, idem })
    assert.equal(refused.status, 400, refused.text)
    const body = { action: 'RESERVE', vehicleToken: v.vehicleToken }
    const fixed = await send(h, { key, path: '/micromobility/trips', body, idem })
    assert.equal(fixed.status, 201, fixed.text)
    assert.equal(fixed.headers['idempotent-replayed'], undefined)
    assertReplay(fixed, await send(h, { key, path: '/micromobility/trips', body, idem }))
  })

  it('a 5xx is not kept: the retry runs again and succeeds', async () => {
    const v = await scooter(h, testKey)
    const body = { action: 'RESERVE', vehicleToken: v.vehicleToken }
    const idem = newKey()
    const failed = await send(h, {
      key: testKey,
      path: '/micromobility/trips',
      body,
      idem,
      headers: { 'x-sandbox-scenario': 'provider-error:sandbox-scoot' },
    })
    assert.ok(failed.status >= 500, failed.text)
    assert.equal((await rowsOf(h, tenantId)).filter((r) => r.status !== null && r.status >= 500).length, 0)
    const retried = await send(h, { key: testKey, path: '/micromobility/trips', body, idem })
    assert.equal(retried.status, 201, retried.text)
    assert.equal(retried.headers['idempotent-replayed'], undefined)
  })

  it('while the first request runs: 409 INTERNAL_ERROR IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After; then its answer', async () => {
    const own = await createTenant(h)
    const ownKey = await roomyKey(h, own.tenant.id, 'test')
    const idem = newKey()
    const slow = send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem, headers: SLOW, instance: 0 })
    await waitForRunning(h, own.tenant.id)
    const busy = await send(h, {
      key: ownKey,
      path: '/micromobility',
      body: searchBody(),
      idem,
      instance: otherInstance(h),
    })
    assert.equal(busy.status, 409, busy.text)
    assert.equal(busy.body.error.code, 'INTERNAL_ERROR')
    assert.equal(busy.body.error.details.reason, 'IDEMPOTENCY_KEY_IN_PROGRESS')
    assert.equal(busy.headers['retry-after'], '1')
    assert.match(busy.body.error.message, /still running/)
    const other = await send(h, { key: ownKey, path: '/micromobility', body: searchBody(3), idem })
    assert.equal(other.status, 422, 'another body is refused even while the first runs')
    const first = await slow
    assert.equal(first.status, 200, first.text)
    assertReplay(first, await send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem }))
  })

  it('a key whose request stopped holding it (crashed instance) is taken over once the lease ran out', async () => {
    const own = await createTenant(h)
    const ownKey = await roomyKey(h, own.tenant.id, 'test')
    const idem = newKey()
    const slow = send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem, headers: SLOW, instance: 0 })
    await waitForRunning(h, own.tenant.id)
    h.clock.advance(LEASE_MS - 5_000)
    const held = await send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem })
    assert.equal(held.status, 409, 'still within the lease')
    h.clock.advance(10_000)
    const taken = await send(h, {
      key: ownKey,
      path: '/micromobility',
      body: searchBody(),
      idem,
      instance: otherInstance(h),
    })
    assert.equal(taken.status, 200, taken.text)
    assert.equal(taken.headers['idempotent-replayed'], undefined)
    // The old holder finishes late: it answers its own client but may no longer write the key.
    assert.equal((await slow).status, 200)
    assertReplay(taken, await send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem }))
  })

  it('answers are replayed for 24 hours, never after (even before the sweep); the sweep job deletes them', async () => {
    const own = await createTenant(h)
    const ownKey = await roomyKey(h, own.tenant.id)
    const idem = newKey()
    const unused = newKey()
    const first = await send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem })
    assert.equal(first.status, 200, first.text)
    await send(h, { key: ownKey, path: '/micromobility', body: searchBody(1), idem: unused })
    h.clock.advance(DAY_MS - 1000)
    assertReplay(first, await send(h, { key: ownKey, path: '/micromobility', body: searchBody(), idem }))
    h.clock.advance(2000)
    // Another body under the old key: a new request now, not 422.
    const later = await send(h, { key: ownKey, path: '/micromobility', body: searchBody(3), idem })
    assert.equal(later.status, 200, later.text)
    assert.equal(later.headers['idempotent-replayed'], undefined)
    const expired = (await rowsOf(h, own.tenant.id)).filter((r) => r.expiresAt <= h.clock())
    assert.equal(expired.length, 1, 'the unused key is still stored, but expired')

    const idempotency = h.apps[0].services.idempotency
    await idempotency.scheduleSweep()
    await idempotency.scheduleSweep()
    let ran = 0
    for (const runtime of h.runtimes) ran += await runtime.jobs.runDue(50)
    assert.ok(ran >= 1)
    const left = await rowsOf(h, own.tenant.id)
    assert.equal(left.length, 1, 'only the live key is left')
    assert.ok(left[0].expiresAt > h.clock())
    assert.equal((await h.runtimes[0].jobs.get('idempotency_sweep'))?.status, 'done')
  })

  it('answers over IDEMPOTENCY_MAX_ANSWER_BYTES (large searches) are not kept; the request simply runs again', async () => {
    const idem = newKey()
    const big = await searchCars(h, key, { limit: 100 }, { 'idempotency-key': idem })
    assert.equal(big.status, 200, big.text)
    assert.ok(big.text.length > 65_536, `${big.text.length} bytes`)
    const again = await searchCars(h, key, { limit: 100 }, { 'idempotency-key': idem })
    assert.equal(again.status, 200)
    assert.equal(again.headers['idempotent-replayed'], undefined)
  })
})
