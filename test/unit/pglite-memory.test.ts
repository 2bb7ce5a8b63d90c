import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { openPglite } from '../../src/store/pglite.ts'
import { createInOwnProcess, DATABASE_TEMPLATE_DIR, pgliteDatabaseExists } from '../../src/store/pglite-database.ts'

const sharedBuffers = async (store: Awaited<ReturnType<typeof openPglite>>) => {
  const result = (await store.db.execute(sql`select current_setting('shared_buffers') as value`)) as unknown as {
    rows: { value: string }[]
  }
  return result.rows[0]?.value
}

const configured = async (store: Awaited<ReturnType<typeof openPglite>>) => {
  const result = (await store.db.execute(
    sql`select setting as value from pg_file_settings where name = 'shared_buffers' and applied`,
  )) as unknown as { rows: { value: string }[] }
  return result.rows[0]?.value
}

describe('the embedded database holds little memory', () => {
  it('runs with 16 MB of shared buffers, written into a new data directory too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-pglite-'))
    try {
      const store = await openPglite(join(dir, 'db'))
      try {
        assert.equal(await sharedBuffers(store), '16MB')
      } finally {
        await store.close()
      }
      assert.match(readFileSync(join(dir, 'db', 'postgresql.conf'), 'utf8'), /^shared_buffers = 16MB/m)
      // Reopened (a restart), the setting holds.
      const again = await openPglite(join(dir, 'db'))
      try {
        assert.equal(await sharedBuffers(again), '16MB')
      } finally {
        await again.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a first start creates the database in a process of its own; the service then opens it as on a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-pglite-'))
    try {
      const db = join(dir, 'db')
      assert.equal(pgliteDatabaseExists(db), false)
      // Without a template (an install that did not make one): initdb in the child.
      await createInOwnProcess(db, join(dir, 'no-template'))
      assert.equal(pgliteDatabaseExists(db), true)
      assert.match(readFileSync(join(db, 'postgresql.conf'), 'utf8'), /^shared_buffers = 16MB/m)
      // The child released the lock, and the opening that follows finds a database (no second initdb).
      assert.equal(existsSync(join(db, '.lock')), false)
      const store = await openPglite(db)
      try {
        assert.equal(await sharedBuffers(store), '16MB')
      } finally {
        await store.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('in memory too (tests), from the install template or, without one, from initdb', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-pglite-'))
    try {
      // The install's template when npm ci made one (pglite-memory-template.test.ts builds its own), and none.
      for (const template of [DATABASE_TEMPLATE_DIR, join(dir, 'no-template')]) {
        const store = await openPglite(undefined, template)
        try {
          assert.equal(await sharedBuffers(store), '16MB')
          // Written into the database's own postgresql.conf too, not only given at start.
          assert.equal(await configured(store), '16MB')
        } finally {
          await store.close()
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
