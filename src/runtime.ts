import { getHeapStatistics } from 'node:v8'
import type { AppDeps } from './app.ts'
import type { Config } from './config.ts'
import { quietSamples } from './connectors/default-providers.ts'
import { buildRegistry, CONNECTORS, loadProviderEntries } from './connectors/registry.ts'
import { createResilience } from './connectors/resilience.ts'
import type { ConnectorDeps } from './connectors/types/common.ts'
import { createGazetteerGeocoder } from './domain/geocoding/index.ts'
import { kvLocks } from './platform/kv/locks.ts'
import { memoryKv, memoryRateLimiter } from './platform/kv/memory.ts'
import { connectRedis, failOverRateLimiter, redisKv, redisRateLimiter } from './platform/kv/redis.ts'
import type { Kv, RateLimiter } from './platform/kv/types.ts'
import { createLoadGuard, type LoadReading } from './platform/load-guard.ts'
import { createMailer, type Mailer, registerMailJobs } from './platform/mail.ts'
import { type CircuitValue, createMetrics, type Metrics } from './platform/metrics.ts'
import type { ReadinessChecks } from './platform/readiness.ts'
import { memorySessions } from './platform/sessions/memory.ts'
import { registerMemoryMetrics } from './platform/sessions/metrics.ts'
import { redisSessions } from './platform/sessions/redis.ts'
import type { SessionStore } from './platform/sessions/types.ts'
import { createTokenCipher, loadOrCreateTokenKeys } from './platform/tokens.ts'
import { createTracing } from './platform/tracing.ts'
import type { Store } from './store/db.ts'
import { jobCounts } from './store/job-stats.ts'
import { createJobs } from './store/jobs.ts'
import { createKvJournal } from './store/kv-journal.ts'
import { sql } from './store/orm.ts'
import { openPglite } from './store/pglite.ts'
import { embeddedDatabaseDir } from './store/pglite-database.ts'
import { openPostgres } from './store/postgres.ts'
import { waitForDatabase } from './store/wait-for-database.ts'

/** Search sessions' bytes unless SEARCH_SESSIONS_MAX_MB says otherwise. */
const DEFAULT_SESSION_BYTES = 128 * 1_048_576

export interface Runtime extends AppDeps {
  readiness: ReadinessChecks
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
  /** Where the bundled demo samples' expected quirks go (info once, details at debug), instead of providerLogger. */
  sampleLogger?: { info(message: string): void; debug(message: string): void }
  /** What the operator should see while the start waits (a database that does not answer yet). */
  onStartupNotice?: (message: string) => void
  /** Warnings of the service's own machinery while it runs (traces that cannot be sent). */
  onWarning?: (message: string) => void
  /** The load guard's readings instead of this process's (tests); the guard then samples only when told to. */
  loadReading?: () => LoadReading
}

/** How long start-up waits for Redis (and the restore of what it lost) before it goes on without it. */
const REDIS_START_WAIT_MS = 10_000
// cockatiel's CircuitState (Closed 0, Open 1, HalfOpen 2, Isolated 3) as the metric's 0 closed, 1 half-open, 2 open.
const CIRCUIT_VALUE: Record<number, CircuitValue> = { 0: 0, 1: 2, 2: 1, 3: 2 }

/** A mailer that counts failed deliveries (mails_failed_total); the failure itself still goes to the caller. */
const countFailedMails = (mailer: Mailer, metrics: Metrics): Mailer => ({
  ...mailer,
  send: (message) =>
    mailer.send(message).catch((error: unknown) => {
      metrics.mailsFailed.inc()
      throw error
    }),
})

/** Opens everything the app depends on, for the shape the configuration asks for. */
export async function openRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const clock = options.clock ?? (() => new Date())
  // The time in milliseconds, where the hot paths want a number (the key-value store's expiry checks, the rate
  // limiter): without a clock of the caller's, Date.now itself rather than a Date made and read at every call.
  const now: () => number = options.clock ? () => clock().getTime() : Date.now
  // Before anything is opened: a providers file that cannot be read stops the start at once.
  const providerList = loadProviderEntries(config.providersFile)
  if (config.databaseUrl) await waitForDatabase(config.databaseUrl, { onRetry: options.onStartupNotice })
  const store: Store = config.databaseUrl
    ? await openPostgres(config.databaseUrl)
    : await openPglite(options.inMemory ? undefined : embeddedDatabaseDir(config))
  let kv: Kv
  let rateLimiter: RateLimiter
  const readiness: ReadinessChecks = { store: () => store.db.execute(sql`select 1`) }
  let sessions: SessionStore
  const sessionLimits = {
    maxEntries: config.searchSessionsMax,
    maxBytes: config.searchSessionsMaxBytes ?? DEFAULT_SESSION_BYTES,
    now,
  }
  if (config.redisUrl) {
    const redis = connectRedis(config.redisUrl)
    readiness.redis = () => redis.ping()
    const prefix = options.redisPrefix ?? 'mas:'
    // What lives an hour or longer (the sandbox providers' own records) is written through to the database too,
    // and put back should Redis come back without it.
    const shared = redisKv(redis, prefix, { journal: createKvJournal(store.db), now })
    // Started without Redis, the instance still starts: what needs Redis answers 503 until it is reachable.
    await shared.ready(REDIS_START_WAIT_MS)
    kv = shared
    rateLimiter = failOverRateLimiter(redisRateLimiter(redis, prefix), memoryRateLimiter())
    sessions = redisSessions(redis, prefix, sessionLimits)
  } else {
    // One instance: shared state in memory, and what must outlive a restart (the sandbox providers' own records)
    // written through to the database.
    const journal = createKvJournal(store.db)
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
  for (const { at, message } of providerList.skipped) onProviderProblem(at, message)
  const registry = buildRegistry(
    options.sampleLogger && !config.providersFile
      ? quietSamples(providerList.entries, options.sampleLogger)
      : providerList.entries,
    { kv, clock, ...(options.providerLogger ? { logger: options.providerLogger } : {}) },
    onProviderProblem,
    CONNECTORS,
    providerList.rejected,
  )
  // Off unless configured: without it nothing is wrapped or subscribed.
  const tracing = config.otlpTracesUrl
    ? createTracing({ url: config.otlpTracesUrl, serviceName: config.serviceName, warn: options.onWarning })
    : undefined
  const metrics = createMetrics()
  const resilience = createResilience({ metrics })
  registerMemoryMetrics(metrics.registry, sessions, loadGuard)
  // Polling every 5 s keeps the embedded database quiet between requests; vehicle actions start their job at once.
  const jobs = createJobs({ store, clock, pollMs: 5000 })
  const mailer = countFailedMails(createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir }), metrics)
  registerMailJobs(jobs, mailer)
  metrics.setSources({
    breakers: () =>
      resilience.breakerStates().map(({ key, state }) => {
        const [provider, environment = ''] = key.split('|')
        return { provider, environment, state: CIRCUIT_VALUE[state] }
      }),
    jobs: () => jobCounts(store),
    feedAges: () =>
      registry.all().flatMap((p) => {
        const seconds = p.connector?.feedAgeSeconds?.()
        return seconds === undefined ? [] : [{ provider: p.entry.id, seconds }]
      }),
  })
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
    resilience,
    clock,
    now,
    logger: options.logger ?? (config.logLevel === 'silent' ? false : { level: config.logLevel }),
    jobs,
    mailer,
    geocoder: createGazetteerGeocoder(),
    readiness,
    tracing,
    close: async () => {
      await jobs.stop()
      mailer.close()
      await registry.stop()
      loadGuard.close()
      await sessions.close()
      await kv.close()
      await store.close()
      await tracing?.shutdown()
    },
  }
}
