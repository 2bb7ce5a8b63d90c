import { randomBytes } from 'node:crypto'
import { type Command, Redis } from 'ioredis'
import { ApiError } from '../../contract/errors.ts'
import { type LoopStalls, stalledTimeout, timeoutError, watchLoopStalls } from '../loop-stalls.ts'
import { outageIn, unavailable } from '../outage.ts'
import { DURABLE_MIN_TTL_MS } from './memory.ts'
import type { Kv, KvJournal, RateLimiter } from './types.ts'

// Both answer the remaining PTTL of what they deleted, so a durable entry's journal copy goes with it (see redisKv).
const DELETE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then local t = redis.call('PTTL', KEYS[1]) redis.call('DEL', KEYS[1]) return {1, t} else return {0, 0} end`
const DELETE = `local t = redis.call('PTTL', KEYS[1]) redis.call('DEL', KEYS[1]) return t`
const INCREMENT = `local v = redis.call('INCR', KEYS[1]) if v == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return {v, redis.call('PTTL', KEYS[1])}`
// Sliding-window log in a sorted set. Members are unique per hit; scores are the hit times in ms.
// Returns {allowed, count, oldestMs}.
const SLIDING_WINDOW = `
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local oldestMs = now
if oldest[2] then oldestMs = tonumber(oldest[2]) end
return {allowed, count, oldestMs}
`

/**
 * How long one command or one connection attempt may take. Redis answers in well under a millisecond; one that has
 * not answered in a second is gone or hung, and the request answers 503 rather than wait.
 */
export const REDIS_TIMEOUT_MS = 1000
/** Longest pause between reconnect attempts (they start at 100 ms and grow by 100 ms). */
export const REDIS_RECONNECT_MAX_MS = 1000
/** How long a command waits for the journal to be restored into a Redis that came back empty. */
const RESTORE_WAIT_MS = 1000
/** A deleted entry with less time than this left was not durable, or is about to expire anyway (see redisKv). */
const FORGET_MIN_REMAINING_MS = 60_000
/** Entries per pipeline when restoring. */
const RESTORE_BATCH = 500

export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    lazyConnect: false,
    // Fail fast: while the connection is down a command fails at once instead of queueing until a reconnect (which
    // held requests for as long as the outage lasted), and a command sent before a connection broke is not sent again
    // (an INCR must not count twice). Reconnects go on forever, so the service recovers by itself.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // No commandTimeout: commands time out after REDIS_TIMEOUT_MS of time the event loop ran (timeOutCommands).
    connectTimeout: REDIS_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(100 * times, REDIS_RECONNECT_MAX_MS),
  })
  // Connection errors reach the callers as rejected commands (503); unhandled, ioredis would print every reconnect.
  redis.on('error', () => {})
  const stalls = watchLoopStalls()
  loopStalls.set(redis, stalls)
  redis.once('end', () => stalls.close())
  timeOutCommands(redis, stalls)
  return redis
}
/** Each connection's watch of the event loop, which tells a hung server from a loop that did not read its reply. */
const loopStalls = new WeakMap<Redis, LoopStalls>()

/** However long the loop stands still, a command that has not been answered fails after this many timeouts. */
const STALLED_TIMEOUT_LIMIT = 3
/** ioredis clears a command's timeout timer (this field) when the command settles, and arms none of its own then. */
type TimedCommand = Pick<Command, 'isSettled' | 'reject'> & { _commandTimeoutTimer?: NodeJS.Timeout }

/**
 * ioredis's commandTimeout, counted in time the event loop ran: when the timer comes due while the loop stood still
 * (src/platform/loop-stalls.ts), the reply may be waiting unread, so the command gets the time the loop lost (the
 * next turn reads what came), up to STALLED_TIMEOUT_LIMIT timeouts in all. On a loop that runs, a command fails
 * after REDIS_TIMEOUT_MS as with commandTimeout, with the same error.
 */
function timeOutCommands(redis: Redis, stalls: LoopStalls) {
  const send = redis.sendCommand.bind(redis) as (command: Command, ...rest: unknown[]) => unknown
  redis.sendCommand = ((sent: Command, ...rest: unknown[]) => {
    const result = send(sent, ...rest)
    const command = sent as unknown as TimedCommand
    if (command.isSettled || command._commandTimeoutTimer) return result
    const started = performance.now()
    const expire = () => {
      if (command.isSettled) return
      const waited = performance.now() - started
      const ran = waited - stalls.stalledSince(started)
      if (ran < REDIS_TIMEOUT_MS && waited < STALLED_TIMEOUT_LIMIT * REDIS_TIMEOUT_MS) {
        command._commandTimeoutTimer = setTimeout(expire, Math.max(1, REDIS_TIMEOUT_MS - ran))
      } else command.reject(timeoutError('Command timed out', ran < REDIS_TIMEOUT_MS))
    }
    command._commandTimeoutTimer = setTimeout(expire, REDIS_TIMEOUT_MS)
    return result
  }) as typeof redis.sendCommand
}

/** Replies that mean Redis cannot serve now (loading its data, out of memory, a failover), not a wrong command. */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|OOM|MISCONF|READONLY|NOREPLICAS)\b/

/**
 * A failed command as the one error type: 503 REDIS_UNAVAILABLE for everything that says Redis is unreachable, hung
 * or not serving; an error reply to a wrong command stays what it is (a bug, answered 500). A command that timed out
 * drops the connection: a hung server then fails every further command at once (until a reconnect succeeds) instead
 * of costing each request another timeout. Not when the event loop stood still meanwhile: the reply may have come in
 * time and not been read yet (src/platform/loop-stalls.ts); that timeout fails its own command only, and the
 * connection, in order still (a late reply settles nothing but its own timed-out command), serves the next ones.
 */
export function failure(redis: Redis) {
  return (error: unknown): never => {
    if (error instanceof ApiError) throw error
    const outage = outageIn(error)
    if (outage) throw outage
    const { name, message } = error as Error
    if (name === 'ReplyError' && !UNAVAILABLE_REPLY.test(message ?? '')) throw error
    if (
      message === 'Command timed out' &&
      !dropping.has(redis) &&
      redis.status === 'ready' &&
      // A command that had its full time of a running loop is a hung server, whatever stalls came around it.
      !stalledTimeout(error, loopStalls.get(redis), REDIS_TIMEOUT_MS)
    ) {
      dropping.add(redis)
      redis.once('ready', () => dropping.delete(redis))
      redis.disconnect(true)
    }
    throw unavailable('REDIS')
  }
}
/** Connections being dropped after a timeout (the commands timing out with it must not drop the next one). */
const dropping = new WeakSet<Redis>()

export interface RedisKvOptions {
  /**
   * Where entries that live an hour or longer are written through to (the database), and restored from when Redis
   * comes back without them (restarted empty), as the in-memory store does at start.
   */
  journal?: KvJournal
  now?: () => number
}

export type RedisKv = Kv & {
  /** Waits until Redis is connected and restored; false when that took longer than `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>
}

/**
 * The shared key-value store in Redis. With a journal, what lives an hour or longer (the sandbox providers' bookings,
 * trips and tickets) is also written to the database, and put back when Redis lost it: on every (re)connection a
 * marker key says whether this Redis still holds what it held; when the marker is gone, every live journal entry is
 * set again (only where the key is absent, so nothing written since is overwritten), then the marker. Commands wait
 * for that (at most RESTORE_WAIT_MS, then 503), so no request sees a Redis that forgot.
 *
 * Which entries are durable is decided as in memory: by the TTL of the write. Redis does not remember that TTL, so
 * a delete removes the journal's copy when the entry still had a minute or more to live: locks (which live seconds)
 * cost no database write, and a durable entry deleted in its last minute keeps its copy until it expires a minute
 * later at most (it could only come back if Redis restarted empty within that minute).
 */
export function redisKv(redis: Redis, prefix: string, options: RedisKvOptions = {}): RedisKv {
  redis.defineCommand('kvDeleteIfEquals', { numberOfKeys: 1, lua: DELETE_IF_EQUALS })
  redis.defineCommand('kvDelete', { numberOfKeys: 1, lua: DELETE })
  redis.defineCommand('kvIncrement', { numberOfKeys: 1, lua: INCREMENT })
  const r = redis as Redis & {
    kvDeleteIfEquals(key: string, value: string): Promise<[number, number]>
    kvDelete(key: string): Promise<number>
    kvIncrement(key: string, ttlMs: number): Promise<[number, number]>
  }
  const { journal } = options
  const now = options.now ?? Date.now
  const k = (key: string) => prefix + key
  const px = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs))
  const fail = failure(redis)

  // --- The journal: write-through of durable entries, restore into a Redis that lost them.
  const durable = (ttlMs: number) => journal !== undefined && ttlMs >= DURABLE_MIN_TTL_MS
  const keep = (key: string, value: string, ttlMs: number, structured: boolean, counter = false) =>
    journal!.put({ key, value, structured, expiresAt: now() + ttlMs, ...(counter ? { counter } : {}) })
  const forget = (key: string, remainingMs: number) =>
    journal && remainingMs >= FORGET_MIN_REMAINING_MS ? journal.remove(key) : undefined

  const marker = `${prefix}kv:journal`
  let restored = journal === undefined
  let restoring: Promise<void> | undefined
  let settled = Promise.withResolvers<void>()
  const restore = async () => {
    if ((await redis.exists(marker)) === 1) return
    const t = now()
    const entries = await journal!.load(t)
    for (let i = 0; i < entries.length; i += RESTORE_BATCH) {
      const batch = redis.pipeline()
      for (const e of entries.slice(i, i + RESTORE_BATCH)) {
        if (e.expiresAt > t) batch.set(k(e.key), e.value, 'PX', px(e.expiresAt - t), 'NX')
      }
      for (const [error] of (await batch.exec()) ?? []) if (error) throw error
    }
    await redis.set(marker, String(t))
  }
  const begin = () => {
    restored = false
    const run: Promise<void> = restore().then(
      () => {
        if (restoring !== run) return
        restored = true
        restoring = undefined
        settled.resolve()
      },
      () => {
        if (restoring !== run) return
        restoring = undefined
        // Not restored (the database may be down too): commands keep failing fast until a later attempt succeeds.
        setTimeout(() => redis.status === 'ready' && !restoring && !restored && begin(), 1000).unref()
      },
    )
    restoring = run
  }
  if (journal) {
    redis.on('ready', begin)
    redis.on('close', () => {
      if (restored) settled = Promise.withResolvers<void>()
      restored = false
    })
    if (redis.status === 'ready') begin()
  } else if (redis.status === 'ready') settled.resolve()
  else redis.once('ready', () => settled.resolve())
  /** Runs a command once Redis holds what it should. */
  const op = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (!restored) {
      if (!restoring) throw unavailable('REDIS')
      await Promise.race([restoring, new Promise((resolve) => setTimeout(resolve, RESTORE_WAIT_MS).unref())])
      if (!restored) throw unavailable('REDIS')
    }
    return fn().catch(fail)
  }
  const journaled = (p: Promise<unknown> | undefined) =>
    p?.catch((error: unknown) => {
      throw outageIn(error) ?? error
    })

  return {
    get: (key) => op(async () => (await redis.get(k(key))) ?? undefined),
    set: (key, value, ttlMs) =>
      op(async () => {
        await redis.set(k(key), value, 'PX', px(ttlMs))
        if (durable(ttlMs)) await journaled(keep(key, value, ttlMs, false))
      }),
    setIfAbsent: (key, value, ttlMs) =>
      op(async () => {
        const set = (await redis.set(k(key), value, 'PX', px(ttlMs), 'NX')) === 'OK'
        if (set && durable(ttlMs)) await journaled(keep(key, value, ttlMs, false))
        return set
      }),
    deleteIfEquals: (key, value) =>
      op(async () => {
        const [deleted, remainingMs] = await r.kvDeleteIfEquals(k(key), value)
        if (deleted === 1) await journaled(forget(key, remainingMs))
        return deleted === 1
      }),
    delete: (key) =>
      op(async () => {
        await journaled(forget(key, await r.kvDelete(k(key))))
      }),
    increment: (key, ttlMs) =>
      op(async () => {
        const [value, remainingMs] = await r.kvIncrement(k(key), px(ttlMs))
        // Durable by the TTL asked for (the count's own TTL runs from its first increment, so it is a little less).
        if (durable(ttlMs)) await journaled(keep(key, String(value), remainingMs, false, true))
        return value
      }),
    getJson: <T>(key: string) =>
      op(async () => {
        const raw = await redis.get(k(key))
        return raw === null ? undefined : (JSON.parse(raw) as T)
      }),
    setJson: (key, value, ttlMs) =>
      op(async () => {
        const text = JSON.stringify(value)
        await redis.set(k(key), text, 'PX', px(ttlMs))
        if (durable(ttlMs)) await journaled(keep(key, text, ttlMs, true))
      }),
    ready: async (timeoutMs) => {
      if (restored && redis.status === 'ready') return true
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<false>((resolve) => {
        timer = setTimeout(resolve, timeoutMs, false)
      })
      const done = await Promise.race([settled.promise.then(() => true), late])
      clearTimeout(timer)
      return done
    },
    close: async () => {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

export function redisRateLimiter(redis: Redis, prefix: string): RateLimiter {
  redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW })
  const r = redis as Redis & {
    slidingWindow(
      key: string,
      now: number,
      window: number,
      limit: number,
      member: string,
    ): Promise<[number, number, number]>
  }
  const fail = failure(redis)
  return {
    hit: async (key, limit, windowMs, nowMs) => {
      const member = `${nowMs}-${randomBytes(6).toString('base64url')}`
      const [allowed, count, oldestMs] = await r
        .slidingWindow(`${prefix}rl:${key}`, nowMs, windowMs, limit, member)
        .catch(fail)
      const resetMs = Number(oldestMs) + windowMs
      return {
        allowed: allowed === 1,
        limit,
        remaining: Math.max(0, limit - count),
        resetAt: Math.ceil(resetMs / 1000),
        retryAfter: allowed === 1 ? 0 : Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
      }
    },
  }
}

/**
 * The shared limiter, or while Redis is unreachable the instance's own: limits then hold per instance (with n
 * instances a key gets at most n times its limit) rather than every authenticated request failing with Redis.
 */
export function failOverRateLimiter(shared: RateLimiter, local: RateLimiter): RateLimiter {
  return {
    hit: (key, limit, windowMs, nowMs) =>
      shared.hit(key, limit, windowMs, nowMs).catch((error: unknown) => {
        if (!outageIn(error)) throw error
        return local.hit(key, limit, windowMs, nowMs)
      }),
  }
}
