import type { Db } from './db.ts'
import { and, count, desc, eq, sql } from './orm.ts'
import { type PtBookingRow, ptBookings, type SubscriptionRow, subscriptions } from './schema.ts'

/** Public-transport bookings and subscriptions, always read within one tenant and environment. */
export function createPublicTransportRepo(db: Db) {
  const mine = <T extends typeof ptBookings | typeof subscriptions>(table: T, tenantId: string, environment: string) =>
    and(eq(table.tenantId, tenantId), eq(table.environment, environment as 'live'))
  return {
    async insertBooking(row: typeof ptBookings.$inferInsert): Promise<PtBookingRow | undefined> {
      const [created] = await db
        .insert(ptBookings)
        .values(row)
        .onConflictDoNothing({ target: ptBookings.tokenNonce })
        .returning()
      return created
    },
    async bookingIdForToken(nonce: string): Promise<string | undefined> {
      const [row] = await db.select({ id: ptBookings.id }).from(ptBookings).where(eq(ptBookings.tokenNonce, nonce))
      return row?.id
    },
    async findBooking(tenantId: string, environment: string, id: string): Promise<PtBookingRow | undefined> {
      const [row] = await db
        .select()
        .from(ptBookings)
        .where(and(eq(ptBookings.id, id), mine(ptBookings, tenantId, environment)))
      return row
    },
    /**
     * Writes `changes` if the row is still at `version` (the one it was read at); undefined when another write came
     * first, so a status change is written (and announced) by one writer only.
     */
    async updateBooking(
      id: string,
      version: number,
      changes: Partial<Pick<PtBookingRow, 'status' | 'record' | 'statusHistory'>>,
      at: Date,
    ): Promise<PtBookingRow | undefined> {
      const [row] = await db
        .update(ptBookings)
        .set({ ...changes, updatedAt: at, version: sql`${ptBookings.version} + 1` })
        .where(and(eq(ptBookings.id, id), eq(ptBookings.version, version)))
        .returning()
      return row
    },
    async insertSubscription(row: typeof subscriptions.$inferInsert): Promise<SubscriptionRow> {
      const [created] = await db.insert(subscriptions).values(row).returning()
      return created
    },
    async findSubscription(tenantId: string, environment: string, id: string): Promise<SubscriptionRow | undefined> {
      const [row] = await db
        .select()
        .from(subscriptions)
        .where(and(eq(subscriptions.id, id), mine(subscriptions, tenantId, environment)))
      return row
    },
    /** Compare-and-set on `version`, as updateBooking. */
    async updateSubscription(
      id: string,
      version: number,
      changes: Partial<Pick<SubscriptionRow, 'status' | 'record'>>,
      at: Date,
    ): Promise<SubscriptionRow | undefined> {
      const [row] = await db
        .update(subscriptions)
        .set({ ...changes, updatedAt: at, version: sql`${subscriptions.version} + 1` })
        .where(and(eq(subscriptions.id, id), eq(subscriptions.version, version)))
        .returning()
      return row
    },
    async listSubscriptions(tenantId: string, environment: string, offset: number, limit: number) {
      const where = mine(subscriptions, tenantId, environment)
      const rows = await db
        .select()
        .from(subscriptions)
        .where(where)
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .offset(offset)
        .limit(limit)
      const [{ value }] = await db.select({ value: count() }).from(subscriptions).where(where)
      return { rows, total: Number(value) }
    },
  }
}

export type PublicTransportRepo = ReturnType<typeof createPublicTransportRepo>
