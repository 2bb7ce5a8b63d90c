import { gtfs } from '../../gtfs/index.ts'
import {
  type Capabilities,
  type ConnectorDeps,
  isPublicTransportConnector,
  type ProviderEntry,
  type PublicTransportConnector,
} from '../../types.ts'
import { type SimulationOptions, simulation } from '../common.ts'
import { transitTicketing } from './ticketing.ts'

/**
 * A simulated public-transport provider (DECISIONS "Test environment and sandbox"): the timetable is the bundled
 * synthetic Berlin feed (`./feed/`, see make-feed.ts) served by the GTFS connector; tickets and subscriptions are
 * simulated here (ticketing.ts, subscriptions.ts) with their state in `deps.kv` under
 * `sandbox:<providerId>:<environment>:`, so every instance of the service sees the same bookings. Every call goes
 * through the sandbox simulation first: latency, the configured failure rate and the X-Sandbox-Scenario entries.
 */
export function createSandboxTransitConnector(
  entry: ProviderEntry,
  deps: ConnectorDeps,
  capabilities: Capabilities,
  options: SimulationOptions,
  feedUrl: URL,
): PublicTransportConnector {
  const timetable = gtfs({ ...entry, connector: 'gtfs', options: { url: feedUrl.href } }, deps)
  if (!isPublicTransportConnector(timetable)) throw new Error('the GTFS connector is not a public-transport connector')
  const enter = simulation(entry.id, options)
  return {
    capabilities,
    start: async () => {
      await timetable.start?.()
    },
    stop: async () => {
      await timetable.stop?.()
    },
    async stopsNear(latitude, longitude, radiusMeters, limit, ctx) {
      await enter(ctx, 'STOPS')
      return timetable.stopsNear(latitude, longitude, radiusMeters, limit, ctx)
    },
    async searchStops(text, limit, ctx) {
      await enter(ctx, 'STOPS')
      return timetable.searchStops(text, limit, ctx)
    },
    async stopById(stopId, ctx) {
      await enter(ctx, 'STOPS')
      return timetable.stopById(stopId, ctx)
    },
    async departures(stopId, from, limit, ctx) {
      await enter(ctx, 'DEPARTURES')
      return timetable.departures(stopId, from, limit, ctx)
    },
    async journeys(query, ctx) {
      await enter(ctx, 'JOURNEYS')
      return timetable.journeys(query, ctx)
    },
    ticketing: transitTicketing(entry, deps, enter),
  }
}
