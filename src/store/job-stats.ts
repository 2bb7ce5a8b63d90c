import type { Store } from './db.ts'
import { rowsOf } from './migrate.ts'
import { sql } from './orm.ts'

export interface JobCounts {
  /** Waiting or running, by kind. */
  pending: Record<string, number>
  /** Given up (no attempt left, or a permanent error), by kind. */
  failed: Record<string, number>
}

/**
 * What the jobs table holds, by kind: the same answer on every instance (the table is shared), so dashboards take the
 * max across instances, not the sum.
 */
export async function jobCounts(store: Store): Promise<JobCounts> {
  const result = await store.db.execute(sql`
    SELECT kind, status, count(*)::int AS n FROM jobs WHERE status IN ('pending', 'running', 'failed') GROUP BY kind, status`)
  const counts: JobCounts = { pending: {}, failed: {} }
  for (const row of rowsOf<{ kind: string; status: string; n: number }>(result)) {
    const into = row.status === 'failed' ? counts.failed : counts.pending
    into[row.kind] = (into[row.kind] ?? 0) + Number(row.n)
  }
  return counts
}
