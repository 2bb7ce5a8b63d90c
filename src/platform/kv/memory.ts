import type { Kv, RateLimiter, RateLimitResult } from './types.ts'

interface Entry {
  value: string
  object?: unknown
  expiresAt: number
}

export function memoryKv(now: () => number = Date.now): Kv {
  const entries = new Map<string, Entry>()
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key)
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  // Expired entries that are never read again are swept now and then, so memory stays bounded.
  const sweep = setInterval(() => {
    const t = now()
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key)
  }, 30_000)
  sweep.unref()
  return {
    get: async (key) => live(key)?.value,
    set: async (key, value, ttlMs) => {
      entries.set(key, { value, expiresAt: now() + ttlMs })
    },
    setIfAbsent: async (key, value, ttlMs) => {
      if (live(key)) return false
      entries.set(key, { value, expiresAt: now() + ttlMs })
      return true
    },
    deleteIfEquals: async (key, value) => {
      if (live(key)?.value !== value) return false
      entries.delete(key)
      return true
    },
    delete: async (key) => {
      entries.delete(key)
    },
    increment: async (key, ttlMs) => {
      const entry = live(key)
      const next = (entry ? Number(entry.value) || 0 : 0) + 1
      entries.set(key, { value: String(next), expiresAt: entry?.expiresAt ?? now() + ttlMs })
      return next
    },
    getJson: async <T>(key: string) => live(key)?.object as T | undefined,
    setJson: async (key, value, ttlMs) => {
      entries.set(key, { value: '', object: value, expiresAt: now() + ttlMs })
    },
    close: async () => clearInterval(sweep),
  }
}

/**
 * Sliding-window log: the timestamps of the hits still inside the window, oldest first, per key.
 * Amortized O(1) per hit; memory bounded by the number of hits inside the window.
 */
export function memoryRateLimiter(): RateLimiter & {
  hitSync(key: string, limit: number, windowMs: number, nowMs: number): RateLimitResult
} {
  const windows = new Map<string, { stamps: number[]; head: number; windowMs: number }>()
  const hitSync = (key: string, limit: number, windowMs: number, nowMs: number): RateLimitResult => {
    let w = windows.get(key)
    if (!w) {
      w = { stamps: [], head: 0, windowMs }
      windows.set(key, w)
    }
    w.windowMs = windowMs
    while (w.head < w.stamps.length && w.stamps[w.head] <= nowMs - windowMs) w.head++
    if (w.head > 1024 && w.head * 2 > w.stamps.length) {
      w.stamps = w.stamps.slice(w.head)
      w.head = 0
    }
    const allowed = w.stamps.length - w.head < limit
    if (allowed) w.stamps.push(nowMs)
    const count = w.stamps.length - w.head
    const resetMs = (count > 0 ? w.stamps[w.head] : nowMs) + windowMs
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      resetAt: Math.ceil(resetMs / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((resetMs - nowMs) / 1000)),
    }
  }
  // Windows of keys that went quiet are dropped, so memory stays bounded by active keys.
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [key, w] of windows) {
      const last = w.stamps[w.stamps.length - 1]
      if (last === undefined || last <= now - w.windowMs) windows.delete(key)
    }
  }, 60_000)
  sweep.unref()
  return { hitSync, hit: async (key, limit, windowMs, nowMs) => hitSync(key, limit, windowMs, nowMs) }
}
