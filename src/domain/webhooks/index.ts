import { ApiError } from '../../contract/errors.ts'
import type { JobHandler, Jobs, JobsLogger } from '../../platform/jobs.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { Db } from '../../store/db.ts'
import { createWebhooksRepo } from '../../store/webhooks-repo.ts'
import type { EventSink } from '../events.ts'
import { TENANT_ID } from '../tenants/keys.ts'
import { createWebhookDelivery, DELIVER_JOB } from './deliveries.ts'
import { type Actor, createWebhookEndpoints } from './endpoints.ts'
import { type HostResolver, systemResolver } from './url-policy.ts'

export const MAINTENANCE_JOB = 'webhooks.maintain'
const MAINTENANCE_EVERY_MS = 10 * 60_000
/** Deliveries that are over are kept this long in the log, and at most this many per endpoint. */
export const LOG_RETENTION_MS = 30 * 24 * 60 * 60_000
export const LOG_PER_ENDPOINT = 1000
/** Finished delivery jobs are deleted after a day (the delivery log keeps what they did). */
const JOB_RETENTION_MS = 24 * 60 * 60_000
/** A pending delivery this much past its next attempt has lost its job: enqueue it again. */
const OVERDUE_GRACE_MS = 5 * 60_000

export interface WebhooksDeps {
  db: Db
  jobs: Jobs
  tokens: TokenCipher
  clock: () => Date
  /** WEBHOOKS_ALLOW_PRIVATE */
  allowPrivate: boolean
  log: JobsLogger
  /** Whether a tenant exists (the operator's routes name one). */
  tenantExists: (tenantId: string) => Promise<boolean>
  resolveHost?: HostResolver
  /** The time in `webhook-timestamp` (default: the system clock, which receivers compare theirs with). */
  wallClock?: () => Date
  random?: () => number
}

/**
 * Webhooks (DECISIONS "Safe retries and push"): the event sink the domain services publish to, the management of
 * endpoints, and the delivery jobs (whose handlers the app registers).
 */
export function createWebhooks(deps: WebhooksDeps) {
  const repo = createWebhooksRepo(deps.db)
  const resolveHost = deps.resolveHost ?? systemResolver
  const delivery = createWebhookDelivery({
    repo,
    jobs: deps.jobs,
    tokens: deps.tokens,
    clock: deps.clock,
    wallClock: deps.wallClock ?? (() => new Date()),
    allowPrivate: deps.allowPrivate,
    resolveHost,
    log: deps.log,
    random: deps.random,
  })
  const endpoints = createWebhookEndpoints({
    repo,
    tokens: deps.tokens,
    clock: deps.clock,
    allowPrivate: deps.allowPrivate,
    resolveHost,
    delivery,
  })

  const slotOf = (time: number) => Math.floor(time / MAINTENANCE_EVERY_MS) + 1
  /** The next maintenance run; its id is the time slot, so instances starting together enqueue it once. */
  const scheduleMaintenance = () => {
    const slot = slotOf(deps.clock().getTime())
    return deps.jobs.enqueue(
      MAINTENANCE_JOB,
      {},
      { id: `job_webhooks_maintain_${slot}`, runAt: new Date(slot * MAINTENANCE_EVERY_MS) },
    )
  }
  /** Every 10 minutes: enqueue what lost its job, prune the log and finished jobs. */
  const maintenanceJob = async () => {
    await scheduleMaintenance()
    const now = deps.clock().getTime()
    await delivery.requeueOverdue(OVERDUE_GRACE_MS)
    await repo.prune(new Date(now - LOG_RETENTION_MS), LOG_PER_ENDPOINT, new Date(now - JOB_RETENTION_MS), [
      DELIVER_JOB,
      MAINTENANCE_JOB,
    ])
  }

  const events: EventSink = delivery.sink
  return {
    sink: events,
    endpoints,
    /** The job handlers, by kind, for the app to register. */
    jobHandlers: { [DELIVER_JOB]: delivery.deliverJob, [MAINTENANCE_JOB]: maintenanceJob } as Record<
      string,
      JobHandler<never>
    >,
    /** The operator acting on a tenant (404 when there is no such tenant). */
    async operator(tenantId: string): Promise<Actor> {
      if (!TENANT_ID.test(tenantId) || !(await deps.tenantExists(tenantId))) {
        throw new ApiError('NOT_FOUND', undefined, { resource: 'tenant', id: tenantId })
      }
      return { tenantId, operator: true }
    },
    /** Enqueues the first maintenance run (idempotent; call once the store is migrated). */
    start: scheduleMaintenance,
    close: () => delivery.close(),
  }
}

export type Webhooks = ReturnType<typeof createWebhooks>
