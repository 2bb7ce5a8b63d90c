import pg from 'pg'
import { POSTGRES_URL } from './harness.ts'

/**
 * Whether the machine's PostgreSQL can be used by a conformance suite: undefined when it can, else the reason (the
 * suite then skips with it, and says so once on stderr), as test/helpers/redis.ts does for Redis.
 */
export async function postgresSkip(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    const skip = `PostgreSQL not reachable at ${POSTGRES_URL} (${(error as Error).message}): PostgreSQL runs skipped`
    process.stderr.write(`\n*** ${skip} ***\n\n`)
    return skip
  } finally {
    await client.end().catch(() => {})
  }
}
