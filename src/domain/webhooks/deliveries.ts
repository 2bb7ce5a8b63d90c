import type { JobHandler, Jobs, JobsLogger } from '../../platform/jobs.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../store/schema.ts'
import type { WebhooksRepo } from '../../store/webhooks-repo.ts'
import type { DomainEvent, EventSink } from '../events.ts'
import { randomString } from '../tenants/keys.ts'
import {
  ATTEMPT_TIMEOUT_MS,
  DISABLE_AFTER_MS,
  MAX_DELIVERY_ATTEMPTS,
  retryDelayMs,
  SHORT_RETRY_MS,
} from './schedule.ts'
import { type SendResult, send } from './send.ts'
import { signatureHeaders } from './signing.ts'
import { type HostResolver, resolveTarget } from './url-policy.ts'

export const DELIVER_JOB = 'webhooks.deliver'
/** Attempts kept per delivery in the log (a delivery has at most MAX_DELIVERY_ATTEMPTS). */
export const KEPT_ATTEMPTS = 20
/** Deliveries run at once by this instance right after their event (the rest wait for the job poller). */
const IMMEDIATE_CONCURRENCY = 16
const IMMEDIATE_QUEUE = 1000
const USER_AGENT = 'MobilityAggregationService-Webhooks/1'

export interface DeliveryDeps {
  repo: WebhooksRepo
  jobs: Jobs
  tokens: TokenCipher
  clock: () => Date
  /** The time in `webhook-timestamp`: the system's, which receivers compare with their own. */
  wallClock: () => Date
  allowPrivate: boolean
  resolveHost: HostResolver
  log: JobsLogger
  random?: () => number
}

export const secretContext = (endpointId: string) => `webhook-secret:${endpointId}`
const jobId = (deliveryId: string, attempt: number) => `job_whd_${deliveryId}_${attempt}`

/**
 * Turns events into deliveries and delivers them: one delivery per matching enabled endpoint, recorded in the
 * database, each attempt a job (so it survives restarts and runs once across instances), the first run at once by
 * the instance that recorded it. At least once per endpoint, with the same `webhook-id` on every attempt.
 */
export function createWebhookDelivery(deps: DeliveryDeps) {
  const { repo, jobs, tokens, clock, log } = deps
  const random = deps.random ?? Math.random

  // Runs jobs right away, bounded: beyond the queue they wait for the poller, which finds them anyway.
  const queue: { deliveryId: string; attempt: number }[] = []
  let active = 0
  const running = new Set<Promise<unknown>>()
  const timers = new Set<NodeJS.Timeout>()
  // What record() just wrote, for the first attempt run here at once (saves reading it back); bounded.
  const fresh = new Map<string, { delivery: WebhookDeliveryRow; endpoint: WebhookEndpointRow }>()
  let closed = false
  const pump = () => {
    while (!closed && active < IMMEDIATE_CONCURRENCY && queue.length > 0) {
      const { deliveryId, attempt } = queue.shift() as (typeof queue)[number]
      active++
      const run: Promise<unknown> = jobs
        .runNow(jobId(deliveryId, attempt))
        .catch((error: unknown) =>
          log.warn({ err: error, delivery: { id: deliveryId, attempt } }, 'running a webhook delivery at once failed'),
        )
        .finally(() => {
          active--
          running.delete(run)
          fresh.delete(deliveryId)
          pump()
        })
      running.add(run)
    }
  }
  const runSoon = (deliveryId: string, attempt: number) => {
    if (queue.length < IMMEDIATE_QUEUE) queue.push({ deliveryId, attempt })
    else fresh.delete(deliveryId)
    pump()
  }
  const runLater = (deliveryId: string, attempt: number, delayMs: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      runSoon(deliveryId, attempt)
    }, delayMs)
    timer.unref()
    timers.add(timer)
  }

  const enqueueAttempt = (deliveryId: string, attempt: number, runAt: Date, replaceFinished = false) =>
    jobs.enqueue(DELIVER_JOB, { deliveryId, attempt }, { id: jobId(deliveryId, attempt), runAt, replaceFinished })

  /** Records the event for each endpoint and starts delivering; answers the deliveries. */
  async function record(event: DomainEvent, endpoints: WebhookEndpointRow[]): Promise<WebhookDeliveryRow[]> {
    const now = clock()
    const eventId = `evt_${randomString(24)}`
    // The body as it is signed and sent at every attempt.
    const payload = JSON.stringify({
      id: eventId,
      type: event.type,
      createdAt: now.toISOString(),
      environment: event.environment,
      data: event.data,
    })
    const rows = endpoints.map((endpoint) => ({
      id: `msg_${randomString(24)}`,
      endpointId: endpoint.id,
      tenantId: event.tenantId,
      environment: event.environment,
      eventId,
      eventType: event.type,
      payload,
      status: 'pending' as const,
      attemptCount: 0,
      attempts: [],
      nextAttemptAt: now,
      failureReason: null,
      deliveredAt: null,
      createdAt: now,
      updatedAt: now,
    }))
    await repo.insertDeliveries(rows)
    // Should this fail, the maintenance job finds the deliveries overdue and enqueues them again.
    await Promise.all(rows.map((row) => enqueueAttempt(row.id, 1, now)))
    rows.forEach((row, i) => {
      fresh.set(row.id, { delivery: row, endpoint: endpoints[i] })
      runSoon(row.id, 1)
    })
    return rows
  }

  const sink: EventSink = {
    async publish(event) {
      try {
        const endpoints = (await repo.enabledEndpoints(event.tenantId, event.environment)).filter(
          (endpoint) => endpoint.events === null || endpoint.events.includes(event.type),
        )
        if (endpoints.length > 0) await record(event, endpoints)
      } catch (error) {
        // Publishing never fails the request that caused the event; the ids say which one was lost.
        log.error(
          { err: error, event: { type: event.type, tenantId: event.tenantId, environment: event.environment } },
          'could not record a webhook event',
        )
      }
    },
  }

  /** The secrets that sign now: the current one, and the one a rotation replaced while it is valid. */
  const secretsOf = (endpoint: WebhookEndpointRow, now: Date): string[] => {
    const context = secretContext(endpoint.id)
    const current = tokens.open<string>(context, endpoint.secret)
    if (!current) throw new Error(`the secret of webhook ${endpoint.id} cannot be opened (TOKEN_KEYS changed?)`)
    const previous =
      endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now
        ? tokens.open<string>(context, endpoint.previousSecret)
        : undefined
    return previous ? [current, previous] : [current]
  }

  /** One attempt: resolve and judge the address, then POST to exactly that address. Never throws. */
  async function attempt(endpoint: WebhookEndpointRow, delivery: WebhookDeliveryRow): Promise<SendResult> {
    const started = performance.now()
    const took = () => Math.round(performance.now() - started)
    try {
      const url = new URL(endpoint.url)
      const rules = { environment: endpoint.environment, allowPrivate: deps.allowPrivate }
      const target = await resolveTarget(url, rules, deps.resolveHost)
      if (!target.ok) return { error: `${target.refusal.reason}: ${target.refusal.message}`, durationMs: took() }
      const body = delivery.payload ?? ''
      const headers = {
        ...signatureHeaders(delivery.id, deps.wallClock(), body, secretsOf(endpoint, clock())),
        'user-agent': USER_AGENT,
      }
      const result = await send(url, target, headers, body, ATTEMPT_TIMEOUT_MS)
      return { ...result, durationMs: took() }
    } catch (error) {
      return { error: `INTERNAL: ${(error as Error).message}`.slice(0, 300), durationMs: took() }
    }
  }

  const giveUpEndpoint = async (endpoint: WebhookEndpointRow, at: Date) => {
    const disabled = await repo.disableEndpoint(endpoint.id, 'FAILING_FOR_3_DAYS', at)
    const given = await repo.failPending(endpoint.id, 'ENDPOINT_DISABLED', at)
    if (disabled) {
      log.warn(
        { webhook: { id: endpoint.id, tenantId: endpoint.tenantId }, pendingGivenUp: given },
        'webhook endpoint disabled after three days of failed deliveries',
      )
    }
  }

  /** The job of attempt `n` of a delivery; a repeat of an attempt already recorded does nothing. */
  const deliverJob: JobHandler<{ deliveryId: string; attempt: number }> = async ({ deliveryId, attempt: n }) => {
    const known = fresh.get(deliveryId)
    fresh.delete(deliveryId)
    // A first attempt claimed right after record() (here) needs no read: the compare-and-set below still guards it.
    const delivery = known && n === 1 ? known.delivery : await repo.findDelivery(deliveryId)
    if (delivery?.status !== 'pending' || delivery.attemptCount !== n - 1) return
    const endpoint = known && n === 1 ? known.endpoint : await repo.findEndpoint(delivery.endpointId)
    if (!endpoint) return
    if (!endpoint.enabled) {
      await repo.failPending(endpoint.id, 'ENDPOINT_DISABLED', clock())
      return
    }
    const attemptedAt = clock()
    const result = await attempt(endpoint, delivery)
    const at = clock()
    const entry = { attemptedAt: attemptedAt.toISOString(), ...result }
    if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300) {
      await repo.recordAttempt(
        delivery,
        entry,
        { status: 'delivered', nextAttemptAt: null, deliveredAt: at },
        KEPT_ATTEMPTS,
        at,
      )
      if (endpoint.failingSince) await repo.markHealthy(endpoint.id)
      return
    }
    const failing = await repo.markFailing(endpoint.id, attemptedAt)
    const disable =
      failing?.enabled === true &&
      failing.failingSince !== null &&
      attemptedAt.getTime() - failing.failingSince.getTime() >= DISABLE_AFTER_MS
    const delay = n < MAX_DELIVERY_ATTEMPTS ? retryDelayMs(n, random) : undefined
    if (disable || delay === undefined) {
      await repo.recordAttempt(
        delivery,
        entry,
        { status: 'failed', nextAttemptAt: null, failureReason: disable ? 'ENDPOINT_DISABLED' : 'RETRIES_EXHAUSTED' },
        KEPT_ATTEMPTS,
        at,
      )
      if (disable) await giveUpEndpoint(endpoint, at)
      return
    }
    const nextAt = new Date(at.getTime() + delay)
    const recorded = await repo.recordAttempt(
      delivery,
      entry,
      { status: 'pending', nextAttemptAt: nextAt },
      KEPT_ATTEMPTS,
      at,
    )
    if (!recorded) return
    await enqueueAttempt(delivery.id, n + 1, nextAt)
    // The first retries come within seconds: a timer here rather than the next poll (the poller still covers a crash).
    if (delay <= SHORT_RETRY_MS) runLater(delivery.id, n + 1, delay)
  }

  return {
    sink,
    record,
    deliverJob,
    /** Enqueues again deliveries whose next attempt is overdue by `graceMs` (their job was lost); answers how many. */
    async requeueOverdue(graceMs: number, limit = 500): Promise<number> {
      const overdue = await repo.overdue(new Date(clock().getTime() - graceMs), limit)
      for (const row of overdue) await enqueueAttempt(row.id, row.attemptCount + 1, clock(), true)
      return overdue.length
    },
    /** Stops timers and waits for the deliveries this instance runs at once. */
    async close() {
      closed = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      queue.length = 0
      fresh.clear()
      await Promise.allSettled([...running])
    },
  }
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>
