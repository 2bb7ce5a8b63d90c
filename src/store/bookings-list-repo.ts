import type { BookingType } from '../contract/bookings.ts'
import type { Db } from './db.ts'
import { rowsOf } from './migrate.ts'
import { and, eq, inArray, sql } from './orm.ts'
import { type CarBookingRow, carBookings, type PtBookingRow, ptBookings } from './schema.ts'

export type ListedBooking = { type: 'CAR'; row: CarBookingRow } | { type: 'PUBLIC_TRANSPORT'; row: PtBookingRow }

/**
 * GET /bookings: car and public-transport bookings of one tenant and environment in one list, newest first (ties by
 * id, as the car bookings' list always had), paged by offset.
 */
export function createBookingsListRepo(db: Db) {
  const branches = (tenantId: string, environment: string, types: readonly BookingType[]) =>
    [
      types.includes('CAR') &&
        sql`SELECT 'CAR' AS type, id, created_at FROM car_bookings WHERE tenant_id = ${tenantId} AND environment = ${environment}`,
      types.includes('PUBLIC_TRANSPORT') &&
        sql`SELECT 'PUBLIC_TRANSPORT' AS type, id, created_at FROM pt_bookings WHERE tenant_id = ${tenantId} AND environment = ${environment}`,
    ].filter((branch) => branch !== false)

  return {
    async page(
      tenantId: string,
      environment: string,
      types: readonly BookingType[],
      offset: number,
      limit: number,
    ): Promise<{ bookings: ListedBooking[]; total: number }> {
      const parts = branches(tenantId, environment, types)
      if (parts.length === 0) return { bookings: [], total: 0 }
      const union = sql.join(parts, sql` UNION ALL `)
      const [entries, counted] = await Promise.all([
        db.execute(
          sql`SELECT type, id FROM (${union}) AS b ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`,
        ),
        db.execute(sql`SELECT count(*)::int AS n FROM (${union}) AS b`),
      ])
      const page = rowsOf<{ type: BookingType; id: string }>(entries)
      const total = Number(rowsOf<{ n: number }>(counted)[0]?.n ?? 0)
      const ids = (type: BookingType) => page.filter((e) => e.type === type).map((e) => e.id)
      const mine = <T extends typeof carBookings | typeof ptBookings>(table: T, list: string[]) =>
        and(inArray(table.id, list), eq(table.tenantId, tenantId), eq(table.environment, environment as 'live'))
      const [cars, tickets] = await Promise.all([
        ids('CAR').length
          ? db
              .select()
              .from(carBookings)
              .where(mine(carBookings, ids('CAR')))
          : [],
        ids('PUBLIC_TRANSPORT').length
          ? db
              .select()
              .from(ptBookings)
              .where(mine(ptBookings, ids('PUBLIC_TRANSPORT')))
          : [],
      ])
      const carById = new Map(cars.map((row) => [row.id, row]))
      const ptById = new Map(tickets.map((row) => [row.id, row]))
      const bookings: ListedBooking[] = []
      for (const { type, id } of page) {
        // A row deleted between the two reads (its tenant went) is left out rather than shown half.
        if (type === 'CAR') {
          const row = carById.get(id)
          if (row) bookings.push({ type, row })
        } else {
          const row = ptById.get(id)
          if (row) bookings.push({ type, row })
        }
      }
      return { bookings, total }
    },
  }
}

export type BookingsListRepo = ReturnType<typeof createBookingsListRepo>
