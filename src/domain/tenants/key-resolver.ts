import type { Kv } from '../../platform/kv/types.ts'
import { outageIn } from '../../platform/outage.ts'
import type { ApiKeyRow, TenantRow } from '../../store/schema.ts'
import type { TenantsRepo } from '../../store/tenants-repo.ts'
import { hashesEqual, hashKey, parseKey } from './keys.ts'

export type KeyFailure = 'MALFORMED_KEY' | 'UNKNOWN_KEY' | 'KEY_REVOKED' | 'KEY_EXPIRED'
export type Resolved = { ok: true; key: ApiKeyRow; tenant: TenantRow } | { ok: false; reason: KeyFailure }

const EPOCH_KEY = 'auth:epoch'
const MAX_CACHED = 10_000
/** Stands for the epoch while Redis cannot be read; no epoch in Redis ever has this value. */
const UNKNOWN_EPOCH = '\u0000unknown'

/**
 * Finds the key and tenant behind a presented API key, and tells whether any tenant allows an origin (CORS
 * preflights carry no key). Records and the set of origins are cached in the instance and dropped when the shared
 * epoch moves; every admin change moves it, so a revocation or a tenant change made on one instance is seen by every
 * instance on its next request (one read of the epoch per request; in memory when embedded).
 */
export function createKeyResolver({ repo, kv, clock }: { repo: TenantsRepo; kv: Kv; clock: () => Date }) {
  let epoch: string | undefined
  /** Whether the epoch was read once (before that, `epoch` undefined says nothing). */
  let synced = false
  const cache = new Map<string, { key: ApiKeyRow; tenant: TenantRow } | null>()
  // Keys whose hash already matched, by their full text: the hot path skips hashing (cleared with the cache).
  const verified = new Map<string, { key: ApiKeyRow; tenant: TenantRow }>()
  // Loaded once per epoch; concurrent preflights share one query.
  let origins: Promise<Set<string>> | undefined
  const sync = async () => {
    // Without Redis nobody can say whether a key changed on another instance: the database is asked every time
    // (no cache) until the epoch is readable again, which then drops the cache once more.
    const current = await kv.get(EPOCH_KEY).catch((error: unknown) => {
      if (!outageIn(error)) throw error
      return UNKNOWN_EPOCH
    })
    if (current !== epoch || current === UNKNOWN_EPOCH) {
      cache.clear()
      verified.clear()
      origins = undefined
      epoch = current
    }
    synced = true
  }
  const usable = (found: { key: ApiKeyRow; tenant: TenantRow }): Resolved => {
    if (found.key.revokedAt) return { ok: false, reason: 'KEY_REVOKED' }
    if (found.key.expiresAt && found.key.expiresAt.getTime() <= clock().getTime()) {
      return { ok: false, reason: 'KEY_EXPIRED' }
    }
    return { ok: true, key: found.key, tenant: found.tenant }
  }

  return {
    /**
     * `gate` runs beside the epoch read (one round trip to Redis for both) and, when it fails, stops the look-up
     * before any key is read or compared: the failed-authentication throttle uses it.
     */
    async resolve(presented: string, gate?: Promise<unknown>): Promise<Resolved> {
      await Promise.all([sync(), gate])
      const parsed = parseKey(presented)
      if (!parsed) return { ok: false, reason: 'UNKNOWN_KEY' }
      const known = verified.get(presented)
      if (known) return usable(known)
      let found = cache.get(parsed.id)
      if (found === undefined) {
        found = (await repo.findKeyWithTenant(parsed.id)) ?? null
        if (cache.size >= MAX_CACHED) cache.clear()
        cache.set(parsed.id, found)
      }
      // Always compare a hash, even for unknown ids, so timing does not tell which ids exist.
      const matches = hashesEqual(hashKey(presented), found?.key.keyHash ?? '0'.repeat(64))
      if (!found || !matches) return { ok: false, reason: 'UNKNOWN_KEY' }
      if (verified.size >= MAX_CACHED) verified.clear()
      verified.set(presented, found)
      return usable(found)
    },
    /**
     * `resolve`'s answer at once, from memory alone, for a key verified before while the epoch is unchanged and
     * readable without waiting (the in-process store); undefined when only `resolve` can tell (then call it).
     */
    resolveNow(presented: string): Resolved | undefined {
      if (kv.peek === undefined || !synced || kv.peek(EPOCH_KEY) !== epoch) return undefined
      const known = verified.get(presented)
      return known === undefined ? undefined : usable(known)
    },
    /** Whether some tenant allows `origin` (as browsers send it; compared in lower case). */
    async allowsOrigin(origin: string): Promise<boolean> {
      await sync()
      if (!origins) {
        origins = repo.allowedOrigins().then(
          (list) => new Set(list),
          (error: unknown) => {
            origins = undefined
            throw error
          },
        )
      }
      const loading = origins
      return (await loading).has(origin.toLowerCase())
    },
    /** Makes every instance forget cached keys, tenants and origins. */
    async invalidate(): Promise<void> {
      await kv.increment(EPOCH_KEY, 365 * 24 * 3600 * 1000)
    },
  }
}

export type KeyResolver = ReturnType<typeof createKeyResolver>
