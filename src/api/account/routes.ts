import { AuthCheck } from '../../contract/account.ts'
import { responses } from '../../contract/common.ts'
import { effectivePermissions } from '../../domain/tenants/permissions.ts'
import { authOf, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'

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
    async (request) => {
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
        permissions: effectivePermissions(key),
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
