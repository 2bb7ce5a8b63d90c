/**
 * Shared state that is not the database's business: cursor sessions, single-use markers, locks, rate-limit windows.
 * In memory for one instance; in Redis when several instances must agree.
 */
export interface Kv {
  get(key: string): Promise<string | undefined>
  /**
   * The value at once, without a promise, where the store is this process's memory; absent for stores that must be
   * asked (Redis). Hot paths use it to skip a promise per read and fall back to `get` without it.
   */
  peek?(key: string): string | undefined
  set(key: string, value: string, ttlMs: number): Promise<void>
  /** Sets only when absent; true when this call set it (single-use markers, lock acquisition). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>
  /** Deletes only when the stored value equals `value` (releasing a lock one still owns). */
  deleteIfEquals(key: string, value: string): Promise<boolean>
  delete(key: string): Promise<void>
  /** Atomically adds 1 and returns the new value; the TTL applies from the first increment. */
  increment(key: string, ttlMs: number): Promise<number>
  /**
   * Structured values. The memory store keeps the object itself (no serialization; callers must not mutate what
   * they stored or read), Redis keeps JSON.
   */
  getJson<T>(key: string): Promise<T | undefined>
  setJson(key: string, value: unknown, ttlMs: number): Promise<void>
  close(): Promise<void>
}

/** One durable entry of the key-value store (see the journals of `memoryKv` and `redisKv`). */
export interface KvJournalEntry {
  key: string
  value: string
  /** Written by setJson: `value` is JSON. */
  structured: boolean
  expiresAt: number
  /**
   * Written by increment: the journal keeps the highest count, since instances incrementing one key in Redis may
   * write their counts through in another order than they got them.
   */
  counter?: boolean
}

/** Where the key-value store keeps what must outlive a restart of the process or of Redis (the database). */
export interface KvJournal {
  /** The entries still alive at `nowMs` (expired ones are dropped). */
  load(nowMs: number): Promise<KvJournalEntry[]>
  put(entry: KvJournalEntry): Promise<void>
  remove(key: string): Promise<void>
}

export interface RateLimitResult {
  allowed: boolean
  limit: number
  remaining: number
  /** Unix seconds at which the oldest counted request leaves the window (a slot frees up). */
  resetAt: number
  /** Seconds to wait before a retry can succeed; 0 when allowed. */
  retryAfter: number
}

/** Sliding-window log: at most `limit` requests in any `windowMs` span, per key. */
export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitResult>
  /** The same hit at once, where the windows are this process's memory; absent for a shared limiter (Redis). */
  hitSync?(key: string, limit: number, windowMs: number, nowMs: number): RateLimitResult
}

export interface Locks {
  /** Runs `fn` holding the named lock; answers `undefined` at once when someone else holds it. */
  tryWithLock<T>(
    name: string,
    ttlMs: number,
    fn: () => Promise<T>,
  ): Promise<{ acquired: true; value: T } | { acquired: false }>
}
