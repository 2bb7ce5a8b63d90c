import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { drizzle } from 'drizzle-orm/pglite'
import type { Db, Store } from './db.ts'
import { migrate } from './migrate.ts'
import * as schema from './schema.ts'

/** Embedded PostgreSQL (WASM) in `dataDir`, or in memory when `dataDir` is undefined (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Store> {
  if (dataDir) mkdirSync(dataDir, { recursive: true })
  const client = dataDir ? new PGlite(dataDir) : new PGlite()
  await client.waitReady
  const db = drizzle({ client, schema }) as unknown as Db
  const store: Store = {
    kind: 'pglite',
    db,
    exec: async (sql) => {
      await client.exec(sql)
    },
    // One process owns a PGlite database, so its own queue already serializes callers.
    withAdvisoryLock: (_lockId, fn) => fn(),
    close: () => client.close(),
  }
  await migrate(store)
  return store
}
