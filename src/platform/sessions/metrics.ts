import { Gauge, type Registry } from 'prom-client'
import type { LoadGuard } from '../load-guard.ts'
import type { SessionStore } from './types.ts'

/** What the memory bounds are doing, read when /metrics is scraped (never on the request path). */
export function registerMemoryMetrics(registry: Registry, sessions: SessionStore, guard: LoadGuard): void {
  const gauge = (name: string, help: string, read: () => Promise<number> | number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(await read())
      },
    })
  gauge('search_sessions', 'Car search sessions held (all tenants)', async () => (await sessions.stats()).entries)
  gauge(
    'search_session_bytes',
    'Bytes the car search sessions take (estimated heap in memory, stored bytes in Redis)',
    async () => (await sessions.stats()).bytes,
  )
  gauge(
    'search_sessions_evicted',
    'Car search sessions this instance evicted before they expired, since it started',
    async () => (await sessions.stats()).evicted,
  )
  gauge('load_shedding', '1 while the service refuses work with 503 OVERLOADED', () => (guard.overloaded() ? 1 : 0))
}
