import { createGtfsConnector } from '../../gtfs/index.ts'
import type { Capabilities, ConnectorDeps, ProviderEntry } from '../../types/common.ts'
import type { PublicTransportConnector } from '../../types/public-transport.ts'
import { type SimulationOptions, simulation } from '../common.ts'
import { scenarioAlerts } from './alerts.ts'
import { transitTicketing } from './ticketing.ts'
import { scheduledVehicles } from './vehicles.ts'

/**
 * A simulated public-transport provider (DECISIONS "Test environment and sandbox"): the timetable is the bundled
 * synthetic Berlin feed (`./feed/`, see make-feed.ts) served by the GTFS connector; tickets and subscriptions are
 * simulated here (ticketing.ts, subscriptions.ts) with their state in `deps.kv` under
 * `sandbox:<providerId>:<environment>:`, so every instance of the service sees the same bookings. Every call goes
 * through the sandbox simulation first: latency, the configured failure rate and the X-Sandbox-Scenario entries;
 * `transit-alert` closes a stop (see alerts.ts). Its vehicles run exactly on the timetable (vehicles.ts), so the map
 * shows them moving.
 */
export function createSandboxTransitConnector(
  entry: ProviderEntry,
  deps: ConnectorDeps,
  capabilities: Capabilities,
  options: SimulationOptions,
  feedUrl: URL,
): PublicTransportConnector {
  const timetable = createGtfsConnector({ ...entry, connector: 'gtfs', options: { url: feedUrl.href } }, deps, {
    scenarioAlerts: scenarioAlerts(entry.id),
  })
  const enter = simulation(entry.id, options)
  const positions = scheduledVehicles()
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
    async alerts(query, ctx) {
      await enter(ctx, 'ALERTS')
      return timetable.alerts?.(query, ctx) ?? []
    },
    // The bundled feed has no shapes.txt: its lines join their stops.
    async lineGeometries(ctx) {
      await enter(ctx, 'STOPS')
      if (!timetable.lineGeometries) throw new Error('the GTFS connector draws no lines')
      return timetable.lineGeometries(ctx)
    },
    ...(capabilities.operations.includes('VEHICLE_POSITIONS')
      ? {
          async vehicles(ctx) {
            await enter(ctx, 'VEHICLE_POSITIONS')
            return positions(await timetable.timetable(ctx.signal), ctx.now)
          },
        }
      : {}),
    ticketing: transitTicketing(entry, deps, enter),
  }
}
