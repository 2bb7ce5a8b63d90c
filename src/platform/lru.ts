/**
 * A bounded map that forgets the least recently used entry first: for memos whose keys are unbounded (search
 * parameters) but whose memory must not be. A Map keeps insertion order, so a hit moves its entry to the end.
 */
export interface Lru<K, V> {
  get(key: K): V | undefined
  set(key: K, value: V): void
  readonly size: number
}

export function lru<K, V>(capacity: number): Lru<K, V> {
  if (!Number.isInteger(capacity) || capacity < 1) throw new Error('lru: capacity must be a positive integer')
  const entries = new Map<K, V>()
  // The most recently used key: a hit on it is already at the end, so it is not moved (a move is a delete, which
  // leaves a hole in the Map's table, and a set: repeated hits on one key made the table rehash over and over).
  // (Before the first set there are no hits, so its initial undefined never matches wrongly.)
  let newest: K | undefined
  return {
    get(key) {
      const value = entries.get(key)
      if (value !== undefined && newest !== key) {
        entries.delete(key)
        entries.set(key, value)
        newest = key
      }
      return value
    },
    set(key, value) {
      entries.delete(key)
      entries.set(key, value)
      newest = key
      if (entries.size > capacity) entries.delete(entries.keys().next().value as K)
    },
    get size() {
      return entries.size
    },
  }
}
