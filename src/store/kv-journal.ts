import type { KvJournal } from '../platform/kv/types.ts'
import type { Db } from './db.ts'
import { eq, lte, sql } from './orm.ts'
import { kvEntries } from './schema.ts'

/**
 * A count replaces the stored one only when it is higher (counts are decimal integers without leading zeros, so
 * a longer text is a higher count) or when the stored one has expired.
 */
const HIGHER_COUNT = sql`length(excluded.value) > length(${kvEntries.value})
  OR (length(excluded.value) = length(${kvEntries.value}) AND excluded.value > ${kvEntries.value})
  OR ${kvEntries.expiresAt} <= now()`

/** The durable entries of the key-value store (in memory or in Redis), in the database (see `kvEntries`). */
export function createKvJournal(db: Db): KvJournal {
  return {
    async load(nowMs) {
      const now = new Date(nowMs)
      await db.delete(kvEntries).where(lte(kvEntries.expiresAt, now))
      const rows = await db.select().from(kvEntries)
      return rows.map((row) => ({
        key: row.key,
        value: row.value,
        structured: row.structured,
        expiresAt: row.expiresAt.getTime(),
      }))
    },
    async put(entry) {
      const row = { value: entry.value, structured: entry.structured, expiresAt: new Date(entry.expiresAt) }
      await db
        .insert(kvEntries)
        .values({ key: entry.key, ...row })
        .onConflictDoUpdate({ target: kvEntries.key, set: row, ...(entry.counter ? { setWhere: HIGHER_COUNT } : {}) })
    },
    async remove(key) {
      await db.delete(kvEntries).where(eq(kvEntries.key, key))
    },
  }
}
