import { randomBytes } from 'node:crypto'
import { after } from 'node:test'
import { Redis } from 'ioredis'
import { redisKv } from '../../src/platform/kv/redis.ts'
import type { Kv } from '../../src/platform/kv/types.ts'
import { REDIS_URL } from './harness.ts'

/**
 * The machine's Redis for conformance suites, or the reason it cannot be used (suites then skip with it).
 * Keys live under a prefix of their own and are deleted, and the connection closed, after the file's tests.
 */
export async function testRedis(label: string): Promise<{ redis?: Redis; skip?: string; kv: () => Kv }> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    redis.disconnect()
    const skip = `Redis not reachable at ${REDIS_URL} (${(error as Error).message}): Redis runs skipped`
    process.stderr.write(`\n*** ${skip} ***\n\n`)
    return { skip, kv: () => Promise.reject(new Error(skip)) as never }
  }
  const prefix = `mas_conf_${label}_${randomBytes(4).toString('hex')}:`
  after(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })
  return { redis, kv: () => redisKv(redis, `${prefix}${randomBytes(4).toString('hex')}:`) }
}
