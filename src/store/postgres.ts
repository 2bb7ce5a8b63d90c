import pg from 'pg'
import { type LoopStalls, stalledTimeout, timeoutError, watchLoopStalls } from '../platform/loop-stalls.ts'
import { outageIn, unavailable } from '../platform/outage.ts'
import type { Db, Store } from './db.ts'
import { migrate } from './migrate.ts'
import { postgresDrizzle as drizzle } from './orm.ts'
import * as schema from './schema.ts'

/**
 * How long one query, one connection attempt and one wait for a pooled connection may take. The service's queries
 * take milliseconds; a server that has not answered in 1.5 s is gone or hung, and the request answers 503 rather than
 * wait (spec 7.3 clients retry 5xx).
 */
export const DATABASE_TIMEOUT_MS = 1500
/** While the server is unreachable, how often a fresh connection checks whether it is back. */
export const DATABASE_PROBE_MS = 500
/** Waiting for another instance's migrations (an advisory lock), and a migration itself, take longer than a query. */
const MIGRATION_TIMEOUT_MS = 10 * 60_000

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // SQLSTATE: the server shuts down or restarts, or is starting and not accepting connections yet.
  '57P01',
  '57P02',
  '57P03',
])
const UNREACHABLE_MESSAGES =
  /^(Connection terminated|Query read timeout|Client has encountered a connection error|Client was closed)/

/**
 * Whether `error` says the server cannot be reached or did not answer in time: 'down' (every query fails at once
 * until a probe gets through), 'busy' (no pooled connection came free in time: the server is fine, this instance is
 * saturated; 503 as well, without stopping the others), or undefined for errors of the query itself.
 */
function unreachable(error: unknown): 'down' | 'busy' | undefined {
  const e = error as { code?: string; message?: string; errors?: unknown[] } | undefined
  if (!e) return undefined
  if (e.message === 'timeout exceeded when trying to connect' || e.code === '53300') return 'busy'
  // SQLSTATE class 08: connection exceptions.
  if (UNREACHABLE_CODES.has(e.code ?? '') || /^08/.test(e.code ?? '')) return 'down'
  if (UNREACHABLE_MESSAGES.test(e.message ?? '')) return 'down'
  if (Array.isArray(e.errors) && e.errors.some((x) => unreachable(x) === 'down')) return 'down'
  return undefined
}

type Callable = (...args: unknown[]) => unknown

/** The driver's own timers: a query that was not answered in time, a connection attempt that did not get through. */
const TIMED_OUT = /^(Query read timeout|timeout expired|Connection terminated due to connection timeout)/
const timedOut = (error: unknown) => TIMED_OUT.test((error as { message?: string } | undefined)?.message ?? '')

/**
 * Fails fast while the server is unreachable: after a connection-level failure every query answers 503
 * DATABASE_UNAVAILABLE at once, without a connection attempt, and a fresh connection probes every
 * DATABASE_PROBE_MS; the first that gets through lets queries run again. So a hung server costs one timeout, not
 * one per query, and a server that is back is used again within the probe interval.
 *
 * A timeout while this process's event loop stood still (`stalls`) says nothing about the server: the reply may have
 * come in time and not been read. It fails its own query only; a probe at once decides whether the server is down.
 * A timeout on a running loop still stops every query at once, and is probed at once too: a server that answers
 * again (one slow query) is used again without waiting for the probe interval.
 */
function outageGuard(url: string, stalls: LoopStalls) {
  let down = false
  let closed = false
  let verifying = false
  /** 'unsure' when the probe timed out while the loop stood still: that says nothing either. */
  const probe = async (): Promise<'up' | 'down' | 'unsure'> => {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
      query_timeout: DATABASE_TIMEOUT_MS,
    })
    client.on('error', () => {})
    const started = performance.now()
    try {
      await client.connect()
      await client.query('SELECT 1')
      return 'up'
    } catch {
      const tookMs = performance.now() - started
      return tookMs >= DATABASE_TIMEOUT_MS && stalls.explains(DATABASE_TIMEOUT_MS) ? 'unsure' : 'down'
    } finally {
      client.end().catch(() => {})
    }
  }
  const watch = async (wait: boolean) => {
    while (down && !closed) {
      if (wait) await new Promise((resolve) => setTimeout(resolve, DATABASE_PROBE_MS).unref())
      if (closed) return
      const verdict = await probe()
      if (verdict === 'up') down = false
      // A probe the stalled loop made time out is tried again at once.
      wait = verdict === 'down'
    }
  }
  const fall = (probeAtOnce: boolean) => {
    if (down) return
    down = true
    void watch(!probeAtOnce)
  }
  const verify = async () => {
    if (verifying || down || closed) return
    verifying = true
    try {
      // A probe the stalled loop made time out is tried again, a few times: a loop that keeps stalling must not keep
      // a hung server from being found out (each query would hold a pooled client for up to the stall cap).
      let verdict = await probe()
      for (let i = 1; verdict === 'unsure' && i < VERIFY_PROBES && !closed && !down; i++) verdict = await probe()
      if (verdict !== 'up' && !closed) fall(false)
    } finally {
      verifying = false
    }
  }
  return {
    get down() {
      return down
    },
    /** The error a failed query or connection attempt is answered with. */
    classify(error: unknown): unknown {
      if (outageIn(error)) return error
      const kind = unreachable(error)
      if (!kind) return error
      if (kind === 'down' && !down) {
        if (!timedOut(error)) fall(false)
        // A query's own timeout says whether the stalls ended it; the driver's connect timeouts are judged by the stalls.
        else if (stalledTimeout(error, stalls, DATABASE_TIMEOUT_MS)) void verify()
        else fall(true)
      }
      return unavailable('DATABASE')
    },
    close() {
      closed = true
    },
  }
}

/** Probes in a row that a stalled loop made time out before the server counts as down all the same. */
const VERIFY_PROBES = 3

/** However long the loop stands still, a query that has not been answered fails after this many timeouts. */
const STALLED_TIMEOUT_LIMIT = 3

/**
 * The driver's Client with its query timeout (query_timeout, default DATABASE_TIMEOUT_MS) counted in time the event
 * loop ran: when the timer comes due while the loop stood still (src/platform/loop-stalls.ts), the reply may be
 * waiting unread, so the query gets back the time the loop lost (the next turn reads what came), up to
 * STALLED_TIMEOUT_LIMIT timeouts in all. On a loop that runs, a query fails after its timeout with the driver's own
 * error ("Query read timeout"). As with the driver's timeout, the query goes on on the server and its answer is
 * dropped; the client is not used again (the pool removes a client released with an error, and a checked-out client
 * whose query failed so is destroyed on release).
 */
function stallTolerantClient(stalls: LoopStalls): typeof pg.Client {
  class StallTolerantClient extends pg.Client {}
  const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown
  StallTolerantClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { submit?: unknown; query_timeout?: number } | undefined
    // Cursors and streams (submittables) keep the driver's own handling; the store runs none.
    if (config && typeof config === 'object' && typeof config.submit === 'function') return query.apply(this, args)
    let timeoutMs = DATABASE_TIMEOUT_MS
    if (config && typeof config === 'object' && config.query_timeout !== undefined) {
      timeoutMs = config.query_timeout
      args[0] = { ...config, query_timeout: undefined }
    }
    const callback = typeof args[args.length - 1] === 'function' ? (args.pop() as Callable) : undefined
    const answered = callback ? undefined : Promise.withResolvers<unknown>()
    let done = false
    let timer: NodeJS.Timeout | undefined
    const finish = (error: unknown, result?: unknown) => {
      if (done) return
      done = true
      clearTimeout(timer)
      if (callback) callback(error, result)
      else if (error) answered!.reject(error)
      else answered!.resolve(result)
    }
    if (timeoutMs > 0) {
      const started = performance.now()
      const expire = () => {
        if (done) return
        const waited = performance.now() - started
        const ran = waited - stalls.stalledSince(started)
        if (ran < timeoutMs && waited < STALLED_TIMEOUT_LIMIT * timeoutMs) {
          timer = setTimeout(expire, Math.max(1, timeoutMs - ran))
        } else finish(timeoutError('Query read timeout', ran < timeoutMs))
      }
      timer = setTimeout(expire, timeoutMs)
    }
    try {
      query.call(this, ...args, finish)
    } catch (error) {
      // The driver refused the query at once (no text, say): no timer may fail a promise nobody holds.
      done = true
      clearTimeout(timer)
      throw error
    }
    return answered?.promise
  } as typeof pg.Client.prototype.query
  return StallTolerantClient
}

/** Marks a pooled client whose query is wrapped already, with what its current checkout learnt. */
const CHECKED = Symbol('checked')
type Checked = pg.PoolClient & { [CHECKED]?: { broken?: Error } }

export async function openPostgres(url: string, poolSize = 10): Promise<Store> {
  const stalls = watchLoopStalls()
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: DATABASE_TIMEOUT_MS,
    // The query timeout (DATABASE_TIMEOUT_MS unless a query sets query_timeout) is the client's own.
    Client: stallTolerantClient(stalls),
    keepAlive: true,
  })
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {})
  const guard = outageGuard(url, stalls)
  const refuse = () => Promise.reject(unavailable('DATABASE'))
  const fail = (error: unknown) => Promise.reject(guard.classify(error))

  // Everything drizzle and the store run goes through pool.query or pool.connect (transactions, advisory locks).
  const query = pool.query.bind(pool) as Callable
  pool.query = ((...args: unknown[]) => {
    if (typeof args[args.length - 1] === 'function') return query(...args)
    if (guard.down) return refuse()
    return (query(...args) as Promise<unknown>).catch(fail)
  }) as typeof pool.query
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>
  pool.connect = (async (...args: unknown[]) => {
    if (args.length > 0) return (connect as Callable)(...args)
    if (guard.down) return refuse()
    const client = (await connect().catch(fail)) as Checked
    // The pool hands the same Client out again and again: its query is wrapped once, on its first checkout (wrapping
    // at every checkout would stack one more closure per checkout until the stack overflows).
    let state = client[CHECKED]
    if (!state) {
      const own: { broken?: Error } = {}
      state = own
      client[CHECKED] = own
      const clientQuery = client.query.bind(client) as Callable
      client.query = ((...a: unknown[]) => {
        if (typeof a[a.length - 1] === 'function') return clientQuery(...a)
        return (clientQuery(...a) as Promise<unknown>).catch((error: unknown) => {
          const classified = guard.classify(error)
          if (classified !== error) own.broken = error as Error
          throw classified
        })
      }) as typeof client.query
    }
    // A client whose query failed at the connection level (or timed out, leaving its transaction in an unknown
    // state) is destroyed on release, never handed to the next caller. The pool sets a fresh release per checkout.
    const checkout = state
    checkout.broken = undefined
    const release = client.release.bind(client)
    client.release = (destroy?: boolean | Error) => release(destroy ?? checkout.broken)
    return client
  }) as typeof pool.connect

  const db = drizzle({ client: pool, schema }) as unknown as Db
  const store: Store = {
    kind: 'postgres',
    db,
    exec: async (sql) => {
      await pool.query({ text: sql, query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig)
    },
    withAdvisoryLock: async (lockId, fn) => {
      const client = await pool.connect()
      try {
        await client.query({
          text: 'SELECT pg_advisory_lock($1)',
          values: [lockId],
          query_timeout: MIGRATION_TIMEOUT_MS,
        } as pg.QueryConfig)
        try {
          return await fn()
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [lockId])
        }
      } finally {
        client.release()
      }
    },
    close: async () => {
      guard.close()
      stalls.close()
      await pool.end()
    },
  }
  await migrate(store)
  return store
}
