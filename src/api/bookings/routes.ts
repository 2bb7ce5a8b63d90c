import { BookingListQuery, BookingListResult } from '../../contract/bookings.ts'
import { responses } from '../../contract/common.ts'
import type { BookingList } from '../../domain/bookings/list.ts'
import { keyMay } from '../../domain/tenants/permissions.ts'
import { callerOf } from '../../http/caller.ts'
import { authOf, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { splitCommas } from '../shared/query-lists.ts'

export function bookingRoutes(app: TypedApp, { bookings, clock }: { bookings: BookingList; clock: () => Date }) {
  app.get(
    '/bookings',
    {
      config: { permission: 'cars:booking:read', errors: ['DATA_RETENTION_NONE'] },
      preValidation: splitCommas('type'),
      schema: {
        operationId: 'listBookings',
        tags: ['Cars', 'Public Transport'],
        summary: 'List bookings',
        description:
          "The tenant's stored car and public-transport bookings in the key's environment, newest first, each as last recorded with its `type` (CAR or PUBLIC_TRANSPORT; filter with `type`). To find what a lost answer created. Offset pages (`page`, `limit` at most 100; past the end an empty list). Ticket bookings need `public-transport:booking:read` as well: without it the list holds car bookings, and `type=PUBLIC_TRANSPORT` answers 403 FORBIDDEN. 403 DATA_RETENTION_NONE under data retention NONE (nothing is stored). An unknown `type` answers 400 INVALID_REQUEST.",
        security: [{ apiKey: [] }],
        querystring: BookingListQuery,
        response: responses(BookingListResult),
      },
    },
    async (request) =>
      ok(
        request,
        await bookings.list(
          request.query,
          callerOf(request, clock),
          keyMay(authOf(request).key, 'public-transport:booking:read'),
        ),
      ),
  )
}
