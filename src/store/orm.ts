import { createRequire } from 'node:module'

/**
 * drizzle-orm, loaded through its CommonJS build. Imported as ESM, each of its ~450 files makes Node's loader look up
 * the package's scope, and every lookup copies the `exports` map of its 180 KB package.json into a new string: ~100 MiB
 * of garbage at start that the heap keeps committed (`npm start` held 280 MiB before opening anything; 180 MiB this
 * way). The CommonJS build is the same code and needs no such lookup per file. Drizzle tells its classes apart by a
 * global symbol (`is()`), so an ESM copy loaded elsewhere (tests) still works with these.
 *
 * Everything in src/ takes drizzle from here; type-only imports may still name 'drizzle-orm' (erased at load).
 */
const require = createRequire(import.meta.url)

const orm = require('drizzle-orm') as typeof import('drizzle-orm')
export const { and, asc, count, desc, eq, inArray, lt, lte, ne, or, sql } = orm

const pgCore = require('drizzle-orm/pg-core') as typeof import('drizzle-orm/pg-core')
export const { boolean, index, integer, jsonb, pgTable, text, timestamp } = pgCore

export const pgliteDrizzle = (require('drizzle-orm/pglite') as typeof import('drizzle-orm/pglite')).drizzle
export const postgresDrizzle = (require('drizzle-orm/node-postgres') as typeof import('drizzle-orm/node-postgres'))
  .drizzle
