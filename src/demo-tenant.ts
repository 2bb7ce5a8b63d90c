import type { Config } from './config.ts'
import type { TenantService } from './domain/tenants/service.ts'
import type { Store } from './store/db.ts'

const DEMO_LOCK = 72_100_002

export type DemoTenant = NonNullable<Awaited<ReturnType<TenantService['ensureDemoTenant']>>>

/**
 * Whether this start may create the demo tenant (DEMO_TENANT). `auto` only for the embedded database: a first start
 * on an empty PostgreSQL is a production's first start, where live keys must not appear unasked.
 */
export const demoTenantWanted = (config: Config): boolean =>
  config.demoTenant === 'true' || (config.demoTenant === 'auto' && !config.databaseUrl)

/** Creates the demo tenant when wanted and the store has no tenant yet (once across instances). */
export async function ensureDemoTenant(
  config: Config,
  store: Store,
  tenants: TenantService,
): Promise<DemoTenant | undefined> {
  if (!demoTenantWanted(config)) return undefined
  return store.withAdvisoryLock(DEMO_LOCK, () => tenants.ensureDemoTenant(config.port))
}

/**
 * The demo keys for the terminal. Written to stderr, never into the JSON log stream on stdout, so a log shipper does
 * not carry live secrets away; shown once, since only their hashes are stored.
 */
export function demoBanner(demo: DemoTenant, base: string, apiPrefix: string): string {
  const rule = '='.repeat(78)
  return [
    '',
    rule,
    `Demo tenant created: ${demo.tenant.name} (${demo.tenant.id}). These keys are shown only once:`,
    ...demo.keys.map((k) => `  ${k.type.padEnd(11)} ${k.environment.padEnd(4)}  ${k.secret}`),
    '',
    `Try: curl -H "Authorization: Bearer ${demo.keys[0].secret}" ${base}${apiPrefix}/auth/check`,
    'Set DEMO_TENANT=false to start without one.',
    rule,
    '',
  ].join('\n')
}
