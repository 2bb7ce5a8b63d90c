import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import type { Db, Store } from './db.ts'
import { migrate } from './migrate.ts'
import { pgliteDrizzle as drizzle } from './orm.ts'
import {
  copyDatabaseTemplate,
  DATABASE_TEMPLATE_DIR,
  keepWasmOnBaselineCompiler,
  lockDataDir,
  PGLITE_OPTIONS,
  pgliteDatabaseExists,
} from './pglite-database.ts'
import { openInMemory } from './pglite-memory.ts'
import * as schema from './schema.ts'

export { lockDataDir } from './pglite-database.ts'

/**
 * Embedded PostgreSQL (WASM) in `dataDir`, or in memory when `dataDir` is undefined (tests). Either starts from a copy
 * of the install's database template when there is a usable one (`template`, tests name another), else runs initdb.
 */
export async function openPglite(dataDir: string | undefined, template = DATABASE_TEMPLATE_DIR): Promise<Store> {
  let release = () => {}
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true })
    release = lockDataDir(dataDir)
  }
  let client: PGlite | undefined
  try {
    if (dataDir) {
      // A new data directory gets a copy of the install's template when there is one (no initdb in this process).
      if (!pgliteDatabaseExists(dataDir)) copyDatabaseTemplate(dataDir, template)
      keepWasmOnBaselineCompiler()
      client = new PGlite(dataDir, PGLITE_OPTIONS)
      await client.waitReady
    } else {
      client = await openInMemory(template)
    }
    const opened = client
    const db = drizzle({ client: opened, schema }) as unknown as Db
    const store: Store = {
      kind: 'pglite',
      db,
      exec: async (sql) => {
        await opened.exec(sql)
      },
      // One process owns a PGlite database, so its own queue already serializes callers.
      withAdvisoryLock: (_lockId, fn) => fn(),
      close: async () => {
        try {
          if (!opened.closed) await opened.close()
        } finally {
          release()
        }
      },
    }
    await migrate(store)
    return store
  } catch (error) {
    await client?.close().catch(() => {})
    release()
    throw error
  }
}
