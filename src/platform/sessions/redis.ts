import { promisify } from 'node:util'
import { brotliCompress, brotliDecompress, constants } from 'node:zlib'
import type { Redis } from 'ioredis'
import { failure } from '../kv/redis.ts'
import type { SessionLimits, SessionStats, SessionStore } from './types.ts'

/** Key names, the sorted-set member and the hash field of each session, as Redis holds them. */
const ENTRY_OVERHEAD = 256

const compress = promisify(brotliCompress)
const decompress = promisify(brotliDecompress)
/**
 * The compact form: JSON through Brotli at quality 1. A car session of 200 offers is ~800 KB of JSON, which its
 * repeated station, vehicle and price texts shrink to ~8 KB, in ~0.4 ms on a thread of libuv's pool.
 */
const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
}

/*
 * Layout under the prefix:
 *   sess:v:<scope>:<id>  the compressed session, with its TTL
 *   sess:lru:<scope>     sorted set: id → expiry (ms), strictly rising with each store, so (with one TTL for
 *                        every session) the lowest is the least recently stored
 *   sess:size:<scope>    hash: id → accounted bytes
 *   sess:scopes          sorted set: scope → accounted bytes (the largest scope evicts first)
 *   sess:totals          hash: entries, bytes, evicted
 * Every change goes through PUT, so the totals always equal what the indexes hold; an index entry whose value
 * expired keeps counting until its scope writes again or is chosen to evict (the bound holds meanwhile).
 */
const PUT = `
local p, scope, id, value = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, ttl = tonumber(ARGV[5]), tonumber(ARGV[6])
local maxEntries, maxBytes, overhead = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local scopes, totals = p .. 'sess:scopes', p .. 'sess:totals'
local function lru(s) return p .. 'sess:lru:' .. s end
local function sizes(s) return p .. 'sess:size:' .. s end
local function val(s, i) return p .. 'sess:v:' .. s .. ':' .. i end
local function forget(s, i)
  local b = redis.call('HGET', sizes(s), i)
  if not b then return end
  b = tonumber(b)
  redis.call('HDEL', sizes(s), i)
  redis.call('ZREM', lru(s), i)
  redis.call('DEL', val(s, i))
  redis.call('HINCRBY', totals, 'entries', -1)
  redis.call('HINCRBY', totals, 'bytes', -b)
  if redis.call('ZCARD', lru(s)) == 0 then redis.call('ZREM', scopes, s) else redis.call('ZINCRBY', scopes, -b, s) end
end
local function purge(s)
  for _, i in ipairs(redis.call('ZRANGEBYSCORE', lru(s), '-inf', now)) do forget(s, i) end
end
local function over()
  local t = redis.call('HMGET', totals, 'entries', 'bytes')
  return tonumber(t[1] or '0') > maxEntries or tonumber(t[2] or '0') > maxBytes
end
purge(scope)
forget(scope, id)
local size = string.len(value) + overhead
-- One session larger than the whole budget is not kept; it must not empty the store of everyone else's.
if size > maxBytes then return 0 end
-- Expiries order the scope's sessions by use: one stored in the same millisecond as the last goes 1 ms after it.
local expiry = now + ttl
local last = redis.call('ZRANGE', lru(scope), -1, -1, 'WITHSCORES')[2]
if last and tonumber(last) >= expiry then expiry = tonumber(last) + 1 end
redis.call('SET', val(scope, id), value, 'PX', ttl)
redis.call('ZADD', lru(scope), expiry, id)
redis.call('HSET', sizes(scope), id, size)
redis.call('HINCRBY', totals, 'entries', 1)
redis.call('HINCRBY', totals, 'bytes', size)
redis.call('ZINCRBY', scopes, size, scope)
-- The scope holding the most bytes gives up its least recently stored session (of equally large scopes, the one
-- whose session is oldest); never the session just stored.
local function victim()
  local best, bestBytes, bestOldest
  local from = 0
  while true do
    local page = redis.call('ZREVRANGE', scopes, from, from + 15, 'WITHSCORES')
    if #page == 0 then return best end
    for k = 1, #page, 2 do
      local s, b = page[k], tonumber(page[k + 1])
      if best and b < bestBytes then return best end
      local head = redis.call('ZRANGE', lru(s), 0, 0, 'WITHSCORES')
      if not head[1] then
        -- Its index is gone (deleted from outside): its bytes leave the count.
        redis.call('ZREM', scopes, s)
        redis.call('HINCRBY', totals, 'bytes', -b)
      elseif not (s == scope and head[1] == id) then
        local oldest = tonumber(head[2])
        if not best or oldest < bestOldest then best, bestBytes, bestOldest = s, b, oldest end
      end
    end
    from = from + 16
  end
end
local evicted = 0
while over() do
  local s = victim()
  if not s then break end
  purge(s)
  if over() then
    local head = redis.call('ZRANGE', lru(s), 0, 0)[1]
    if head and not (s == scope and head == id) then
      forget(s, head)
      evicted = evicted + 1
    end
  end
end
if evicted > 0 then redis.call('HINCRBY', totals, 'evicted', evicted) end
return evicted
`

export interface RedisSessionOptions extends SessionLimits {
  now?: () => number
}

/**
 * Sessions in Redis, shared by every instance, in compact form (compressed JSON) and bounded by count and bytes
 * across all tenants by one script that evicts the largest tenant's least recently used sessions first. Expiry
 * follows the service's clock (the index holds each session's expiry), Redis's own TTL only frees the memory.
 */
export function redisSessions(redis: Redis, prefix: string, options: RedisSessionOptions): SessionStore {
  const now = options.now ?? Date.now
  redis.defineCommand('sessionsPut', { numberOfKeys: 0, lua: PUT })
  const r = redis as Redis & { sessionsPut(...args: (string | number | Buffer)[]): Promise<number> }
  const value = (scope: string, id: string) => `${prefix}sess:v:${scope}:${id}`
  let evicted = 0
  // An outage answers 503 REDIS_UNAVAILABLE, as every other use of Redis does (src/platform/kv/redis.ts).
  const fail = failure(redis)
  return {
    get: async <T>(scope: string, id: string) => {
      const [raw, expiry] = await Promise.all([
        redis.getBuffer(value(scope, id)),
        redis.zscore(`${prefix}sess:lru:${scope}`, id),
      ]).catch(fail)
      if (raw === null || expiry === null || Number(expiry) <= now()) return undefined
      return JSON.parse((await decompress(raw)).toString('utf8')) as T
    },
    put: async (scope, id, session, ttlMs) => {
      const packed = await compress(Buffer.from(JSON.stringify(session)), BROTLI)
      const ttl = Math.max(1, Math.ceil(ttlMs))
      evicted += await r
        .sessionsPut(prefix, scope, id, packed, now(), ttl, options.maxEntries, options.maxBytes, ENTRY_OVERHEAD)
        .catch(fail)
    },
    stats: async (): Promise<SessionStats> => {
      const [entries, bytes] = await redis.hmget(`${prefix}sess:totals`, 'entries', 'bytes').catch(fail)
      return { entries: Number(entries ?? 0), bytes: Number(bytes ?? 0), evicted }
    },
    close: async () => {},
  }
}
