import type { Db } from './db.ts'
import { and, asc, count, eq, ne, sql } from './orm.ts'
import { type ApiKeyRow, apiKeys, type TenantRow, tenants } from './schema.ts'

export type NewTenant = typeof tenants.$inferInsert
export type NewApiKey = typeof apiKeys.$inferInsert

/** Tenants and their API keys; the only module that queries those tables. */
export function createTenantsRepo(db: Db) {
  return {
    async insertTenant(row: NewTenant): Promise<TenantRow> {
      const [created] = await db.insert(tenants).values(row).returning()
      return created
    },
    async findTenant(id: string): Promise<TenantRow | undefined> {
      const [row] = await db.select().from(tenants).where(eq(tenants.id, id))
      return row
    },
    async listTenants(offset: number, limit: number): Promise<{ rows: TenantRow[]; total: number }> {
      const rows = await db
        .select()
        .from(tenants)
        .orderBy(asc(tenants.createdAt), asc(tenants.id))
        .offset(offset)
        .limit(limit)
      const [{ value }] = await db.select({ value: count() }).from(tenants)
      return { rows, total: Number(value) }
    },
    /** Every origin some tenant allows (for CORS preflights, which carry no key). */
    async allowedOrigins(): Promise<string[]> {
      const rows = await db
        .select({ origins: tenants.allowedOrigins })
        .from(tenants)
        .where(ne(tenants.allowedOrigins, sql`'[]'::jsonb`))
      return rows.flatMap((r) => r.origins)
    },
    async countTenants(): Promise<number> {
      const [{ value }] = await db.select({ value: count() }).from(tenants)
      return Number(value)
    },
    async updateTenant(id: string, changes: Partial<NewTenant>): Promise<TenantRow | undefined> {
      const [row] = await db
        .update(tenants)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(tenants.id, id))
        .returning()
      return row
    },
    async insertKey(row: NewApiKey): Promise<ApiKeyRow> {
      const [created] = await db.insert(apiKeys).values(row).returning()
      return created
    },
    async findKeyWithTenant(id: string): Promise<{ key: ApiKeyRow; tenant: TenantRow } | undefined> {
      const [row] = await db
        .select({ key: apiKeys, tenant: tenants })
        .from(apiKeys)
        .innerJoin(tenants, eq(apiKeys.tenantId, tenants.id))
        .where(eq(apiKeys.id, id))
      return row
    },
    async listKeys(tenantId: string): Promise<ApiKeyRow[]> {
      return db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.tenantId, tenantId))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
    },
    async revokeKey(id: string, at: Date): Promise<ApiKeyRow | undefined> {
      const [row] = await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id)))
        .returning()
      return row
    },
  }
}

export type TenantsRepo = ReturnType<typeof createTenantsRepo>
