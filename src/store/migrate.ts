import { readFileSync } from 'node:fs'
import type { Store } from './db.ts'
import { sql } from './orm.ts'

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url)
export const MIGRATION_LOCK = 72_100_001

interface Journal {
  entries: { idx: number; tag: string }[]
}

/**
 * Applies the drizzle-kit SQL migrations in order, each in its own transaction, under an advisory lock so that
 * instances starting together do not race. Applied tags are recorded in `schema_migrations`.
 */
export async function migrate(store: Store): Promise<void> {
  const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', MIGRATIONS_DIR), 'utf8')) as Journal
  await store.withAdvisoryLock(MIGRATION_LOCK, async () => {
    await store.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (tag text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    )
    const applied = await store.db.execute<{ tag: string }>(sql`SELECT tag FROM schema_migrations`)
    const done = new Set(rowsOf<{ tag: string }>(applied).map((row) => row.tag))
    for (const entry of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
      if (done.has(entry.tag)) continue
      const text = readFileSync(new URL(`${entry.tag}.sql`, MIGRATIONS_DIR), 'utf8')
      const statements = text.split('--> statement-breakpoint').filter((s) => s.trim())
      await store.exec(
        `BEGIN;\n${statements.join(';\n')};\nINSERT INTO schema_migrations (tag) VALUES ('${entry.tag}');\nCOMMIT;`,
      )
    }
  })
}

/** node-postgres answers `{ rows }`, PGlite answers `{ rows }` too, but drizzle's types differ per driver. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[]
}
