import type { SessionLimits, SessionStats, SessionStore } from './types.ts'

/** Map entries, the entry record and its bookkeeping, per session. */
const ENTRY_OVERHEAD = 256

interface Entry {
  scope: Scope
  id: string
  value: unknown
  shared: readonly object[]
  /** Estimated bytes of the value without its shared objects, plus ENTRY_OVERHEAD. */
  own: number
  expiresAt: number
}

interface Scope {
  name: string
  /** Least recently used first: a Map keeps insertion order and every use re-inserts. */
  entries: Map<string, Entry>
  /** Shared objects held by this scope's sessions, each counted once per scope. */
  refs: RefCounts
  bytes: number
}

/**
 * How many holders each shared object has, and its estimated size (counted when the first holder comes). Each count
 * sits in a box of its own, so a holder more or less is one map look-up, not a look-up and a store (a search session
 * holds up to 200 offers, each counted in its scope's and maybe the store's counts when stored and when released).
 */
class RefCounts {
  private readonly counts = new Map<object, { n: number }>()
  /** Adds one holder; answers the bytes that enter the count (0 when the object was held already). */
  add(o: object): number {
    const count = this.counts.get(o)
    if (count !== undefined) {
      count.n++
      return 0
    }
    this.counts.set(o, { n: 1 })
    return sharedSize(o)
  }
  /** Removes one holder; answers the bytes that leave the count (0 while others still hold it). */
  remove(o: object): number {
    const count = this.counts.get(o)
    if (count === undefined) return 0
    if (count.n > 1) {
      count.n--
      return 0
    }
    this.counts.delete(o)
    return sharedSize(o)
  }
}

/** Sizes of shared objects, walked once per object (they are immutable). */
const sharedSizes = new WeakMap<object, number>()
function sharedSize(o: object): number {
  let size = sharedSizes.get(o)
  if (size === undefined) {
    size = estimateBytes(o)
    sharedSizes.set(o, size)
  }
  return size
}

/**
 * An estimate of the heap an object graph takes in V8 on 64 bits (no pointer compression): objects of 32 bytes
 * plus 8 per property, arrays of 48 plus 8 per item, strings of 24 plus one byte per character (strings that
 * several objects share count each time, so the estimate errs high). `skip` objects count as pointers only.
 */
export function estimateBytes(value: unknown, skip?: ReadonlySet<object>, depth = 0, list?: readonly object[]): number {
  if (typeof value === 'string') return 24 + value.length
  if (value === null || typeof value !== 'object') return 8
  if (skip?.has(value) || depth > 32) return 8
  if (value === list) {
    // The shared list itself: its items count as pointers, as `skip` holding each of them would count them.
    listFound = true
    return 48 + 16 * list.length
  }
  if (ArrayBuffer.isView(value)) return 96 + value.byteLength
  let bytes = 0
  if (Array.isArray(value)) {
    bytes = 48 + 8 * value.length
    // Strings (a session's list of provider ids) counted here, not by a call each. An indexed loop: this walk is
    // megamorphic and rarely optimized, and for-of then made an iterator result per item (~19 KB per car search).
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      if (typeof item === 'string') bytes += 24 + item.length
      else if (typeof item === 'object') bytes += estimateBytes(item, skip, depth + 1, list)
    }
    return bytes
  }
  bytes = 32
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key]
    bytes +=
      8 +
      (typeof item === 'string'
        ? 24 + item.length
        : typeof item === 'object'
          ? estimateBytes(item, skip, depth + 1, list)
          : 0)
  }
  return bytes
}

let listFound = false

/**
 * The estimate of a session without its shared objects. When the shared list is itself an array inside the value
 * (a search session's offers), the walk counts it as pointers without a set of its objects; a shared object that
 * also sits elsewhere in the value is then counted in full there (the estimate errs high). Otherwise each object
 * met is looked up among the shared ones.
 */
function ownBytes(value: unknown, shared: readonly object[]): number {
  if (shared.length === 0) return estimateBytes(value)
  listFound = false
  const bytes = estimateBytes(value, undefined, 0, shared)
  return listFound ? bytes : estimateBytes(value, new Set(shared))
}

export interface MemorySessionOptions extends SessionLimits {
  now?: () => number
}

/**
 * Sessions in this process, bounded by count and by estimated bytes. Shared objects (provider offers that many
 * searches hold) are counted once overall and once per scope, so sessions that reference the same offers cost what
 * they really take.
 */
export function memorySessions(options: MemorySessionOptions): SessionStore {
  const now = options.now ?? Date.now
  const scopes = new Map<string, Scope>()
  /** The scopes that hold each shared object (its bytes count once while any does). */
  const refs = new RefCounts()
  let count = 0
  let bytes = 0
  let evicted = 0

  const release = (entry: Entry) => {
    const scope = entry.scope
    scope.entries.delete(entry.id)
    count--
    bytes -= entry.own
    scope.bytes -= entry.own
    const shared = entry.shared
    for (let i = 0; i < shared.length; i++) {
      const o = shared[i]
      const leaving = scope.refs.remove(o)
      if (leaving !== 0) {
        scope.bytes -= leaving
        bytes -= refs.remove(o)
      }
    }
    if (scope.entries.size === 0) scopes.delete(scope.name)
  }
  const live = (scope: string, id: string): Entry | undefined => {
    const entry = scopes.get(scope)?.entries.get(id)
    if (entry && entry.expiresAt <= now()) {
      release(entry)
      return undefined
    }
    return entry
  }
  /**
   * The scope holding the most bytes gives up its least recently stored session (of equally large scopes, the one
   * whose session is oldest); never the session just stored.
   */
  const evictOne = (keep: Entry): boolean => {
    let victim: Entry | undefined
    for (const scope of scopes.values()) {
      const oldest = scope.entries.values().next().value as Entry
      if (oldest === keep) continue
      if (
        !victim ||
        scope.bytes > victim.scope.bytes ||
        (scope.bytes === victim.scope.bytes && oldest.expiresAt < victim.expiresAt)
      )
        victim = oldest
    }
    if (!victim) return false
    if (victim.expiresAt > now()) evicted++
    release(victim)
    return true
  }
  // Expired sessions that are never asked for again are swept now and then.
  const sweep = setInterval(() => {
    const t = now()
    for (const scope of [...scopes.values()])
      for (const entry of [...scope.entries.values()]) if (entry.expiresAt <= t) release(entry)
  }, 30_000)
  sweep.unref()

  return {
    get: async <T>(scope: string, id: string) => {
      // A read alone does not renew a session: every page stores it again (as Redis does).
      return live(scope, id)?.value as T | undefined
    },
    put: async (scopeName, id, value, ttlMs, shared = []) => {
      let scope = scopes.get(scopeName)
      if (!scope) {
        scope = { name: scopeName, entries: new Map(), refs: new RefCounts(), bytes: 0 }
        scopes.set(scopeName, scope)
      }
      const own = ENTRY_OVERHEAD + ownBytes(value, shared)
      const entry: Entry = { scope, id, value, shared, own, expiresAt: now() + ttlMs }
      const before = scope.entries.get(id)
      // One session larger than the whole budget is not kept; it must not empty the store of everyone else's.
      let total = own
      // Indexed loops over the shared objects (up to 200 offers per search session): for-of made an iterator result
      // per object where this code runs unoptimized (~15 KB per car search).
      for (let i = 0; i < shared.length; i++) total += sharedSize(shared[i])
      if (total > options.maxBytes) {
        if (before) release(before)
        return
      }
      // The new holders first, so objects the replaced version holds too are never counted out and in again.
      count++
      bytes += own
      scope.bytes += own
      // The store's count holds each object once per scope that holds it: a scope's second holder of an object
      // (the same provider answer in another search of the tenant) leaves it as it is.
      for (let i = 0; i < shared.length; i++) {
        const o = shared[i]
        const entering = scope.refs.add(o)
        if (entering !== 0) {
          scope.bytes += entering
          bytes += refs.add(o)
        }
      }
      if (before) release(before)
      // release() drops a scope left empty; this one holds the new entry.
      scopes.set(scopeName, scope)
      scope.entries.set(id, entry)
      while ((count > options.maxEntries || bytes > options.maxBytes) && evictOne(entry)) {}
    },
    stats: async (): Promise<SessionStats> => ({ entries: count, bytes, evicted }),
    close: async () => clearInterval(sweep),
  }
}
