import type { Registry } from '../../connectors/registry.ts'
import type { Provider } from '../../connectors/types/common.ts'
import type { Environment } from '../../contract/access.ts'
import type { ProviderRecord } from '../../contract/providers.ts'
import type { TenantRow } from '../../store/schema.ts'

/** The providers a tenant may use in an environment: enabled for the tenant and configured for the environment. */
export function providersFor(registry: Registry, tenant: TenantRow, environment: Environment): Provider[] {
  const enabled = tenant.providers ? new Set(tenant.providers) : undefined
  return registry
    .all()
    .filter((p) => p.entry.environments.includes(environment) && (!enabled || enabled.has(p.entry.id)))
}

export function toProviderRecord(provider: Provider): ProviderRecord {
  const { entry, connector } = provider
  const capabilities = connector?.capabilities
  return {
    id: entry.id,
    name: entry.name,
    status: provider.status,
    // The cause (paths, feed addresses) stays in the operator's log; tenants see that the provider is down.
    ...(provider.status === 'UNAVAILABLE' ? { statusMessage: 'The provider is temporarily unavailable.' } : {}),
    modalities: capabilities?.modalities ?? [],
    capabilities: {
      operations: capabilities?.operations ?? [],
      stationBased: capabilities?.stationBased ?? false,
      freeFloating: capabilities?.freeFloating ?? false,
      appAccess: capabilities?.operations.includes('APP_ACCESS') ?? false,
      requiresStoredBooking: capabilities?.requiresStoredBooking ?? false,
    },
    countries: entry.countries ?? [],
    languages: entry.languages ?? [],
    contact: { ...entry.contact },
    branding: { ...entry.branding },
    ...(entry.websiteUrl ? { websiteUrl: entry.websiteUrl } : {}),
  }
}

export function listProviders(
  registry: Registry,
  tenant: TenantRow,
  environment: Environment,
  page: number,
  limit: number,
) {
  const all = providersFor(registry, tenant, environment)
  return {
    providers: all.slice(page * limit, page * limit + limit).map(toProviderRecord),
    pagination: { total: all.length, currentPage: page, limit },
  }
}
