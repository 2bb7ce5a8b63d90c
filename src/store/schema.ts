import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

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
