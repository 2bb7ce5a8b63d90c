import { and, eq } from 'drizzle-orm'
import type { Db } from './db.ts'
import { micromobilityTrips, type TripRow } from './schema.ts'

export type NewTrip = typeof micromobilityTrips.$inferInsert
export type TripChanges = Partial<Omit<NewTrip, 'id' | 'tenantId' | 'environment' | 'version' | 'createdAt'>>

/** Micromobility trips; updates are compare-and-set on `version`, so two instances never both move a trip. */
export function tripsRepo(db: Db) {
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

export type TripsRepo = ReturnType<typeof tripsRepo>
