import { getHeapStatistics } from 'node:v8'
import type { AppDeps } from './app.ts'
import type { Config } from './config.ts'
import { buildRegistry, CONNECTORS, loadProviderEntries } from './connectors/registry.ts'
import { createResilience } from './connectors/resilience.ts'
import type { ConnectorDeps } from './connectors/types.ts'
import { createGazetteerGeocoder } from './domain/geocoding/index.ts'
import { createJobs } from './platform/jobs.ts'
import { kvLocks } from './platform/kv/locks.ts'
import { memoryKv, memoryRateLimiter } from './platform/kv/memory.ts'
import { connectRedis, redisKv, redisRateLimiter } from './platform/kv/redis.ts'
import type { Kv, RateLimiter } from './platform/kv/types.ts'
import { createLoadGuard, type LoadReading } from './platform/load-guard.ts'
import { createMailer, registerMailJobs } from './platform/mail.ts'
import { createMetrics } from './platform/metrics.ts'
import { memorySessions } from './platform/sessions/memory.ts'
import { registerMemoryMetrics } from './platform/sessions/metrics.ts'
import { redisSessions } from './platform/sessions/redis.ts'
import type { SessionStore } from './platform/sessions/types.ts'
import { createTokenCipher, loadOrCreateTokenKeys } from './platform/tokens.ts'
import type { Store } from './store/db.ts'
import { kvJournal } from './store/kv-journal.ts'
import { openPglite } from './store/pglite.ts'
import { openPostgres } from './store/postgres.ts'

/** Search sessions' bytes unless SEARCH_SESSIONS_MAX_MB says otherwise. */
const DEFAULT_SESSION_BYTES = 128 * 1_048_576

export interface Runtime extends AppDeps {
  /** Closes the store, the shared state and the providers. */
  close(): Promise<void>
}

export interface RuntimeOptions {
  /** Keep PGlite in memory instead of DATA_DIR (tests). */
  inMemory?: boolean
  clock?: () => Date
  logger?: AppDeps['logger']
  /** Prefix for Redis keys, so test runs sharing one Redis stay apart. */
  redisPrefix?: string
  onProviderProblem?: (providerId: string, message: string) => void
  /** Where providers report problems while they run (a feed failing on refresh); see ConnectorDeps.logger. */
  providerLogger?: ConnectorDeps['logger']
  /** The load guard's readings instead of this process's (tests); the guard then samples only when told to. */
  loadReading?: () => LoadReading
}

/** Opens everything the app depends on, for the shape the configuration asks for. */
export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const clock = options.clock ?? (() => new Date())
  const store: Store = config.databaseUrl
    ? await openPostgres(config.databaseUrl)
    : await openPglite(options.inMemory ? undefined : `${config.dataDir}/db`)
  let kv: Kv
  let rateLimiter: RateLimiter
  let sessions: SessionStore
  const sessionLimits = {
    maxEntries: config.searchSessionsMax,
    maxBytes: config.searchSessionsMaxBytes ?? DEFAULT_SESSION_BYTES,
    now: () => clock().getTime(),
  }
  if (config.redisUrl) {
    const redis = connectRedis(config.redisUrl)
    const prefix = options.redisPrefix ?? 'mas:'
    kv = redisKv(redis, prefix)
    rateLimiter = redisRateLimiter(redis, prefix)
    sessions = redisSessions(redis, prefix, sessionLimits)
  } else {
    // One instance: shared state in memory, and what must outlive a restart (the sandbox providers' own records)
    // written through to the database.
    const journal = kvJournal(store.db)
    const now = () => clock().getTime()
    kv = memoryKv({ now, journal, restored: await journal.load(now()) })
    rateLimiter = memoryRateLimiter()
    // In the heap, sessions leave room for everything else: a small heap (a container's) gets a smaller default.
    const heapShare = Math.floor(getHeapStatistics().heap_size_limit / 8)
    sessions = memorySessions({
      ...sessionLimits,
      maxBytes: config.searchSessionsMaxBytes ?? Math.min(DEFAULT_SESSION_BYTES, heapShare),
    })
  }
  const loadGuard = createLoadGuard({
    heapFraction: config.heapLimitFraction,
    rssLimitBytes: config.memoryLimitBytes,
    eventLoopDelayLimitMs: config.eventLoopDelayLimitMs,
    ...(options.loadReading ? { read: options.loadReading, intervalMs: 0 } : {}),
  })
  const tokens = createTokenCipher(loadOrCreateTokenKeys(config.tokenKeys, config.dataDir))
  const onProviderProblem = options.onProviderProblem ?? (() => {})
  const providerList = loadProviderEntries(config.providersFile)
  for (const { at, message } of providerList.skipped) onProviderProblem(at, message)
  const registry = buildRegistry(
    providerList.entries,
    { kv, clock, ...(options.providerLogger ? { logger: options.providerLogger } : {}) },
    onProviderProblem,
    CONNECTORS,
    providerList.rejected,
  )
  const metrics = createMetrics()
  registerMemoryMetrics(metrics.registry, sessions, loadGuard)
  // Polling every 5 s keeps the embedded database quiet between requests; vehicle actions start their job at once.
  const jobs = createJobs({ store, clock, pollMs: 5000 })
  const mailer = createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir })
  registerMailJobs(jobs, mailer)
  return {
    config,
    store,
    kv,
    sessions,
    loadGuard,
    locks: kvLocks(kv),
    rateLimiter,
    tokens,
    registry,
    metrics,
    resilience: createResilience({ metrics }),
    clock,
    logger: options.logger ?? (config.logLevel === 'silent' ? false : { level: config.logLevel }),
    jobs,
    mailer,
    geocoder: createGazetteerGeocoder(),
    close: async () => {
      await jobs.stop()
      mailer.close()
      await registry.stop()
      loadGuard.close()
      await sessions.close()
      await kv.close()
      await store.close()
    },
  }
}
