import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { KeyResolver } from '../domain/tenants/key-resolver.ts'
import { negotiateLanguage } from '../platform/i18n/index.ts'
import type { RateLimiter, RateLimitResult } from '../platform/kv/types.ts'
import { addVary } from './envelope.ts'
import { ApiError } from './errors.ts'

export interface AuthDeps {
  keys: KeyResolver
  rateLimiter: RateLimiter
  clock: () => Date
  adminToken?: string
}

const EXPOSED_HEADERS =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Content-Language'
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept-Language, X-Request-Id, X-Sandbox-Scenario'

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization
  if (header === undefined || header === '') throw new ApiError('AUTHENTICATION_REQUIRED')
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header)
  if (!match) throw new ApiError('UNAUTHORIZED', undefined, { reason: 'MALFORMED_KEY' })
  return match[1]
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Authentication, rate limiting, Origin checks for publishable keys, permissions and language, in that order,
 * for every route that declares a permission; the admin token for operator routes.
 */
export function installAuth(app: FastifyInstance, { keys, rateLimiter, clock, adminToken }: AuthDeps): void {
  app.decorateRequest('auth', undefined)
  // Negotiated against the tenant's default once the tenant is known; errors before that use English as the default.
  app.decorateRequest('language', '')

  // Preflights carry no key; the real request is checked against the tenant's origins.
  app.options('/*', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const origin = request.headers.origin
    if (origin) {
      addVary(reply, 'Origin')
      reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-methods', 'GET, POST, PATCH, DELETE, OPTIONS')
        .header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? ALLOWED_HEADERS)
        .header('access-control-max-age', '600')
    }
    return reply.status(204).send()
  })

  /**
   * The key's tenant, language, rate-limit headers and CORS headers (publishable keys from an allowed origin).
   * Throws for an unknown key and a publishable key from another origin.
   */
  async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const resolved = await keys.resolve(bearer(request))
    if (!resolved.ok) throw new ApiError('UNAUTHORIZED', undefined, { reason: resolved.reason })
    const { key, tenant } = resolved
    request.language = negotiateLanguage(request.headers['accept-language'], tenant.defaultLanguage)

    const windowMs = key.rateLimitWindowSeconds * 1000
    const rate = await rateLimiter.hit(key.id, key.rateLimit, windowMs, clock().getTime())
    reply
      .header('x-ratelimit-limit', String(rate.limit))
      .header('x-ratelimit-remaining', String(rate.remaining))
      .header('x-ratelimit-reset', String(rate.resetAt))

    if (key.type === 'publishable') {
      const origin = request.headers.origin
      // Scheme and host are case-insensitive; stored origins are in lower case.
      if (!origin || !tenant.allowedOrigins.includes(origin.toLowerCase())) {
        throw new ApiError('FORBIDDEN', undefined, { reason: 'ORIGIN_NOT_ALLOWED', origin: origin ?? null })
      }
      addVary(reply, 'Origin')
      reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', EXPOSED_HEADERS)
    }
    return { key, tenant, rate }
  }

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    const permission = config.permission
    if (config.admin) {
      if (!adminToken) throw new ApiError('NOT_FOUND', undefined, { reason: 'ROUTE_NOT_FOUND' })
      if (!request.headers.authorization)
        throw new ApiError('AUTHENTICATION_REQUIRED', undefined, { reason: 'ADMIN_TOKEN_REQUIRED' })
      if (!sameSecret(bearer(request), adminToken)) {
        throw new ApiError('UNAUTHORIZED', undefined, { reason: 'ADMIN_TOKEN_INVALID' })
      }
      return
    }
    if (!permission) {
      // No endpoint here (404), but a key's holder still gets its language, rate-limit and CORS headers, and the
      // request counts against the key, as on every authenticated response. Without a usable key: the plain 404.
      if (request.is404 && request.headers.authorization) {
        const { key, rate } = await authenticate(request, reply).catch(() => ({ key: undefined, rate: undefined }))
        if (key && rate && !rate.allowed) throw rateLimited(rate, key.rateLimitWindowSeconds)
      }
      return
    }

    const { key, tenant, rate } = await authenticate(request, reply)
    if (!rate.allowed) throw rateLimited(rate, key.rateLimitWindowSeconds)
    if (!key.permissions.includes(permission)) {
      throw new ApiError('FORBIDDEN', undefined, { reason: 'MISSING_PERMISSION', requiredPermission: permission })
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
  })
}

const rateLimited = (rate: RateLimitResult, windowSeconds: number) =>
  new ApiError(
    'RATE_LIMIT_EXCEEDED',
    undefined,
    { limit: rate.limit, windowSeconds, retryAfterSeconds: rate.retryAfter },
    { headers: { 'retry-after': String(rate.retryAfter) } },
  )
