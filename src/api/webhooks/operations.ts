import type { FastifyRequest, FastifySchema } from 'fastify'
import { responses } from '../../contract/common.ts'
import {
  type AdminWebhookParams,
  DeliveryData,
  DeliveryList,
  DeliveryListQuery,
  WebhookData,
  type WebhookParams,
  WebhookSecretData,
  WebhookUpdate,
} from '../../contract/webhooks.ts'
import type { Actor, WebhookEndpoints } from '../../domain/webhooks/endpoints.ts'
import type { RouteAccess } from '../../http/context.ts'
import { ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'

/**
 * The operations on webhook endpoints, which the tenant (routes.ts, under /webhooks) and the operator (admin-routes.ts,
 * under /tenants/{tenantId}/webhooks) both have: the tenant's operationId and the summary. The operator's operationId
 * is the tenant's with `admin` before it.
 */
export const WEBHOOK_OPERATIONS = {
  create: { operationId: 'createWebhook', summary: 'Register a webhook endpoint' },
  list: { operationId: 'listWebhooks', summary: 'List webhook endpoints' },
  get: { operationId: 'getWebhook', summary: 'Read a webhook endpoint' },
  update: { operationId: 'updateWebhook', summary: 'Change a webhook endpoint' },
  remove: { operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint' },
  sendTest: { operationId: 'sendTestWebhook', summary: 'Send a test event' },
  deliveries: { operationId: 'listWebhookDeliveries', summary: 'Delivery log of a webhook endpoint' },
  rotateSecret: { operationId: 'rotateWebhookSecret', summary: 'Rotate the signing secret' },
} as const

export type WebhookOperation = keyof typeof WEBHOOK_OPERATIONS

type OneWebhookParams = typeof WebhookParams | typeof AdminWebhookParams

/** How a side declares its routes on one endpoint: the path, its parameters, the route options, who acts. */
export interface WebhookSide {
  /** `/webhooks/:webhookId` or `/tenants/:tenantId/webhooks/:webhookId`. */
  path: string
  params: OneWebhookParams
  /** The route's config (access) and the schema's documentation (operationId, tags, summary, ...). */
  route(operation: WebhookOperation): { config: RouteAccess; schema: FastifySchema }
  /** Who acts: the key's holder, or the operator on the tenant the path names. */
  actor(request: FastifyRequest): Actor | Promise<Actor>
}

/**
 * The routes on one endpoint, in the order the API document lists them: read, change, delete, test event, delivery
 * log, secret rotation.
 */
export function oneWebhookRoutes(app: TypedApp, endpoints: WebhookEndpoints, side: WebhookSide) {
  const { path, params } = side
  const route = <S extends FastifySchema>(operation: WebhookOperation, schema: S) => {
    const { config, schema: doc } = side.route(operation)
    return { config, schema: { ...doc, params, ...schema } }
  }
  app.get(path, route('get', { response: responses(WebhookData) }), async (request) =>
    ok(request, { webhook: await endpoints.get(await side.actor(request), request.params.webhookId) }),
  )
  app.patch(path, route('update', { body: WebhookUpdate, response: responses(WebhookData) }), async (request) => {
    const actor = await side.actor(request)
    return ok(request, { webhook: await endpoints.update(actor, request.params.webhookId, request.body) })
  })
  app.delete(path, route('remove', { response: responses(WebhookData) }), async (request) =>
    ok(request, { webhook: await endpoints.remove(await side.actor(request), request.params.webhookId) }),
  )
  app.post(`${path}/test`, route('sendTest', { response: responses(DeliveryData, 202) }), async (request, reply) => {
    const delivery = await endpoints.sendTest(await side.actor(request), request.params.webhookId)
    return reply.status(202).send(ok(request, { delivery }))
  })
  app.get(
    `${path}/deliveries`,
    route('deliveries', { querystring: DeliveryListQuery, response: responses(DeliveryList) }),
    async (request) =>
      ok(request, await endpoints.deliveries(await side.actor(request), request.params.webhookId, request.query)),
  )
  app.post(
    `${path}/rotate-secret`,
    route('rotateSecret', { response: responses(WebhookSecretData) }),
    async (request) =>
      ok(request, { webhook: await endpoints.rotateSecret(await side.actor(request), request.params.webhookId) }),
  )
}
