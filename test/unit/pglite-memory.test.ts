import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { openPglite } from '../../src/store/pglite.ts'

const sharedBuffers = async (store: Awaited<ReturnType<typeof openPglite>>) => {
  const result = (await store.db.execute(sql`select current_setting('shared_buffers') as value`)) as unknown as {
    rows: { value: string }[]
  }
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

  it('in memory too (tests)', async () => {
    const store = await openPglite(undefined)
    try {
      assert.equal(await sharedBuffers(store), '16MB')
    } finally {
      await store.close()
    }
  })
})
