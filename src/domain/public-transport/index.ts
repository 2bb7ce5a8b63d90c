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
import { publicTransportAlerts } from './alerts.ts'
import { publicTransportJourneys } from './journeys.ts'
import { publicTransportStops } from './stops.ts'
import { publicTransportSubscriptions } from './subscriptions.ts'
import { publicTransportTickets } from './tickets.ts'
import { publicTransportVehicles } from './vehicles.ts'

export type PublicTransportJourneysFn = ReturnType<typeof publicTransportJourneys>

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
  const stops = publicTransportStops({
    registry: deps.registry,
    callProvider: deps.callProvider,
    tokens: deps.tokens,
    timeoutMs: deps.timeoutMs,
  })
  return {
    stops,
    vehicles: publicTransportVehicles({
      registry: deps.registry,
      callProvider: deps.callProvider,
      tokens: deps.tokens,
      timeoutMs: deps.timeoutMs,
    }),
    journeys: publicTransportJourneys({
      stops,
      callProvider: deps.callProvider,
      geocoder: deps.geocoder,
      offerTokens: deps.offerTokens,
      offerTokenTtlSeconds: deps.offerTokenTtlSeconds,
      timeoutMs: deps.timeoutMs,
    }),
    tickets: publicTransportTickets({
      stops,
      callProvider: deps.callProvider,
      kv: deps.kv,
      offerTokens: deps.offerTokens,
      repo: deps.repo,
      offerTokenTtlSeconds: deps.offerTokenTtlSeconds,
      ...followUpDeps,
    }),
    alerts: publicTransportAlerts({
      stops,
      callProvider: deps.callProvider,
      tokens: deps.tokens,
      timeoutMs: deps.timeoutMs,
    }),
    subscriptions: publicTransportSubscriptions({
      stops,
      callProvider: deps.callProvider,
      repo: deps.repo,
      ...followUpDeps,
    }),
  }
}
