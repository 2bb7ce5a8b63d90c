import type { Db } from './db.ts'
import { and, count, desc, eq, sql } from './orm.ts'
import { type CarBookingRow, carBookings } from './schema.ts'

export type NewCarBooking = typeof carBookings.$inferInsert

/** Stored car bookings (retention STANDARD), always read within one tenant and environment. */
export function createCarBookingsRepo(db: Db) {
  return {
    /** Inserts unless a booking of the same token exists; undefined then (one booking per token). */
    async insert(row: NewCarBooking): Promise<CarBookingRow | undefined> {
      const [created] = await db
        .insert(carBookings)
        .values(row)
        .onConflictDoNothing({ target: carBookings.tokenNonce })
        .returning()
      return created
    },
    async find(tenantId: string, environment: string, id: string): Promise<CarBookingRow | undefined> {
      const [row] = await db
        .select()
        .from(carBookings)
        .where(
          and(
            eq(carBookings.id, id),
            eq(carBookings.tenantId, tenantId),
            eq(carBookings.environment, environment as 'live'),
          ),
        )
      return row
    },
    async bookingIdForToken(nonce: string): Promise<string | undefined> {
      const [row] = await db.select({ id: carBookings.id }).from(carBookings).where(eq(carBookings.tokenNonce, nonce))
      return row?.id
    },
    /**
     * Writes `changes` if the row is still at `version` (the one it was read at); undefined when another write came
     * first, so a change based on an older read never overwrites a newer one.
     */
    async update(
      id: string,
      version: number,
      changes: Partial<Pick<CarBookingRow, 'status' | 'record' | 'statusHistory'>>,
      at: Date,
    ): Promise<CarBookingRow | undefined> {
      const [row] = await db
        .update(carBookings)
        .set({ ...changes, updatedAt: at, version: sql`${carBookings.version} + 1` })
        .where(and(eq(carBookings.id, id), eq(carBookings.version, version)))
        .returning()
      return row
    },
    async list(tenantId: string, environment: string, offset: number, limit: number) {
      const where = and(eq(carBookings.tenantId, tenantId), eq(carBookings.environment, environment as 'live'))
      const rows = await db
        .select()
        .from(carBookings)
        .where(where)
        .orderBy(desc(carBookings.createdAt), desc(carBookings.id))
        .offset(offset)
        .limit(limit)
      const [{ value }] = await db.select({ value: count() }).from(carBookings).where(where)
      return { rows, total: Number(value) }
    },
  }
}

export type CarBookingsRepo = ReturnType<typeof createCarBookingsRepo>
