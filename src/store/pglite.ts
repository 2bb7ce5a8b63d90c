import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import type { Db, Store } from './db.ts'
import { migrate } from './migrate.ts'
import { pgliteDrizzle as drizzle } from './orm.ts'
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

/**
 * PostgreSQL's own memory inside the WASM instance. Its default shared_buffers (128 MB) made the instance's memory
 * grow from 128 to 189 MiB at start; one process holds the embedded database, so 16 MB of buffer cache is plenty
 * (the files are in the OS page cache anyway). `--set` writes it into a new database's postgresql.conf, the start
 * parameter applies it to databases created before.
 */
const SHARED_BUFFERS = 'shared_buffers=16MB'
const START_PARAMS = [...PGlite.defaultStartParams, '-c', SHARED_BUFFERS]
const INITDB_PARAMS = ['--set', SHARED_BUFFERS]

/**
 * V8 first runs WASM through its baseline compiler (Liftoff) and then recompiles hot functions with TurboFan in the
 * background. PostgreSQL's functions are huge: compiling them took ~450 MiB for a few seconds after each start (the
 * peak RSS of `npm start`), for queries that measured no faster (the time of a query is the protocol and the files).
 * So the embedded database stays on Liftoff, unless node was started with a WASM flag of its own.
 * Called before the first PGlite compiles its module; the flags apply to the modules compiled after.
 */
let baselineOnly = false
function keepWasmOnBaselineCompiler(): void {
  if (baselineOnly) return
  baselineOnly = true
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('wasm'))
  if (!given) setFlagsFromString('--no-wasm-tier-up --no-wasm-dynamic-tiering')
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
    keepWasmOnBaselineCompiler()
    const options = { startParams: START_PARAMS, initDbStartParams: INITDB_PARAMS }
    client = dataDir ? new PGlite(dataDir, options) : new PGlite(options)
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
