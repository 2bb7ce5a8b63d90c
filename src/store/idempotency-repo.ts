import type { Db } from './db.ts'
import { and, eq, inArray, lte, or } from './orm.ts'
import { type IdempotencyRow, idempotencyKeys } from './schema.ts'

/** What a request that wants to run under an idempotency key writes first. */
export interface IdempotencyClaim {
  id: string
  tenantId: string
  environment: 'live' | 'test'
  apiKeyId: string
  salt: string
  fingerprint: string
  /** Random per request: only this request may settle or release the row. */
  owner: string
  now: Date
  lockedUntil: Date
  expiresAt: Date
}

/** The first answer, as it is kept. */
export interface KeptAnswer {
  status: number
  headers: Record<string, string>
  body: string
  redacted: boolean
}

/** Rows deleted per statement by `deleteExpired`, so one sweep never holds a long lock. */
const SWEEP_BATCH = 5000

/**
 * Idempotency keys (see `idempotencyKeys`). Times come from the caller's clock, not the database's, so tests can
 * move time; the same statements run on PGlite and PostgreSQL.
 */
export function createIdempotencyRepo(db: Db) {
  return {
    /**
     * Takes the key for this request in one statement: a new row, or one whose 24 hours are over, or one whose
     * request stopped holding it (its lease ran out: the instance crashed or hung). True when this request holds it.
     */
    async claim(claim: IdempotencyClaim): Promise<boolean> {
      const fresh = {
        salt: claim.salt,
        fingerprint: claim.fingerprint,
        state: 'running' as const,
        owner: claim.owner,
        lockedUntil: claim.lockedUntil,
        status: null,
        headers: null,
        body: null,
        redacted: false,
        createdAt: claim.now,
        expiresAt: claim.expiresAt,
      }
      const rows = await db
        .insert(idempotencyKeys)
        .values({
          id: claim.id,
          tenantId: claim.tenantId,
          environment: claim.environment,
          apiKeyId: claim.apiKeyId,
          ...fresh,
        })
        .onConflictDoUpdate({
          target: idempotencyKeys.id,
          set: fresh,
          setWhere: or(
            lte(idempotencyKeys.expiresAt, claim.now),
            and(eq(idempotencyKeys.state, 'running'), lte(idempotencyKeys.lockedUntil, claim.now)),
          ),
        })
        .returning({ owner: idempotencyKeys.owner })
      return rows.length === 1 && rows[0].owner === claim.owner
    },

    async find(id: string): Promise<IdempotencyRow | undefined> {
      const [row] = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.id, id))
      return row
    },

    /** Keeps the answer of the request that holds the row; false when it no longer does (its lease was taken over). */
    async settle(id: string, owner: string, answer: KeptAnswer): Promise<boolean> {
      const rows = await db
        .update(idempotencyKeys)
        .set({ state: 'done', lockedUntil: null, ...answer })
        .where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.owner, owner), eq(idempotencyKeys.state, 'running')))
        .returning({ id: idempotencyKeys.id })
      return rows.length === 1
    },

    /** Frees the key (an answer that is not kept), if this request still holds it. */
    async release(id: string, owner: string): Promise<void> {
      await db
        .delete(idempotencyKeys)
        .where(and(eq(idempotencyKeys.id, id), eq(idempotencyKeys.owner, owner), eq(idempotencyKeys.state, 'running')))
    },

    /** Deletes the rows whose 24 hours are over; answers how many. */
    async deleteExpired(now: Date): Promise<number> {
      let total = 0
      for (;;) {
        const expired = db
          .select({ id: idempotencyKeys.id })
          .from(idempotencyKeys)
          .where(lte(idempotencyKeys.expiresAt, now))
          .limit(SWEEP_BATCH)
        const deleted = await db
          .delete(idempotencyKeys)
          .where(inArray(idempotencyKeys.id, expired))
          .returning({ id: idempotencyKeys.id })
        total += deleted.length
        if (deleted.length < SWEEP_BATCH) return total
      }
    },
  }
}

export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>
