import type { Registry } from '../../connectors/registry.ts'
import { BOOKING_TYPES, type BookingType } from '../../contract/bookings.ts'
import { ApiError } from '../../contract/errors.ts'
import type { BookingsListRepo } from '../../store/bookings-list-repo.ts'
import { storedBooking } from '../cars/booking-view.ts'
import type { Caller } from '../providers/calls.ts'
import { storedTicketBooking } from '../public-transport/ticket-view.ts'

export interface BookingListQuery {
  page?: number
  limit?: number
  type?: BookingType[]
}

/**
 * GET /bookings: the tenant's stored car and public-transport bookings in the key's environment, newest first, each
 * with its `type`, as last recorded (the read of one booking asks its provider). Offset pages (spec 2.3). Under
 * retention NONE nothing is stored: 403 DATA_RETENTION_NONE (spec 4.5), whatever the filter.
 */
export function createBookingList(deps: { repo: BookingsListRepo; registry: Registry }) {
  const providerOf = (id: string) => deps.registry.get(id) ?? { entry: { id, name: id } }
  return {
    /** `mayReadTickets`: the key holds public-transport:booking:read (the route asks for cars:booking:read). */
    async list(query: BookingListQuery, caller: Caller, mayReadTickets: boolean) {
      if (caller.tenant.dataRetention === 'NONE') throw new ApiError('DATA_RETENTION_NONE')
      const asked = query.type?.length ? BOOKING_TYPES.filter((t) => query.type?.includes(t)) : undefined
      if (asked?.includes('PUBLIC_TRANSPORT') && !mayReadTickets) {
        throw new ApiError('FORBIDDEN', undefined, {
          reason: 'MISSING_PERMISSION',
          requiredPermission: 'public-transport:booking:read',
        })
      }
      // Without a filter, a key that may not read ticket bookings lists its car bookings only.
      const types = asked ?? BOOKING_TYPES.filter((t) => t === 'CAR' || mayReadTickets)
      const page = query.page ?? 0
      const limit = query.limit ?? 20
      const { bookings, total } = await deps.repo.page(caller.tenant.id, caller.environment, types, page * limit, limit)
      return {
        bookings: bookings.map((b) =>
          b.type === 'CAR'
            ? { type: b.type, ...storedBooking(b.row) }
            : { type: b.type, ...storedTicketBooking(b.row, providerOf(b.row.providerId)) },
        ),
        pagination: { total, currentPage: page, limit },
      }
    },
  }
}

export type BookingList = ReturnType<typeof createBookingList>
