/**
 * Server-side cursor sessions (car search pages), bounded in number and bytes in both shapes: when a new session
 * would pass a bound, the scope (tenant) holding the most bytes loses its least recently used session first, so one
 * tenant's search storm evicts its own sessions before a quiet tenant's.
 */
export interface SessionStore {
  /**
   * The session, or undefined when there is none: never stored, expired, or evicted (the caller tells expired from
   * evicted by the age of its cursor). The memory store hands out the stored object itself: callers must not mutate
   * it.
   */
  get<T>(scope: string, id: string): Promise<T | undefined>
  /**
   * Stores or replaces a session for `ttlMs`, as the most recently used of its scope (a read alone does not count
   * as a use: callers store the session again on every page), then evicts until the bounds hold. A session larger
   * than the whole byte budget is not kept (and evicts nothing). `shared` lists immutable objects
   * inside `value` that other sessions may hold too (provider offers): the memory store counts each of them once.
   */
  put(scope: string, id: string, value: unknown, ttlMs: number, shared?: readonly object[]): Promise<void>
  /** What is held now and how many sessions were evicted (by this instance) since it started. */
  stats(): Promise<SessionStats>
  close(): Promise<void>
}

export interface SessionStats {
  entries: number
  /** Estimated heap bytes (memory store) or stored bytes with index overhead (Redis). */
  bytes: number
  evicted: number
}

export interface SessionLimits {
  /** Sessions across every scope. */
  maxEntries: number
  /** Bytes across every scope. */
  maxBytes: number
}
