import type { Registry } from '../../connectors/registry.ts'
import type { Jobs, JobsLogger } from '../../platform/jobs.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { PublicTransportRepo } from '../../store/public-transport-repo.ts'
import type { TenantRow } from '../../store/schema.ts'
import type { OfferTokens } from '../cars/offer-tokens.ts'
import type { Publish } from '../event-publishing.ts'
import type { Geocoder } from '../geocoding/index.ts'
import type { CallProvider } from '../providers/calls.ts'
import { createPublicTransportAlerts } from './alerts.ts'
import { createPublicTransportJourneys } from './journeys.ts'
import { createPublicTransportStops } from './stops.ts'
import { createPublicTransportSubscriptions } from './subscriptions.ts'
import { createPublicTransportTickets } from './tickets.ts'
import { createPublicTransportVehicles } from './vehicles.ts'

/** Everything behind /public-transport, from explicit dependencies. */
export function createPublicTransport(deps: {
  registry: Registry
  callProvider: CallProvider
  tokens: TokenCipher
  offerTokens: OfferTokens
  kv: Kv
  geocoder: Geocoder
  repo: PublicTransportRepo
  timeoutMs: number
  offerTokenTtlSeconds: number
  /** Follow-up jobs after a provider's confirmation (see after-confirm.ts). */
  jobs: Jobs
  tenants: { findTenant(id: string): Promise<TenantRow | undefined> }
  clock: () => Date
  log: JobsLogger
  /** Status changes once recorded (tickets issued, bookings and subscriptions cancelled, subscriptions created). */
  publish: Publish
}) {
  const followUpDeps = {
    jobs: deps.jobs,
    tenants: deps.tenants,
    clock: deps.clock,
    log: deps.log,
    publish: deps.publish,
  }
  const stops = createPublicTransportStops({
    registry: deps.registry,
    callProvider: deps.callProvider,
    tokens: deps.tokens,
    timeoutMs: deps.timeoutMs,
  })
  return {
    stops,
    vehicles: createPublicTransportVehicles({
      registry: deps.registry,
      callProvider: deps.callProvider,
      tokens: deps.tokens,
      timeoutMs: deps.timeoutMs,
    }),
    journeys: createPublicTransportJourneys({
      stops,
      callProvider: deps.callProvider,
      geocoder: deps.geocoder,
      offerTokens: deps.offerTokens,
      offerTokenTtlSeconds: deps.offerTokenTtlSeconds,
      timeoutMs: deps.timeoutMs,
    }),
    tickets: createPublicTransportTickets({
      stops,
      callProvider: deps.callProvider,
      kv: deps.kv,
      offerTokens: deps.offerTokens,
      repo: deps.repo,
      offerTokenTtlSeconds: deps.offerTokenTtlSeconds,
      ...followUpDeps,
    }),
    alerts: createPublicTransportAlerts({
      stops,
      callProvider: deps.callProvider,
      tokens: deps.tokens,
      timeoutMs: deps.timeoutMs,
    }),
    subscriptions: createPublicTransportSubscriptions({
      stops,
      callProvider: deps.callProvider,
      repo: deps.repo,
      ...followUpDeps,
    }),
  }
}
