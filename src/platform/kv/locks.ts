import { randomUUID } from 'node:crypto'
import type { Kv, Locks } from './types.ts'

/** Locks over the key-value store: in process with the memory store, across instances with Redis. */
export function kvLocks(kv: Kv): Locks {
  return {
    tryWithLock: async (name, ttlMs, fn) => {
      const owner = randomUUID()
      if (!(await kv.setIfAbsent(`lock:${name}`, owner, ttlMs))) return { acquired: false }
      try {
        return { acquired: true, value: await fn() }
      } finally {
        await kv.deleteIfEquals(`lock:${name}`, owner)
      }
    },
  }
}
