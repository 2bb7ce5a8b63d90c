import type { Db } from './db.ts'
import { and, desc, eq, inArray, lte, sql } from './orm.ts'
import { micromobilityTrips, type TripRow } from './schema.ts'

export type NewTrip = typeof micromobilityTrips.$inferInsert
export type TripChanges = Partial<Omit<NewTrip, 'id' | 'tenantId' | 'environment' | 'version' | 'createdAt'>>

/** Micromobility trips; updates are compare-and-set on `version`, so two instances never both move a trip. */
export function createTripsRepo(db: Db) {
  return {
    async insert(row: NewTrip): Promise<TripRow> {
      const [created] = await db.insert(micromobilityTrips).values(row).returning()
      return created
    },
    async find(tenantId: string, environment: string, id: string): Promise<TripRow | undefined> {
      const [row] = await db
        .select()
        .from(micromobilityTrips)
        .where(
          and(
            eq(micromobilityTrips.id, id),
            eq(micromobilityTrips.tenantId, tenantId),
            eq(micromobilityTrips.environment, environment as 'live'),
          ),
        )
      return row
    },
    async findById(id: string): Promise<TripRow | undefined> {
      const [row] = await db.select().from(micromobilityTrips).where(eq(micromobilityTrips.id, id))
      return row
    },
    /**
     * A page of the tenant's trips in one environment, newest first, after the trip `after` names (its `createdAt`
     * as the database renders it, exactly, and its id). Each row comes with that rendering for the next cursor.
     */
    async list(
      tenantId: string,
      environment: string,
      statuses: readonly string[] | undefined,
      after: { at: string; id: string } | undefined,
      limit: number,
    ): Promise<{ row: TripRow; at: string }[]> {
      const t = micromobilityTrips
      return db
        .select({ row: t, at: sql<string>`${t.createdAt}::text` })
        .from(t)
        .where(
          and(
            eq(t.tenantId, tenantId),
            eq(t.environment, environment as 'live'),
            statuses ? inArray(t.status, statuses as TripRow['status'][]) : undefined,
            after ? sql`(${t.createdAt}, ${t.id}) < (${after.at}::timestamptz, ${after.id})` : undefined,
          ),
        )
        .orderBy(desc(t.createdAt), desc(t.id))
        .limit(limit)
    },
    /** Reservations of the tenant whose window ran out by `now` (oldest first, at most `limit`). */
    async dueReservations(tenantId: string, environment: string, now: Date, limit: number): Promise<TripRow[]> {
      const t = micromobilityTrips
      return db
        .select()
        .from(t)
        .where(
          and(
            eq(t.tenantId, tenantId),
            eq(t.environment, environment as 'live'),
            eq(t.status, 'RESERVED'),
            lte(t.reservedUntil, now),
          ),
        )
        .orderBy(t.reservedUntil)
        .limit(limit)
    },
    /** Applies `changes` only if nobody changed the trip since `row` was read; undefined otherwise. */
    async update(row: TripRow, changes: TripChanges, at: Date): Promise<TripRow | undefined> {
      const [updated] = await db
        .update(micromobilityTrips)
        .set({ ...changes, version: row.version + 1, updatedAt: at })
        .where(and(eq(micromobilityTrips.id, row.id), eq(micromobilityTrips.version, row.version)))
        .returning()
      return updated
    },
  }
}

export type TripsRepo = ReturnType<typeof createTripsRepo>
