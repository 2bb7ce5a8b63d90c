import assert from 'node:assert/strict'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import type { Store } from '../../src/store/db.ts'
import { rowsOf } from '../../src/store/migrate.ts'
import { openPglite } from '../../src/store/pglite.ts'
import { buildDatabaseTemplate, databaseTemplateUsable } from '../../src/store/pglite-database.ts'

// pg_control starts with the cluster's system identifier (a uint64), different for every initdb: a database whose
// pg_control_system() gives the template's identifier is a copy of the template, any other ran initdb.
const templateIdentifier = (template: string) =>
  readFileSync(join(template, 'data', 'global', 'pg_control'))
    .readBigUInt64LE(0)
    .toString()

const one = async <T>(store: Store, query: ReturnType<typeof sql>): Promise<T> => {
  const row = rowsOf<T>(await store.db.execute(query))[0]
  assert.ok(row, 'a row')
  return row
}

const identifier = async (store: Store) =>
  (await one<{ id: string }>(store, sql`select system_identifier::text as id from pg_control_system()`)).id

/** What every store needs: the service's settings, the migrations run, tables that answer. */
async function assertWorks(store: Store) {
  const settings = await one<{ buffers: string; tables: number; migrations: number }>(
    store,
    sql`select current_setting('shared_buffers') as buffers,
      (select count(*)::int from pg_tables where schemaname = 'public') as tables,
      (select count(*)::int from schema_migrations) as migrations`,
  )
  assert.equal(settings.buffers, '16MB')
  assert.ok(settings.tables > 1, 'the migrations made the tables')
  assert.ok(settings.migrations > 0, 'the migrations are recorded')
  await store.exec(
    `insert into kv_entries (key, value, expires_at) values ('probe', 'here', now() + interval '1 hour')`,
  )
  const row = await one<{ value: string }>(store, sql`select value from kv_entries where key = 'probe'`)
  assert.equal(row.value, 'here')
}

describe('a database in memory (tests) and the install-time template', () => {
  let dir: string
  let template: string
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mas-memory-template-'))
    template = await buildDatabaseTemplate(join(dir, 'template'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('starts from a copy of the template (no initdb): migrations run, queries answer, each copy its own', async () => {
    const control = readFileSync(join(template, 'data', 'global', 'pg_control'))
    const first = await openPglite(undefined, template)
    const second = await openPglite(undefined, template)
    try {
      assert.equal(await identifier(first), templateIdentifier(template))
      assert.equal(await identifier(second), templateIdentifier(template))
      await assertWorks(first)
      // A copy: what one store writes, the other does not see.
      const other = await one<{ n: number }>(second, sql`select count(*)::int as n from kv_entries where key = 'probe'`)
      assert.equal(other.n, 0)
    } finally {
      await first.close()
      await second.close()
    }
    // The template itself is untouched: read, never opened.
    assert.deepEqual(readFileSync(join(template, 'data', 'global', 'pg_control')), control)
    assert.equal(existsSync(join(template, 'data', '.lock')), false)
    assert.equal(existsSync(join(template, 'data', 'postmaster.pid')), false)
    assert.deepEqual(readdirSync(template).sort(), ['data', 'stamp.json'])
    assert.equal(databaseTemplateUsable(template), true)
  })

  it('without a template, initdb runs as before', async () => {
    const store = await openPglite(undefined, join(dir, 'absent'))
    try {
      assert.notEqual(await identifier(store), templateIdentifier(template))
      await assertWorks(store)
    } finally {
      await store.close()
    }
  })

  it('a template whose copy does not start (its pg_control gone) is given up for initdb', async () => {
    const broken = join(dir, 'broken')
    cpSync(template, broken, { recursive: true })
    rmSync(join(broken, 'data', 'global', 'pg_control'))
    // Still usable by its stamp and PG_VERSION (a template stamped by another PGlite is not: pglite-template.test.ts),
    // so the copy is tried and PostgreSQL fails to start on it.
    assert.equal(databaseTemplateUsable(broken), true)
    const store = await openPglite(undefined, broken)
    try {
      assert.notEqual(await identifier(store), templateIdentifier(template))
      await assertWorks(store)
    } finally {
      await store.close()
    }
  })
})
