import { Type } from 'typebox'
import { OneOf } from '../../contract/common.ts'
import { EVENT_TYPES, type EventType } from '../../contract/webhooks.ts'

/** What each event type says; the OpenAPI document lists them. */
const MEANING: Record<EventType, string> = {
  'car.booking.confirmed': 'a car booking is confirmed (also a pending one the provider confirmed later)',
  'car.booking.changed': 'the rental times or details of a car booking changed',
  'car.booking.cancelled': 'a car booking was cancelled (with fee and refund)',
  'micromobility.trip.reserved': 'a vehicle is reserved for a trip',
  'micromobility.trip.started': 'a trip started (ACTIVE)',
  'micromobility.trip.paused': 'the vehicle was locked during the trip (PAUSED)',
  'micromobility.trip.resumed': 'the vehicle was unlocked again (ACTIVE)',
  'micromobility.trip.completed': 'the trip ended, with its price',
  'micromobility.trip.cancelled': 'a reservation ended without a ride, with the reason (e.g. RESERVATION_EXPIRED)',
  'micromobility.action.failed': 'a vehicle command (lock, unlock, honk) failed at the vehicle',
  'public-transport.ticket.issued': 'the tickets of a booking are issued',
  'public-transport.booking.cancelled': 'a ticket booking was cancelled',
  'public-transport.subscription.created': 'a subscription was created',
  'public-transport.subscription.cancelled': 'a subscription was cancelled',
  'webhook.test': 'sent by POST /webhooks/{webhookId}/test',
}

export const EXAMPLE_EVENT = {
  id: 'evt_Qm3v8TzK2pL9xW4nR7yB5cHd',
  type: 'micromobility.trip.cancelled',
  createdAt: '2026-05-04T09:12:44.120Z',
  environment: 'live',
  data: {
    tripId: 'trp_8fJ2kLm4NpQ6rS9t',
    status: 'CANCELLED',
    cancellationReason: 'RESERVATION_EXPIRED',
  },
}

export const WEBHOOKS_GUIDE = [
  '**Events.** Each event is POSTed as JSON `{ id, type, createdAt, environment, data }`; `data` is the resource as the API answers it (a booking, a trip, a ticket booking, a subscription). Under data retention NONE it holds ids and statuses only. Event types:',
  ...EVENT_TYPES.map((type) => `- \`${type}\`: ${MEANING[type]}`),
  '',
  `Example: \`${JSON.stringify(EXAMPLE_EVENT)}\``,
  '',
  '**Signatures** ([Standard Webhooks](https://www.standardwebhooks.com/)). Headers: `webhook-id` (the delivery id, the same on every attempt: use it to drop repeats), `webhook-timestamp` (Unix seconds of this attempt), `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`. After a secret rotation, for 24 hours, two signatures, space separated; one matching is enough. Verify on the raw body with any Standard Webhooks library (`new Webhook(secret).verify(body, headers)`), which also refuses timestamps more than 5 minutes off.',
  '',
  '**Delivery and retries.** A 2xx answer within 10 s means delivered; anything else (another status, a redirect, a timeout, a connection error, an address a live endpoint may not reach) is retried after 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h (the longer waits up to a tenth shorter, at random): 14 attempts over about 3.5 days. At least once: an event may arrive twice (same `webhook-id`), and events may arrive out of order (compare `createdAt` and the status). An endpoint whose deliveries failed for 3 days without a success is disabled (`enabled: false`, `disabledReason: FAILING_FOR_3_DAYS`, `disabledAt`) and its pending deliveries are given up; `PATCH` with `enabled: true` turns it on again. Every attempt is in the delivery log (`GET /webhooks/{webhookId}/deliveries`).',
].join('\n')

/** The body of every webhook request, for the document's `webhooks` section. */
export const WebhookEvent = Type.Object(
  {
    id: Type.String({ description: 'The event id; one event delivered to several endpoints has one id' }),
    type: OneOf(EVENT_TYPES),
    createdAt: Type.String({ format: 'date-time' }),
    environment: OneOf(['live', 'test'] as const),
    data: Type.Object({}, { additionalProperties: true, description: 'The resource whose status changed' }),
  },
  { title: 'WebhookEvent', examples: [EXAMPLE_EVENT] },
)

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
})

/** OpenAPI 3.1 `webhooks`: what the service sends to a registered endpoint. */
export const openapiWebhooks = {
  mobilityEvent: {
    post: {
      operationId: 'receiveMobilityEvent',
      tags: ['Webhooks'],
      summary: 'An event, as your endpoint receives it',
      description: WEBHOOKS_GUIDE,
      // Sent by the service to your endpoint: no API key; the webhook-signature header proves where it came from.
      security: [],
      parameters: [
        header('webhook-id', 'The delivery id; the same on every attempt of this delivery'),
        header('webhook-timestamp', 'Unix seconds when this attempt was sent'),
        header('webhook-signature', '`v1,<base64 signature>`, two of them space separated during a rotation'),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: WebhookEvent } } },
      responses: {
        '2XX': { description: 'Delivered (within 10 s)' },
        default: { description: 'Anything else is retried' },
      },
    },
  },
}
