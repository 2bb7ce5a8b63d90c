import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { lockDataDir } from '../../src/store/pglite-database.ts'

describe('the embedded database lock', () => {
  it('takes over a lock with its own pid left by an earlier process (a restarted container is pid 1 again)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-lock-'))
    try {
      writeFileSync(join(dir, '.lock'), String(process.pid))
      const release = lockDataDir(dir)
      // While this process holds it, a second open here is refused like any other process's.
      assert.throws(() => lockDataDir(dir), /is in use by process/)
      release()
      lockDataDir(dir)()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses a lock held by another live process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mas-lock-'))
    try {
      writeFileSync(join(dir, '.lock'), String(process.ppid))
      assert.throws(() => lockDataDir(dir), new RegExp(`in use by process ${process.ppid}`))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
