import { spawn } from 'node:child_process'
import cluster from 'node:cluster'
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import { type Config, loadConfig } from '../config.ts'

/*
 * The embedded database's files: the lock, the options every PGlite of the service opens with, and the creation of a
 * new database. No drizzle here: src/store/pglite-database.ts runs as a process of its own (see createInOwnProcess).
 */

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

/** The lock files this process holds (a second open in the same process is refused like another process's). */
const heldHere = new Set<string>()

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
      heldHere.add(resolve(file))
      let held = true
      return () => {
        if (!held) return
        held = false
        heldHere.delete(resolve(file))
        if (readPid(file) === process.pid) rmSync(file, { force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const pid = readPid(file)
    // Our own pid in a lock this process does not hold: written by an earlier process that had the same pid (a
    // container restarted after a kill starts as pid 1 again), so it is stale.
    const earlierSelf = pid === process.pid && !heldHere.has(resolve(file))
    if (pid !== undefined && !earlierSelf && isAlive(pid)) {
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
/** What every PGlite of the service is opened with. */
export const PGLITE_OPTIONS = { startParams: START_PARAMS, initDbStartParams: INITDB_PARAMS }

/**
 * V8 first runs WASM through its baseline compiler (Liftoff) and then recompiles hot functions with TurboFan in the
 * background. PostgreSQL's functions are huge: compiling them took ~450 MiB for a few seconds after each start (the
 * peak RSS of `npm start`), for queries that measured no faster (the time of a query is the protocol and the files).
 * So the embedded database stays on Liftoff, unless node was started with a WASM flag of its own.
 * Called before the first PGlite compiles its module; the flags apply to the modules compiled after.
 */
let baselineOnly = false
export function keepWasmOnBaselineCompiler(): void {
  if (baselineOnly) return
  baselineOnly = true
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('wasm'))
  if (!given) setFlagsFromString('--no-wasm-tier-up --no-wasm-dynamic-tiering')
}

/** Whether `dataDir` holds a database already (PGlite's own test: a directory without one gets initdb first). */
export const pgliteDatabaseExists = (dataDir: string): boolean => existsSync(join(dataDir, 'PG_VERSION'))

/**
 * A new database made once when the project is installed (`npm ci` runs the "prepare" script,
 * scripts/pglite-template.js): PGlite's initdb peaks at ~510 MiB RSS for seconds (two 128 MiB WASM memories, the
 * 128 MiB copy it restores before each step, the new cluster in memory and its tar), more than a start may take. A
 * first start copies this directory instead (files only, no PostgreSQL running). Kept beside the PGlite version and
 * initdb options it was made with; made by another (an upgrade without a new install) it is not used, and initdb
 * runs as before. Git ignores `.cache/`. A database in memory (tests) starts from its files too (pglite-memory.ts).
 */
export const DATABASE_TEMPLATE_DIR = fileURLToPath(new URL('../../.cache/pglite-template', import.meta.url))

/** What a template must have been made with to be copied: this PGlite (its WASM build) and these initdb options. */
function templateStamp(): string {
  const pkg = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'))
  const version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version
  return JSON.stringify({ pglite: version, initdb: INITDB_PARAMS })
}

const readOr = (file: string, fallback: string): string => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return fallback
  }
}

/** Whether `template` holds a complete database made by this PGlite with these options. */
export const databaseTemplateUsable = (template = DATABASE_TEMPLATE_DIR): boolean =>
  readOr(join(template, 'stamp.json'), '') === templateStamp() && pgliteDatabaseExists(join(template, 'data'))

/**
 * Copies the template's database into `dataDir` (whose lock the caller holds); false when there is no usable template.
 * PG_VERSION goes last: it is what says a database is there, so a copy cut short is copied again, never opened.
 */
export function copyDatabaseTemplate(dataDir: string, template = DATABASE_TEMPLATE_DIR): boolean {
  if (!databaseTemplateUsable(template)) return false
  const data = join(template, 'data')
  cpSync(data, dataDir, {
    recursive: true,
    force: true,
    filter: (source) => source !== join(data, 'PG_VERSION') && source !== join(data, '.lock'),
  })
  copyFileSync(join(data, 'PG_VERSION'), join(dataDir, 'PG_VERSION'))
  return true
}

/**
 * Makes the template (scripts/pglite-template.js, run by `npm ci`): PGlite's initdb into a directory of its own, then
 * renamed into place with the stamp, so a template is complete or absent. Returns its directory.
 */
export async function buildDatabaseTemplate(template = DATABASE_TEMPLATE_DIR): Promise<string> {
  const building = `${template}.${process.pid}`
  rmSync(building, { recursive: true, force: true })
  try {
    await createPgliteDatabase(join(building, 'data'), undefined)
    writeFileSync(join(building, 'stamp.json'), templateStamp())
    rmSync(template, { recursive: true, force: true })
    renameSync(building, template)
  } finally {
    rmSync(building, { recursive: true, force: true })
  }
  return template
}

/**
 * Creates the database in `dataDir` and closes it; nothing when one is there. A copy of `template` when it is usable,
 * otherwise (or with none) PGlite's initdb.
 */
export async function createPgliteDatabase(
  dataDir: string,
  template: string | undefined = DATABASE_TEMPLATE_DIR,
): Promise<void> {
  if (pgliteDatabaseExists(dataDir)) return
  mkdirSync(dataDir, { recursive: true })
  const release = lockDataDir(dataDir)
  try {
    if (pgliteDatabaseExists(dataDir) || (template && copyDatabaseTemplate(dataDir, template))) return
    keepWasmOnBaselineCompiler()
    const client = new PGlite(dataDir, PGLITE_OPTIONS)
    try {
      await client.waitReady
    } finally {
      await client.close()
    }
  } finally {
    release()
  }
}

/**
 * Creates the database of a first start in a process of its own, before the service loads anything else; nothing when
 * the database is there. PGlite's initdb runs a second PostgreSQL instance beside the first and copies its whole WASM
 * memory (128 MiB) to restore it before every step: ~450 MiB for a few seconds, and the C heap it grows stays with
 * the process afterwards (+60 MiB of idle RSS, freed but never given back). In a child both end with it; the service
 * then opens the database as on any restart. Should the child fail, the service's own opening runs initdb and reports
 * whatever is wrong, as before. A signal that stops the start stops the child too. With the install's template there
 * is no initdb: the copy is made here, in this process.
 */
export async function createInOwnProcess(dataDir: string, template = DATABASE_TEMPLATE_DIR): Promise<void> {
  if (pgliteDatabaseExists(dataDir)) return
  // A copy of the template needs no process of its own (no PostgreSQL runs).
  if (databaseTemplateUsable(template)) return createPgliteDatabase(dataDir, template)
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), dataDir], { stdio: 'ignore' })
  const forward = (signal: NodeJS.Signals) => {
    child.kill(signal)
    process.kill(process.pid, signal)
  }
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const
  for (const signal of signals) process.once(signal, forward)
  try {
    await new Promise<void>((done) => {
      child.once('error', () => done())
      child.once('exit', () => done())
    })
  } finally {
    for (const signal of signals) process.off(signal, forward)
  }
}

/** Where the service keeps its embedded database. */
export const embeddedDatabaseDir = (config: Pick<Config, 'dataDir'>): string => `${config.dataDir}/db`

/**
 * The first thing `npm start` does (src/start.js): when the service will use the embedded database and DATA_DIR has
 * none yet, copies the install's template or creates it in a process of its own. A configuration that does not load
 * is left to the service to report.
 */
export async function prepareEmbeddedDatabase(): Promise<void> {
  let config: Config
  try {
    config = loadConfig()
  } catch {
    return
  }
  if (config.databaseUrl || cluster.isWorker) return
  await createInOwnProcess(embeddedDatabaseDir(config))
}

if (import.meta.main) {
  const dataDir = process.argv[2]
  if (!dataDir) throw new Error('usage: node src/store/pglite-database.ts <directory>')
  // The parent found no usable template: initdb.
  await createPgliteDatabase(dataDir, undefined)
}
