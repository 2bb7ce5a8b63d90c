import type { FastifyRequest } from 'fastify'
import { OffsetQuery, responses } from '../../contract/common.ts'
import { WebhookCreate, WebhookList, WebhookParams, WebhookSecretData } from '../../contract/webhooks.ts'
import type { Actor, WebhookEndpoints } from '../../domain/webhooks/endpoints.ts'
import { authOf, created, ok } from '../../http/envelope.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { WEBHOOKS_GUIDE } from './guide.ts'
import { oneWebhookRoutes, WEBHOOK_OPERATIONS, type WebhookOperation } from './operations.ts'

const access = { permission: 'account:webhook:write' as const }
/** The routes on one endpoint: an unknown id, or another tenant's, is 404 NOT_FOUND. */
const onWebhook = { ...access, errors: ['NOT_FOUND'] as const }

/** What the API document says of each operation (the operator's refer to these). */
const DESCRIPTIONS: Record<WebhookOperation, string> = {
  create: `Events of the key's environment go to \`url\`. The answer holds the signing \`secret\`, shown only here and at rotation. At most 20 endpoints per environment (400 INVALID_REQUEST, WEBHOOK_LIMIT_REACHED). Secret keys only (publishable keys: 403 FORBIDDEN).\n\n${WEBHOOKS_GUIDE}`,
  list: "The endpoints of the key's environment, newest first; offset pages.",
  get: 'Without its secret. A disabled endpoint says why (`disabledReason`) and since when. Unknown ids, and those of other tenants or of the other environment, answer 404 NOT_FOUND.',
  update:
    'Any of `url` (checked as at registration), `events` (null: every type), `description`, `enabled`. `enabled: true` re-enables an endpoint, also one disabled after three days of failed deliveries; `enabled: false` stops deliveries and gives up the pending ones.',
  remove: 'Deliveries stop at once and the delivery log goes with it. Answers the endpoint as it was.',
  sendTest:
    'Sends a `webhook.test` event to this endpoint (whatever event types it chose), signed and retried like every other. Answers 202 with the delivery; follow it in the delivery log. A disabled endpoint answers 400 INVALID_REQUEST (WEBHOOK_DISABLED).',
  deliveries:
    'Newest first, offset pages, optional `status` filter. Each delivery: its id (the `webhook-id` header), the event id and type, every attempt (time, status code or error, duration), the status (`pending`, `delivered`, `failed`) and the next attempt. Kept 30 days, at most 1,000 per endpoint; bodies are not kept.',
  rotateSecret:
    'Answers the endpoint with its new `secret`. For 24 hours (`previousSecretExpiresAt`) the old secret signs as well: `webhook-signature` then carries two signatures, space separated, so receivers can switch without losing an event.',
}

const doc = (operation: WebhookOperation) => ({
  operationId: WEBHOOK_OPERATIONS[operation].operationId,
  tags: ['Webhooks'],
  summary: WEBHOOK_OPERATIONS[operation].summary,
  description: DESCRIPTIONS[operation],
  security: [{ apiKey: [] }],
})

/** The caller's endpoints: the key's tenant, in the key's environment. */
const actorOf = (request: FastifyRequest): Actor & { environment: 'live' | 'test' } => {
  const { tenant, key } = authOf(request)
  return { tenantId: tenant.id, environment: key.environment }
}

/** Webhook endpoints of the caller (DECISIONS "Safe retries and push"); secret keys with account:webhook:write. */
export function webhookRoutes(app: TypedApp, { endpoints }: { endpoints: WebhookEndpoints }) {
  app.post(
    '/webhooks',
    { config: access, schema: { ...doc('create'), body: WebhookCreate, response: responses(WebhookSecretData, 201) } },
    async (request, reply) => {
      const webhook = await endpoints.create(actorOf(request), request.body)
      return created(request, reply, webhook.id, { webhook })
    },
  )
  app.get(
    '/webhooks',
    { config: access, schema: { ...doc('list'), querystring: OffsetQuery, response: responses(WebhookList) } },
    async (request) =>
      ok(request, await endpoints.list(actorOf(request), request.query.page ?? 0, request.query.limit ?? 20)),
  )
  oneWebhookRoutes(app, endpoints, {
    path: '/webhooks/:webhookId',
    params: WebhookParams,
    route: (operation) => ({ config: onWebhook, schema: doc(operation) }),
    actor: actorOf,
  })
}
