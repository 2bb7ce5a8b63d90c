import { ApiError } from '../../contract/errors.ts'
import type { Trip, TripStatus } from '../../contract/micromobility.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { TripRow } from '../../store/schema.ts'
import type { TripsRepo } from '../../store/trips-repo.ts'
import type { Caller } from '../providers/calls.ts'
import { CURSOR_SESSION_MS, paramsHash } from '../providers/merged-pages.ts'
import { presentTrip } from './trip-view.ts'

/** Overdue reservations a list request expires before it reads (the expiry job does the rest). */
const EXPIRED_PER_PAGE = 10

export interface TripListQuery {
  status?: TripStatus[]
  limit?: number
  cursor?: string
}

/** What a cursor of the trips list holds: the parameters' hash, when it was issued, the last trip shown. */
interface Claim {
  h: string
  t: number
  /** `createdAt` of the last trip of the page, as the database renders it (exact to the microsecond). */
  a: string
  i: string
}

export interface TripListDeps {
  repo: TripsRepo
  tokens: TokenCipher
  /** Marks a reservation whose window ran out CANCELLED (RESERVATION_EXPIRED), as a read of it would. */
  expire: (caller: Caller, row: TripRow) => Promise<TripRow>
  log: { warn(obj: object, msg?: string): void }
}

/**
 * GET /micromobility/trips: the tenant's trips in the key's environment, newest first, optionally of some statuses,
 * in cursor pages as everywhere in the API (spec 8): opaque, forward only, no total, a session of 30 minutes renewed
 * with each page, other parameters start a fresh first page. The cursor is a position (the last trip shown), so
 * trips created meanwhile never shift a page.
 */
export async function listTrips(deps: TripListDeps, query: TripListQuery, caller: Caller) {
  const statuses = query.status?.length ? [...new Set(query.status)].sort() : undefined
  const limit = query.limit ?? 20
  const context = `trips-list|${caller.tenant.id}|${caller.environment}`
  const h = paramsHash({ statuses })
  let after: { at: string; id: string } | undefined
  if (query.cursor) {
    const claim = deps.tokens.open<Claim>(context, query.cursor)
    if (!claim || typeof claim.a !== 'string' || typeof claim.i !== 'string' || typeof claim.t !== 'number')
      throw new ApiError('INVALID_CURSOR', undefined, { cursor: detail('NOT_A_CURSOR_OF_THIS_KEY') })
    if (claim.h === h) {
      if (caller.now.getTime() - claim.t > CURSOR_SESSION_MS)
        throw new ApiError('INVALID_CURSOR', undefined, { cursor: detail('HAS_EXPIRED'), reason: 'CURSOR_EXPIRED' })
      after = { at: claim.a, id: claim.i }
    }
  }
  // A reservation that ran out shows as what it is (CANCELLED), as a read of it would, and the status filter sees it so.
  const due = await deps.repo.dueReservations(caller.tenant.id, caller.environment, caller.now, EXPIRED_PER_PAGE)
  await Promise.all(
    due.map((row) =>
      deps.expire(caller, row).catch((error: unknown) => {
        deps.log.warn({ err: error, tripId: row.id }, 'could not expire a reservation while listing; its job will')
      }),
    ),
  )
  const rows = await deps.repo.list(caller.tenant.id, caller.environment, statuses, after, limit + 1)
  const page = rows.slice(0, limit)
  const hasMore = rows.length > limit
  const last = page.at(-1)
  const trips: Trip[] = page.map(({ row }) => presentTrip(row, caller.now))
  return {
    trips,
    pagination:
      hasMore && last
        ? {
            hasMore: true,
            nextCursor: deps.tokens.seal(context, {
              h,
              t: caller.now.getTime(),
              a: last.at,
              i: last.row.id,
            } satisfies Claim),
          }
        : { hasMore: false },
  }
}
