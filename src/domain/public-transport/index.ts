import type { Registry } from '../../connectors/registry.ts'
import type { Jobs, JobsLogger } from '../../platform/jobs.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { PublicTransportRepo } from '../../store/public-transport-repo.ts'
import type { TenantRow } from '../../store/schema.ts'
import type { OfferTokens } from '../cars/offer-tokens.ts'
import type { Geocoder } from '../geocoding/index.ts'
import type { CallProvider } from '../providers/calls.ts'
import { publicTransportJourneys } from './journeys.ts'
import { publicTransportStops } from './stops.ts'
import { publicTransportSubscriptions } from './subscriptions.ts'
import { publicTransportTickets } from './tickets.ts'

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
}) {
  const followUpDeps = { jobs: deps.jobs, tenants: deps.tenants, clock: deps.clock, log: deps.log }
  const stops = publicTransportStops({
    registry: deps.registry,
    callProvider: deps.callProvider,
    tokens: deps.tokens,
    timeoutMs: deps.timeoutMs,
  })
  return {
    stops,
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
    subscriptions: publicTransportSubscriptions({
      stops,
      callProvider: deps.callProvider,
      repo: deps.repo,
      ...followUpDeps,
    }),
  }
}
