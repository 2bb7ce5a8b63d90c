import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import {
  createKey,
  createTenant,
  type Harness,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'
import { startTompOperator, type TompOperator } from '../helpers/tomp-operator.ts'

/**
 * A TOMP-API operator configured in a PROVIDERS_FILE, seen only through the public API: its vehicles in search,
 * a whole trip (reserve, start, lock, unlock, end) that the operator carries out, and a cancelled reservation.
 */

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

describe('a TOMP provider from the providers file', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  let operator: TompOperator
  before(async () => {
    // The operator lives on the service's clock (once there is a service), as a real one shares the time of day.
    operator = await startTompOperator({ clock: () => (h ? h.clock() : new Date()), apiKey: 'freebike-key' })
    const file = join(mkdtempSync(join(tmpdir(), 'providers-')), 'providers.yaml')
    writeFileSync(
      file,
      [
        'providers:',
        '  - id: freebike',
        '    name: FreeBike Berlin',
        '    connector: tomp',
        '    environments: [live]',
        '    countries: [DE]',
        `    options: { url: "${operator.url}", apiKey: freebike-key, maasId: mas-test, trips: true }`,
      ].join('\n'),
    )
    h = await startHarness({ env: { PROVIDERS_FILE: file } })
    t = await createTenant(h)
  })
  after(async () => {
    await h.close()
    await operator.close()
  })

  const search = (body: Record<string, unknown> = {}) =>
    h.api('POST', '/micromobility', t.secret, { location: ALEX, radiusMeters: 1500, limit: 100, ...body })
  const trip = (path: string, body?: unknown) => h.api('POST', `/micromobility/trips${path}`, t.secret, body)
  /** Polls the trip, as a client would, until its last vehicle action has run. */
  const settled = async (tripId: string) => {
    for (let i = 0; i < 100; i++) {
      for (const r of h.runtimes) await r.jobs.runDue(50)
      const res = await h.api('GET', `/micromobility/trips/${tripId}`, t.secret)
      if (res.body.data.lastAction?.status !== 'QUEUED') return res
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error('the vehicle action never ran')
  }

  it('serves its vehicles in search: nearest first, priced, with vehicle tokens; listed as a trip-capable provider', async () => {
    const res = await search()
    assert.equal(res.status, 200, res.text)
    const { results: vehicles, providers } = res.body.data
    assert.deepEqual(providers, [{ id: 'freebike', name: 'FreeBike Berlin', status: 'OK', vehicles: vehicles.length }])
    assert.ok(vehicles.length > 20)
    const distances = vehicles.map((v: any) => v.distanceFromSearch)
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    )
    for (const v of vehicles) {
      assert.equal(v.provider.id, 'freebike')
      assert.equal(v.pricingPlan.currency, 'EUR')
      assert.equal(Boolean(v.vehicleToken), v.isAvailable, 'tokens for the vehicles one can ride')
      assert.match(v.deepLinks.web, /^https:\/\/freebike\.example\/rent\?asset=FB-\d{4}$/)
    }
    const mopeds = await search({ vehicleTypes: ['MOPED'] })
    assert.ok(mopeds.body.data.results.length > 0)
    assert.ok(mopeds.body.data.results.every((v: any) => v.vehicle.type === 'MOPED'))
    // Every request to the operator carried the key and the headers TOMP asks for.
    assert.ok(
      operator.requests.every((r) => r.headers['x-api-key'] === 'freebike-key' && r.headers['maas-id'] === 'mas-test'),
    )

    const directory = await h.api('GET', '/mobility-providers', t.secret)
    const freebike = directory.body.data.providers.find((p: any) => p.id === 'freebike')
    assert.equal(freebike.status, 'ACTIVE')
    assert.deepEqual(freebike.modalities, ['SCOOTER', 'BIKE', 'MOPED'])
    assert.deepEqual(freebike.capabilities.operations, ['SEARCH', 'ZONES', 'TRIPS', 'VEHICLE_ACTIONS'])
    assert.equal(freebike.capabilities.freeFloating, true)
  })

  it('a whole trip through the operator: reserve, start, lock, unlock, end with the price', async () => {
    const { results: vehicles } = (await search()).body.data
    const v = vehicles.find((x: any) => x.isAvailable && x.batteryPercent >= 40 && x.vehicle.type === 'SCOOTER')
    const reserved = await trip('', { action: 'RESERVE', vehicleToken: v.vehicleToken, userEmail: 'rider@example.com' })
    assert.equal(reserved.status, 201, reserved.text)
    const tripId = reserved.body.data.tripId
    const booking = () => operator.bookingOf(v.vehicleId)
    assert.equal(reserved.body.data.status, 'RESERVED')
    assert.equal(booking()?.state, 'CONFIRMED', 'booked and committed at the operator')
    const held = (await search()).body.data.results.find((x: any) => x.vehicleId === v.vehicleId)
    assert.equal(held.isAvailable, false, 'the operator lists it as reserved')
    assert.equal(held.vehicleToken, undefined)

    const started = await trip('', { action: 'START', tripId })
    assert.equal(started.status, 201, started.text)
    assert.equal(started.body.data.status, 'ACTIVE')
    assert.deepEqual(started.body.data.startLocation, {
      latitude: v.location.latitude,
      longitude: v.location.longitude,
    })
    assert.equal(booking()?.legState, 'IN_USE')

    h.clock.advance(10 * 60_000)
    const lock = await trip(`/${tripId}/vehicle-action`, { action: 'LOCK' })
    assert.equal(lock.status, 202, lock.text)
    assert.equal((await settled(tripId)).body.data.status, 'PAUSED')
    assert.equal(booking()?.legState, 'PAUSED', 'PAUSE at the operator')
    h.clock.advance(5 * 60_000)
    await trip(`/${tripId}/vehicle-action`, { action: 'UNLOCK' })
    assert.equal((await settled(tripId)).body.data.status, 'ACTIVE')
    assert.equal(booking()?.legState, 'IN_USE', 'SET_IN_USE resumes the leg')

    // TOMP-API 1.6.1 has no horn: the command fails and the ride goes on.
    const honk = await trip(`/${tripId}/vehicle-action`, { action: 'HONK' })
    assert.equal(honk.status, 500, honk.text)
    assert.equal(honk.body.error.code, 'PROVIDER_ERROR')
    assert.equal(honk.body.error.details.reason, 'COMMAND_NOT_SUPPORTED')
    assert.equal((await settled(tripId)).body.data.status, 'ACTIVE')

    const endLocation = { latitude: 52.5205, longitude: 13.4095 }
    const ended = await trip(`/${tripId}/end`, { endLocation })
    assert.equal(ended.status, 200, ended.text)
    assert.equal(ended.body.data.status, 'COMPLETED')
    assert.deepEqual(ended.body.data.endLocation, endLocation)
    const pb = ended.body.data.priceBreakdown
    assert.deepEqual([pb.activeMinutes, pb.pausedMinutes], [10, 5])
    assert.deepEqual(pb.unlockFee, { amount: 100, currency: 'EUR' })
    assert.deepEqual(pb.perMinuteRate, { amount: 25, currency: 'EUR' })
    assert.equal(pb.total.amount, 100 + 25 * 15)
    assert.equal(booking()?.state, 'FINISHED')

    const after = (await search({ location: endLocation, radiusMeters: 50 })).body.data.results
    const back = after.find((x: any) => x.vehicleId === v.vehicleId)
    assert.ok(back?.isAvailable, 'available again where the ride ended')
    assert.deepEqual(back.location.latitude, endLocation.latitude)
    assert.ok(back.batteryPercent < v.batteryPercent, 'the ride used some charge')
  })

  it('riders racing for one vehicle: one trip, the others 404 OFFER_EXPIRED; refusals never open the breaker', async () => {
    const roomy = (await createKey(h, t.tenant.id, { rateLimit: { limit: 10_000, windowSeconds: 60 } })).secret
    const { results: vehicles } = (await search()).body.data
    const v = vehicles.find((x: any) => x.isAvailable && x.vehicle.type === 'SCOOTER' && x.batteryPercent >= 40)
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        h.api('POST', '/micromobility/trips', roomy, {
          action: i % 2 ? 'START' : 'RESERVE',
          vehicleToken: v.vehicleToken,
          userEmail: 'rider@example.com',
        }),
      ),
    )
    const won = answers.filter((r) => r.status === 201)
    assert.equal(won.length, 1, answers.map((r) => r.text).join('\n'))
    for (const lost of answers.filter((r) => r.status !== 201)) {
      assert.equal(lost.status, 404, lost.text)
      assert.equal(lost.body.error.code, 'OFFER_EXPIRED', lost.text)
      assert.equal(lost.body.error.details.reason, 'VEHICLE_NOT_AVAILABLE', lost.text)
    }
    // The operator refuses every horn (TOMP 1.6.1 has none): definitive answers, so no breaker counts them.
    const tripId = won[0].body.data.tripId
    for (let i = 0; i < 8; i++) {
      const honk = await h.api('POST', `/micromobility/trips/${tripId}/vehicle-action`, roomy, { action: 'HONK' })
      assert.equal(honk.status, 500, honk.text)
      assert.equal(honk.body.error.details.reason, 'COMMAND_NOT_SUPPORTED')
      assert.equal(honk.body.error.details.retryable, false)
    }
    for (let instance = 0; instance < h.apps.length; instance++) {
      const after = await h.request({
        method: 'POST',
        url: '/mobility-api/v2/micromobility',
        key: roomy,
        body: { location: ALEX, radiusMeters: 1500, limit: 5 },
        instance,
      })
      assert.equal(after.status, 200, after.text)
      assert.equal(after.body.data.providers[0].status, 'OK', after.text)
    }
    const done = won[0].body.data.status === 'RESERVED' ? `/${tripId}/cancel` : `/${tripId}/end`
    assert.equal((await h.api('POST', `/micromobility/trips${done}`, roomy, {})).status, 200)
  })

  it('a vehicle taken between the look-up of its token and the booking answers as a taken one: 404 OFFER_EXPIRED', async () => {
    // What a rider winning the race on another instance does to this one, made to happen at the one bad moment: the
    // trip's look-up of the vehicle reads the operator (the copy of the fleet is stale), which still lists it; the
    // moment that answer is made another rider starts the vehicle and the copy is stale again, so the connector's own
    // look just after reads the fleet without it (a vehicle in use leaves TOMP's available assets).
    const refresh = 31_000
    const free = (await search()).body.data.results.filter((x: any) => x.isAvailable)
    for (const [i, action] of (['RESERVE', 'START'] as const).entries()) {
      const v = free[i]
      h.clock.advance(refresh)
      let taken = false
      operator.afterGet('operator/available-assets', () => {
        operator.take(v.vehicleId)
        taken = true
        h.clock.advance(refresh)
      })
      const lost = await trip('', { action, vehicleToken: v.vehicleToken, userEmail: 'rider@example.com' })
      assert.ok(taken, 'the look-up read the operator')
      assert.equal(lost.status, 404, lost.text)
      assert.equal(lost.body.error.code, 'OFFER_EXPIRED', lost.text)
      assert.equal(lost.body.error.details.reason, 'VEHICLE_NOT_AVAILABLE', lost.text)
      assert.match(operator.bookingOf(v.vehicleId)?.id ?? '', /^BK-OTHER-/, 'no booking of ours at the operator')
    }
  })

  it('a cancelled reservation is cancelled at the operator and the vehicle is free again', async () => {
    const { results: vehicles } = (await search()).body.data
    const v = vehicles.find((x: any) => x.isAvailable)
    const reserved = await trip('', { action: 'RESERVE', vehicleToken: v.vehicleToken })
    const tripId = reserved.body.data.tripId
    const cancelled = await trip(`/${tripId}/cancel`)
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    assert.equal(operator.bookingOf(v.vehicleId)?.state, 'CANCELLED', 'CANCEL at the operator')
    const free = (await search()).body.data.results.find((x: any) => x.vehicleId === v.vehicleId)
    assert.equal(free.isAvailable, true)
  })
})
