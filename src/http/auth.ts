import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Permission } from '../contract/access.ts'
import { ApiError, isApiError } from '../contract/errors.ts'
import type { KeyResolver } from '../domain/tenants/key-resolver.ts'
import { allowedPermissions, keyMay } from '../domain/tenants/permissions.ts'
import { negotiateLanguage } from '../platform/i18n/index.ts'
import type { RateLimiter, RateLimitResult } from '../platform/kv/types.ts'
import type { ApiKeyRow, TenantRow } from '../store/schema.ts'
import type { AuthFailures } from './auth-failures.ts'
import { addVary } from './envelope.ts'
import { routeConfig } from './route-context.ts'

export interface AuthDeps {
  keys: KeyResolver
  rateLimiter: RateLimiter
  /** The time in milliseconds (the rate-limit window's). */
  now: () => number
  adminToken?: string
  /** Failed authentications per client address (429 beyond the limit). */
  failures: AuthFailures
}

const EXPOSED_HEADERS =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Content-Language, Idempotent-Replayed, Idempotent-Redacted'
const ALLOWED_HEADERS =
  'Authorization, Content-Type, Accept-Language, X-Request-Id, X-Sandbox-Scenario, Idempotency-Key'

const BEARER = /^Bearer[ ]+(\S+)\s*$/i

/** The key in an `Authorization: Bearer <key>` header; undefined when the header has another form. */
const presentedKey = (header: string): string | undefined => BEARER.exec(header)?.[1]

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization
  if (header === undefined || header === '') throw new ApiError('AUTHENTICATION_REQUIRED')
  const key = presentedKey(header)
  if (key === undefined) throw new ApiError('UNAUTHORIZED', undefined, { reason: 'MALFORMED_KEY' })
  return key
}

/**
 * The origin of a browser's request. Browsers send no Origin on a same-origin GET (Fetch standard), so a page the
 * service serves itself (the explorer) is known by `Sec-Fetch-Site: same-origin`, a header only browsers set and no
 * page can, and its origin is the request's own. Like Origin, it binds browsers only.
 */
function browserOrigin(request: FastifyRequest): string | undefined {
  if (request.headers.origin) return request.headers.origin
  if (request.headers['sec-fetch-site'] === 'same-origin') return `${request.protocol}://${request.host}`
  return undefined
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Authentication, rate limiting, Origin checks for publishable keys, permissions and language, in that order,
 * for every route that declares a permission; the admin token for operator routes. Answers the onRequest hook that
 * does it, for the app to run.
 */
export function installAuth(
  app: FastifyInstance,
  { keys, rateLimiter, now, adminToken, failures }: AuthDeps,
): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
  app.decorateRequest('auth', undefined)
  // Negotiated against the tenant's default once the tenant is known; errors before that use English as the default.
  app.decorateRequest('language', '')

  /**
   * Preflights carry no key, so they are answered for the origins some tenant allows (the real request is then checked
   * against its own tenant's); any other origin gets no CORS headers and 403, which the browser reports as a CORS
   * failure and a person trying it with curl can read.
   */
  app.options('/*', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const origin = request.headers.origin
    if (origin) {
      addVary(reply, 'Origin')
      if (!(await keys.allowsOrigin(origin))) {
        throw new ApiError('FORBIDDEN', undefined, { reason: 'ORIGIN_NOT_ALLOWED', origin })
      }
      reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', 'GET, POST, PATCH, DELETE, OPTIONS')
        .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? ALLOWED_HEADERS)
        .header('access-control-max-age', '600')
    }
    return reply.status(204).send()
  })

  /**
   * Runs a credential check for the request's client address: refused (429) while the address has failed too often,
   * before any key is looked at; a 401 it ends in counts as one more failure. The check gets the throttle's answer as
   * `gate` to await beside its own first read (the key cache's epoch), so both take one round trip to Redis.
   */
  async function throttled<T>(request: FastifyRequest, check: (gate: Promise<void>) => Promise<T>): Promise<T> {
    const gate = failures.retryAfter(request.ip).then((wait) => {
      if (wait > 0) throw tooManyFailures(wait, failures.settings.limit, failures.settings.windowSeconds)
    })
    // Awaited on every path below; this only keeps a rejection seen before then from being reported as unhandled.
    gate.catch(() => {})
    try {
      const result = await check(gate)
      await gate
      return result
    } catch (error) {
      // A refused address answers 429 whatever the check found, and such an answer is not a failure of its own.
      await gate
      if (isApiError(error) && error.code === 'UNAUTHORIZED') await failures.record(request.ip)
      throw error
    }
  }

  type Authenticated = { key: ApiKeyRow; tenant: TenantRow; rate: RateLimitResult }

  /**
   * The key's tenant, language, rate-limit headers and CORS headers (publishable keys from an allowed origin).
   * Throws for an unknown key and a publishable key from another origin.
   */
  async function authenticate(request: FastifyRequest, reply: FastifyReply, gate?: Promise<void>) {
    const resolved = await keys.resolve(bearer(request), gate)
    if (!resolved.ok) throw new ApiError('UNAUTHORIZED', undefined, { reason: resolved.reason })
    const { key, tenant } = resolved
    request.language = negotiateLanguage(request.headers['accept-language'], tenant.defaultLanguage)
    const windowMs = key.rateLimitWindowSeconds * 1000
    return admitted(request, reply, key, tenant, await rateLimiter.hit(key.id, key.rateLimit, windowMs, now()))
  }

  /**
   * `throttled(authenticate)` at once, without a promise, where everything it reads is in this process's memory (the
   * embedded shape): the failure marker, the key verified before, the rate-limit window. Undefined where it cannot
   * tell (a shared store, a key not verified yet, any failure but a refused address): then the full path runs, from
   * the start, and nothing was counted yet.
   */
  function authenticateNow(request: FastifyRequest, reply: FastifyReply, header: string): Authenticated | undefined {
    if (rateLimiter.hitSync === undefined) return undefined
    const wait = failures.retryAfterNow(request.ip)
    if (wait === undefined) return undefined
    if (wait > 0) throw tooManyFailures(wait, failures.settings.limit, failures.settings.windowSeconds)
    const presented = presentedKey(header)
    const resolved = presented === undefined ? undefined : keys.resolveNow(presented)
    if (resolved === undefined || !resolved.ok) return undefined
    const { key, tenant } = resolved
    request.language = negotiateLanguage(request.headers['accept-language'], tenant.defaultLanguage)
    const windowMs = key.rateLimitWindowSeconds * 1000
    return admitted(request, reply, key, tenant, rateLimiter.hitSync(key.id, key.rateLimit, windowMs, now()))
  }

  /** The rate-limit headers, and the Origin check and CORS headers of a publishable key. */
  function admitted(
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKeyRow,
    tenant: TenantRow,
    rate: RateLimitResult,
  ): Authenticated {
    reply
      .header('x-ratelimit-limit', String(rate.limit))
      .header('x-ratelimit-remaining', String(rate.remaining))
      .header('x-ratelimit-reset', String(rate.resetAt))
    if (key.type === 'publishable') {
      const origin = browserOrigin(request)
      // Scheme and host are case-insensitive; stored origins are in lower case.
      if (!origin || !tenant.allowedOrigins.includes(origin.toLowerCase())) {
        throw new ApiError('FORBIDDEN', undefined, { reason: 'ORIGIN_NOT_ALLOWED', origin: origin ?? null })
      }
      addVary(reply, 'Origin')
      reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED_HEADERS)
    }
    return { key, tenant, rate }
  }

  /** The rate limit and the permission of an authenticated key; then the request carries its caller. */
  function permit(request: FastifyRequest, { key, tenant, rate }: Authenticated, permission: Permission): void {
    if (!rate.allowed) throw rateLimited(rate, key.rateLimitWindowSeconds)
    if (!keyMay(key, permission)) {
      // Publishable keys are refused by their type, whatever the store holds for them (keys made before the rule).
      throw new ApiError(
        'FORBIDDEN',
        undefined,
        !allowedPermissions(key.type).includes(permission)
          ? { reason: 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY', requiredPermission: permission }
          : { reason: 'MISSING_PERMISSION', requiredPermission: permission },
      )
    }
    request.auth = {
      tenant,
      key,
      rateLimit: {
        limit: rate.limit,
        remaining: rate.remaining,
        resetAt: rate.resetAt,
        windowSeconds: key.rateLimitWindowSeconds,
      },
    }
  }

  /** Operator routes (the admin token), and requests no route matched. */
  async function withoutPermission(request: FastifyRequest, reply: FastifyReply, admin: boolean | undefined) {
    if (admin) {
      if (!adminToken) throw new ApiError('NOT_FOUND', undefined, { reason: 'ROUTE_NOT_FOUND' })
      if (!request.headers.authorization)
        throw new ApiError('AUTHENTICATION_REQUIRED', undefined, { reason: 'ADMIN_TOKEN_REQUIRED' })
      await throttled(request, async (gate) => {
        await gate
        if (!sameSecret(bearer(request), adminToken)) {
          throw new ApiError('UNAUTHORIZED', undefined, { reason: 'ADMIN_TOKEN_INVALID' })
        }
      })
      return
    }
    // No endpoint here (404), but a key's holder still gets its language, rate-limit and CORS headers, and the
    // request counts against the key, as on every authenticated response. Without a usable key: the plain 404
    // (a key that fails still counts as a failure of the address; a refused address is not checked at all).
    const { key, rate } = await throttled(request, (gate) => authenticate(request, reply, gate)).catch(() => ({
      key: undefined,
      rate: undefined,
    }))
    if (key && rate && !rate.allowed) throw rateLimited(rate, key.rateLimitWindowSeconds)
  }

  // A callback hook, not an async one: a public route and a key known in memory pass without a promise. The app runs
  // it at the end of its own onRequest hook (one hook less for Fastify to step through).
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const config = routeConfig(request)
    const permission = config.permission
    if (!permission) {
      // Public routes (docs, health) need nothing; a request no route matched, only with a key.
      if (config.admin || (config.url === undefined && request.headers.authorization)) {
        withoutPermission(request, reply, config.admin).then(() => done(), done)
        return
      }
      return done()
    }
    const header = request.headers.authorization
    if (!header) return done(new ApiError('AUTHENTICATION_REQUIRED'))
    const now = authenticateNow(request, reply, header)
    if (now !== undefined) {
      permit(request, now, permission)
      return done()
    }
    throttled(request, (gate) => authenticate(request, reply, gate)).then((found) => {
      try {
        permit(request, found, permission)
      } catch (error) {
        return done(error as Error)
      }
      done()
    }, done)
  }
}

const tooManyFailures = (retryAfter: number, limit: number, windowSeconds: number) =>
  new ApiError(
    'RATE_LIMIT_EXCEEDED',
    undefined,
    { reason: 'TOO_MANY_FAILED_AUTHENTICATIONS', limit, windowSeconds, retryAfterSeconds: retryAfter },
    { headers: { 'retry-after': String(retryAfter) } },
  )

const rateLimited = (rate: RateLimitResult, windowSeconds: number) =>
  new ApiError(
    'RATE_LIMIT_EXCEEDED',
    undefined,
    { limit: rate.limit, windowSeconds, retryAfterSeconds: rate.retryAfter },
    { headers: { 'retry-after': String(rate.retryAfter) } },
  )
