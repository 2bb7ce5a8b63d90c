import type { FastifySchema } from 'fastify'
import type { Static } from 'typebox'
import { responses } from '../../contract/common.ts'
import {
  AdminTenantParams,
  AdminWebhookCreate,
  AdminWebhookListQuery,
  AdminWebhookParams,
  WebhookList,
  WebhookSecretData,
} from '../../contract/webhooks.ts'
import type { Webhooks } from '../../domain/webhooks/index.ts'
import { created, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { oneWebhookRoutes, WEBHOOK_OPERATIONS, type WebhookOperation } from './operations.ts'

/** An operation as the operator has it: the tenant's, named `admin…`, for any tenant. */
const adminRoute = (operation: WebhookOperation) => {
  const { operationId, summary } = WEBHOOK_OPERATIONS[operation]
  return {
    config: { admin: true },
    schema: {
      operationId: `admin${operationId[0].toUpperCase()}${operationId.slice(1)}`,
      tags: ['Admin'],
      security: [{ adminToken: [] }],
      summary,
      description: `${summary} of a tenant, as the tenant does it under /webhooks (see the Webhooks operations); unknown tenants and webhooks answer 404 NOT_FOUND.`,
    },
  }
}
const admin = <S extends FastifySchema>(operation: WebhookOperation, schema: S) => {
  const { config, schema: doc } = adminRoute(operation)
  return { config, schema: { ...doc, ...schema } }
}

/** The operator's side of webhooks: the same operations for any tenant, the environment named in the request. */
export function adminWebhookRoutes(app: TypedApp, { webhooks }: { webhooks: Webhooks }) {
  const { endpoints } = webhooks
  app.post(
    '/tenants/:tenantId/webhooks',
    admin('create', {
      params: AdminTenantParams,
      body: AdminWebhookCreate,
      response: responses(WebhookSecretData, 201),
    }),
    async (request, reply) => {
      const actor = await webhooks.operator(request.params.tenantId)
      const { environment, ...input } = request.body
      const webhook = await endpoints.create({ ...actor, environment }, input)
      return created(request, reply, webhook.id, { webhook })
    },
  )
  app.get(
    '/tenants/:tenantId/webhooks',
    admin('list', { params: AdminTenantParams, querystring: AdminWebhookListQuery, response: responses(WebhookList) }),
    async (request) => {
      const { page = 0, limit = 20, environment } = request.query
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, await endpoints.list({ ...actor, environment }, page, limit))
    },
  )
  oneWebhookRoutes(app, endpoints, {
    path: '/tenants/:tenantId/webhooks/:webhookId',
    params: AdminWebhookParams,
    route: adminRoute,
    actor: (request) => webhooks.operator((request.params as Static<typeof AdminWebhookParams>).tenantId),
  })
}
