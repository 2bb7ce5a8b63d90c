import type { Environment } from '../contract/access.ts'
import type { EventType } from '../contract/webhooks.ts'
import type { JobsLogger } from '../platform/jobs.ts'
import type { TenantRow } from '../store/schema.ts'
import type { EventSink } from './events.ts'

/**
 * Keys a payload under retention NONE keeps: identifiers and statuses. Everything else (names, e-mails, phones, dates
 * of birth, licence numbers, addresses, places, times, prices, free text) is left out.
 */
const KEPT_KEY = /^(id|[a-z][A-Za-z]*Id|providerReference|status|cancellationReason|action|code|type|dataRetention)$/
/** Objects whose keys the client or a person chooses: nothing in them is kept, whatever its key looks like. */
const DROPPED_OBJECT = new Set(['driver', 'customer', 'holder', 'additionalFields', 'notes', 'userLocation'])

/** `data` reduced to ids and statuses (retention NONE): nested objects and arrays keep what they hold of those. */
export function idsAndStatuses(data: Record<string, unknown>): Record<string, unknown> {
  /** What `value` holds of ids and statuses; undefined when nothing (so empty objects and lists drop out). */
  const reduce = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      const kept = value.map(reduce).filter((v) => v !== undefined)
      return kept.length > 0 ? kept : undefined
    }
    if (typeof value !== 'object' || value === null) return undefined
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      if (DROPPED_OBJECT.has(key)) continue
      if (typeof inner === 'object' && inner !== null) {
        const kept = reduce(inner)
        if (kept !== undefined) out[key] = kept
      } else if (KEPT_KEY.test(key) && ['string', 'number', 'boolean'].includes(typeof inner)) out[key] = inner
    }
    return Object.keys(out).length > 0 ? out : undefined
  }
  return (reduce(data) as Record<string, unknown> | undefined) ?? {}
}

export type Publish = (
  type: EventType,
  tenant: Pick<TenantRow, 'id' | 'dataRetention'>,
  environment: Environment,
  data: object,
) => Promise<void>

/**
 * What domain services call once a status change is recorded. The payload follows the tenant's retention (NONE: ids
 * and statuses only). A sink that fails is logged (with ids only) and never fails the caller: the change is recorded
 * already, and the request or job that made it goes on.
 */
export function createEventPublisher(sink: EventSink, log: JobsLogger): Publish {
  return async (type, tenant, environment, data) => {
    const full = data as Record<string, unknown>
    const payload = tenant.dataRetention === 'NONE' ? idsAndStatuses(full) : full
    try {
      await sink.publish({ type, tenantId: tenant.id, environment, data: payload })
    } catch (error) {
      log.error(
        { err: error, event: { type, tenantId: tenant.id, environment, data: idsAndStatuses(full) } },
        'event not published',
      )
    }
  }
}
