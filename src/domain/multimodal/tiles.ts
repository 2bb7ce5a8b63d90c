import { createHash } from 'node:crypto'
import type { Feature, FeatureCollection, Geometry } from 'geojson'
import GeoJSONVT from 'geojson-vt'
import KDBush from 'kdbush'
import vtpbf from 'vt-pbf'
import type { Registry } from '../../connectors/registry.ts'
import { isCarConnector } from '../../connectors/types/cars.ts'
import {
  type FleetSnapshot,
  isMicromobilityConnector,
  type ProviderMicroVehicle,
  type ProviderZone,
} from '../../connectors/types/micromobility.ts'
import { isPublicTransportConnector } from '../../connectors/types/public-transport.ts'
import { ApiError } from '../../contract/errors.ts'
import { distanceMeters } from '../../platform/geo.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { placeIdFor } from '../cars/locations.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { createTransitLines, LINES_MIN_ZOOM } from './lines.ts'
import { transitVehicleLayer } from './transit-vehicle-layer.ts'

export const MAX_TILE_ZOOM = 22
/** Tile coordinates run 0..4096; features up to 64 units (1/64 tile) outside are kept, so circles at edges draw whole. */
export const TILE_EXTENT = 4096
export const TILE_BUFFER = 64
export const LAYERS = ['lines', 'vehicles', 'stations', 'stops', 'zones', 'transit-vehicles'] as const
export type LayerName = (typeof LAYERS)[number]
/** The layers gathered per tile; `lines` comes from a cached index (lines.ts). */
type GatheredLayer = Exclude<LayerName, 'lines'>

/**
 * How much each layer shows by zoom, so a low-zoom tile (a whole country) stays cheap: zones from the start, transit
 * lines from z 5 (bus lines from z 9), a sample of vehicles from z 6 (whole fleets from z 10), car stations from z 8,
 * public-transport stops from z 12, live transit vehicles from z 10.
 */
export const LAYER_MIN_ZOOM: Record<LayerName, number> = {
  zones: 0,
  lines: LINES_MIN_ZOOM,
  vehicles: 6,
  stations: 8,
  stops: 12,
  'transit-vehicles': 10,
}
const FULL_FLEET_ZOOM = 10
const SAMPLE_VEHICLES = 500
const MAX_FEATURES: Record<GatheredLayer, number> = {
  vehicles: 5_000,
  stations: 2_000,
  stops: 3_000,
  zones: 1_000,
  'transit-vehicles': 2_000,
}

export interface Bounds {
  west: number
  south: number
  east: number
  north: number
}

export const validTile = (z: number, x: number, y: number) =>
  Number.isInteger(z) &&
  z >= 0 &&
  z <= MAX_TILE_ZOOM &&
  [x, y].every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** z)

const lonOf = (x: number, n: number) => (x / n) * 360 - 180
const latOf = (y: number, n: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI

/** The WGS84 bounds of a tile (XYZ scheme), widened by `buffer` tile units (of TILE_EXTENT) on each side. */
export function tileBounds(z: number, x: number, y: number, buffer = 0): Bounds {
  const n = 2 ** z
  const b = buffer / TILE_EXTENT
  return {
    west: lonOf(x - b, n),
    east: lonOf(x + 1 + b, n),
    north: latOf(Math.max(0, y - b), n),
    south: latOf(Math.min(n, y + 1 + b), n),
  }
}

const inside = (b: Bounds, latitude: number, longitude: number) =>
  latitude >= b.south && latitude <= b.north && longitude >= b.west && longitude <= b.east

/** Bounding-box overlap of a GeoJSON geometry with the tile: enough to pick the zones worth clipping. */
function overlaps(geometry: { coordinates: unknown[] }, b: Bounds): boolean {
  let minLon = Number.POSITIVE_INFINITY
  let minLat = Number.POSITIVE_INFINITY
  let maxLon = Number.NEGATIVE_INFINITY
  let maxLat = Number.NEGATIVE_INFINITY
  const visit = (node: unknown): void => {
    if (!Array.isArray(node)) return
    if (typeof node[0] === 'number' && typeof node[1] === 'number') {
      minLon = Math.min(minLon, node[0])
      maxLon = Math.max(maxLon, node[0])
      minLat = Math.min(minLat, node[1])
      maxLat = Math.max(maxLat, node[1])
    } else node.forEach(visit)
  }
  visit(geometry.coordinates)
  return minLon <= b.east && maxLon >= b.west && minLat <= b.north && maxLat >= b.south
}

/** Keeps at most `max` items, evenly spread over the list (deterministic, so the tile and its ETag stay stable). */
function sample<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items
  const step = items.length / max
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)])
}

/** Feature properties without undefined values (the encoder would write them as broken values). */
function props(
  values: Record<string, string | number | boolean | undefined>,
): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = v
  return out
}

const point = (longitude: number, latitude: number, properties: Record<string, string | number | boolean>) =>
  ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [longitude, latitude] },
    properties,
  }) satisfies Feature

/** One k-d tree per fleet version, for bounding-box queries. */
function fleetBoxes() {
  const cache = new Map<string, { version: string; vehicles: ProviderMicroVehicle[]; index: KDBush }>()
  return (providerId: string, snapshot: FleetSnapshot) => {
    const cached = cache.get(providerId)
    if (cached && cached.version === snapshot.version) return cached
    const index = new KDBush(Math.max(1, snapshot.vehicles.length))
    for (const v of snapshot.vehicles) index.add(v.longitude, v.latitude)
    if (snapshot.vehicles.length === 0) index.add(1000, 1000) // outside every tile
    index.finish()
    const built = { version: snapshot.version, vehicles: snapshot.vehicles, index }
    cache.set(providerId, built)
    return built
  }
}

export interface TileDeps {
  registry: Registry
  callProvider: CallProvider
  /** Deadline of each provider call. */
  timeoutMs: number
}

export interface Tile {
  bytes: Buffer
  etag: string
  /** Features per layer. */
  counts: Record<LayerName, number>
}

/**
 * GET /multimodal/tiles/{z}/{x}/{y}.mvt: the tenant's transit lines, vehicles, car stations, public-transport stops,
 * zones and live transit vehicles (transit-vehicle-layer.ts) inside the tile (plus a small buffer), encoded as a
 * Mapbox Vector Tile with geojson-vt and vt-pbf. A provider that fails leaves its features out; the tile is still answered.
 */
export function createMultimodalTiles(deps: TileDeps) {
  const boxesOf = fleetBoxes()
  const call = deps.callProvider
  const linesTile = createTransitLines({ ...deps, extent: TILE_EXTENT, buffer: TILE_BUFFER })
  const transitVehicles = transitVehicleLayer(deps)

  async function vehicles(caller: Caller, z: number, b: Bounds): Promise<Feature[]> {
    const providers = eligibleProviders(deps.registry, caller, 'SEARCH', isMicromobilityConnector)
    const answers = await Promise.allSettled(
      providers.map((p) => call(caller, p, 'fleet', deps.timeoutMs, (c, ctx) => c.fleet(ctx), true)),
    )
    const features: Feature[] = []
    answers.forEach((answer, i) => {
      if (answer.status !== 'fulfilled') return
      const p = providers[i]
      const { vehicles: all, index } = boxesOf(p.entry.id, answer.value)
      const hits = index
        .range(b.west, b.south, b.east, b.north)
        .filter((id) => id < all.length)
        .sort((a, c) => a - c)
      for (const id of hits) {
        const v = all[id]
        features.push(
          point(
            v.longitude,
            v.latitude,
            props({
              kind: 'VEHICLE',
              id: v.vehicleId,
              provider: p.entry.id,
              providerName: p.entry.name,
              vehicleType: v.type,
              propulsionType: v.propulsionType,
              name: v.name,
              available: v.isAvailable,
              battery: v.batteryPercent === undefined ? undefined : Math.round(v.batteryPercent),
            }),
          ),
        )
      }
    })
    return sample(features, z < FULL_FLEET_ZOOM ? SAMPLE_VEHICLES : MAX_FEATURES.vehicles)
  }

  const centreAndRadius = (b: Bounds) => {
    const centre = { latitude: (b.north + b.south) / 2, longitude: (b.west + b.east) / 2 }
    return { centre, radius: Math.ceil(distanceMeters(centre, { latitude: b.north, longitude: b.east })) + 1 }
  }

  async function stations(caller: Caller, b: Bounds): Promise<Feature[]> {
    const providers = eligibleProviders(deps.registry, caller, 'STATIONS', isCarConnector)
    const { centre, radius } = centreAndRadius(b)
    const answers = await Promise.allSettled(
      providers.map((p) =>
        call(
          caller,
          p,
          'stations',
          deps.timeoutMs,
          (c, ctx) => c.stations({ coordinates: centre, radiusMeters: radius }, ctx),
          true,
        ),
      ),
    )
    const features: Feature[] = []
    answers.forEach((answer, i) => {
      if (answer.status !== 'fulfilled') return
      const p = providers[i]
      const modality = p.connector.capabilities.modalities.includes('CAR_SHARING') ? 'CAR_SHARING' : 'CAR_RENTAL'
      const found = answer.value
        .filter((s) => inside(b, s.coordinates.latitude, s.coordinates.longitude))
        .sort((a, c) => a.id.localeCompare(c.id))
      for (const s of found) {
        features.push(
          point(
            s.coordinates.longitude,
            s.coordinates.latitude,
            props({
              kind: modality === 'CAR_SHARING' ? 'CARSHARING_STATION' : 'CAR_RENTAL_STATION',
              id: s.id,
              provider: p.entry.id,
              providerName: p.entry.name,
              modality,
              name: s.name,
              stationType: s.stationType,
              placeId: placeIdFor(s.coordinates, s.id),
            }),
          ),
        )
      }
    })
    return features.slice(0, MAX_FEATURES.stations)
  }

  async function stops(caller: Caller, b: Bounds): Promise<Feature[]> {
    const providers = eligibleProviders(deps.registry, caller, 'STOPS', isPublicTransportConnector)
    const { centre, radius } = centreAndRadius(b)
    const answers = await Promise.allSettled(
      providers.map((p) =>
        call(
          caller,
          p,
          'stopsNear',
          deps.timeoutMs,
          (c, ctx) => c.stopsNear(centre.latitude, centre.longitude, radius, MAX_FEATURES.stops, ctx),
          true,
        ),
      ),
    )
    const features: Feature[] = []
    answers.forEach((answer, i) => {
      if (answer.status !== 'fulfilled') return
      const p = providers[i]
      const found = answer.value
        .filter((s) => inside(b, s.latitude, s.longitude))
        .sort((a, c) => a.id.localeCompare(c.id))
      for (const s of found) {
        features.push(
          point(
            s.longitude,
            s.latitude,
            props({
              kind: 'STOP',
              id: `${p.entry.id}:${s.id}`,
              provider: p.entry.id,
              providerName: p.entry.name,
              name: s.name,
              mode: s.modes[0],
              modes: s.modes.join(','),
              code: s.code,
              platform: s.platform,
              parentStationId: s.parentStation ? `${p.entry.id}:${s.parentStation}` : undefined,
              wheelchairBoarding: s.wheelchairBoarding,
            }),
          ),
        )
      }
    })
    return features.slice(0, MAX_FEATURES.stops)
  }

  async function zones(caller: Caller, b: Bounds): Promise<Feature[]> {
    const providers = eligibleProviders(deps.registry, caller, 'ZONES', isMicromobilityConnector)
    const answers = await Promise.allSettled(
      providers.map((p) => call(caller, p, 'zones', deps.timeoutMs, (c, ctx) => c.zones(ctx), true)),
    )
    const features: Feature[] = []
    answers.forEach((answer, i) => {
      if (answer.status !== 'fulfilled') return
      const p = providers[i]
      const found = answer.value.filter((zone: ProviderZone) => overlaps(zone.geometry, b))
      for (const zone of found) {
        const rules = zone.rules[0]
        features.push({
          type: 'Feature',
          // The API shape types coordinates loosely (unknown[]); the connectors hand GeoJSON Polygons and MultiPolygons.
          geometry: zone.geometry as Geometry,
          properties: props({
            kind: 'ZONE',
            id: zone.id,
            provider: p.entry.id,
            providerName: p.entry.name,
            name: zone.name,
            zoneKind: zone.kind,
            rideStartAllowed: rules?.rideStartAllowed,
            rideEndAllowed: rules?.rideEndAllowed,
            rideThroughAllowed: rules?.rideThroughAllowed,
            maximumSpeedKph: rules?.maximumSpeedKph,
            stationParking: rules?.stationParking,
          }),
        })
      }
    })
    // Service areas first, so the smaller zones inside them are drawn on top.
    const order = (f: Feature) => (f.properties?.zoneKind === 'SERVICE_AREA' ? 0 : 1)
    return features.sort((a, c) => order(a) - order(c)).slice(0, MAX_FEATURES.zones)
  }

  const gather: Record<GatheredLayer, (caller: Caller, z: number, b: Bounds) => Promise<Feature[]>> = {
    vehicles,
    stations: (caller, _z, b) => stations(caller, b),
    stops: (caller, _z, b) => stops(caller, b),
    zones: (caller, _z, b) => zones(caller, b),
    'transit-vehicles': (caller, _z, b) => transitVehicles(caller, b, MAX_FEATURES['transit-vehicles']),
  }

  return async function tile(z: number, x: number, y: number, caller: Caller): Promise<Tile> {
    if (!validTile(z, x, y)) {
      const max = 2 ** Math.min(Math.max(0, z), MAX_TILE_ZOOM) - 1
      throw new ApiError('INVALID_REQUEST', undefined, {
        ...(z > MAX_TILE_ZOOM ? { z: detail('MUST_BE_AT_MOST', { limit: MAX_TILE_ZOOM }) } : {}),
        ...(x > max ? { x: detail('TILE_OUT_OF_RANGE', { max, zoom: z }) } : {}),
        ...(y > max ? { y: detail('TILE_OUT_OF_RANGE', { max, zoom: z }) } : {}),
      })
    }
    const bounds = tileBounds(z, x, y, TILE_BUFFER)
    const [lines, collected] = await Promise.all([
      linesTile(caller, z, x, y),
      Promise.all(
        LAYERS.map((layer) =>
          layer !== 'lines' && z >= LAYER_MIN_ZOOM[layer] ? gather[layer](caller, z, bounds) : Promise.resolve([]),
        ),
      ),
    ])
    const layers: Record<string, { features: readonly unknown[] }> = {}
    const counts = {} as Record<LayerName, number>
    LAYERS.forEach((layer, i) => {
      if (layer === 'lines') {
        layers[layer] = { features: lines }
        counts[layer] = lines.length
        return
      }
      const collection: FeatureCollection = { type: 'FeatureCollection', features: collected[i] }
      const encoded =
        collection.features.length === 0
          ? null
          : new GeoJSONVT(collection, {
              maxZoom: z,
              indexMaxZoom: 0,
              indexMaxPoints: 0,
              extent: TILE_EXTENT,
              buffer: TILE_BUFFER,
              tolerance: 3,
            }).getTile(z, x, y)
      layers[layer] = encoded ?? { features: [] }
      counts[layer] = layers[layer].features.length
    })
    const bytes = Buffer.from(vtpbf.fromGeojsonVt(layers, { version: 2, extent: TILE_EXTENT }))
    const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`
    return { bytes, etag, counts }
  }
}

export type MultimodalTiles = ReturnType<typeof createMultimodalTiles>
