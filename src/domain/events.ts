import type { EventType } from '../contract/webhooks.ts'

/**
 * Status changes the service learns of, as events a tenant can receive (webhooks, DECISIONS "Safe retries and push").
 * Domain services publish them through an `EventSink`; the webhooks module turns each into one delivery per matching
 * endpoint. Publishing never fails the request that caused it: a sink that cannot record an event logs it. The event
 * types are the contract's (`EVENT_TYPES`, `src/contract/webhooks.ts`).
 */
export interface DomainEvent {
  type: EventType
  tenantId: string
  environment: 'live' | 'test'
  /**
   * The resource as the API answers it (a booking, a trip, a ticket booking, a subscription). Under retention NONE the
   * publisher passes ids and statuses only, no personal data.
   */
  data: Record<string, unknown>
}

export interface EventSink {
  publish(event: DomainEvent): Promise<void>
}

/** A sink that drops every event (tests and tools that have no webhooks). */
export const noEvents: EventSink = { publish: async () => {} }
