import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ApiError } from '../../src/contract/errors.ts'
import type { TripRequest } from '../../src/contract/micromobility.ts'
import type { TenantRow } from '../../src/store/schema.ts'
import { ALEX } from '../helpers/flows.ts'
import { newTestServices, type TestServices } from '../helpers/services.ts'

/** The trip state machine of spec 3.1 as the trips service applies it, without HTTP. */
describe('trip rules (services, no HTTP)', () => {
  let s: TestServices
  let tenant: TenantRow
  before(async () => {
    s = await newTestServices()
    tenant = await s.tenant()
  })
  after(() => s.close())

  const trips = () => s.services.micromobility.trips
  const caller = () => s.caller(tenant)
  let taken = 0
  /** A free sandbox scooter near Alexanderplatz, a different one each time. */
  const scooter = async () => {
    const found = await s.services.micromobility.vehicles.search(
      { location: ALEX, radiusMeters: 3000, providers: ['sandbox-scoot'], limit: 100 },
      caller(),
    )
    const free = found.results.filter((v) => v.isAvailable && v.vehicleToken && (v.batteryPercent ?? 100) > 20)
    const vehicle = free[taken++]
    assert.ok(vehicle, 'a free scooter')
    return vehicle as typeof vehicle & { vehicleToken: string }
  }
  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    )
    assert.ok(error instanceof ApiError, String(error))
    return error
  }
  const create = (request: Partial<TripRequest>) => trips().create(request as TripRequest, caller())

  it('RESERVE holds the tenant’s window; only a START may follow, with the reserved vehicle', async () => {
    const v = await scooter()
    const reserved = await create({ action: 'RESERVE', vehicleToken: v.vehicleToken })
    assert.equal(reserved.status, 'RESERVED')
    assert.equal(Date.parse(reserved.reservedUntil!), s.clock().getTime() + tenant.reservationWindowSeconds * 1000)

    const ending = await refusal(trips().end(reserved.tripId, undefined, caller()))
    assert.equal(ending.code, 'INVALID_REQUEST')
    assert.equal(ending.details?.reason, 'INVALID_TRIP_STATE')
    const unlock = await refusal(trips().action(reserved.tripId, 'UNLOCK', caller()))
    assert.equal(unlock.details?.reason, 'INVALID_TRIP_STATE')
    const wrongCode = await refusal(create({ action: 'START', tripId: reserved.tripId, scannedQrCode: 'sandbox:x' }))
    assert.equal(wrongCode.code, 'VEHICLE_MISMATCH')
    const other = await scooter()
    const wrongToken = await refusal(
      create({ action: 'START', tripId: reserved.tripId, vehicleToken: other.vehicleToken }),
    )
    assert.equal(wrongToken.code, 'VEHICLE_MISMATCH')

    const started = await create({ action: 'START', tripId: reserved.tripId, scannedQrCode: `sandbox:${v.vehicleId}` })
    assert.equal(started.status, 'ACTIVE')
    assert.equal(started.tripId, reserved.tripId)
    const cancelActive = await refusal(trips().cancel(reserved.tripId, caller()))
    assert.equal(cancelActive.details?.reason, 'INVALID_TRIP_STATE')
    const startAgain = await refusal(create({ action: 'START', tripId: reserved.tripId }))
    assert.equal(startAgain.details?.reason, 'INVALID_TRIP_STATE')
  })

  it('an ended trip is over: every later command is PROVIDER_ERROR TRIP_ENDED (spec 7.1)', async () => {
    const v = await scooter()
    const started = await create({ action: 'START', vehicleToken: v.vehicleToken })
    s.clock.advance(4 * 60_000)
    const ended = await trips().end(started.tripId, { latitude: 52.52, longitude: 13.41 }, caller())
    assert.equal(ended.status, 'COMPLETED')
    assert.equal(ended.duration.activeMinutes, 4)
    assert.ok(ended.priceBreakdown)
    for (const command of [
      () => trips().end(started.tripId, undefined, caller()),
      () => trips().cancel(started.tripId, caller()),
      () => trips().action(started.tripId, 'HONK', caller()),
      () => create({ action: 'START', tripId: started.tripId }),
    ]) {
      const error = await refusal(command())
      assert.equal(error.code, 'PROVIDER_ERROR')
      assert.equal(error.details?.reason, 'TRIP_ENDED')
    }
  })

  it('a reservation past its window reads as CANCELLED with RESERVATION_EXPIRED', async () => {
    const v = await scooter()
    const reserved = await create({ action: 'RESERVE', vehicleToken: v.vehicleToken })
    s.clock.advance(tenant.reservationWindowSeconds * 1000 + 1000)
    const read = await trips().get(reserved.tripId, caller())
    assert.equal(read.status, 'CANCELLED')
    assert.equal(read.cancellationReason, 'RESERVATION_EXPIRED')
  })

  it('refuses a RESERVE naming a trip and a START with neither trip nor vehicle', async () => {
    const reserve = await refusal(create({ action: 'RESERVE', tripId: 'trp_0000000000000000' }))
    assert.equal(reserve.code, 'INVALID_REQUEST')
    assert.ok(reserve.details?.tripId)
    const start = await refusal(create({ action: 'START' }))
    assert.equal(start.code, 'INVALID_REQUEST')
    assert.ok(start.details?.vehicleToken)
  })
})
