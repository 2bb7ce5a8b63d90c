import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { openPglite } from '../../src/store/pglite.ts'
import {
  buildDatabaseTemplate,
  copyDatabaseTemplate,
  createInOwnProcess,
  createPgliteDatabase,
  databaseTemplateUsable,
  pgliteDatabaseExists,
} from '../../src/store/pglite-database.ts'

// pg_control holds the cluster's system identifier, different for every initdb: equal bytes mean a copy.
const control = (db: string) => readFileSync(join(db, 'global', 'pg_control'))

describe('the database template made at install time', () => {
  it('a first start copies it (no initdb), and the copy opens, migrates and keeps the settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-template-'))
    try {
      const template = await buildDatabaseTemplate(join(dir, 'template'))
      assert.equal(databaseTemplateUsable(template), true)
      assert.equal(existsSync(join(template, 'data', '.lock')), false)
      assert.deepEqual(
        readdirNames(dir),
        ['template'],
        'the directory it was built in is renamed into place, nothing left beside it',
      )
      const db = join(dir, 'db')
      await createInOwnProcess(db, template)
      assert.equal(pgliteDatabaseExists(db), true)
      assert.deepEqual(control(db), control(join(template, 'data')))
      assert.equal(existsSync(join(db, '.lock')), false)
      assert.match(readFileSync(join(db, 'postgresql.conf'), 'utf8'), /^shared_buffers = 16MB/m)
      const store = await openPglite(db)
      try {
        const result = (await store.db.execute(
          sql`select current_setting('shared_buffers') as value, count(*)::int as tables from pg_tables where schemaname = 'public'`,
        )) as unknown as { rows: { value: string; tables: number }[] }
        assert.equal(result.rows[0]?.value, '16MB')
        assert.ok((result.rows[0]?.tables ?? 0) > 0, 'the migrations ran on the copy')
      } finally {
        await store.close()
      }
      // The template itself is untouched by the copy's use.
      assert.equal(databaseTemplateUsable(template), true)
      assert.equal(existsSync(join(template, 'data', 'postmaster.pid')), false)

      // Made by another PGlite or with other initdb options: not used, initdb runs instead.
      // Without its PG_VERSION (a template cut short): not used.
      const version = join(template, 'data', 'PG_VERSION')
      renameSync(version, `${version}.away`)
      assert.equal(databaseTemplateUsable(template), false)
      renameSync(`${version}.away`, version)
      assert.equal(databaseTemplateUsable(template), true)
      const stamp = join(template, 'stamp.json')
      writeFileSync(stamp, readFileSync(stamp, 'utf8').replace(/"pglite":"[^"]*"/, '"pglite":"0.0.0"'))
      assert.equal(databaseTemplateUsable(template), false)
      const other = join(dir, 'other')
      assert.equal(copyDatabaseTemplate(other, template), false)
      await createPgliteDatabase(other, template)
      assert.equal(pgliteDatabaseExists(other), true)
      assert.notDeepEqual(control(other), control(join(template, 'data')))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('without one, nothing is copied', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-template-'))
    try {
      assert.equal(databaseTemplateUsable(join(dir, 'absent')), false)
      assert.equal(copyDatabaseTemplate(join(dir, 'db'), join(dir, 'absent')), false)
      assert.equal(existsSync(join(dir, 'db')), false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

function readdirNames(dir: string): string[] {
  return readdirSync(dir).sort()
}
