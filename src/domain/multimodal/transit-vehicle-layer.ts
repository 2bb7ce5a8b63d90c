import type { Feature } from 'geojson'
import type { Registry } from '../../connectors/registry.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import { scopedVehicleId, transitVehicleFeeds } from '../public-transport/vehicles.ts'
import type { Bounds } from './tiles.ts'

/**
 * The `transit-vehicles` layer of the map tiles: the live transit vehicles of GET /public-transport/vehicles as
 * points, with what a map needs to draw and label them (line name, mode and colour, heading). A provider that fails
 * leaves its vehicles out; the tile is still answered.
 */
export function transitVehicleLayer(deps: { registry: Registry; callProvider: CallProvider; timeoutMs: number }) {
  const feeds = transitVehicleFeeds(deps)
  return async function transitVehicles(caller: Caller, b: Bounds, max: number): Promise<Feature[]> {
    const providers = feeds.providers(caller)
    const answers = await Promise.allSettled(providers.map((p) => feeds.index(caller, p, deps.timeoutMs)))
    const features: Feature[] = []
    answers.forEach((answer, i) => {
      if (answer.status !== 'fulfilled') return
      const p = providers[i]
      const index = answer.value
      for (const at of index.inBox(b.west, b.south, b.east, b.north)) {
        const v = index.vehicles[at]
        const properties: Record<string, string | number> = {
          kind: 'TRANSIT_VEHICLE',
          id: scopedVehicleId(p.entry.id, v.id),
          vehicleId: scopedVehicleId(p.entry.id, v.id),
          provider: p.entry.id,
          providerName: p.entry.name,
          lastUpdated: v.lastUpdated.toISOString(),
        }
        // Only what is known: the encoder would write undefined values as broken ones.
        const optional = {
          line: v.line?.name,
          lineId: v.line?.routeId,
          mode: v.line?.mode,
          color: v.line?.color,
          textColor: v.line?.textColor,
          bearing: v.bearing,
          speed: v.speed,
          tripId: v.tripId,
          headsign: v.headsign,
          label: v.label,
          occupancy: v.occupancy,
        }
        for (const [key, value] of Object.entries(optional)) if (value !== undefined) properties[key] = value
        features.push({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [v.longitude, v.latitude] },
          properties,
        })
      }
    })
    return features.slice(0, max)
  }
}
