import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

describe('micromobility search, look-ups and zones', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
  })
  after(() => h.close())

  const search = (body: Record<string, unknown>, key = t.secret, headers?: Record<string, string>) =>
    h.api('POST', '/micromobility', key, { location: ALEX, ...body }, headers)

  it('finds vehicles nearest first within 500 m by default; tokens for trip-capable providers, deep links otherwise', async () => {
    const res = await search({ limit: 100 })
    assert.equal(res.status, 200, res.text)
    const vehicles = res.body.data.results
    assert.ok(vehicles.length > 0)
    // Issue 21: the list sits under `results` only (spec 2.1); the old `vehicles` copy is gone.
    assert.deepEqual(Object.keys(res.body.data).sort(), ['pagination', 'providers', 'results'])
    const distances = vehicles.map((v: any) => v.distanceFromSearch)
    assert.deepEqual(
      distances,
      [...distances].sort((a, b) => a - b),
    )
    assert.ok(distances.every((d: number) => d <= 500))
    for (const p of res.body.data.providers) {
      const shown = vehicles.filter((v: any) => v.provider.id === p.id).length
      assert.equal(p.vehicles, shown, `${p.id} counts its vehicles on this page`)
    }
    const scoot = vehicles.find((v: any) => v.provider.id === 'sandbox-scoot' && v.isAvailable)
    assert.ok(scoot.vehicleToken && Date.parse(scoot.tokenValidUntil) > h.clock().getTime())
    assert.equal(scoot.pricingPlan.unlockFee.currency, 'EUR')
    const bike = vehicles.find((v: any) => v.provider.id === 'sandbox-bike')
    assert.ok(bike, 'a bike nearby')
    assert.equal(bike.vehicleToken, undefined)
    assert.ok(bike.deepLinks.web || bike.deepLinks.android)
  })

  it('filters by vehicle type, provider and battery; pages with a cursor', async () => {
    const bikes = await search({ vehicleTypes: ['BICYCLE'], radiusMeters: 3000, limit: 100 })
    assert.ok(bikes.body.data.results.every((v: any) => v.vehicle.type === 'BICYCLE'))
    const charged = await search({
      minBatteryPercent: 80,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    assert.ok(charged.body.data.results.length > 0)
    assert.ok(charged.body.data.results.every((v: any) => v.batteryPercent >= 80 && v.provider.id === 'sandbox-scoot'))
    // Across every provider: vehicles without a battery reading (human-powered bikes) do not pass a minimum.
    const anyCharged = await search({ minBatteryPercent: 50, radiusMeters: 3000, limit: 100 })
    assert.ok(anyCharged.body.data.results.some((v: any) => v.provider.id === 'sandbox-bike'))
    assert.ok(anyCharged.body.data.results.every((v: any) => v.batteryPercent >= 50))
    const first = await search({ radiusMeters: 3000, limit: 5 })
    assert.equal(first.body.data.results.length, 5)
    assert.equal(first.body.data.pagination.hasMore, true)
    const second = await search({ radiusMeters: 3000, limit: 5, cursor: first.body.data.pagination.nextCursor })
    const ids = new Set(first.body.data.results.map((v: any) => v.vehicleId))
    assert.ok(second.body.data.results.every((v: any) => !ids.has(v.vehicleId)))
    assert.ok(second.body.data.results[0].distanceFromSearch >= first.body.data.results[4].distanceFromSearch)
    const bad = await search({ cursor: 'nonsense-cursor-value-that-is-long-enough-to-look-real' })
    assert.equal(bad.body.error.code, 'INVALID_CURSOR')
  })

  it('validates: radius ≤ 5000, coordinates, known providers', async () => {
    assert.equal((await search({ radiusMeters: 5001 })).body.error.code, 'INVALID_REQUEST')
    const loc = await h.api('POST', '/micromobility', t.secret, { location: { latitude: 95, longitude: 13 } })
    assert.equal(loc.body.error.code, 'INVALID_LOCATION')
    const unknown = await search({ providers: ['nope'] })
    assert.equal(unknown.status, 400)
    assert.match(unknown.body.error.details.providers, /nope/)
  })

  it('allows publishable keys from allowed origins', async () => {
    const res = await search({ limit: 3 }, t.publishable, { origin: 'https://app.example' })
    assert.equal(res.status, 200)
    assert.equal(res.headers['access-control-allow-origin'], 'https://app.example')
  })

  it('a failing provider degrades the answer, never fails it', async () => {
    const res = await search({ limit: 100 }, t.test, { 'x-sandbox-scenario': 'provider-error:sandbox-bike' })
    assert.equal(res.status, 200)
    const status = Object.fromEntries(res.body.data.providers.map((p: any) => [p.id, p.status]))
    assert.equal(status['sandbox-bike'], 'FAILED')
    assert.equal(status['sandbox-scoot'], 'OK')
    assert.ok(res.body.data.results.every((v: any) => v.provider.id !== 'sandbox-bike'))
    const bike = res.body.data.providers.find((p: any) => p.id === 'sandbox-bike')
    assert.equal(bike.error.code, 'PROVIDER_ERROR')
    assert.equal(bike.error.message, 'The provider returned an error.')
  })

  it('looks vehicles up by QR code and id with a fresh token; expired tokens are 400 OFFER_EXPIRED', async () => {
    const qr = encodeURIComponent('sandbox:scoot-0001')
    const byQr = await h.api('GET', `/micromobility/vehicles/by-qr/${qr}`, t.secret)
    assert.equal(byQr.status, 200, byQr.text)
    assert.equal(byQr.body.data.vehicleId, 'scoot-0001')
    const token = byQr.body.data.vehicleToken
    assert.ok(token)
    const byId = await h.api(
      'GET',
      `/micromobility/vehicles/scoot-0001?vehicleToken=${encodeURIComponent(token)}`,
      t.secret,
    )
    assert.equal(byId.status, 200)
    assert.notEqual(byId.body.data.vehicleToken, token)
    assert.equal(
      (await h.api('GET', `/micromobility/vehicles/by-qr/${encodeURIComponent('sandbox:nope')}`, t.secret)).status,
      404,
    )
    // Bikes carry `sandbox:<vehicleId>` too (DECISIONS); search-only, so deep links instead of a token.
    const bike = await h.api(
      'GET',
      `/micromobility/vehicles/by-qr/${encodeURIComponent('sandbox:bike-0104')}`,
      t.secret,
    )
    assert.equal(bike.status, 200, bike.text)
    assert.equal(bike.body.data.vehicleId, 'bike-0104')
    assert.equal(bike.body.data.vehicleToken, undefined)
    assert.ok(bike.body.data.deepLinks)
    assert.equal((await h.api('GET', '/micromobility/vehicles/scoot-99999', t.secret)).status, 404)
    h.clock.advance(6 * 60_000)
    const expired = await h.api(
      'GET',
      `/micromobility/vehicles/scoot-0001?vehicleToken=${encodeURIComponent(token)}`,
      t.secret,
    )
    assert.equal(expired.status, 400)
    assert.equal(expired.body.error.code, 'OFFER_EXPIRED')
  })

  it('serves zones as GeoJSON with rules', async () => {
    const res = await h.api(
      'GET',
      `/micromobility/zones?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radiusMeters=5000`,
      t.secret,
    )
    assert.equal(res.status, 200, res.text)
    const zones = res.body.data.zones
    assert.ok(zones.length > 0)
    for (const z of zones) {
      assert.ok(['Polygon', 'MultiPolygon'].includes(z.geometry.type))
      assert.ok(Array.isArray(z.rules))
    }
    const kinds = new Set(zones.map((z: any) => z.kind))
    assert.ok(kinds.has('SERVICE_AREA'))
    // `radius` is an alias of radiusMeters, as for car stations and stops.
    const aliased = await h.api(
      'GET',
      `/micromobility/zones?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&radius=5000`,
      t.secret,
    )
    assert.equal(aliased.status, 200, aliased.text)
    assert.deepEqual(aliased.body.data.zones, zones)
    const one = await h.api('GET', '/micromobility/zones?provider=sandbox-scoot', t.secret)
    assert.ok(one.body.data.zones.every((z: any) => z.provider.id === 'sandbox-scoot'))
    assert.deepEqual(one.body.data.providers, [
      { id: 'sandbox-scoot', name: one.body.data.providers[0].name, status: 'OK', zones: one.body.data.zones.length },
    ])
    const failed = await h.api('GET', '/micromobility/zones?provider=sandbox-scoot', t.test, undefined, {
      'x-sandbox-scenario': 'provider-timeout:sandbox-scoot',
    })
    // The only provider asked did not answer: an error, with how it failed.
    assert.equal(failed.status, 504, failed.text)
    assert.equal(failed.body.error.code, 'TIMEOUT')
    assert.equal(failed.body.error.details.providers[0].status, 'TIMEOUT')
    assert.equal(failed.body.error.details.providers[0].error.code, 'TIMEOUT')
    const far = await h.api('GET', '/micromobility/zones?bbox=2.0,48.0,2.1,48.1', t.secret)
    assert.deepEqual(far.body.data.zones, [])
    assert.equal(
      (await h.api('GET', '/micromobility/zones?bbox=5,50,1,40', t.secret)).body.error.code,
      'INVALID_LOCATION',
    )
  })
})

describe('micromobility trips', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  const runJobs = async () => {
    for (const r of h.runtimes) await r.jobs.runDue(50)
  }
  /** Polls the trip, as a client would, until its last vehicle action has run (another instance may run it). */
  const settled = async (tripId: string, key = t.secret) => {
    for (let i = 0; i < 100; i++) {
      await runJobs()
      const res = await h.api('GET', `/micromobility/trips/${tripId}`, key)
      if (res.body.data.lastAction?.status !== 'QUEUED') return res
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error('the vehicle action never ran')
  }
  const scooter = async (key = t.secret, skip = 0) => {
    const res = await h.api('POST', '/micromobility', key, {
      location: ALEX,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    const available = res.body.data.results.filter(
      (v: any) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 20,
    )
    return available[skip]
  }
  const trips = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
    h.api('POST', '/micromobility/trips', key, body, headers)

  it('RESERVE → START (QR checked) → LOCK/UNLOCK/HONK → end with the price; paused minutes billed like active ones', async () => {
    const v = await scooter()
    const reserved = await trips(t.secret, {
      action: 'RESERVE',
      vehicleToken: v.vehicleToken,
      userEmail: 'rider@example.com',
      userName: 'Rider',
    })
    assert.equal(reserved.status, 201, reserved.text)
    const trip = reserved.body.data
    assert.equal(trip.status, 'RESERVED')
    assert.equal(Date.parse(trip.reservedUntil), h.clock().getTime() + 600_000)
    // The held vehicle is gone from search.
    const again = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    assert.ok(!again.body.data.results.some((x: any) => x.vehicleId === v.vehicleId && x.isAvailable))

    const mismatch = await trips(t.secret, {
      action: 'START',
      tripId: trip.tripId,
      scannedQrCode: 'sandbox:scoot-9999',
    })
    assert.equal(mismatch.status, 409)
    assert.equal(mismatch.body.error.code, 'VEHICLE_MISMATCH')
    const other = await scooter(t.secret, 1)
    const otherToken = await trips(t.secret, { action: 'START', tripId: trip.tripId, vehicleToken: other.vehicleToken })
    assert.equal(otherToken.status, 409, otherToken.text)
    assert.equal(otherToken.body.error.code, 'VEHICLE_MISMATCH')
    const honk = await h.api('POST', `/micromobility/trips/${trip.tripId}/vehicle-action`, t.secret, { action: 'HONK' })
    assert.equal(honk.status, 202)
    const started = await trips(t.secret, {
      action: 'START',
      tripId: trip.tripId,
      scannedQrCode: `sandbox:${v.vehicleId}`,
    })
    assert.equal(started.status, 201, started.text)
    assert.equal(started.body.data.status, 'ACTIVE')
    assert.ok(started.body.data.startedAt)
    assert.ok(started.body.data.startLocation, 'the vehicle position when no userLocation was sent')

    h.clock.advance(10 * 60_000)
    const lock = await h.api('POST', `/micromobility/trips/${trip.tripId}/vehicle-action`, t.secret, { action: 'LOCK' })
    assert.equal(lock.status, 202)
    assert.deepEqual(Object.keys(lock.body.data).sort(), ['acceptedAt', 'action', 'tripId'])
    const paused = await settled(trip.tripId)
    assert.equal(paused.body.data.status, 'PAUSED')
    assert.equal(paused.body.data.lastAction.status, 'EXECUTED')
    const lockAgain = await h.api('POST', `/micromobility/trips/${trip.tripId}/vehicle-action`, t.secret, {
      action: 'LOCK',
    })
    assert.equal(lockAgain.status, 400)
    assert.equal(lockAgain.body.error.details.reason, 'INVALID_TRIP_STATE')
    h.clock.advance(5 * 60_000)
    await h.api('POST', `/micromobility/trips/${trip.tripId}/vehicle-action`, t.secret, { action: 'UNLOCK' })
    const resumed = await settled(trip.tripId)
    assert.equal(resumed.body.data.status, 'ACTIVE')
    assert.equal(resumed.body.data.priceBreakdown, undefined, 'no price while polling')
    assert.deepEqual(resumed.body.data.duration, { activeMinutes: 10, pausedMinutes: 5 })

    const cancelActive = await h.api('POST', `/micromobility/trips/${trip.tripId}/cancel`, t.secret)
    assert.equal(cancelActive.status, 400)
    assert.equal(cancelActive.body.error.details.reason, 'INVALID_TRIP_STATE')

    const end = await h.api('POST', `/micromobility/trips/${trip.tripId}/end`, t.secret, {
      endLocation: { latitude: 52.52, longitude: 13.41 },
    })
    assert.equal(end.status, 200, end.text)
    const pb = end.body.data.priceBreakdown
    assert.equal(end.body.data.status, 'COMPLETED')
    assert.deepEqual([pb.activeMinutes, pb.pausedMinutes], [10, 5])
    assert.equal(pb.timeCharge.amount, pb.perMinuteRate.amount * 15)
    assert.equal(pb.total.amount, pb.unlockFee.amount + pb.timeCharge.amount)
    const polled = await h.api('GET', `/micromobility/trips/${trip.tripId}`, t.secret)
    assert.equal(polled.body.data.priceBreakdown, undefined)
    for (const [path, body] of [
      ['end', {}],
      ['vehicle-action', { action: 'HONK' }],
    ] as const) {
      const res = await h.api('POST', `/micromobility/trips/${trip.tripId}/${path}`, t.secret, body)
      assert.equal(res.status, 500, path)
      assert.equal(res.body.error.code, 'PROVIDER_ERROR')
    }
    assert.equal((await trips(t.secret, { action: 'START', tripId: trip.tripId })).body.error.code, 'PROVIDER_ERROR')
    const cancelEnded = await h.api('POST', `/micromobility/trips/${trip.tripId}/cancel`, t.secret)
    assert.equal(cancelEnded.status, 500)
    assert.equal(cancelEnded.body.error.code, 'PROVIDER_ERROR')
  })

  it('a reservation that runs out becomes CANCELLED with RESERVATION_EXPIRED and the vehicle is released', async () => {
    const v = await scooter(t.secret, 1)
    const reserved = await trips(t.secret, { action: 'RESERVE', vehicleToken: v.vehicleToken })
    assert.equal(reserved.headers.location, `/mobility-api/v2/micromobility/trips/${reserved.body.data.tripId}`)
    assert.equal(reserved.status, 201, reserved.text)
    h.clock.advance(601_000)
    await runJobs()
    const read = await h.api('GET', `/micromobility/trips/${reserved.body.data.tripId}`, t.secret)
    assert.equal(read.body.data.status, 'CANCELLED')
    assert.equal(read.body.data.cancellationReason, 'RESERVATION_EXPIRED')
    const found = await h.api('GET', `/micromobility/vehicles/${v.vehicleId}`, t.secret)
    assert.equal(found.body.data.isAvailable, true)
  })

  it('cancels a reservation at no charge; the reservation window is per tenant', async () => {
    const short = await createTenant(h, { reservationWindowSeconds: 120 })
    const v = await scooter(short.secret, 2)
    const reserved = await trips(short.secret, { action: 'RESERVE', vehicleToken: v.vehicleToken })
    assert.equal(Date.parse(reserved.body.data.reservedUntil), h.clock().getTime() + 120_000)
    const cancelled = await h.api('POST', `/micromobility/trips/${reserved.body.data.tripId}/cancel`, short.secret)
    assert.equal(cancelled.status, 200)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
    assert.equal(cancelled.body.data.priceBreakdown, undefined)
    // A cancelled trip is over: spec 7.1 answers PROVIDER_ERROR for a trip that already ended.
    const again = await h.api('POST', `/micromobility/trips/${reserved.body.data.tripId}/cancel`, short.secret)
    assert.equal(again.status, 500)
    assert.equal(again.body.error.code, 'PROVIDER_ERROR')
  })

  it('starts without reservation; keeps userLocation at most 24 hours', async () => {
    const v = await scooter(t.secret, 3)
    const userLocation = { latitude: 52.5218, longitude: 13.4131 }
    const started = await trips(t.secret, { action: 'START', vehicleToken: v.vehicleToken, userLocation })
    assert.equal(started.status, 201, started.text)
    assert.deepEqual(started.body.data.userLocation, userLocation)
    assert.deepEqual(started.body.data.startLocation, userLocation)
    h.clock.advance(24 * 3600_000 + 1000)
    await runJobs()
    const read = await h.api('GET', `/micromobility/trips/${started.body.data.tripId}`, t.secret)
    assert.equal(read.body.data.userLocation, undefined)
    assert.notDeepEqual(read.body.data.startLocation, userLocation, 'the vehicle position replaces the rider position')
    const rows = await h.runtimes[0].store.db.execute(
      `SELECT user_location FROM micromobility_trips WHERE id = '${started.body.data.tripId}'` as never,
    )
    assert.equal((rows as any).rows[0].user_location, null, 'erased by the job')
  })

  it('refuses bad tokens, other tenants, publishable keys and search-only vehicles', async () => {
    const v = await scooter(t.secret, 4)
    const garbage = await trips(t.secret, { action: 'RESERVE', vehicleToken: 'garbage-token' })
    assert.equal(garbage.status, 404)
    assert.equal(garbage.body.error.code, 'NOT_FOUND')
    const missing = await trips(t.secret, { action: 'RESERVE' })
    assert.equal(missing.status, 400)
    const other = await createTenant(h)
    const foreign = await trips(other.secret, { action: 'RESERVE', vehicleToken: v.vehicleToken })
    assert.equal(foreign.status, 404)
    const reserved = await trips(t.secret, { action: 'RESERVE', vehicleToken: v.vehicleToken })
    assert.equal((await h.api('GET', `/micromobility/trips/${reserved.body.data.tripId}`, other.secret)).status, 404)
    const pk = await h.api('GET', `/micromobility/trips/${reserved.body.data.tripId}`, t.publishable, undefined, {
      origin: 'https://x.example',
    })
    assert.equal(pk.status, 403)
    const limited = await h.admin('POST', `/tenants/${t.tenant.id}/keys`, {
      type: 'secret',
      environment: 'live',
      permissions: ['micromobility:offer:read'],
    })
    const noTrip = await h.api('GET', `/micromobility/trips/${reserved.body.data.tripId}`, limited.body.data.key.secret)
    assert.equal(noTrip.status, 403)
    assert.equal(noTrip.body.error.code, 'FORBIDDEN')
    const v2 = await scooter(t.secret, 5)
    h.clock.advance(6 * 60_000)
    // Spec 7.1: on trips an expired vehicle token is NOT_FOUND; GET /micromobility/vehicles/{token} says OFFER_EXPIRED.
    const expired = await trips(t.secret, { action: 'START', vehicleToken: v2.vehicleToken })
    assert.equal(expired.status, 404)
    assert.equal(expired.body.error.code, 'NOT_FOUND')
    const byToken = await h.api('GET', `/micromobility/vehicles/${encodeURIComponent(v2.vehicleToken)}`, t.secret)
    assert.equal(byToken.status, 400)
    assert.equal(byToken.body.error.code, 'OFFER_EXPIRED')
  })

  it('a vehicle that rejects a command: 500 PROVIDER_ERROR (spec 7.1), lastAction FAILED, the trip state stays', async () => {
    const v = await scooter(t.test, 0)
    const started = await trips(t.test, { action: 'START', vehicleToken: v.vehicleToken })
    const id = started.body.data.tripId
    const res = await h.api(
      'POST',
      `/micromobility/trips/${id}/vehicle-action`,
      t.test,
      { action: 'LOCK' },
      { 'x-sandbox-scenario': 'vehicle-rejects:sandbox-scoot' },
    )
    assert.equal(res.status, 500, res.text)
    assert.equal(res.body.error.code, 'PROVIDER_ERROR')
    assert.equal(res.body.error.details.reason, 'VEHICLE_REJECTED')
    // The vehicle's answer is definitive: the same command again gets the same refusal.
    assert.equal(res.body.error.details.retryable, false)
    // A provider that fails the command altogether answers the same way.
    const failing = await h.api(
      'POST',
      `/micromobility/trips/${id}/vehicle-action`,
      t.test,
      { action: 'HONK' },
      { 'x-sandbox-scenario': 'provider-error:sandbox-scoot' },
    )
    assert.equal(failing.status, 500, failing.text)
    assert.equal(failing.body.error.code, 'PROVIDER_ERROR')
    assert.equal(failing.body.error.details.retryable, undefined, 'a provider fault may pass: retry it (spec 7.3)')
    const read = await settled(id, t.test)
    assert.equal(read.body.data.status, 'ACTIVE')
    assert.equal(read.body.data.lastAction.status, 'FAILED')
  })
})

describe('GBFS demo providers', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('serves the bundled GBFS sample feeds: vehicles with pricing and deep links, and their zones', async () => {
    const providers = await h.api('GET', '/mobility-providers', t.secret)
    const paris = providers.body.data.providers.find((p: any) => p.id === 'gbfs-sample-paris')
    assert.equal(paris.status, 'ACTIVE')
    const res = await h.api('POST', '/micromobility', t.secret, {
      location: { latitude: 48.8462, longitude: 2.3323 },
      radiusMeters: 5000,
      providers: ['gbfs-sample-paris'],
      limit: 100,
    })
    assert.equal(res.status, 200, res.text)
    assert.ok(res.body.data.results.length > 0)
    const v = res.body.data.results[0]
    assert.equal(v.provider.id, 'gbfs-sample-paris')
    assert.equal(v.vehicleToken, undefined, 'GBFS providers are search-only')
    assert.ok(v.deepLinks)
    const oslo = await h.api('POST', '/micromobility', t.secret, {
      location: { latitude: 59.9147, longitude: 10.7522 },
      radiusMeters: 5000,
      providers: ['gbfs-sample-oslo'],
      limit: 100,
    })
    assert.ok(oslo.body.data.results.length > 0, oslo.text)
    // Scenarios reach feed-based providers too (test keys): the service fails them before the feed is read.
    for (const [scenario, status, code, http] of [
      ['provider-error', 'FAILED', 'PROVIDER_ERROR', 500],
      ['provider-timeout', 'TIMEOUT', 'TIMEOUT', 504],
    ] as const) {
      const failed = await h.api(
        'POST',
        '/micromobility',
        t.test,
        { location: { latitude: 59.9147, longitude: 10.7522 }, radiusMeters: 5000, providers: ['gbfs-sample-oslo'] },
        { 'x-sandbox-scenario': `${scenario}:gbfs-sample-oslo` },
      )
      // The only provider asked failed: the search fails with its code, and says how.
      assert.equal(failed.status, http, failed.text)
      assert.equal(failed.body.error.code, code)
      assert.equal(failed.body.error.details.providers[0].status, status)
    }
    const zones = await h.api('GET', '/micromobility/zones?provider=gbfs-sample-paris', t.secret)
    assert.equal(zones.status, 200)
  })
})
