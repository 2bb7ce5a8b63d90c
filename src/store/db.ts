import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type * as schema from './schema.ts'

/** The drizzle database both drivers produce; repositories depend on this only. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

export interface Store {
  kind: 'pglite' | 'postgres'
  db: Db
  /** Runs raw SQL (several statements allowed); used by the migrator. */
  exec(sql: string): Promise<void>
  /** Runs `fn` while holding a database-wide advisory lock, so one instance at a time does it. */
  withAdvisoryLock<T>(lockId: number, fn: () => Promise<T>): Promise<T>
  close(): Promise<void>
}
