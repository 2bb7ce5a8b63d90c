import { eq, lte } from 'drizzle-orm'
import type { KvJournal } from '../platform/kv/types.ts'
import type { Db } from './db.ts'
import { kvEntries } from './schema.ts'

/** The durable entries of the in-memory key-value store, in the database (see `kvEntries`). */
export function kvJournal(db: Db): KvJournal {
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
        .onConflictDoUpdate({ target: kvEntries.key, set: row })
    },
    async remove(key) {
      await db.delete(kvEntries).where(eq(kvEntries.key, key))
    },
  }
}
