import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'
import type { Environment } from '../../src/contract/access.ts'
import type { Caller } from '../../src/domain/providers/calls.ts'
import { generateTokenKeys } from '../../src/platform/tokens.ts'
import { openRuntime, type Runtime } from '../../src/runtime.ts'
import { createServices, registerJobHandlers, type Services, type ServicesDeps } from '../../src/services.ts'
import type { TenantRow } from '../../src/store/schema.ts'
import { createTenantsRepo } from '../../src/store/tenants-repo.ts'
import { type TestClock, testClock } from './clock.ts'

export interface TestServices {
  services: Services
  /** What the services were built from (the overrides applied). */
  deps: ServicesDeps
  runtime: Runtime
  clock: TestClock
  /** A new tenant, stored, with the settings given (admin API field names). */
  tenant(settings?: Record<string, unknown>): Promise<TenantRow>
  /** What a request of `tenant` would hand the services: its environment, English, the clock's time. */
  caller(tenant: TenantRow, options?: { environment?: Environment; scenarios?: Caller['scenarios'] }): Caller
  close(): Promise<void>
}

const silent = { error() {}, warn() {} }

/**
 * The domain services on the embedded store (in memory) with the demo providers, without HTTP: use cases tested as
 * functions. `overrides` replaces any dependency (a repository wrapper, an event sink, a registry).
 */
export async function newTestServices(overrides: Partial<ServicesDeps> = {}): Promise<TestServices> {
  const clock = testClock()
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-services-'))
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, TOKEN_KEYS: generateTokenKeys() })
  const runtime = await openRuntime(config, { clock, logger: false, inMemory: true })
  const deps: ServicesDeps = { ...runtime, ...overrides }
  const services = createServices(deps, silent)
  registerJobHandlers(deps.jobs, services)
  const tenants = createTenantsRepo(deps.store.db)
  return {
    services,
    deps,
    runtime,
    clock,
    async tenant(settings = {}) {
      const created = await services.tenants.createTenant({
        name: `Tenant ${randomBytes(3).toString('hex')}`,
        ...settings,
      } as Parameters<Services['tenants']['createTenant']>[0])
      const row = await tenants.findTenant(created.id)
      if (!row) throw new Error(`tenant ${created.id} was not stored`)
      return row
    },
    caller: (tenant, options = {}) => ({
      tenant,
      environment: options.environment ?? 'live',
      language: 'en',
      now: clock(),
      scenarios: options.scenarios ?? [],
    }),
    async close() {
      await services.webhooks.close()
      await runtime.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
