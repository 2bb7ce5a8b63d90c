import type { Registry } from '../../connectors/registry.ts'
import { OffsetQuery, responses } from '../../contract/common.ts'
import { ProviderList } from '../../contract/providers.ts'
import { listProviders } from '../../domain/providers/directory.ts'
import { authOf, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'

export function providerRoutes(app: TypedApp, { registry }: { registry: Registry }) {
  app.get(
    '/mobility-providers',
    {
      config: { permission: 'providers:read' },
      schema: {
        operationId: 'listMobilityProviders',
        tags: ['Mobility Providers'],
        summary: 'List the providers enabled for the tenant',
        description:
          "The providers enabled for the caller's tenant in the key's environment (live or test), with capabilities, contact, countries, languages and branding. Offset pagination; a page past the end is empty.",
        security: [{ apiKey: [] }],
        querystring: OffsetQuery,
        response: responses(ProviderList),
      },
    },
    async (request) => {
      const { tenant, key } = authOf(request)
      const { page = 0, limit = 20 } = request.query
      return ok(request, listProviders(registry, tenant, key.environment, page, limit))
    },
  )
}
