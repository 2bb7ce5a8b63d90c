import type { ApiKey, ApiKeyCreate, CreatedApiKey, Tenant, TenantCreate, TenantUpdate } from '../../contract/admin.ts'
import { ApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { ApiKeyRow, TenantRow } from '../../store/schema.ts'
import type { TenantsRepo } from '../../store/tenants-repo.ts'
import { generateKey, KEY_ID, randomString, TENANT_ID } from './keys.ts'
import { allowedPermissions, defaultPermissions } from './permissions.ts'

export interface TenantServiceDeps {
  repo: TenantsRepo
  clock: () => Date
  /** Every provider id the service knows; a tenant may enable only these. */
  providerIds: () => string[]
  /** Called after any change that cached authentication data must not outlive. */
  onChange: () => Promise<void>
}

/** A tenant as the admin API shows it; `providers` lists the enabled ids, all known ones when none were chosen. */
export const toTenant = (row: TenantRow, allProviders: () => string[]): Tenant => ({
  id: row.id,
  name: row.name,
  organization: row.organization,
  defaultLanguage: row.defaultLanguage,
  dataRetention: row.dataRetention,
  providers: row.providers ?? allProviders(),
  emailOptOut: row.emailOptOut,
  allowedOrigins: row.allowedOrigins,
  reservationWindowSeconds: row.reservationWindowSeconds,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  tenantId: row.tenantId,
  type: row.type,
  environment: row.environment,
  name: row.name,
  prefix: row.prefix,
  lastFour: row.lastFour,
  permissions: row.permissions,
  rateLimit: { limit: row.rateLimit, windowSeconds: row.rateLimitWindowSeconds },
  expiresAt: row.expiresAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
})

/** Origins as browsers send them (lower case, no trailing slash), each once: `https://App.example.com/` matches. */
export const normalizeOrigins = (origins: string[]) => [
  ...new Set(origins.map((o) => o.toLowerCase().replace(/\/$/, ''))),
]

export function createTenantService({ repo, clock, providerIds, onChange }: TenantServiceDeps) {
  const checkProviders = (providers: string[] | null | undefined) => {
    if (!providers) return
    const known = new Set(providerIds())
    const unknown = providers.filter((id) => !known.has(id))
    if (unknown.length > 0) {
      throw new ApiError('INVALID_REQUEST', undefined, {
        providers: detail('UNKNOWN_PROVIDER_IDS', { unknown, known: [...known] }),
      })
    }
  }
  const requireTenant = async (id: string): Promise<TenantRow> => {
    // Like the other areas' ids (bookings, trips, subscriptions): a text that cannot be an id never reaches the
    // store, which would refuse some (PostgreSQL refuses NUL) with an error rather than find nothing.
    const row = TENANT_ID.test(id) ? await repo.findTenant(id) : undefined
    if (!row) throw new ApiError('NOT_FOUND', undefined, { resource: 'tenant', id })
    return row
  }

  return {
    async createTenant(input: TenantCreate): Promise<Tenant> {
      checkProviders(input.providers)
      const row = await repo.insertTenant({
        id: `ten_${randomString(16)}`,
        name: input.name,
        organization: input.organization ?? null,
        defaultLanguage: input.defaultLanguage ?? 'en',
        dataRetention: input.dataRetention ?? 'STANDARD',
        providers: input.providers ? [...new Set(input.providers)] : null,
        emailOptOut: input.emailOptOut ?? false,
        allowedOrigins: normalizeOrigins(input.allowedOrigins ?? []),
        reservationWindowSeconds: input.reservationWindowSeconds ?? 600,
      })
      // Its origins join the set that CORS preflights are answered for, on every instance.
      if (row.allowedOrigins.length > 0) await onChange()
      return toTenant(row, providerIds)
    },
    getTenant: async (id: string): Promise<Tenant> => toTenant(await requireTenant(id), providerIds),
    async listTenants(page: number, limit: number) {
      const { rows, total } = await repo.listTenants(page * limit, limit)
      return { tenants: rows.map((r) => toTenant(r, providerIds)), pagination: { total, currentPage: page, limit } }
    },
    async updateTenant(id: string, changes: TenantUpdate): Promise<Tenant> {
      checkProviders(changes.providers)
      await requireTenant(id)
      const providers =
        changes.providers === undefined ? undefined : changes.providers && [...new Set(changes.providers)]
      const allowedOrigins = changes.allowedOrigins && normalizeOrigins(changes.allowedOrigins)
      const row = await repo.updateTenant(id, { ...changes, providers, ...(allowedOrigins ? { allowedOrigins } : {}) })
      await onChange()
      return toTenant(row!, providerIds)
    },
    async createKey(tenantId: string, input: ApiKeyCreate): Promise<CreatedApiKey> {
      await requireTenant(tenantId)
      const { type = 'secret', environment = 'live' } = input
      const permissions = input.permissions ?? defaultPermissions(type)
      const allowed: readonly string[] = allowedPermissions(type)
      const refused = permissions.filter((p) => !allowed.includes(p))
      if (refused.length > 0) {
        // DECISIONS "Publishable keys": 403 FORBIDDEN when a publishable key is created asking for more.
        throw new ApiError('FORBIDDEN', undefined, {
          reason: 'NOT_ALLOWED_FOR_PUBLISHABLE_KEY',
          refusedPermissions: refused,
          allowedPermissions: allowed,
        })
      }
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null
      // A key born expired is a mistake (a wrong year, a time zone); it would only ever answer 401.
      if (expiresAt && expiresAt.getTime() <= clock().getTime()) {
        throw new ApiError('INVALID_REQUEST', undefined, {
          expiresAt: detail('MUST_BE_IN_FUTURE_NOW', { now: clock().toISOString() }),
        })
      }
      const generated = generateKey(type, environment)
      const row = await repo.insertKey({
        id: generated.id,
        tenantId,
        type,
        environment,
        name: input.name ?? null,
        prefix: generated.prefix,
        lastFour: generated.lastFour,
        keyHash: generated.hash,
        permissions,
        rateLimit: input.rateLimit?.limit ?? 100,
        rateLimitWindowSeconds: input.rateLimit?.windowSeconds ?? 60,
        expiresAt,
      })
      return { ...toApiKey(row), secret: generated.secret }
    },
    async listKeys(tenantId: string): Promise<ApiKey[]> {
      await requireTenant(tenantId)
      return (await repo.listKeys(tenantId)).map(toApiKey)
    },
    async revokeKey(keyId: string): Promise<ApiKey> {
      const found = KEY_ID.test(keyId) ? await repo.findKeyWithTenant(keyId) : undefined
      if (!found) throw new ApiError('NOT_FOUND', undefined, { resource: 'key', id: keyId })
      const row = found.key.revokedAt ? found.key : await repo.revokeKey(keyId, clock())
      await onChange()
      return toApiKey(row!)
    },
    /**
     * First start on an empty store: a demo tenant with a live secret, a live publishable and a test key. Its
     * publishable key works from pages the service itself serves (the explorer), on the port it listens on.
     */
    async ensureDemoTenant(port = 3000): Promise<{ tenant: Tenant; keys: CreatedApiKey[] } | undefined> {
      if ((await repo.countTenants()) > 0) return undefined
      const tenant = await this.createTenant({
        name: 'Demo',
        organization: 'Demo Organization',
        allowedOrigins: [`http://localhost:${port}`, `http://127.0.0.1:${port}`],
      })
      const keys = [
        await this.createKey(tenant.id, { type: 'secret', environment: 'live', name: 'demo live secret' }),
        await this.createKey(tenant.id, { type: 'publishable', environment: 'live', name: 'demo live publishable' }),
        await this.createKey(tenant.id, { type: 'secret', environment: 'test', name: 'demo test secret' }),
      ]
      return { tenant, keys }
    },
  }
}

export type TenantService = ReturnType<typeof createTenantService>
