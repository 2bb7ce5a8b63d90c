import { type Static, Type } from 'typebox'
import { ENVIRONMENTS } from './access.ts'
import { DateTime, FreeText, Nullable, OffsetPagination, OffsetQuery, OneOf } from './common.ts'

/** The events a webhook endpoint can receive (`src/domain/events.ts` publishes them). */
export const EVENT_TYPES = [
  'car.booking.confirmed',
  'car.booking.changed',
  'car.booking.cancelled',
  'micromobility.trip.reserved',
  'micromobility.trip.started',
  'micromobility.trip.paused',
  'micromobility.trip.resumed',
  'micromobility.trip.completed',
  'micromobility.trip.cancelled',
  'micromobility.action.failed',
  'public-transport.ticket.issued',
  'public-transport.booking.cancelled',
  'public-transport.subscription.created',
  'public-transport.subscription.cancelled',
  'webhook.test',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const

const EventTypeList = Type.Array(
  Type.String({ minLength: 1, maxLength: 100, description: `One of: ${EVENT_TYPES.join(', ')}` }),
  {
    minItems: 1,
    maxItems: 50,
    description: `Event types to receive; left out (or null in an update): every type, also types added later. One of: ${EVENT_TYPES.join(', ')}. An unknown type answers 400 INVALID_REQUEST naming it (\`details.reason\` UNKNOWN_EVENT_TYPE).`,
    examples: [['car.booking.confirmed', 'micromobility.trip.cancelled']],
  },
)

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed. Live endpoints: `https:` and a host that resolves to public addresses only (checked at registration and again, on the address actually connected to, at every delivery); no user or password in the URL. Test endpoints may use `http:` and any address; with WEBHOOKS_ALLOW_PRIVATE=true so may live ones on private addresses. A refused URL answers 400 INVALID_REQUEST with `details.reason` (URL_NOT_HTTPS, URL_ADDRESS_NOT_ALLOWED, URL_HAS_CREDENTIALS, URL_TOO_LONG, URL_INVALID, URL_NOT_RESOLVED).',
  examples: ['https://example.com/webhooks/mobility'],
})
const Description = Nullable(FreeText({ maxLength: 500, description: 'Your note on the endpoint' }))

export const WebhookCreate = Type.Object(
  { url: Url, events: Type.Optional(EventTypeList), description: Type.Optional(Description) },
  { additionalProperties: false },
)
export type WebhookCreate = Static<typeof WebhookCreate>

export const AdminWebhookCreate = Type.Object(
  {
    environment: OneOf(ENVIRONMENTS, 'The environment whose events the endpoint receives'),
    url: Url,
    events: Type.Optional(EventTypeList),
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
)

export const WebhookUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Nullable(EventTypeList)),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false stops deliveries (pending ones are given up); true re-enables an endpoint, also one the service disabled after three days of failures',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type WebhookUpdate = Static<typeof WebhookUpdate>

export const Webhook = Type.Object(
  {
    id: Type.String({ examples: ['wh_4kTq0c9ZbX2mP7sLr1Vd'] }),
    url: Type.String(),
    environment: OneOf(ENVIRONMENTS),
    events: Type.Array(Type.String(), {
      description: 'The event types delivered (every type when none were chosen)',
    }),
    allEvents: Type.Boolean({ description: 'true when no types were chosen: types added later are delivered too' }),
    enabled: Type.Boolean(),
    description: Nullable(Type.String()),
    disabledReason: Nullable(
      Type.String({
        description:
          'Why the endpoint is disabled: FAILING_FOR_3_DAYS (every delivery failed for three days), DISABLED_BY_CLIENT, DISABLED_BY_OPERATOR',
      }),
    ),
    disabledAt: Nullable(DateTime),
    previousSecretExpiresAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'After a rotation: until then the replaced secret signs as well (a second signature)',
      }),
    ),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'Webhook' },
)
export type Webhook = Static<typeof Webhook>

export const WebhookWithSecret = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({
      description:
        'The signing secret, `whsec_` + base64 of 32 random bytes. Shown only when the endpoint is created and when the secret is rotated; keep it safe.',
      examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2b6Lt2qQ5hQ='],
    }),
  },
  { title: 'WebhookWithSecret' },
)
export type WebhookWithSecret = Static<typeof WebhookWithSecret>

export const DeliveryAttempt = Type.Object(
  {
    attemptedAt: DateTime,
    statusCode: Type.Optional(Type.Integer({ description: "The receiver's HTTP status" })),
    error: Type.Optional(
      Type.String({ description: 'Why there was no answer (refused address, timeout, connection error)' }),
    ),
    durationMs: Type.Integer({ minimum: 0 }),
  },
  { title: 'WebhookDeliveryAttempt' },
)

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'The `webhook-id` header of every attempt of this delivery' }),
    webhookId: Type.String(),
    eventId: Type.String(),
    eventType: Type.String(),
    status: OneOf(DELIVERY_STATUSES),
    attemptCount: Type.Integer({ minimum: 0 }),
    attempts: Type.Array(DeliveryAttempt, { description: 'Oldest first; the last 20 are kept' }),
    nextAttemptAt: Nullable(DateTime),
    failureReason: Nullable(Type.String({ description: 'For `failed`: RETRIES_EXHAUSTED, ENDPOINT_DISABLED' })),
    deliveredAt: Nullable(DateTime),
    createdAt: DateTime,
  },
  { title: 'WebhookDelivery' },
)
export type Delivery = Static<typeof Delivery>

export const WebhookParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 100 }) })
export const AdminWebhookParams = Type.Object({
  tenantId: Type.String({ maxLength: 100 }),
  webhookId: Type.String({ minLength: 1, maxLength: 100 }),
})
export const AdminTenantParams = Type.Object({ tenantId: Type.String({ maxLength: 100 }) })

export const AdminWebhookListQuery = Type.Object(
  { ...OffsetQuery.properties, environment: Type.Optional(OneOf(ENVIRONMENTS, 'Only this environment')) },
  { additionalProperties: false },
)

export const DeliveryListQuery = Type.Object(
  { ...OffsetQuery.properties, status: Type.Optional(OneOf(DELIVERY_STATUSES, 'Only deliveries in this status')) },
  { additionalProperties: false },
)

export const WebhookData = Type.Object({ webhook: Webhook })
export const WebhookSecretData = Type.Object({ webhook: WebhookWithSecret })
export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook), pagination: OffsetPagination })
export const DeliveryData = Type.Object({ delivery: Delivery })
export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery), pagination: OffsetPagination })
