import { ApiError } from '../../../contract/errors.ts'
import type { TripAction } from '../../../contract/micromobility.ts'
import { distanceMeters } from '../../../platform/geo.ts'
import { permanentProviderError, vehicleNotAvailable } from '../../refusals.ts'
import { checkEndLocation } from '../../shared/end-location.ts'
import type { CallContext } from '../../types/common.ts'
import type { MicromobilityConnector } from '../../types/micromobility.ts'
import { hasScenario } from '../common.ts'
import type { BaseVehicle } from './fleet.ts'
import { round6 } from './geometry.ts'
import type { MicroRuntime, VehiclePosition } from './runtime.ts'
import type { TripRecord } from './state.ts'

const MINUTE = 60_000
/** How long the provider holds a reserved vehicle should nobody start or release it (the service releases earlier). */
export const RESERVATION_HOLD_MS = 120 * MINUTE
/** How long a ride may last before the provider ends it itself. */
export const RIDE_HOLD_MS = 24 * 60 * MINUTE

type LatLon = { latitude: number; longitude: number }

// Refusals, never faults: a rider who loses the race for a scooter gets 404 OFFER_EXPIRED, and the provider's other
// no's are definitive (retrying cannot change them), so no circuit breaker counts any of them.
const notAvailable = () => vehicleNotAvailable()
const rejected = () => permanentProviderError('VEHICLE_REJECTED', 'The vehicle rejected the command')
const refused = (reason: string) => permanentProviderError(reason)

/** What a ride takes from the battery: a little for unlocking, more with distance and time. */
export function drained(battery: number | undefined, from: LatLon, to: LatLon, minutes: number) {
  if (battery === undefined) return undefined
  const km = distanceMeters(from, to) / 1000
  const used = Math.min(60, Math.max(1, Math.round(1 + km * 2.5 + minutes * 0.2)))
  return Math.max(0, battery - used)
}

function checkLocation(location: LatLon | undefined): LatLon | undefined {
  const checked = checkEndLocation(location)
  return checked && { latitude: round6(checked.latitude), longitude: round6(checked.longitude) }
}

const at = (p: VehiclePosition): LatLon => ({ latitude: p.latitude, longitude: p.longitude })

/**
 * Reserve, start, vehicle commands, end and release of the trip-capable sandbox provider. A trip holds its vehicle
 * through `hold:<vehicleId>` (setIfAbsent: one trip at most, across instances); every change a rider could see in the
 * fleet goes through the fleet overlay, which changes the fleet's version.
 */
export function trips(rt: MicroRuntime): NonNullable<MicromobilityConnector['trips']> {
  const { store, enter, positionOf, settle, rentable } = rt
  const providerId = rt.entry.id

  function vehicleOf(vehicleId: string): BaseVehicle {
    const v = rt.fleet().byId.get(vehicleId)
    if (!v) throw new ApiError('NOT_FOUND', `No vehicle ${vehicleId} at this provider`)
    return v
  }

  async function load(env: string, reference: string): Promise<TripRecord> {
    const trip = await store.getTrip(env, reference)
    if (!trip) throw new ApiError('NOT_FOUND', `No trip ${reference} at this provider`)
    return trip
  }

  /** Whether the trip still holds its vehicle (its hold neither lapsed nor was taken over). */
  async function holds(ctx: CallContext, trip: TripRecord) {
    if (trip.holdUntil <= ctx.now.getTime()) return false
    return (await store.holder(ctx.environment, trip.vehicleId)) === trip.reference
  }

  /** Takes the hold on a vehicle; a hold left by a lapsed or finished trip is taken over. */
  async function acquire(ctx: CallContext, vehicleId: string, reference: string, ttlMs: number) {
    const env = ctx.environment
    if (await store.hold(env, vehicleId, reference, ttlMs)) return true
    const holder = await store.holder(env, vehicleId)
    if (holder !== undefined) {
      // A holder without a record is a trip being created right now: it keeps the vehicle.
      const other = await store.getTrip(env, holder)
      const stale =
        other && (other.holdUntil <= ctx.now.getTime() || other.status === 'ENDED' || other.status === 'RELEASED')
      if (!stale) return false
      await store.unhold(env, vehicleId, holder)
    }
    return store.hold(env, vehicleId, reference, ttlMs)
  }

  /** Gives the vehicle back to the fleet where it is, if `reference` still holds it there. */
  const unpublish = (ctx: CallContext, v: BaseVehicle, reference: string) =>
    store.update(ctx.environment, v.vehicleId, (current) =>
      current?.reference === reference ? settle(v, positionOf(v, current)) : current,
    )

  /** A new trip on a free vehicle: RESERVED (held, locked) or ACTIVE (held, unlocked). */
  async function take(ctx: CallContext, vehicleId: string, status: 'RESERVED' | 'ACTIVE'): Promise<TripRecord> {
    const v = vehicleOf(vehicleId)
    if (v.maintenance) throw notAvailable()
    const env = ctx.environment
    const now = ctx.now.getTime()
    const holdMs = status === 'RESERVED' ? RESERVATION_HOLD_MS : RIDE_HOLD_MS
    const reference = store.newReference()
    if (!(await acquire(ctx, vehicleId, reference, holdMs))) throw notAvailable()
    let published = false
    try {
      let position: VehiclePosition | undefined
      await store.update(env, vehicleId, (current) => {
        position = positionOf(v, current)
        if (!rentable(v, position)) throw notAvailable()
        return { ...position, held: status, until: now + holdMs, reference }
      })
      published = true
      const stamp = ctx.now.toISOString()
      const trip: TripRecord = {
        v: 1,
        reference,
        vehicleId,
        status,
        locked: status === 'RESERVED',
        holdUntil: now + holdMs,
        ...(status === 'RESERVED' ? { reservedAt: stamp } : { startedAt: stamp, startLocation: at(position!) }),
      }
      await store.saveTrip(env, trip)
      return trip
    } catch (error) {
      if (published) await unpublish(ctx, v, reference).catch(() => undefined)
      await store.unhold(env, vehicleId, reference).catch(() => undefined)
      throw error
    }
  }

  return {
    async reserve(vehicleId, _rider, ctx) {
      await enter(ctx, 'RESERVE')
      const trip = await take(ctx, vehicleId, 'RESERVED')
      return { reference: trip.reference }
    },

    async start(vehicleId, reference, _rider, ctx) {
      await enter(ctx, 'START')
      if (reference === undefined) {
        const trip = await take(ctx, vehicleId, 'ACTIVE')
        return { reference: trip.reference, location: trip.startLocation! }
      }
      const v = vehicleOf(vehicleId)
      const env = ctx.environment
      return store.withTrip(env, reference, async () => {
        const trip = await load(env, reference)
        if (trip.vehicleId !== vehicleId) throw refused('RESERVATION_MISMATCH')
        if (trip.status === 'ACTIVE') return { reference, location: trip.startLocation! }
        if (trip.status !== 'RESERVED') throw refused('RESERVATION_ENDED')
        const now = ctx.now.getTime()
        if (!(await holds(ctx, trip)) || !(await store.extendHold(env, vehicleId, reference, RIDE_HOLD_MS))) {
          await unpublish(ctx, v, reference)
          await store.saveTrip(env, { ...trip, status: 'RELEASED' })
          throw refused('RESERVATION_ENDED')
        }
        let position: VehiclePosition | undefined
        await store.update(env, vehicleId, (current) => {
          position = positionOf(v, current)
          return { ...position, held: 'ACTIVE', until: now + RIDE_HOLD_MS, reference }
        })
        const location = at(position!)
        await store.saveTrip(env, {
          ...trip,
          status: 'ACTIVE',
          locked: false,
          holdUntil: now + RIDE_HOLD_MS,
          startedAt: ctx.now.toISOString(),
          startLocation: location,
        })
        return { reference, location }
      })
    },

    async command(reference, action: TripAction, ctx) {
      await enter(ctx, 'COMMAND')
      if (hasScenario(ctx, providerId, 'vehicle-rejects')) throw rejected()
      const env = ctx.environment
      if ((await store.getTrip(env, reference)) === undefined) throw rejected()
      await store.withTrip(env, reference, async () => {
        const trip = await store.getTrip(env, reference)
        if (!trip || (trip.status !== 'RESERVED' && trip.status !== 'ACTIVE')) throw rejected()
        if (!(await holds(ctx, trip))) throw rejected()
        // A reserved vehicle stays locked until the ride starts; it can only honk.
        if (trip.status === 'RESERVED' && action === 'UNLOCK') throw rejected()
        if (action === 'HONK') return
        const locked = action === 'LOCK'
        if (trip.locked !== locked) await store.saveTrip(env, { ...trip, locked })
      })
    },

    async end(reference, endLocation, ctx) {
      await enter(ctx, 'END')
      const target = checkLocation(endLocation)
      const env = ctx.environment
      return store.withTrip(env, reference, async () => {
        const trip = await load(env, reference)
        if (trip.status === 'ENDED') return { location: trip.endLocation! }
        if (trip.status === 'RESERVED') throw refused('RIDE_NOT_STARTED')
        if (trip.status === 'RELEASED') throw refused('RESERVATION_ENDED')
        const v = vehicleOf(trip.vehicleId)
        const now = ctx.now.getTime()
        let location: LatLon
        if (await holds(ctx, trip)) {
          let position: VehiclePosition | undefined
          await store.update(env, v.vehicleId, (current) => {
            const from = positionOf(v, current)
            const to = target ?? at(from)
            const minutes = Math.max(0, (now - Date.parse(trip.startedAt!)) / MINUTE)
            position = {
              ...to,
              ...(from.batteryPercent === undefined
                ? {}
                : { batteryPercent: drained(from.batteryPercent, trip.startLocation ?? from, to, minutes) }),
            }
            return settle(v, position)
          })
          location = at(position!)
          await store.unhold(env, v.vehicleId, reference)
        } else {
          // The provider ended the ride itself when its hold lapsed: the vehicle stays where it was.
          const view = await store.view(env)
          const current = view.vehicles[v.vehicleId]
          location = at(positionOf(v, current))
          if (current?.reference === reference) await unpublish(ctx, v, reference)
        }
        await store.saveTrip(env, {
          ...trip,
          status: 'ENDED',
          locked: true,
          endedAt: ctx.now.toISOString(),
          endLocation: location,
        })
        return { location }
      })
    },

    async release(reference, ctx) {
      await enter(ctx, 'RELEASE')
      const env = ctx.environment
      await store.withTrip(env, reference, async () => {
        const trip = await load(env, reference)
        if (trip.status === 'ENDED' || trip.status === 'RELEASED') return
        if (trip.status === 'ACTIVE') throw refused('RIDE_IN_PROGRESS')
        const v = vehicleOf(trip.vehicleId)
        await unpublish(ctx, v, reference)
        await store.unhold(env, v.vehicleId, reference)
        await store.saveTrip(env, { ...trip, status: 'RELEASED' })
      })
    },
  }
}
