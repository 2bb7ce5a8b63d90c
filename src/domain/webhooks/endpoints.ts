import { ApiError } from '../../contract/errors.ts'
import type { Delivery, Webhook, WebhookCreate, WebhookUpdate, WebhookWithSecret } from '../../contract/webhooks.ts'
import { EVENT_TYPES, type EventType } from '../../contract/webhooks.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../store/schema.ts'
import type { EndpointChanges, Scope, WebhooksRepo } from '../../store/webhooks-repo.ts'
import { randomString } from '../tenants/keys.ts'
import { secretContext, type WebhookDelivery } from './deliveries.ts'
import { newSecret } from './signing.ts'
import { checkUrlText, type HostResolver, refusalAtRegistration } from './url-policy.ts'

/** Endpoints a tenant may have per environment. */
export const MAX_ENDPOINTS = 20
/** How long the secret a rotation replaced still signs. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000
const WEBHOOK_ID = /^wh_[A-Za-z0-9]{20}$/

export interface EndpointsDeps {
  repo: WebhooksRepo
  tokens: TokenCipher
  clock: () => Date
  allowPrivate: boolean
  resolveHost: HostResolver
  delivery: WebhookDelivery
}

/** Who acts: a key's holder (tenant and the key's environment) or the operator (tenant, any environment). */
export interface Actor extends Scope {
  operator?: boolean
}

export const toWebhook = (row: WebhookEndpointRow, now: Date): Webhook => ({
  id: row.id,
  url: row.url,
  environment: row.environment,
  events: row.events ?? [...EVENT_TYPES],
  allEvents: row.events === null,
  enabled: row.enabled,
  description: row.description,
  disabledReason: row.disabledReason,
  disabledAt: row.disabledAt?.toISOString() ?? null,
  previousSecretExpiresAt:
    row.previousSecretUntil && row.previousSecretUntil > now ? row.previousSecretUntil.toISOString() : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

export const toDelivery = (row: WebhookDeliveryRow): Delivery => ({
  id: row.id,
  webhookId: row.endpointId,
  eventId: row.eventId,
  eventType: row.eventType,
  status: row.status,
  attemptCount: row.attemptCount,
  attempts: row.attempts,
  nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  failureReason: row.failureReason,
  deliveredAt: row.deliveredAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
})

/** A list of event types without repeats; 400 naming those that do not exist. */
function eventTypes(events: string[] | null | undefined): EventType[] | null | undefined {
  if (events === undefined || events === null) return events
  const known: readonly string[] = EVENT_TYPES
  const unknown = events.filter((type) => !known.includes(type))
  if (unknown.length > 0) {
    throw new ApiError('INVALID_REQUEST', `Unknown event type: ${unknown.join(', ')}`, {
      events: detail('UNKNOWN_EVENT_TYPES', { unknown, known: EVENT_TYPES }),
      reason: 'UNKNOWN_EVENT_TYPE',
      unknownEventTypes: unknown,
    })
  }
  return [...new Set(events)] as EventType[]
}

/** Management of a tenant's endpoints: create, list, read, change, delete, rotate the secret, test, delivery log. */
export function createWebhookEndpoints(deps: EndpointsDeps) {
  const { repo, tokens, clock } = deps

  const checkUrl = async (raw: string, environment: 'live' | 'test') => {
    const text = checkUrlText(raw)
    const refusal =
      'refusal' in text
        ? text.refusal
        : await refusalAtRegistration(text.url, { environment, allowPrivate: deps.allowPrivate }, deps.resolveHost)
    if (refusal) {
      const { reason, message, address, addressClass } = refusal
      throw new ApiError('INVALID_REQUEST', `The webhook URL is refused: ${message}`, {
        url: message,
        reason,
        ...(address ? { address } : {}),
        ...(addressClass ? { addressClass } : {}),
      })
    }
    return raw
  }

  const find = async (actor: Actor, id: string): Promise<WebhookEndpointRow> => {
    // Another tenant's endpoint, or one of the key's other environment, is as unknown as one that never existed.
    const row = WEBHOOK_ID.test(id) ? await repo.findEndpoint(id, actor) : undefined
    if (!row) throw new ApiError('NOT_FOUND', undefined, { resource: 'webhook', id })
    return row
  }

  const sealed = (id: string, secret: string) => tokens.seal(secretContext(id), secret)

  return {
    async create(actor: Actor & { environment: 'live' | 'test' }, input: WebhookCreate): Promise<WebhookWithSecret> {
      const events = eventTypes(input.events)
      const url = await checkUrl(input.url, actor.environment)
      if ((await repo.countEndpoints(actor.tenantId, actor.environment)) >= MAX_ENDPOINTS) {
        throw new ApiError(
          'INVALID_REQUEST',
          `A tenant may have at most ${MAX_ENDPOINTS} webhook endpoints per environment; delete one first`,
          { reason: 'WEBHOOK_LIMIT_REACHED', limit: MAX_ENDPOINTS },
        )
      }
      const now = clock()
      const id = `wh_${randomString(20)}`
      const secret = newSecret()
      const row = await repo.insertEndpoint({
        id,
        tenantId: actor.tenantId,
        environment: actor.environment,
        url,
        events: events ?? null,
        description: input.description ?? null,
        secret: sealed(id, secret),
        createdAt: now,
        updatedAt: now,
      })
      return { ...toWebhook(row, now), secret }
    },

    async list(actor: Actor, page: number, limit: number) {
      const { rows, total } = await repo.listEndpoints(actor, page * limit, limit)
      const now = clock()
      return { webhooks: rows.map((row) => toWebhook(row, now)), pagination: { total, currentPage: page, limit } }
    },

    async get(actor: Actor, id: string): Promise<Webhook> {
      return toWebhook(await find(actor, id), clock())
    },

    async update(actor: Actor, id: string, input: WebhookUpdate): Promise<Webhook> {
      const row = await find(actor, id)
      const changes: EndpointChanges = {}
      if (input.events !== undefined) changes.events = eventTypes(input.events) ?? null
      if (input.url !== undefined) changes.url = await checkUrl(input.url, row.environment)
      if (input.description !== undefined) changes.description = input.description
      const now = clock()
      if (input.enabled === true && !row.enabled) {
        Object.assign(changes, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null })
      }
      if (input.enabled === false && row.enabled) {
        const reason = actor.operator ? 'DISABLED_BY_OPERATOR' : 'DISABLED_BY_CLIENT'
        Object.assign(changes, { enabled: false, disabledReason: reason, disabledAt: now })
      }
      const updated = await repo.updateEndpoint(row.id, changes, now)
      if (!updated) throw new ApiError('NOT_FOUND', undefined, { resource: 'webhook', id })
      if (changes.enabled === false) await repo.failPending(row.id, 'ENDPOINT_DISABLED', now)
      return toWebhook(updated, now)
    },

    async remove(actor: Actor, id: string): Promise<Webhook> {
      const row = await find(actor, id)
      const deleted = await repo.deleteEndpoint(row.id)
      if (!deleted) throw new ApiError('NOT_FOUND', undefined, { resource: 'webhook', id })
      return toWebhook(deleted, clock())
    },

    /** A new secret; the one it replaces keeps signing (a second signature) for 24 hours. */
    async rotateSecret(actor: Actor, id: string): Promise<WebhookWithSecret> {
      const row = await find(actor, id)
      const now = clock()
      const secret = newSecret()
      const updated = await repo.updateEndpoint(
        row.id,
        {
          secret: sealed(row.id, secret),
          previousSecret: row.secret,
          previousSecretUntil: new Date(now.getTime() + PREVIOUS_SECRET_MS),
        },
        now,
      )
      if (!updated) throw new ApiError('NOT_FOUND', undefined, { resource: 'webhook', id })
      return { ...toWebhook(updated, now), secret }
    },

    /** Sends a `webhook.test` event to this endpoint only (whatever its event types); answers the delivery. */
    async sendTest(actor: Actor, id: string): Promise<Delivery> {
      const row = await find(actor, id)
      if (!row.enabled) {
        throw new ApiError('INVALID_REQUEST', 'The webhook is disabled; enable it (PATCH enabled: true) first', {
          reason: 'WEBHOOK_DISABLED',
          disabledReason: row.disabledReason,
        })
      }
      const [delivery] = await deps.delivery.record(
        {
          type: 'webhook.test',
          tenantId: row.tenantId,
          environment: row.environment,
          data: { webhookId: row.id, message: 'A test event sent with POST /webhooks/{webhookId}/test' },
        },
        [row],
      )
      return toDelivery(delivery)
    },

    async deliveries(
      actor: Actor,
      id: string,
      query: { page?: number; limit?: number; status?: WebhookDeliveryRow['status'] },
    ) {
      const row = await find(actor, id)
      const { page = 0, limit = 20 } = query
      const { rows, total } = await repo.listDeliveries(row.id, query.status, page * limit, limit)
      return { deliveries: rows.map(toDelivery), pagination: { total, currentPage: page, limit } }
    },
  }
}

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>
