import type { FastifySchema } from 'fastify'
import { Type } from 'typebox'
import { ApiKey, ApiKeyCreate, CreatedApiKey, Tenant, TenantCreate, TenantUpdate } from '../../contract/admin.ts'
import { OffsetPagination, OffsetQuery, responses } from '../../contract/common.ts'
import type { TenantService } from '../../domain/tenants/service.ts'
import { ok } from '../../http/envelope.ts'
import type { RouteError } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'

const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 100 }) })
const KeyParams = Type.Object({ keyId: Type.String({ maxLength: 100 }) })
const TenantData = Type.Object({ tenant: Tenant })

const admin = <S extends FastifySchema>(
  operationId: string,
  summary: string,
  schema: S,
  /** Beside the admin token's codes and NOT_FOUND (no such tenant or key, or the admin API disabled). */
  errors: readonly RouteError[] = [],
) => ({
  config: { admin: true, errors },
  schema: { operationId, tags: ['Admin'], security: [{ adminToken: [] }], summary, ...schema },
})

/** The operator's API (DECISIONS "Admin API"); answers 404 unless ADMIN_TOKEN is set. */
export function adminRoutes(app: TypedApp, { tenants }: { tenants: TenantService }) {
  app.post(
    '/tenants',
    admin('createTenant', 'Create a tenant', { body: TenantCreate, response: responses(TenantData, 201) }),
    async (request, reply) => reply.status(201).send(ok(request, { tenant: await tenants.createTenant(request.body) })),
  )
  app.get(
    '/tenants',
    admin('listTenants', 'List tenants', {
      querystring: OffsetQuery,
      response: responses(Type.Object({ tenants: Type.Array(Tenant), pagination: OffsetPagination })),
    }),
    async (request) => ok(request, await tenants.listTenants(request.query.page ?? 0, request.query.limit ?? 20)),
  )
  app.get(
    '/tenants/:tenantId',
    admin('getTenant', 'Read a tenant', { params: TenantParams, response: responses(TenantData) }),
    async (request) => ok(request, { tenant: await tenants.getTenant(request.params.tenantId) }),
  )
  app.patch(
    '/tenants/:tenantId',
    admin('updateTenant', 'Change tenant settings', {
      params: TenantParams,
      body: TenantUpdate,
      response: responses(TenantData),
    }),
    async (request) => ok(request, { tenant: await tenants.updateTenant(request.params.tenantId, request.body) }),
  )
  app.post(
    '/tenants/:tenantId/keys',
    admin(
      'createApiKey',
      'Create an API key',
      {
        description:
          'The full key is in `key.secret`, returned only here; the service keeps only its hash. A publishable key may hold only the catalogue reads (403 FORBIDDEN, `NOT_ALLOWED_FOR_PUBLISHABLE_KEY`, for anything more); `expiresAt` must lie in the future.',
        params: TenantParams,
        body: ApiKeyCreate,
        response: responses(Type.Object({ key: CreatedApiKey }), 201),
      },
      ['FORBIDDEN'],
    ),
    async (request, reply) =>
      reply.status(201).send(ok(request, { key: await tenants.createKey(request.params.tenantId, request.body) })),
  )
  app.get(
    '/tenants/:tenantId/keys',
    admin('listApiKeys', "List a tenant's keys", {
      params: TenantParams,
      response: responses(Type.Object({ keys: Type.Array(ApiKey) })),
    }),
    async (request) => ok(request, { keys: await tenants.listKeys(request.params.tenantId) }),
  )
  app.delete(
    '/keys/:keyId',
    admin('revokeApiKey', 'Revoke an API key', {
      description: 'Takes effect at once on every instance.',
      params: KeyParams,
      response: responses(Type.Object({ key: ApiKey })),
    }),
    async (request) => ok(request, { key: await tenants.revokeKey(request.params.keyId) }),
  )
}
