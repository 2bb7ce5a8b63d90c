import type { Db } from './db.ts'
import { rowsOf } from './migrate.ts'
import { and, count, desc, eq, inArray, lt, sql } from './orm.ts'
import {
  jobs,
  type WebhookAttempt,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
  webhookDeliveries,
  webhookEndpoints,
} from './schema.ts'

export type NewWebhookEndpoint = typeof webhookEndpoints.$inferInsert
export type NewWebhookDelivery = typeof webhookDeliveries.$inferInsert
export type EndpointChanges = Partial<Omit<NewWebhookEndpoint, 'id' | 'tenantId' | 'environment' | 'createdAt'>>

/** Who may see an endpoint: its tenant, and with an API key only in the key's environment. */
export interface Scope {
  tenantId: string
  environment?: 'live' | 'test'
}

const inScope = (scope: Scope) =>
  and(
    eq(webhookEndpoints.tenantId, scope.tenantId),
    scope.environment ? eq(webhookEndpoints.environment, scope.environment) : undefined,
  )

/** Webhook endpoints and their deliveries; the only module that queries those tables. */
export function createWebhooksRepo(db: Db) {
  return {
    async insertEndpoint(row: NewWebhookEndpoint): Promise<WebhookEndpointRow> {
      const [created] = await db.insert(webhookEndpoints).values(row).returning()
      return created
    },
    async countEndpoints(tenantId: string, environment: 'live' | 'test'): Promise<number> {
      const [{ value }] = await db
        .select({ value: count() })
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.environment, environment)))
      return Number(value)
    },
    async findEndpoint(id: string, scope?: Scope): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, id), scope ? inScope(scope) : undefined))
      return row
    },
    async listEndpoints(scope: Scope, offset: number, limit: number) {
      const rows = await db
        .select()
        .from(webhookEndpoints)
        .where(inScope(scope))
        .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
        .offset(offset)
        .limit(limit)
      const [{ value }] = await db.select({ value: count() }).from(webhookEndpoints).where(inScope(scope))
      return { rows, total: Number(value) }
    },
    /** The endpoints an event of this tenant and environment goes to (type filtering is the caller's). */
    enabledEndpoints(tenantId: string, environment: 'live' | 'test'): Promise<WebhookEndpointRow[]> {
      return db
        .select()
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.tenantId, tenantId),
            eq(webhookEndpoints.environment, environment),
            eq(webhookEndpoints.enabled, true),
          ),
        )
    },
    async updateEndpoint(id: string, changes: EndpointChanges, at: Date): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .update(webhookEndpoints)
        .set({ ...changes, updatedAt: at })
        .where(eq(webhookEndpoints.id, id))
        .returning()
      return row
    },
    async deleteEndpoint(id: string): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning()
      return row
    },
    /** Starts the endpoint's failure streak unless one runs already; answers the endpoint as it is now. */
    async markFailing(id: string, at: Date): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .update(webhookEndpoints)
        .set({ failingSince: sql`COALESCE(${webhookEndpoints.failingSince}, ${at.toISOString()}::timestamptz)` })
        .where(eq(webhookEndpoints.id, id))
        .returning()
      return row
    },
    /** A success ends the failure streak (one write only when there was one). */
    async markHealthy(id: string): Promise<void> {
      await db
        .update(webhookEndpoints)
        .set({ failingSince: null })
        .where(and(eq(webhookEndpoints.id, id), sql`${webhookEndpoints.failingSince} IS NOT NULL`))
    },
    /** Disables an enabled endpoint; undefined when it was disabled (or deleted) meanwhile. */
    async disableEndpoint(id: string, reason: string, at: Date): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .update(webhookEndpoints)
        .set({ enabled: false, disabledReason: reason, disabledAt: at, updatedAt: at })
        .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.enabled, true)))
        .returning()
      return row
    },

    async insertDeliveries(rows: NewWebhookDelivery[]): Promise<void> {
      if (rows.length > 0) await db.insert(webhookDeliveries).values(rows)
    },
    async findDelivery(id: string): Promise<WebhookDeliveryRow | undefined> {
      const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id))
      return row
    },
    async listDeliveries(
      endpointId: string,
      status: WebhookDeliveryRow['status'] | undefined,
      offset: number,
      limit: number,
    ) {
      const where = and(
        eq(webhookDeliveries.endpointId, endpointId),
        status ? eq(webhookDeliveries.status, status) : undefined,
      )
      const rows = await db
        .select()
        .from(webhookDeliveries)
        .where(where)
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .offset(offset)
        .limit(limit)
      const [{ value }] = await db.select({ value: count() }).from(webhookDeliveries).where(where)
      return { rows, total: Number(value) }
    },
    /**
     * Records attempt `attempt.n` of a pending delivery, only if no other runner recorded it first (compare-and-set
     * on the attempt count); false when the delivery moved on meanwhile.
     */
    async recordAttempt(
      row: WebhookDeliveryRow,
      attempt: WebhookAttempt,
      outcome: Pick<NewWebhookDelivery, 'status' | 'nextAttemptAt' | 'failureReason' | 'deliveredAt'>,
      keepAttempts: number,
      at: Date,
    ): Promise<boolean> {
      const over = outcome.status !== 'pending'
      const updated = await db
        .update(webhookDeliveries)
        .set({
          ...outcome,
          attemptCount: row.attemptCount + 1,
          attempts: [...row.attempts, attempt].slice(-keepAttempts),
          updatedAt: at,
          // Once over, the body is not needed again: the log keeps ids, type and outcomes only.
          ...(over ? { payload: null } : {}),
        })
        .where(
          and(
            eq(webhookDeliveries.id, row.id),
            eq(webhookDeliveries.status, 'pending'),
            eq(webhookDeliveries.attemptCount, row.attemptCount),
          ),
        )
        .returning({ id: webhookDeliveries.id })
      return updated.length === 1
    },
    /** Gives up the endpoint's pending deliveries (it was disabled). */
    async failPending(endpointId: string, reason: string, at: Date): Promise<number> {
      const rows = await db
        .update(webhookDeliveries)
        .set({ status: 'failed', failureReason: reason, nextAttemptAt: null, payload: null, updatedAt: at })
        .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')))
        .returning({ id: webhookDeliveries.id })
      return rows.length
    },
    /** Pending deliveries whose next attempt is overdue by now (their job was lost): to enqueue again. */
    overdue(before: Date, limit: number) {
      return db
        .select({ id: webhookDeliveries.id, attemptCount: webhookDeliveries.attemptCount })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.status, 'pending'), lt(webhookDeliveries.nextAttemptAt, before)))
        .limit(limit)
    },
    /**
     * Deletes deliveries that are over and older than `before`, and beyond the newest `perEndpoint` of their endpoint;
     * and finished jobs of `jobKinds` created before `jobsBefore`. Answers how many deliveries went.
     */
    async prune(before: Date, perEndpoint: number, jobsBefore: Date, jobKinds: string[]): Promise<number> {
      const old = await db
        .delete(webhookDeliveries)
        .where(and(inArray(webhookDeliveries.status, ['delivered', 'failed']), lt(webhookDeliveries.createdAt, before)))
        .returning({ id: webhookDeliveries.id })
      const beyond = await db.execute(sql`
        DELETE FROM webhook_deliveries WHERE id IN (
          SELECT id FROM (
            SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY created_at DESC, id DESC) AS n
              FROM webhook_deliveries WHERE status <> 'pending') ranked
           WHERE n > ${perEndpoint})
        RETURNING id`)
      await db
        .delete(jobs)
        .where(
          and(inArray(jobs.kind, jobKinds), inArray(jobs.status, ['done', 'failed']), lt(jobs.createdAt, jobsBefore)),
        )
      return old.length + rowsOf(beyond).length
    },
  }
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>
