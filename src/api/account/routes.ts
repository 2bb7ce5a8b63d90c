import type { FastifyReply } from 'fastify'
import type { Permission } from '../../contract/access.ts'
import { AuthCheck } from '../../contract/account.ts'
import { responses } from '../../contract/common.ts'
import { effectivePermissions } from '../../domain/tenants/permissions.ts'
import { answerTemplate } from '../../http/answer-template.ts'
import { authOf, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import type { ApiKeyRow, TenantRow } from '../../store/schema.ts'

/**
 * A key's effective permissions, worked out once per key row (the key cache hands out the same row until it reloads
 * it, and a changed key is a new row). The list is only read: serialized into the answer.
 */
const effective = new WeakMap<ApiKeyRow, Permission[]>()
function permissionsOf(key: ApiKeyRow): Permission[] {
  let permissions = effective.get(key)
  if (permissions === undefined) {
    permissions = effectivePermissions(key)
    effective.set(key, permissions)
  }
  return permissions
}

export function accountRoutes(app: TypedApp) {
  app.get(
    '/auth/check',
    {
      config: { permission: 'account:read' },
      schema: {
        operationId: 'checkApiKey',
        tags: ['Account'],
        summary: 'Check the API key',
        description:
          'The tenant, key, permissions, data-retention mode, languages and rate limit behind the presented key.',
        security: [{ apiKey: [] }],
        response: responses(AuthCheck),
      },
    },
    // Not async: what it answers is at hand, and Fastify sends a plain value without a promise in between.
    (request, reply) => {
      const { tenant, key, rateLimit } = authOf(request)
      const answer = ok(request, {
        tenant: { id: tenant.id, name: tenant.name, organization: tenant.organization },
        key: {
          id: key.id,
          type: key.type,
          environment: key.environment,
          name: key.name,
          prefix: key.prefix,
          expiresAt: key.expiresAt?.toISOString() ?? null,
        },
        environment: key.environment,
        // What the key can use: a publishable key stored with more (before the catalogue rule) uses the catalogue reads.
        permissions: permissionsOf(key),
        dataRetention: tenant.dataRetention,
        defaultLanguage: tenant.defaultLanguage,
        language: request.language,
        rateLimit: {
          limit: rateLimit.limit,
          windowSeconds: rateLimit.windowSeconds,
          remaining: rateLimit.remaining,
          reset: rateLimit.resetAt,
        },
      })
      const serialize = templateOf(reply, key, tenant, answer.data.language, rateLimit.limit, rateLimit.windowSeconds)
      if (serialize !== undefined) reply.type(JSON_TYPE).serializer(serialize)
      return answer
    },
  )
}

const JSON_TYPE = 'application/json; charset=utf-8'
/** What differs between two answers for one key, tenant, language and limit. */
const VARYING = [
  ['data', 'rateLimit', 'remaining'],
  ['data', 'rateLimit', 'reset'],
  ['meta', 'requestId'],
  ['meta', 'timestamp'],
]

interface Template {
  tenant: TenantRow
  language: string
  limit: number
  windowSeconds: number
  serialize: ((answer: unknown) => string) | undefined
}

/**
 * The answer's serializer for a key (src/http/answer-template.ts): everything but the counters, the request id and the
 * time comes from the key and tenant rows (a changed key or tenant is a new row), the language and the limit, so one
 * template serves each key while they stay. Undefined before the first answer (made by the route's serializer).
 */
const templates = new WeakMap<ApiKeyRow, Template>()
function templateOf(
  reply: FastifyReply,
  key: ApiKeyRow,
  tenant: TenantRow,
  language: string,
  limit: number,
  windowSeconds: number,
): ((answer: unknown) => string) | undefined {
  const known = templates.get(key)
  if (
    known !== undefined &&
    known.tenant === tenant &&
    known.language === language &&
    known.limit === limit &&
    known.windowSeconds === windowSeconds
  ) {
    return known.serialize
  }
  // The first answer for this key (or after a change) goes through the route's serializer; the template is made
  // from it for the next ones.
  const serializer = reply.getSerializationFunction('200') as ((answer: unknown) => string) | undefined
  if (serializer === undefined) return undefined
  reply.type(JSON_TYPE).serializer((answer: unknown) => {
    const serialize = answerTemplate(serializer, answer, VARYING)
    templates.set(key, { tenant, language, limit, windowSeconds, serialize })
    return serializer(answer)
  })
  return undefined
}
