import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import type { Db, Store } from './db.ts'
import { migrate } from './migrate.ts'
import * as schema from './schema.ts'

export async function openPostgres(url: string, poolSize = 10): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {})
  const db = drizzle({ client: pool, schema }) as unknown as Db
  const store: Store = {
    kind: 'postgres',
    db,
    exec: async (sql) => {
      await pool.query(sql)
    },
    withAdvisoryLock: async (lockId, fn) => {
      const client = await pool.connect()
      try {
        await client.query('SELECT pg_advisory_lock($1)', [lockId])
        try {
          return await fn()
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [lockId])
        }
      } finally {
        client.release()
      }
    },
    close: () => pool.end(),
  }
  await migrate(store)
  return store
}
