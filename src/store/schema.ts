import { boolean, index, integer, jsonb, pgTable, sql, text, timestamp } from './orm.ts'
import type { CarBookingRecord, TripDetails } from './records.ts'

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow()

export const tenants = pgTable('tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  organization: text('organization'),
  defaultLanguage: text('default_language').notNull().default('en'),
  dataRetention: text('data_retention', { enum: ['STANDARD', 'NONE'] })
    .notNull()
    .default('STANDARD'),
  /** Enabled provider ids; null means every configured provider. */
  providers: jsonb('providers').$type<string[] | null>(),
  emailOptOut: boolean('email_opt_out').notNull().default(false),
  allowedOrigins: jsonb('allowed_origins').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  reservationWindowSeconds: integer('reservation_window_seconds').notNull().default(600),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
})

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['secret', 'publishable'] }).notNull(),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    name: text('name'),
    prefix: text('prefix').notNull(),
    /** Last four characters of the key, to recognise it in listings. */
    lastFour: text('last_four').notNull(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    permissions: jsonb('permissions').$type<string[]>().notNull(),
    rateLimit: integer('rate_limit').notNull().default(100),
    rateLimitWindowSeconds: integer('rate_limit_window_seconds').notNull().default(60),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (table) => [index('api_keys_tenant_idx').on(table.tenantId)],
)

export type TenantRow = typeof tenants.$inferSelect
export type ApiKeyRow = typeof apiKeys.$inferSelect

/** Car bookings of tenants with retention STANDARD (retention NONE stores nothing). */
export const carBookings = pgTable(
  'car_bookings',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    providerId: text('provider_id').notNull(),
    providerReference: text('provider_reference').notNull(),
    status: text('status', { enum: ['PENDING', 'CONFIRMED', 'FAILED', 'CANCELLED'] }).notNull(),
    /** The prebooked token's nonce: one booking per token, whichever instance takes it. */
    tokenNonce: text('token_nonce').notNull().unique(),
    /** The booking as last known: vehicle, locations, period, prices, policies, driver, upsells. */
    record: jsonb('record').$type<CarBookingRecord>().notNull(),
    statusHistory: jsonb('status_history').$type<{ status: string; time: string; reason?: string }[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Moves with every update: a write based on an older read is refused (compare-and-set). */
    version: integer('version').notNull().default(0),
  },
  (table) => [index('car_bookings_tenant_idx').on(table.tenantId, table.environment, table.createdAt)],
)

/**
 * Background work (mails to send, reservations to expire, data to erase). Claimed with FOR UPDATE SKIP LOCKED,
 * so each job runs once across instances; failed runs are retried with backoff until maxAttempts.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: ['pending', 'running', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    runAt: timestamp('run_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(8),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (table) => [index('jobs_due_idx').on(table.status, table.runAt)],
)

export type CarBookingRow = typeof carBookings.$inferSelect
export type JobRow = typeof jobs.$inferSelect

/** Micromobility trips: the state machine of spec 3.1, per tenant. */
export const micromobilityTrips = pgTable(
  'micromobility_trips',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    providerId: text('provider_id').notNull(),
    providerReference: text('provider_reference'),
    vehicleId: text('vehicle_id').notNull(),
    status: text('status', { enum: ['RESERVED', 'ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED'] }).notNull(),
    /** Vehicle description, pricing plan, locations, last action: what the trip shows besides its status and times. */
    details: jsonb('details').$type<TripDetails>().notNull(),
    /** The rider's position at start; erased 24 hours after it was given. */
    userLocation: jsonb('user_location').$type<{
      latitude: number
      longitude: number
      accuracyMeters?: number
    } | null>(),
    userLocationUntil: timestamp('user_location_until', { withTimezone: true, mode: 'date' }),
    reservedUntil: timestamp('reserved_until', { withTimezone: true, mode: 'date' }),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    pausedSince: timestamp('paused_since', { withTimezone: true, mode: 'date' }),
    pausedMs: integer('paused_ms').notNull().default(0),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    version: integer('version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    // GET /micromobility/trips: the tenant's trips of one environment, newest first.
    index('micromobility_trips_tenant_idx').on(table.tenantId, table.environment, table.createdAt),
    index('micromobility_trips_vehicle_idx').on(table.providerId, table.vehicleId, table.status),
    // The reservations of a tenant whose window ran out, which a list expires before it reads.
    index('micromobility_trips_reserved_idx')
      .on(table.tenantId, table.environment, table.reservedUntil)
      .where(sql`${table.status} = 'RESERVED'`),
  ],
)

export type TripRow = typeof micromobilityTrips.$inferSelect

/** Public-transport ticket bookings (retention STANDARD; the providers need a stored booking). */
export const ptBookings = pgTable(
  'pt_bookings',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    providerId: text('provider_id').notNull(),
    providerReference: text('provider_reference').notNull(),
    status: text('status').notNull(),
    tokenNonce: text('token_nonce').notNull().unique(),
    record: jsonb('record').$type<Record<string, unknown>>().notNull(),
    statusHistory: jsonb('status_history').$type<{ status: string; time: string; reason?: string }[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Moves with every update: a status change is written (and announced as an event) once, by one writer. */
    version: integer('version').notNull().default(0),
  },
  (table) => [index('pt_bookings_tenant_idx').on(table.tenantId, table.environment, table.createdAt)],
)

/** Subscriptions (for example Deutschlandticket) with their holder. */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    providerId: text('provider_id').notNull(),
    providerReference: text('provider_reference').notNull(),
    productId: text('product_id').notNull(),
    status: text('status').notNull(),
    record: jsonb('record').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Moves with every update, as on ticket bookings. */
    version: integer('version').notNull().default(0),
  },
  (table) => [index('subscriptions_tenant_idx').on(table.tenantId, table.environment, table.createdAt)],
)

export type PtBookingRow = typeof ptBookings.$inferSelect
export type SubscriptionRow = typeof subscriptions.$inferSelect

/**
 * The part of the in-memory key-value store that must outlive a restart of a single instance (entries kept an hour
 * or longer: the sandbox providers' own bookings, trips and tickets). With Redis this table stays empty.
 */
export const kvEntries = pgTable('kv_entries', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  /** The value is JSON written by setJson (read back with getJson). */
  structured: boolean('structured').notNull().default(false),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
})

/**
 * Answers kept for `Idempotency-Key` (24 hours from the first request). `id` is a hash of the API key's id and the
 * client's key, so the client's key itself is not stored; the request is kept only as a salted hash (`fingerprint`).
 * A row is `running` while its first request runs (held until `locked_until`, then free to be taken over) and `done`
 * with the answer once it finished.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    apiKeyId: text('api_key_id').notNull(),
    salt: text('salt').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['running', 'done'] }).notNull(),
    /** The claim of the request that runs (or ran) it: only that request may settle the row. */
    owner: text('owner').notNull(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    status: integer('status'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    body: text('body'),
    /** Personal fields were taken out of `body` (tenant retention NONE). */
    redacted: boolean('redacted').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('idempotency_keys_expires_idx').on(table.expiresAt)],
)

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect

/**
 * Webhook endpoints of a tenant, per environment. The signing secret is sealed with the token keys (TOKEN_KEYS); a
 * rotation keeps the replaced one, sealed as well, until `previousSecretUntil`.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    url: text('url').notNull(),
    /** Event types delivered; null means every type, also those added later. */
    events: jsonb('events').$type<string[] | null>(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    /** First failure since the last success; three days of it disable the endpoint. */
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretUntil: timestamp('previous_secret_until', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [index('webhook_endpoints_tenant_idx').on(table.tenantId, table.environment, table.createdAt)],
)

/** One event for one endpoint: its body (until it is delivered or given up) and the attempts so far. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    /** Also the `webhook-id` header of every attempt. */
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    environment: text('environment', { enum: ['live', 'test'] }).notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The signed body; dropped once the delivery is over, so the log keeps no more than ids and outcomes. */
    payload: text('payload'),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    attempts: jsonb('attempts').$type<WebhookAttempt[]>().notNull().default(sql`'[]'::jsonb`),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    failureReason: text('failure_reason'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt),
    index('webhook_deliveries_due_idx').on(table.status, table.nextAttemptAt),
  ],
)

export interface WebhookAttempt {
  attemptedAt: string
  statusCode?: number
  error?: string
  durationMs: number
}

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect
