import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { MemoryFS, PGlite } from '@electric-sql/pglite'
import {
  DATABASE_TEMPLATE_DIR,
  databaseTemplateUsable,
  keepWasmOnBaselineCompiler,
  PGLITE_OPTIONS,
} from './pglite-database.ts'

/*
 * The embedded database in memory (tests, `inMemory` runtimes). A new PGlite in memory runs initdb: ~510 MiB peak RSS
 * and 2 s of CPU (see DATABASE_TEMPLATE_DIR), in every test process, for every store it opens. With the install's
 * template it starts from a copy of the template's files instead, like a first start on disk.
 */

type PostgresModule = Parameters<MemoryFS['init']>[1]
type EmscriptenFs = PGlite['Module']['FS']

/** Copies the directory `from` (directories and regular files) into `to` of an Emscripten file system. */
function copyInto(fs: EmscriptenFs, from: string, to: string): void {
  for (const name of readdirSync(from).sort()) {
    const source = join(from, name)
    const target = `${to}/${name}`
    const stat = statSync(source)
    if (stat.isDirectory()) {
      fs.mkdir(target)
      copyInto(fs, source, target)
    } else if (stat.isFile() && name !== '.lock') {
      fs.writeFile(target, readFileSync(source))
    }
  }
}

/**
 * PGlite's in-memory file system, given the template's database before PostgreSQL starts: what PGlite's own
 * `loadDataDir` does with a tar (write each file into the in-memory file system, after which PGlite finds a database
 * and starts it instead of running initdb), from the directory itself: no tar held in memory two or three times over
 * while it is unpacked (~320 MiB peak with one, ~200 without).
 */
class TemplateMemoryFS extends MemoryFS {
  readonly #database: string

  constructor(database: string) {
    super()
    this.#database = database
  }

  override async init(pg: PGlite, options: Partial<PostgresModule>) {
    const { emscriptenOpts } = await super.init(pg, options)
    const load = (module: PostgresModule) => {
      // PGlite's own step before this one names the data directory.
      const dataDir = module.ENV?.PGDATA
      if (typeof dataDir !== 'string' || !dataDir) throw new Error('PGlite set no PGDATA before loading the template')
      module.FS.mkdirTree(dataDir)
      copyInto(module.FS, this.#database, dataDir)
    }
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), load] } }
  }
}

/**
 * A database in memory, ready: a copy of the install's template (`template`, tests name another) when it is usable,
 * otherwise, or should the copy not start (a template replaced while it was read), PGlite's initdb as before.
 */
export async function openInMemory(template = DATABASE_TEMPLATE_DIR): Promise<PGlite> {
  keepWasmOnBaselineCompiler()
  if (databaseTemplateUsable(template)) {
    const copy = new PGlite({ ...PGLITE_OPTIONS, fs: new TemplateMemoryFS(join(template, 'data')) })
    try {
      await copy.waitReady
      return copy
    } catch {
      await copy.close().catch(() => {})
    }
  }
  const client = new PGlite(PGLITE_OPTIONS)
  try {
    await client.waitReady
  } catch (error) {
    await client.close().catch(() => {})
    throw error
  }
  return client
}
