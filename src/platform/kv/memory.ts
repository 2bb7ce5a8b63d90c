import type { Kv, KvJournal, KvJournalEntry, RateLimiter, RateLimitResult } from './types.ts'

interface Entry {
  value: string
  object?: unknown
  expiresAt: number
  /** Also in the journal. */
  durable?: boolean
}

/**
 * Entries kept this long or longer are meant to outlive a restart (a simulated provider's bookings, trips and
 * tickets); shorter ones (search sessions, locks, single-use markers, holds) live in memory only, so the hot paths
 * never wait for the journal.
 */
export const DURABLE_MIN_TTL_MS = 3_600_000

export interface MemoryKvOptions {
  now?: () => number
  /** Writes every durable entry through to it; without one, everything is lost on restart. */
  journal?: KvJournal
  /** What the journal held at start (`journal.load`). */
  restored?: KvJournalEntry[]
}

export function memoryKv(options: MemoryKvOptions = {}): Kv {
  const now = options.now ?? Date.now
  const journal = options.journal
  const entries = new Map<string, Entry>()
  for (const e of options.restored ?? []) {
    entries.set(e.key, {
      value: e.structured ? '' : e.value,
      ...(e.structured ? { object: JSON.parse(e.value) } : {}),
      expiresAt: e.expiresAt,
      durable: true,
    })
  }
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key)
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  /** Stores `entry`, and writes it through when it is durable (or removes the journal's copy it replaces). */
  const put = async (key: string, entry: Entry) => {
    const before = entries.get(key)
    entry.durable = !!journal && entry.expiresAt - now() >= DURABLE_MIN_TTL_MS
    entries.set(key, entry)
    if (entry.durable) {
      const structured = entry.object !== undefined
      await journal!.put({
        key,
        value: structured ? JSON.stringify(entry.object) : entry.value,
        structured,
        expiresAt: entry.expiresAt,
      })
    } else if (before?.durable) await journal!.remove(key)
  }
  const remove = async (key: string) => {
    const before = entries.get(key)
    entries.delete(key)
    if (before?.durable) await journal!.remove(key)
  }
  // Expired entries that are never read again are swept now and then, so memory stays bounded.
  const sweep = setInterval(() => {
    const t = now()
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key)
  }, 30_000)
  sweep.unref()
  return {
    get: async (key) => live(key)?.value,
    peek: (key) => live(key)?.value,
    set: (key, value, ttlMs) => put(key, { value, expiresAt: now() + ttlMs }),
    setIfAbsent: async (key, value, ttlMs) => {
      if (live(key)) return false
      await put(key, { value, expiresAt: now() + ttlMs })
      return true
    },
    deleteIfEquals: async (key, value) => {
      if (live(key)?.value !== value) return false
      await remove(key)
      return true
    },
    delete: remove,
    increment: async (key, ttlMs) => {
      const entry = live(key)
      const next = (entry ? Number(entry.value) || 0 : 0) + 1
      await put(key, { value: String(next), expiresAt: entry?.expiresAt ?? now() + ttlMs })
      return next
    },
    getJson: async <T>(key: string) => live(key)?.object as T | undefined,
    setJson: (key, value, ttlMs) => put(key, { value: '', object: value, expiresAt: now() + ttlMs }),
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
