import type { Booking, BookingChange } from '../../contract/car-bookings.ts'
import type { ChangeType, VehicleAction } from '../../contract/cars.ts'
import { ApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { Caller } from '../providers/calls.ts'
import { type BookingDeps, createBookingCore } from './booking-core.ts'
import { createBookingCreation } from './booking-create.ts'
import { createBookingFollowUps } from './booking-jobs.ts'
import { presentBooking } from './booking-view.ts'
import { checkRentalPeriod } from './dates.ts'

export type { BookingDeps, BookingNotifier } from './booking-core.ts'

/** Car bookings: offer details, prebook and book (booking-create.ts), then read, change, cancel and vehicle actions. */
export function createCarBookings(deps: BookingDeps) {
  const core = createBookingCore(deps)
  const followUps = createBookingFollowUps(deps, core)
  const { provider, call, locate, lostByProvider, syncStored } = core

  return {
    /** The job handlers, by kind, for the app to register (services.ts). */
    jobHandlers: followUps.jobHandlers,
    ...createBookingCreation(deps, core, followUps),

    async get(bookingId: string, caller: Caller): Promise<Booking> {
      const found = await locate(caller, bookingId)
      const p = provider(caller, found.providerId)
      const fresh = await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(found.reference, ctx), true).catch(
        lostByProvider(found, bookingId),
      )
      if (found.kind === 'reference') return presentBooking(bookingId, p, fresh, 'NONE')
      // A status the provider moved (a PENDING booking confirmed) is recorded, mailed and announced by syncStored.
      return syncStored(caller, found.row, p, fresh, {}, true)
    },

    async change(bookingId: string, change: BookingChange, caller: Caller): Promise<Booking> {
      const found = await locate(caller, bookingId)
      if (found.kind === 'reference') {
        const refused = Object.keys(change).filter((k) => k !== 'rentalPeriod')
        if (refused.length > 0) {
          throw new ApiError(
            'INVALID_REQUEST',
            undefined,
            Object.fromEntries(refused.map((k) => [k, detail('NOT_CHANGEABLE_RETENTION_NONE')])),
          )
        }
      }
      if (change.rentalPeriod) checkRentalPeriod(change.rentalPeriod, caller.now, 'rentalPeriod')
      const p = provider(caller, found.providerId)
      if (found.kind === 'stored' && found.row.status === 'CANCELLED') {
        throw new ApiError('INVALID_REQUEST', undefined, { status: detail('CANCELLED_BOOKING_NOT_CHANGEABLE') })
      }
      const { notes, ...forProvider } = change
      const types: ChangeType[] = []
      if (forProvider.rentalPeriod) types.push('RENTAL_TIMES')
      if (forProvider.driver) types.push('DRIVER_INFO')
      if (forProvider.pickupLocationId) types.push('PICKUP_LOCATION')
      if (forProvider.dropoffLocationId) types.push('DROPOFF_LOCATION')
      if (forProvider.vehicleCategory) types.push('VEHICLE_CATEGORY')
      const fresh = await (types.length > 0
        ? call(caller, p, 'changeBooking', (c, ctx) => c.changeBooking(found.reference, forProvider, ctx))
        : call(caller, p, 'getBooking', (c, ctx) => c.getBooking(found.reference, ctx), true)
      ).catch(lostByProvider(found, bookingId))
      if (found.kind === 'reference') {
        const booking = presentBooking(bookingId, p, fresh, 'NONE')
        await deps.publish('car.booking.changed', caller.tenant, caller.environment, booking)
        return booking
      }
      return syncStored(caller, found.row, p, fresh, {
        notes,
        driver: change.driver,
        reason: types.length ? `changed: ${types.join(', ')}` : undefined,
        changed: true,
      })
    },

    async cancel(bookingId: string, input: { reason?: string }, caller: Caller): Promise<Booking> {
      const found = await locate(caller, bookingId)
      const p = provider(caller, found.providerId)
      // Under retention NONE only the provider knows whether the booking was cancelled already (then no second mail).
      const before =
        found.kind === 'reference'
          ? await call(caller, p, 'getBooking', (c, ctx) => c.getBooking(found.reference, ctx), true).then(
              (b) => b.status,
              () => undefined,
            )
          : found.row.status
      const fresh = await call(caller, p, 'cancelBooking', (c, ctx) =>
        c.cancelBooking(found.reference, input, ctx),
      ).catch(lostByProvider(found, bookingId))
      const booking =
        found.kind === 'reference'
          ? presentBooking(bookingId, p, fresh, 'NONE')
          : await syncStored(caller, found.row, p, fresh, { reason: input.reason ?? 'cancelled by the client' })
      if (before !== 'CANCELLED') {
        await deps.notifier.cancelled(caller, booking, found.kind === 'reference' ? found.recipient : booking.driver)
        // A stored booking's cancellation is announced by syncStored, once its write won.
        if (found.kind === 'reference')
          await deps.publish('car.booking.cancelled', caller.tenant, caller.environment, booking)
      }
      return booking
    },

    async vehicleAction(bookingId: string, action: VehicleAction, caller: Caller) {
      const found = await locate(caller, bookingId)
      const p = provider(caller, found.providerId)
      if (!p.connector.capabilities.operations.includes('VEHICLE_ACTIONS')) {
        throw new ApiError('OPERATION_NOT_SUPPORTED', undefined, {
          providerId: p.entry.id,
          operation: 'VEHICLE_ACTIONS',
        })
      }
      const result = await call(caller, p, 'vehicleAction', (c, ctx) =>
        c.vehicleAction(found.reference, action, ctx),
      ).catch(lostByProvider(found, bookingId))
      return {
        bookingId,
        action,
        status: result.status,
        completedAt: caller.now.toISOString(),
        ...(result.vehicleLocation ? { vehicleLocation: result.vehicleLocation } : {}),
      }
    },
  }
}

export type CarBookings = ReturnType<typeof createCarBookings>
