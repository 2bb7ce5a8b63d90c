import type { Permission } from '../../contract/access.ts'
import { AuthCheck } from '../../contract/account.ts'
import { responses } from '../../contract/common.ts'
import { effectivePermissions } from '../../domain/tenants/permissions.ts'
import { authOf, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import type { ApiKeyRow } from '../../store/schema.ts'

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
    (request) => {
      const { tenant, key, rateLimit } = authOf(request)
      return ok(request, {
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
    },
  )
}
