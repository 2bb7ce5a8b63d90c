import { openPglite } from '../../src/store/pglite.ts'
import { openPostgres } from '../../src/store/postgres.ts'
import { freshDatabase } from '../helpers/harness.ts'
import { postgresSkip } from '../helpers/postgres.ts'
import { repositorySuite } from './suites/repository.ts'

/** The store's repositories on PGlite (in memory, as the embedded shape runs) and on PostgreSQL (a database of its own). */

repositorySuite({
  name: 'PGlite',
  open: async () => ({ store: await openPglite(undefined), drop: async () => {} }),
})

repositorySuite(
  {
    name: 'PostgreSQL',
    async open() {
      const database = await freshDatabase('repo')
      return { store: await openPostgres(database.url, 4), drop: database.drop }
    },
  },
  { skip: await postgresSkip() },
)
