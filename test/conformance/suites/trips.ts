import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { CallContext } from '../../../src/connectors/types/common.ts'
import type { ProviderMicroVehicle } from '../../../src/connectors/types/micromobility.ts'
import { TRIP_ACTIONS, type TripAction } from '../../../src/contract/micromobility.ts'
import { rejectsWith } from '../../helpers/connectors.ts'
import { MINUTE, type MicroProfile, type MicroSetup } from './micromobility.ts'

/**
 * The trip suite: what every micromobility connector with trips (capability TRIPS) must do, with a second instance
 * of the provider beside the first (the same store, clock and upstream).
 */

export const RIDER = { email: 'ada@example.com', name: 'Ada Lovelace' }

/** The loser of a race for a vehicle (or one in the workshop, or flat): the offer is sold out, a 404, never a 5xx. */
export const notAvailable = { reason: 'VEHICLE_NOT_AVAILABLE' }
export const rejected = { reason: 'VEHICLE_REJECTED' }

export interface TripProfile extends MicroProfile {
  /** The provider's trip references. */
  reference: RegExp
  /** Vehicles of no trip of this provider, and a reference that is well-formed but unknown (for that vehicle). */
  unknownVehicles: string[]
  unknownReference: { vehicleId: string; reference: string }
  /** Vehicle commands the provider carries out; the others answer PROVIDER_ERROR COMMAND_NOT_SUPPORTED. */
  commands: TripAction[]
  /** A reserved vehicle leaves the fleet (sandbox), or stays listed as not available (TOMP `isReserved`). */
  reserved: 'hidden' | 'unavailable'
  /** The vehicle rejects every command made with `ctx` until `restore()`. */
  rejecting(s: MicroSetup): { ctx: CallContext; restore(): void }
}

/** Available vehicles of a fleet, charged enough for a ride. */
export async function rideable(s: MicroSetup, min = 30) {
  const { vehicles } = await s.connector.fleet(s.ctx())
  return vehicles.filter((v) => v.isAvailable && (v.batteryPercent ?? 0) >= min)
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6
export const ids = (vehicles: ProviderMicroVehicle[]) => new Set(vehicles.map((v) => v.vehicleId))
const availableCount = (vehicles: ProviderMicroVehicle[]) => vehicles.filter((v) => v.isAvailable).length

/** Every command on a trip that cannot take one fails: the vehicle rejects it, or the provider has no such command. */
export async function commandsFail(profile: TripProfile, s: MicroSetup, reference: string, ctx = s.ctx()) {
  for (const action of TRIP_ACTIONS) {
    const reason = profile.commands.includes(action) ? rejected : { reason: 'COMMAND_NOT_SUPPORTED', retryable: false }
    await rejectsWith(s.connector.trips!.command(reference, action, ctx), 'PROVIDER_ERROR', reason)
  }
}

/** A vehicle a trip holds: gone from the fleet, or listed as not available (as the provider shows reservations). */
export function assertReservedBy(
  profile: TripProfile,
  vehicles: ProviderMicroVehicle[],
  vehicleId: string,
  message?: string,
) {
  if (profile.reserved === 'hidden') assert.ok(!ids(vehicles).has(vehicleId), message ?? `${vehicleId} hidden`)
  else assert.equal(vehicles.find((v) => v.vehicleId === vehicleId)?.isAvailable, false, message ?? vehicleId)
}

export function tripSuite(profile: TripProfile, settings: { skip?: string } = {}) {
  const { make } = profile
  const assertReserved = (vehicles: ProviderMicroVehicle[], vehicleId: string, message?: string) =>
    assertReservedBy(profile, vehicles, vehicleId, message)

  describe(`MicromobilityConnector trips: ${profile.name}`, { skip: settings.skip }, () => {
    it('reserve holds the vehicle on every instance; start, LOCK/UNLOCK, end moves it; available again', async () => {
      const a = await make()
      const b = await a.twin()
      const trips = a.connector.trips!
      const tripsB = b.connector.trips!
      const before = await b.connector.fleet(b.ctx())
      const [vehicle, other] = await rideable(b)

      const { reference } = await trips.reserve(vehicle.vehicleId, RIDER, a.ctx())
      assert.match(reference, profile.reference)
      const reserved = await b.connector.fleet(b.ctx())
      assert.notEqual(reserved.version, before.version, 'the version changed')
      assertReserved(reserved.vehicles, vehicle.vehicleId, 'held on the other instance')
      assert.equal(availableCount(reserved.vehicles), availableCount(before.vehicles) - 1)
      if (profile.reserved === 'hidden') assert.equal(reserved.vehicles.length, before.vehicles.length - 1)
      assertReserved((await a.connector.fleet(a.ctx())).vehicles, vehicle.vehicleId)
      await rejectsWith(tripsB.reserve(vehicle.vehicleId, RIDER, b.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(tripsB.start(vehicle.vehicleId, undefined, RIDER, b.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(tripsB.start(other.vehicleId, reference, RIDER, b.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_MISMATCH',
        retryable: false,
      })
      if (profile.commands.includes('HONK')) await trips.command(reference, 'HONK', a.ctx())
      await rejectsWith(trips.command(reference, 'UNLOCK', a.ctx()), 'PROVIDER_ERROR', rejected)
      await rejectsWith(trips.end(reference, undefined, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RIDE_NOT_STARTED',
        retryable: false,
      })

      a.clock.advance(3 * MINUTE)
      const started = await tripsB.start(vehicle.vehicleId, reference, RIDER, b.ctx())
      assert.deepEqual(started, {
        reference,
        location: { latitude: vehicle.latitude, longitude: vehicle.longitude },
      })
      assert.deepEqual(await tripsB.start(vehicle.vehicleId, reference, RIDER, b.ctx()), started, 'start again')
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId), 'in use: hidden')
      for (const action of ['LOCK', 'UNLOCK', 'HONK', 'LOCK', 'UNLOCK'] as const) {
        if (!profile.commands.includes(action)) continue
        assert.equal(await (action === 'HONK' ? trips : tripsB).command(reference, action, a.ctx()), undefined)
      }

      a.clock.advance(12 * MINUTE)
      const target = { latitude: round6(vehicle.latitude + 0.004), longitude: round6(vehicle.longitude - 0.003) }
      const versionBefore = (await a.connector.fleet(a.ctx())).version
      const ended = await trips.end(reference, target, a.ctx())
      assert.deepEqual(ended, { location: target })
      const after = await b.connector.fleet(b.ctx())
      assert.notEqual(after.version, versionBefore)
      assert.equal(after.vehicles.length, before.vehicles.length)
      const moved = after.vehicles.find((v) => v.vehicleId === vehicle.vehicleId)
      assert.ok(moved, 'available again')
      assert.equal(moved.isAvailable, true)
      assert.deepEqual([moved.latitude, moved.longitude], [target.latitude, target.longitude])
      assert.ok(moved.batteryPercent! < vehicle.batteryPercent!, 'the ride used some charge')
      assert.ok(moved.batteryPercent! > vehicle.batteryPercent! - 15, 'only a little')
      assert.equal(moved.qrCode, vehicle.qrCode)
      assert.deepEqual((await a.connector.fleet(a.ctx())).vehicles, after.vehicles, 'both instances agree')

      await commandsFail(profile, a, reference)
      assert.deepEqual(await tripsB.end(reference, undefined, b.ctx()), ended, 'ending again answers the same')
      await trips.release(reference, a.ctx())
      await rejectsWith(trips.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })

      const next = await tripsB.reserve(vehicle.vehicleId, RIDER, b.ctx())
      assert.notEqual(next.reference, reference)
      const nextStart = await trips.start(vehicle.vehicleId, next.reference, RIDER, a.ctx())
      assert.deepEqual(nextStart.location, target, 'the next ride starts where the last one ended')
    })

    it('two instances reserving the same vehicle at once: exactly one gets it', async () => {
      const a = await make()
      const b = await a.twin()
      const before = await b.connector.fleet(b.ctx())
      const candidates = (await rideable(a, 10)).slice(0, 12)
      for (const [i, vehicle] of candidates.entries()) {
        const first = i % 3 === 0 ? b : a
        const second = first === a ? b : a
        const results = await Promise.allSettled([
          first.connector.trips!.reserve(vehicle.vehicleId, RIDER, first.ctx()),
          i % 2 === 0
            ? second.connector.trips!.reserve(vehicle.vehicleId, RIDER, second.ctx())
            : second.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, second.ctx()),
        ])
        const won = results.filter((r) => r.status === 'fulfilled')
        assert.equal(won.length, 1, `${vehicle.vehicleId}: ${JSON.stringify(results)}`)
        const lost = results.find((r) => r.status === 'rejected')!
        await rejectsWith(Promise.reject(lost.reason), 'OFFER_EXPIRED', notAvailable)
      }
      const { vehicles } = await b.connector.fleet(b.ctx())
      // Reserved or riding, none of them can be taken.
      for (const vehicle of candidates) {
        assert.ok(!vehicles.some((v) => v.vehicleId === vehicle.vehicleId && v.isAvailable), vehicle.vehicleId)
      }
      assert.equal(availableCount(vehicles), availableCount(before.vehicles) - candidates.length)
      if (profile.reserved === 'hidden') assert.equal(vehicles.length, profile.fleetSize - candidates.length)

      // Many trips at once on both instances: no change to the fleet gets lost.
      const many = (await rideable(a, 10)).slice(0, 30)
      const references = await Promise.all(
        many.map((v, i) => (i % 2 ? a : b).connector.trips!.reserve(v.vehicleId, RIDER, (i % 2 ? a : b).ctx())),
      )
      const held = (await a.connector.fleet(a.ctx())).vehicles
      assert.equal(availableCount(held), availableCount(vehicles) - many.length)
      for (const vehicle of many) assertReserved(held, vehicle.vehicleId)
      await Promise.all(
        references.map(({ reference }, i) => (i % 3 ? a : b).connector.trips!.release(reference, a.ctx())),
      )
      const released = await b.connector.fleet(b.ctx())
      assert.equal(released.vehicles.length, vehicles.length)
      assert.deepEqual(released.vehicles, vehicles, 'released vehicles are back as they were')
    })

    it('release frees a reserved vehicle; a ride cannot be released; ending without a location leaves it there', async () => {
      const a = await make()
      const b = await a.twin()
      const [vehicle] = await rideable(a)
      const { reference } = await a.connector.trips!.reserve(vehicle.vehicleId, {}, a.ctx())
      const held = await b.connector.fleet(b.ctx())
      await b.connector.trips!.release(reference, b.ctx())
      const freed = await a.connector.fleet(a.ctx())
      assert.notEqual(freed.version, held.version)
      assert.deepEqual(
        freed.vehicles.find((v) => v.vehicleId === vehicle.vehicleId),
        vehicle,
        'back where it was, as it was',
      )
      await a.connector.trips!.release(reference, a.ctx())
      await rejectsWith(a.connector.trips!.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })
      await commandsFail(profile, a, reference)
      await rejectsWith(a.connector.trips!.end(reference, undefined, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })

      const ride = await b.connector.trips!.start(vehicle.vehicleId, undefined, RIDER, b.ctx())
      assert.notEqual(ride.reference, reference)
      assert.deepEqual(ride.location, { latitude: vehicle.latitude, longitude: vehicle.longitude })
      await rejectsWith(a.connector.trips!.release(ride.reference, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RIDE_IN_PROGRESS',
        retryable: false,
      })
      a.clock.advance(5 * MINUTE)
      assert.deepEqual(await a.connector.trips!.end(ride.reference, undefined, a.ctx()), { location: ride.location })
      const stayed = (await b.connector.fleet(b.ctx())).vehicles.find((v) => v.vehicleId === vehicle.vehicleId)
      assert.deepEqual([stayed?.latitude, stayed?.longitude], [vehicle.latitude, vehicle.longitude])
      assert.ok(stayed!.batteryPercent! < vehicle.batteryPercent!)
    })

    it('unknown vehicles and references; vehicles in maintenance or with a flat battery', async () => {
      const s = await make()
      const trips = s.connector.trips!
      const [unknown, foreign] = profile.unknownVehicles
      const { vehicleId, reference } = profile.unknownReference
      await rejectsWith(trips.reserve(unknown, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.reserve(foreign, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.start(unknown, undefined, RIDER, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.start(vehicleId, reference, RIDER, s.ctx()), 'NOT_FOUND')
      await commandsFail(profile, s, reference)
      await commandsFail(profile, s, 'nonsense')
      await rejectsWith(trips.end(reference, undefined, s.ctx()), 'NOT_FOUND')
      await rejectsWith(trips.release('nonsense', s.ctx()), 'NOT_FOUND')

      const { vehicles } = await s.connector.fleet(s.ctx())
      const workshop = vehicles.find((v) => !v.isAvailable)
      assert.ok(workshop)
      await rejectsWith(trips.reserve(workshop.vehicleId, RIDER, s.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(trips.start(workshop.vehicleId, undefined, RIDER, s.ctx()), 'OFFER_EXPIRED', notAvailable)

      // A long ride on a weak battery leaves it flat: listed, but not available any more.
      const weak = vehicles.find((v) => v.isAvailable && v.batteryPercent! < 20)
      assert.ok(weak, 'some vehicles are low on charge')
      const ride = await trips.start(weak.vehicleId, undefined, RIDER, s.ctx())
      s.clock.advance(70 * MINUTE)
      await trips.end(ride.reference, { latitude: weak.latitude + 0.045, longitude: weak.longitude }, s.ctx())
      const flat = (await s.connector.fleet(s.ctx())).vehicles.find((v) => v.vehicleId === weak.vehicleId)
      assert.ok(flat && flat.batteryPercent! < 5 && !flat.isAvailable, JSON.stringify(flat))
      await rejectsWith(trips.reserve(weak.vehicleId, RIDER, s.ctx()), 'OFFER_EXPIRED', notAvailable)
      await rejectsWith(trips.end(ride.reference, { latitude: 100, longitude: 0 }, s.ctx()), 'INVALID_LOCATION')
    })

    it('a vehicle that rejects every command: each fails with VEHICLE_REJECTED; the trip itself goes on', async () => {
      const s = await make()
      const trips = s.connector.trips!
      const [vehicle] = await rideable(s)
      const { reference } = await trips.start(vehicle.vehicleId, undefined, RIDER, s.ctx())
      const rejecting = profile.rejecting(s)
      for (const action of profile.commands) {
        await rejectsWith(trips.command(reference, action, rejecting.ctx), 'PROVIDER_ERROR', rejected)
      }
      await trips.end(reference, undefined, rejecting.ctx)
      rejecting.restore()
    })

    it('a reservation nobody starts or releases lapses after the provider hold time', async () => {
      const a = await make()
      const b = await a.twin()
      const [vehicle] = await rideable(a)
      const { reference } = await a.connector.trips!.reserve(vehicle.vehicleId, RIDER, a.ctx())
      const held = await b.connector.fleet(b.ctx())
      assertReserved(held.vehicles, vehicle.vehicleId)
      a.clock.advance(121 * MINUTE)
      const lapsed = await b.connector.fleet(b.ctx())
      assert.notEqual(lapsed.version, held.version)
      assert.equal(lapsed.vehicles.find((v) => v.vehicleId === vehicle.vehicleId)?.isAvailable, true, 'free again')
      const taken = await b.connector.trips!.reserve(vehicle.vehicleId, RIDER, b.ctx())
      await rejectsWith(a.connector.trips!.start(vehicle.vehicleId, reference, RIDER, a.ctx()), 'PROVIDER_ERROR', {
        reason: 'RESERVATION_ENDED',
        retryable: false,
      })
      await commandsFail(profile, a, reference)
      await a.connector.trips!.start(vehicle.vehicleId, taken.reference, RIDER, a.ctx())
      assert.ok(!ids((await a.connector.fleet(a.ctx())).vehicles).has(vehicle.vehicleId), 'ridden on the new trip')
    })

    it('a provider in trouble: every trip call fails with PROVIDER_ERROR', async () => {
      const failing = await profile.failing()
      const trips = failing.s.connector.trips!
      const reason = failing.reason === undefined ? {} : { reason: failing.reason }
      const [ctx] = failing.ctxs
      const { vehicleId, reference } = profile.unknownReference
      const [command] = profile.commands
      await rejectsWith(trips.reserve(vehicleId, RIDER, ctx), 'PROVIDER_ERROR', reason)
      await rejectsWith(trips.start(vehicleId, undefined, RIDER, ctx), 'PROVIDER_ERROR', reason)
      await rejectsWith(trips.command(reference, command, ctx), 'PROVIDER_ERROR', reason)
      await rejectsWith(trips.end(reference, undefined, ctx), 'PROVIDER_ERROR', reason)
      await rejectsWith(trips.release(reference, ctx), 'PROVIDER_ERROR', reason)
      await failing.restore()
    })
  })
}
