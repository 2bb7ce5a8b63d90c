import type { BookingChange } from '../../../contract/car-bookings.ts'
import type { ChangeType, VehicleAction } from '../../../contract/cars.ts'
import { ApiError } from '../../../contract/errors.ts'
import type { Coordinates } from '../../../contract/shared.ts'
import { detail } from '../../../platform/i18n/texts.ts'
import { permanentProviderError } from '../../refusals.ts'
import type { CarConnector } from '../../types/cars.ts'
import type { CallContext } from '../../types/common.ts'
import { hash32, hasScenario } from '../common.ts'
import { lateFeeOf, quoteFor, resolve } from './offers.ts'
import { cancellationPolicy, cancellationTermsAt, changeFeeAt, changePolicies } from './policies.ts'
import { rentalDays } from './pricing.ts'
import { roundPeriod } from './profiles.ts'
import type { CarRuntime } from './runtime.ts'

const CHANGE_FIELDS: [keyof BookingChange, ChangeType][] = [
  ['rentalPeriod', 'RENTAL_TIMES'],
  ['driver', 'DRIVER_INFO'],
  ['pickupLocationId', 'PICKUP_LOCATION'],
  ['dropoffLocationId', 'DROPOFF_LOCATION'],
  ['vehicleCategory', 'VEHICLE_CATEGORY'],
]

/** Reading, changing and cancelling bookings, and vehicle actions. */
export function managing(rt: CarRuntime) {
  const { entry, profile, store, enter, load, policyOf, present } = rt
  return {
    async getBooking(reference: string, ctx: CallContext) {
      await enter(ctx, 'GET_BOOKING')
      const record = await load(ctx, reference)
      if (record.status === 'PENDING') {
        record.status = 'CONFIRMED'
        record.updatedAt = ctx.now.toISOString()
        await store.saveBooking(ctx.environment, record)
      }
      return present(ctx, record)
    },

    async changeBooking(reference: string, change: BookingChange, ctx: CallContext) {
      await enter(ctx, 'CHANGE')
      const record = await load(ctx, reference)
      if (record.status === 'CANCELLED' || record.status === 'FAILED') {
        throw new ApiError('INVALID_REQUEST', undefined, {
          booking: detail('BOOKING_STATUS_NOT_CHANGEABLE', { status: record.status }),
        })
      }
      const r = resolve(profile, record.offer)
      const policies = changePolicies(policyOf(ctx, record, r))
      for (const [field, changeType] of CHANGE_FIELDS) {
        if (change[field] === undefined) continue
        const policy = policies.find((p) => p.changeType === changeType)
        if (policy?.availability !== 'AVAILABLE_VIA_API') {
          throw new ApiError('OPERATION_NOT_SUPPORTED', `${changeType} changes are not possible through the API here`, {
            changeType,
            availability: policy?.availability ?? 'NOT_AVAILABLE',
            ...(policy?.manualContact ? { manualContact: policy.manualContact } : {}),
          })
        }
      }
      if (change.rentalPeriod) {
        if (ctx.now >= r.start) {
          throw new ApiError('OPERATION_NOT_SUPPORTED', 'Rental times cannot be changed once the rental started', {
            changeType: 'RENTAL_TIMES',
            reason: 'RENTAL_STARTED',
          })
        }
        const rawStart = new Date(change.rentalPeriod.start)
        const rawEnd = new Date(change.rentalPeriod.end)
        if (
          Number.isNaN(rawStart.getTime()) ||
          Number.isNaN(rawEnd.getTime()) ||
          !(rawEnd > rawStart) ||
          rawStart <= ctx.now
        ) {
          throw new ApiError(
            'INVALID_DATE_RANGE',
            'The new rental period must start in the future and end after it starts',
          )
        }
        const { start, end } = roundPeriod(rawStart, rawEnd, profile.roundMinutes)
        if (rentalDays(start, end) > profile.maxDays) {
          throw new ApiError('INVALID_DATE_RANGE', `Rentals last at most ${profile.maxDays} days`)
        }
        if (start.getTime() !== r.start.getTime() || end.getTime() !== r.end.getTime()) {
          if (!(await store.hold(ctx.environment, r.pickup.id, r.model.id, r.units, reference, start, end, ctx.now))) {
            throw new ApiError('NO_AVAILABLE_CARD', 'No car of this model is free for the new rental times', {
              reason: 'VEHICLE_NOT_AVAILABLE',
            })
          }
          const fee = changeFeeAt({ kind: profile.kind, start: r.start }, ctx.now)
          if (fee > 0) record.changeFees.push(fee)
          record.offer = { ...record.offer, a: start.toISOString(), b: end.toISOString() }
          const next = resolve(profile, record.offer)
          const quote = quoteFor(profile, record.offer, next, {
            language: ctx.language,
            ratePercent: record.ratePercent,
            upsells: record.upsells,
            changeFees: record.changeFees,
          })
          record.price = quote.price
          record.lateFee = lateFeeOf(profile, quote)
        }
      }
      if (change.driver) record.driver = { ...record.driver, ...change.driver }
      if (change.notes !== undefined) record.notes = change.notes
      record.updatedAt = ctx.now.toISOString()
      await store.saveBooking(ctx.environment, record)
      return present(ctx, record)
    },

    async cancelBooking(reference: string, input: { reason?: string }, ctx: CallContext) {
      await enter(ctx, 'CANCEL')
      const record = await load(ctx, reference)
      if (record.status === 'CANCELLED') return present(ctx, record)
      const r = resolve(profile, record.offer)
      const p = policyOf(ctx, record, r)
      const policy = cancellationPolicy(p)
      if (policy.availability !== 'AVAILABLE_VIA_API' || hasScenario(ctx, entry.id, 'cancel-refused')) {
        throw new ApiError('BOOKING_FAILED', 'The provider refused the cancellation', {
          reason: 'CANCELLATION_REFUSED',
          availability: policy.availability,
          ...(policy.manualContact ? { manualContact: policy.manualContact } : {}),
        })
      }
      const terms = cancellationTermsAt(p, ctx.now)
      await store.release(ctx.environment, r.pickup.id, r.model.id, reference)
      record.status = 'CANCELLED'
      record.cancellation = {
        cancelledAt: ctx.now.toISOString(),
        fee: terms.fee,
        refund: terms.refund,
        ...(input.reason ? { reason: input.reason } : {}),
      }
      record.updatedAt = ctx.now.toISOString()
      await store.saveBooking(ctx.environment, record)
      return present(ctx, record)
    },

    async vehicleAction(reference: string, action: VehicleAction, ctx: CallContext) {
      await enter(ctx, 'VEHICLE_ACTION')
      if (!profile.vehicleActions) {
        throw new ApiError('OPERATION_NOT_SUPPORTED', 'Cars of this provider are handed over at the counter', {
          action,
        })
      }
      const record = await load(ctx, reference)
      const r = resolve(profile, record.offer)
      const rejected = (reason: string, extra: Record<string, unknown> = {}) =>
        // Definitive: the booking is not (or no longer) one the car answers for, and a retry changes nothing.
        permanentProviderError('VEHICLE_REJECTED', 'The vehicle rejected the command', {
          cause: reason,
          action,
          ...extra,
        })
      if (record.status !== 'CONFIRMED') throw rejected('BOOKING_NOT_CONFIRMED', { status: record.status })
      // The car answers from booking until the rental ends (a sandbox lets clients try actions before pickup).
      if (ctx.now >= r.end) throw rejected('RENTAL_ENDED', { availableUntil: r.end.toISOString() })
      let vehicleLocation: Coordinates | undefined
      if (action === 'LOCATE') {
        const h = hash32(reference)
        vehicleLocation = {
          latitude: Number((r.pickup.coordinates.latitude + ((h % 200) - 100) / 500_000).toFixed(6)),
          longitude: Number((r.pickup.coordinates.longitude + (((h >>> 8) % 200) - 100) / 300_000).toFixed(6)),
        }
      }
      if (action === 'LOCK' || action === 'UNLOCK') {
        record.locked = action === 'LOCK'
        record.updatedAt = ctx.now.toISOString()
        await store.saveBooking(ctx.environment, record)
      }
      return { status: 'COMPLETED' as const, ...(vehicleLocation ? { vehicleLocation } : {}) }
    },
  } satisfies Partial<CarConnector>
}
