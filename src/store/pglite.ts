import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { drizzle } from 'drizzle-orm/pglite'
import type { Db, Store } from './db.ts'
import { migrate } from './migrate.ts'
import * as schema from './schema.ts'

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const readPid = (file: string): number | undefined => {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * PGlite cannot be opened by two processes at once (the second would corrupt the files), so the process that opens
 * `dataDir` holds `<dataDir>/.lock` with its pid. A lock whose process is gone is stale and taken over.
 * Returns the function that releases it.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, '.lock')
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' })
      let held = true
      return () => {
        if (!held) return
        held = false
        if (readPid(file) === process.pid) rmSync(file, { force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const pid = readPid(file)
    if (pid !== undefined && isAlive(pid)) {
      throw new Error(
        `the embedded database in ${resolve(dataDir)} is in use by process ${pid}; stop it, or use the admin API (/admin/v1) of the running service`,
      )
    }
    // Stale (its process is gone) or unreadable: take it over.
    rmSync(file, { force: true })
  }
  throw new Error(`could not take the lock ${file}: another process keeps taking it`)
}

/** Embedded PostgreSQL (WASM) in `dataDir`, or in memory when `dataDir` is undefined (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Store> {
  let release = () => {}
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true })
    release = lockDataDir(dataDir)
  }
  let client: PGlite | undefined
  try {
    client = dataDir ? new PGlite(dataDir) : new PGlite()
    await client.waitReady
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
