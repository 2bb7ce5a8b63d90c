import type { FastifySchema } from 'fastify'
import { responses } from '../../contract/common.ts'
import {
  AdminTenantParams,
  AdminWebhookCreate,
  AdminWebhookListQuery,
  AdminWebhookParams,
  DeliveryData,
  DeliveryList,
  DeliveryListQuery,
  WebhookData,
  WebhookList,
  WebhookSecretData,
  WebhookUpdate,
} from '../../contract/webhooks.ts'
import type { Webhooks } from '../../domain/webhooks/index.ts'
import { created, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'

const admin = <S extends FastifySchema>(operationId: string, summary: string, schema: S) => ({
  config: { admin: true },
  schema: {
    operationId,
    tags: ['Admin'],
    security: [{ adminToken: [] }],
    summary,
    description: `${summary} of a tenant, as the tenant does it under /webhooks (see the Webhooks operations); unknown tenants and webhooks answer 404 NOT_FOUND.`,
    ...schema,
  },
})

/** The operator's side of webhooks: the same operations for any tenant, the environment named in the request. */
export function adminWebhookRoutes(app: TypedApp, { webhooks }: { webhooks: Webhooks }) {
  const { endpoints } = webhooks
  app.post(
    '/tenants/:tenantId/webhooks',
    admin('adminCreateWebhook', 'Register a webhook endpoint', {
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
    admin('adminListWebhooks', 'List webhook endpoints', {
      params: AdminTenantParams,
      querystring: AdminWebhookListQuery,
      response: responses(WebhookList),
    }),
    async (request) => {
      const { page = 0, limit = 20, environment } = request.query
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, await endpoints.list({ ...actor, environment }, page, limit))
    },
  )
  app.get(
    '/tenants/:tenantId/webhooks/:webhookId',
    admin('adminGetWebhook', 'Read a webhook endpoint', {
      params: AdminWebhookParams,
      response: responses(WebhookData),
    }),
    async (request) => {
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, { webhook: await endpoints.get(actor, request.params.webhookId) })
    },
  )
  app.patch(
    '/tenants/:tenantId/webhooks/:webhookId',
    admin('adminUpdateWebhook', 'Change a webhook endpoint', {
      params: AdminWebhookParams,
      body: WebhookUpdate,
      response: responses(WebhookData),
    }),
    async (request) => {
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, { webhook: await endpoints.update(actor, request.params.webhookId, request.body) })
    },
  )
  app.delete(
    '/tenants/:tenantId/webhooks/:webhookId',
    admin('adminDeleteWebhook', 'Delete a webhook endpoint', {
      params: AdminWebhookParams,
      response: responses(WebhookData),
    }),
    async (request) => {
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, { webhook: await endpoints.remove(actor, request.params.webhookId) })
    },
  )
  app.post(
    '/tenants/:tenantId/webhooks/:webhookId/test',
    admin('adminSendTestWebhook', 'Send a test event', {
      params: AdminWebhookParams,
      response: responses(DeliveryData, 202),
    }),
    async (request, reply) => {
      const actor = await webhooks.operator(request.params.tenantId)
      const delivery = await endpoints.sendTest(actor, request.params.webhookId)
      return reply.status(202).send(ok(request, { delivery }))
    },
  )
  app.get(
    '/tenants/:tenantId/webhooks/:webhookId/deliveries',
    admin('adminListWebhookDeliveries', 'Delivery log of a webhook endpoint', {
      params: AdminWebhookParams,
      querystring: DeliveryListQuery,
      response: responses(DeliveryList),
    }),
    async (request) => {
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, await endpoints.deliveries(actor, request.params.webhookId, request.query))
    },
  )
  app.post(
    '/tenants/:tenantId/webhooks/:webhookId/rotate-secret',
    admin('adminRotateWebhookSecret', 'Rotate the signing secret', {
      params: AdminWebhookParams,
      response: responses(WebhookSecretData),
    }),
    async (request) => {
      const actor = await webhooks.operator(request.params.tenantId)
      return ok(request, { webhook: await endpoints.rotateSecret(actor, request.params.webhookId) })
    },
  )
}
