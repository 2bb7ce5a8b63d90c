import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import type { Kv, RateLimiter } from './types.ts'

const DELETE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`
const INCREMENT = `local v = redis.call('INCR', KEYS[1]) if v == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return v`
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

export function connectRedis(url: string): Redis {
  return new Redis(url, { enableAutoPipelining: true, maxRetriesPerRequest: 2, lazyConnect: false })
}

export function redisKv(redis: Redis, prefix: string): Kv {
  redis.defineCommand('kvDeleteIfEquals', { numberOfKeys: 1, lua: DELETE_IF_EQUALS })
  redis.defineCommand('kvIncrement', { numberOfKeys: 1, lua: INCREMENT })
  const r = redis as Redis & {
    kvDeleteIfEquals(key: string, value: string): Promise<number>
    kvIncrement(key: string, ttlMs: number): Promise<number>
  }
  const k = (key: string) => prefix + key
  return {
    get: async (key) => (await redis.get(k(key))) ?? undefined,
    set: async (key, value, ttlMs) => {
      await redis.set(k(key), value, 'PX', Math.max(1, Math.ceil(ttlMs)))
    },
    setIfAbsent: async (key, value, ttlMs) =>
      (await redis.set(k(key), value, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK',
    deleteIfEquals: async (key, value) => (await r.kvDeleteIfEquals(k(key), value)) === 1,
    delete: async (key) => {
      await redis.del(k(key))
    },
    increment: (key, ttlMs) => r.kvIncrement(k(key), Math.max(1, Math.ceil(ttlMs))),
    getJson: async <T>(key: string) => {
      const raw = await redis.get(k(key))
      return raw === null ? undefined : (JSON.parse(raw) as T)
    },
    setJson: async (key, value, ttlMs) => {
      await redis.set(k(key), JSON.stringify(value), 'PX', Math.max(1, Math.ceil(ttlMs)))
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
  return {
    hit: async (key, limit, windowMs, nowMs) => {
      const member = `${nowMs}-${randomBytes(6).toString('base64url')}`
      const [allowed, count, oldestMs] = await r.slidingWindow(`${prefix}rl:${key}`, nowMs, windowMs, limit, member)
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
