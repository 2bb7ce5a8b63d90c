import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { parseTokenKeys } from './platform/tokens.ts'

/** The one place that reads process.env. Every bad variable is reported at once. */
export interface Config {
  port: number
  host: string
  dataDir: string
  databaseUrl?: string
  redisUrl?: string
  adminToken?: string
  /** Raw `TOKEN_KEYS` (`kid:base64key,...`); undefined means "generate and keep in DATA_DIR". */
  tokenKeys?: string
  providersFile?: string
  smtpUrl?: string
  searchTimeoutMs: number
  offerTokenTtlSeconds: number
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Largest accepted request body in bytes. */
  bodyLimit: number
  /** Failed authentications allowed per client address in the window (0: no throttle). */
  authFailureLimit: number
  authFailureWindowSeconds: number
  /** Fastify's `trustProxy`: which proxies' X-Forwarded-For gives the client address. */
  trustProxy: boolean | number | string
  /** A request whose headers and body have not all arrived by then is closed (slow clients). */
  requestTimeoutMs: number
  /** Connections beyond this many are refused (each holds a file descriptor). */
  maxConnections: number
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number
  /** `auto`: a demo tenant on the first start of an empty embedded store; `true`: on an empty store of either shape. */
  demoTenant: 'auto' | 'true' | 'false'
  /** Processes serving on this machine (node:cluster); more than 1 needs the distributed shape. */
  workers: number
  /** Where traces go (OTLP/HTTP JSON, …/v1/traces); unset: no tracing at all. */
  otlpTracesUrl?: string
  /** `service.name` of the traces (OTEL_SERVICE_NAME). */
  serviceName: string
  /** Car search sessions kept at most, across tenants (`SEARCH_SESSIONS_MAX`). */
  searchSessionsMax: number
  /**
   * Bytes car search sessions may take at most, across tenants (`SEARCH_SESSIONS_MAX_MB`); undefined: 128 MiB, and in
   * memory no more than an eighth of V8's heap limit.
   */
  searchSessionsMaxBytes?: number
  /** Load shedding: refuse work at this share of V8's heap limit (`HEAP_LIMIT_PERCENT`). */
  heapLimitFraction: number
  /** Load shedding: refuse work at this resident set size (`MEMORY_LIMIT_MB`); undefined: no RSS limit. */
  memoryLimitBytes?: number
  /** Load shedding: refuse work above this event-loop delay, p99 ms (`EVENT_LOOP_DELAY_LIMIT_MS`); 0: off. */
  eventLoopDelayLimitMs: number
  /** Answers larger than this are not kept for Idempotency-Key replays (`IDEMPOTENCY_MAX_ANSWER_BYTES`). */
  idempotencyMaxAnswerBytes: number
  /** GBFS out: `feed_contact_email` of every system_information (`GBFS_CONTACT_EMAIL`); unset, a placeholder. */
  gbfsContactEmail?: string
  /** Live webhook endpoints may reach private, loopback and link-local addresses (`WEBHOOKS_ALLOW_PRIVATE`). */
  webhooksAllowPrivate: boolean
}

export class ConfigError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.problems = problems
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = []
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value ? value : undefined
  }
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`)
      return fallback
    }
    return value
  }
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = text(name)
    if (raw === undefined) return undefined
    try {
      const parsed = new URL(raw)
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use one of ${protocols.join(', ')} (got "${parsed.protocol}")`)
      }
    } catch {
      problems.push(`${name} is not a valid URL`)
    }
    return raw
  }

  const oneOf = <const V extends string>(name: string, values: readonly V[], fallback: V): V => {
    const raw = text(name)
    if (raw === undefined) return fallback
    if (values.includes(raw.toLowerCase() as V)) return raw.toLowerCase() as V
    problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`)
    return fallback
  }

  const logLevel = (text('LOG_LEVEL') ?? 'info') as Config['logLevel']
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)

  // Any token enables the admin API (DECISIONS sets no length); main warns when it is short.
  const adminToken = text('ADMIN_TOKEN')

  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host: text('HOST') ?? '0.0.0.0',
    dataDir: resolve(text('DATA_DIR') ?? './data'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    adminToken,
    tokenKeys: text('TOKEN_KEYS'),
    providersFile: text('PROVIDERS_FILE'),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    searchTimeoutMs: int('SEARCH_TIMEOUT_MS', 20_000, 1, 120_000),
    offerTokenTtlSeconds: int('OFFER_TOKEN_TTL_SECONDS', 1200, 1, 86_400),
    logLevel,
    bodyLimit: int('BODY_LIMIT_BYTES', 1_048_576, 1024, 50 * 1_048_576),
    authFailureLimit: int('AUTH_FAILURE_LIMIT', 100, 0, 1_000_000),
    authFailureWindowSeconds: int('AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    trustProxy: trustProxy(text('TRUST_PROXY'), problems),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    maxConnections: int('MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 600_000),
    demoTenant: oneOf('DEMO_TENANT', ['auto', 'true', 'false'], 'auto'),
    workers: text('WORKERS')?.toLowerCase() === 'auto' ? availableParallelism() : int('WORKERS', 1, 1, 256),
    serviceName: text('OTEL_SERVICE_NAME') ?? 'mobility-aggregation-service',
    searchSessionsMax: int('SEARCH_SESSIONS_MAX', 100_000, 1, 100_000_000),
    ...(text('SEARCH_SESSIONS_MAX_MB')
      ? { searchSessionsMaxBytes: int('SEARCH_SESSIONS_MAX_MB', 128, 1, 1_048_576) * 1_048_576 }
      : {}),
    heapLimitFraction: int('HEAP_LIMIT_PERCENT', 85, 10, 100) / 100,
    ...(text('MEMORY_LIMIT_MB') ? { memoryLimitBytes: int('MEMORY_LIMIT_MB', 0, 64, 16_777_216) * 1_048_576 } : {}),
    eventLoopDelayLimitMs: int('EVENT_LOOP_DELAY_LIMIT_MS', 0, 0, 600_000),
    idempotencyMaxAnswerBytes: int('IDEMPOTENCY_MAX_ANSWER_BYTES', 65_536, 1024, 16 * 1_048_576),
    ...(text('GBFS_CONTACT_EMAIL') ? { gbfsContactEmail: text('GBFS_CONTACT_EMAIL') } : {}),
    webhooksAllowPrivate: oneOf('WEBHOOKS_ALLOW_PRIVATE', ['true', 'false'], 'false') === 'true',
  }
  if (config.gbfsContactEmail !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(config.gbfsContactEmail)) {
    problems.push(`GBFS_CONTACT_EMAIL must be an e-mail address (got "${config.gbfsContactEmail}")`)
  }
  // The OpenTelemetry variables: a base URL (the traces go to /v1/traces under it) or the traces URL itself.
  const tracesUrl = url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:'])
  const otlpBase = url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:'])
  config.otlpTracesUrl = tracesUrl ?? (otlpBase ? `${otlpBase.replace(/\/+$/, '')}/v1/traces` : undefined)
  if (config.workers > 1 && !(config.databaseUrl && config.redisUrl)) {
    problems.push(
      `WORKERS=${text('WORKERS')} (${config.workers} processes) needs DATABASE_URL and REDIS_URL: the embedded database ` +
        'belongs to one process, and workers share rate limits, locks and sessions through Redis. Use WORKERS=1 without them',
    )
  }
  if (config.databaseUrl && !config.tokenKeys) {
    problems.push('TOKEN_KEYS is required when DATABASE_URL is set (every instance must share the same keys)')
  }
  if (config.tokenKeys) {
    try {
      parseTokenKeys(config.tokenKeys)
    } catch (error) {
      problems.push((error as Error).message)
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

/**
 * `TRUST_PROXY`: unset or `false` (the socket's address is the client's), `true` (the left-most X-Forwarded-For
 * address; only when every request passes a proxy), a number of proxy hops, or a comma-separated list of proxy
 * addresses and CIDR ranges (also `loopback`, `linklocal`, `uniquelocal`).
 */
function trustProxy(raw: string | undefined, problems: string[]): boolean | number | string {
  if (raw === undefined || raw === 'false') return false
  if (raw === 'true') return true
  if (/^[0-9]+$/.test(raw)) return Number(raw)
  const named = ['loopback', 'linklocal', 'uniquelocal']
  const bad = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => {
      if (named.includes(entry)) return false
      const [address, bits, ...rest] = entry.split('/')
      const family = isIP(address)
      if (family === 0 || rest.length > 0) return true
      return bits !== undefined && !(/^[0-9]+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
    })
  if (bad.length > 0) problems.push(`TRUST_PROXY: not an address or CIDR range: ${bad.join(', ')}`)
  return raw
}

/** Settings that work but that an operator should hear about. */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = []
  if (config.adminToken !== undefined && config.adminToken.length < 16)
    warnings.push('ADMIN_TOKEN is shorter than 16 characters; anyone who guesses it administers every tenant')
  return warnings
}
