import type { Feature, FeatureCollection } from 'geojson'
import GeoJSONVT from 'geojson-vt'
import type { Registry } from '../../connectors/registry.ts'
import type { Connector } from '../../connectors/types/common.ts'
import {
  isPublicTransportConnector,
  type PublicTransportConnector,
  type TransitLine,
  type TransitLineSet,
} from '../../connectors/types/public-transport.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'

type TransitMode = TransitLine['mode']

/**
 * The `lines` layer of the tiles: every public-transport line of the caller's providers as LineStrings (a feed's
 * shapes, or its stop patterns joined stop to stop). Each provider's lines go into one geojson-vt index per version
 * of its lines (a feed load), built at the first tile that needs it and kept: a tile then costs a lookup, not a
 * clipping of the whole network. The index holds tiles down to z 14, built as they are asked for and never more than
 * the lines' own pyramid; deeper tiles are cut from their z 14 ancestor.
 */

export const LINES_INDEX_MAX_ZOOM = 14
/** Per tile; past it the least important (buses first) are left out. */
export const MAX_LINE_FEATURES = 3_000

/** Modes whose lines appear only from this zoom (a region's bus network is a tangle below it); the rest from z 5. */
const MODE_MIN_ZOOM: Partial<Record<TransitMode, number>> = { BUS: 9, TROLLEYBUS: 9, OTHER: 9 }
export const LINES_MIN_ZOOM = 5

/** Drawn in this order (later on top), and kept in the reverse order when a tile has too many. */
const MODE_RANK: Partial<Record<TransitMode, number>> = {
  BUS: 0,
  TROLLEYBUS: 1,
  OTHER: 1,
  FERRY: 2,
  CABLE_CAR: 2,
  GONDOLA: 2,
  FUNICULAR: 2,
  TRAM: 3,
  MONORAIL: 4,
  SUBWAY: 5,
  RAIL: 6,
}

/** Where a feed gives no route_color: colours riders know the modes by, in common European use. */
export const DEFAULT_LINE_COLORS: Record<TransitMode, string> = {
  WALK: '#64748B',
  TRAM: '#CC0A0A',
  SUBWAY: '#115D91',
  RAIL: '#00843D',
  BUS: '#95276E',
  TROLLEYBUS: '#7B3F98',
  FERRY: '#0080BA',
  CABLE_CAR: '#B45309',
  GONDOLA: '#B45309',
  FUNICULAR: '#B45309',
  MONORAIL: '#0F766E',
  OTHER: '#475569',
}

/** Black or white, whichever reads better on `color` (WCAG relative luminance). */
export function textColorOn(color: string): string {
  const channel = (i: number) => {
    const c = Number.parseInt(color.slice(1 + i * 2, 3 + i * 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
  return luminance > 0.179 ? '#000000' : '#FFFFFF'
}

/** The line's colours as the map draws them: the feed's, else the mode's, with a readable text colour. */
export function lineColors(line: TransitLine): { color: string; textColor: string } {
  const color = line.color ?? DEFAULT_LINE_COLORS[line.mode] ?? DEFAULT_LINE_COLORS.OTHER
  return { color, textColor: line.textColor ?? textColorOn(color) }
}

/** A tile feature as geojson-vt's getTile() and vt-pbf have it: tile coordinates, `tags` for the properties. */
export interface TileLineFeature {
  type: 2
  geometry: [number, number][][]
  tags: Record<string, unknown> | null
}

type LineConnector = PublicTransportConnector & Required<Pick<PublicTransportConnector, 'lineGeometries'>>
const drawsLines = (c: Connector | undefined): c is LineConnector =>
  isPublicTransportConnector(c) && typeof c.lineGeometries === 'function'

function features(providerId: string, providerName: string, set: TransitLineSet): Feature[] {
  const out: { rank: number; feature: Feature }[] = []
  for (const { line, paths } of set.lines) {
    const { color, textColor } = lineColors(line)
    for (const path of paths) {
      const coordinates: [number, number][] = []
      for (let i = 0; i < path.coordinates.length; i += 2)
        coordinates.push([path.coordinates[i], path.coordinates[i + 1]])
      const properties: Record<string, string> = {
        kind: 'LINE',
        id: `${providerId}:${line.routeId}`,
        provider: providerId,
        providerName,
        routeId: line.routeId,
        name: line.name,
        mode: line.mode,
        color,
        textColor,
        pathSource: path.shapeId === undefined ? 'STOPS' : 'SHAPE',
      }
      if (line.agency) properties.agency = line.agency
      if (path.shapeId !== undefined) properties.shapeId = path.shapeId
      out.push({
        rank: MODE_RANK[line.mode] ?? 1,
        feature: { type: 'Feature', geometry: { type: 'LineString', coordinates }, properties },
      })
    }
  }
  // Stable: within a mode, the feed's order.
  return out.sort((a, b) => a.rank - b.rank).map((f) => f.feature)
}

/**
 * The part of a z 14 ancestor's lines inside a deeper tile: scaled, clipped to the tile and its buffer
 * (Liang–Barsky per segment; a line leaving and entering again becomes two parts) and rounded.
 */
export function overzoom(
  parent: readonly TileLineFeature[],
  dz: number,
  dx: number,
  dy: number,
  extent: number,
  buffer: number,
): TileLineFeature[] {
  const scale = 2 ** dz
  const ox = (dx * extent) / scale
  const oy = (dy * extent) / scale
  const min = -buffer
  const max = extent + buffer
  const out: TileLineFeature[] = []
  for (const feature of parent) {
    const parts: [number, number][][] = []
    for (const ring of feature.geometry) {
      let current: [number, number][] = []
      const close = () => {
        if (current.length >= 2) parts.push(current)
        current = []
      }
      const add = (x: number, y: number) => {
        const p: [number, number] = [Math.round(x), Math.round(y)]
        const last = current[current.length - 1]
        if (!last || last[0] !== p[0] || last[1] !== p[1]) current.push(p)
      }
      for (let i = 0; i + 1 < ring.length; i++) {
        const ax = (ring[i][0] - ox) * scale
        const ay = (ring[i][1] - oy) * scale
        const bx = (ring[i + 1][0] - ox) * scale
        const by = (ring[i + 1][1] - oy) * scale
        const t = clipSegment(ax, ay, bx, by, min, max)
        if (!t) {
          close()
          continue
        }
        if (t[0] > 0) close()
        add(ax + (bx - ax) * t[0], ay + (by - ay) * t[0])
        add(ax + (bx - ax) * t[1], ay + (by - ay) * t[1])
        if (t[1] < 1) close()
      }
      close()
    }
    if (parts.length > 0) out.push({ type: 2, geometry: parts, tags: feature.tags })
  }
  return out
}

/** The parameters [t0, t1] of the segment's part inside the square [min, max]², or undefined when none is. */
function clipSegment(ax: number, ay: number, bx: number, by: number, min: number, max: number) {
  let t0 = 0
  let t1 = 1
  const dx = bx - ax
  const dy = by - ay
  const edges: [number, number][] = [
    [-dx, ax - min],
    [dx, max - ax],
    [-dy, ay - min],
    [dy, max - ay],
  ]
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return undefined
      continue
    }
    const r = q / p
    if (p < 0) {
      if (r > t1) return undefined
      if (r > t0) t0 = r
    } else {
      if (r < t0) return undefined
      if (r < t1) t1 = r
    }
  }
  return [t0, t1] as const
}

export interface LinesDeps {
  registry: Registry
  callProvider: CallProvider
  timeoutMs: number
  extent: number
  buffer: number
}

/** The `lines` layer of one tile, from the caller's providers that draw lines; a provider that fails is left out. */
export function createTransitLines(deps: LinesDeps) {
  // One entry per provider (bounded by the providers file); a new version of a provider's lines replaces its index.
  const indexes = new Map<string, { version: string; index: GeoJSONVT }>()

  const indexOf = (providerId: string, providerName: string, set: TransitLineSet): GeoJSONVT => {
    const cached = indexes.get(providerId)
    if (cached && cached.version === set.version) return cached.index
    const collection: FeatureCollection = {
      type: 'FeatureCollection',
      features: features(providerId, providerName, set),
    }
    const index = new GeoJSONVT(collection, {
      maxZoom: LINES_INDEX_MAX_ZOOM,
      indexMaxZoom: 5,
      extent: deps.extent,
      buffer: deps.buffer,
      tolerance: 3,
    })
    indexes.set(providerId, { version: set.version, index })
    return index
  }

  const tileOf = (index: GeoJSONVT, z: number, x: number, y: number): TileLineFeature[] => {
    if (z <= LINES_INDEX_MAX_ZOOM) return (index.getTile(z, x, y)?.features ?? []) as TileLineFeature[]
    const dz = z - LINES_INDEX_MAX_ZOOM
    const px = Math.floor(x / 2 ** dz)
    const py = Math.floor(y / 2 ** dz)
    const parent = (index.getTile(LINES_INDEX_MAX_ZOOM, px, py)?.features ?? []) as TileLineFeature[]
    return overzoom(parent, dz, x - px * 2 ** dz, y - py * 2 ** dz, deps.extent, deps.buffer)
  }

  return async function linesTile(caller: Caller, z: number, x: number, y: number): Promise<TileLineFeature[]> {
    if (z < LINES_MIN_ZOOM) return []
    const providers = eligibleProviders(deps.registry, caller, 'STOPS', drawsLines)
    const answers = await Promise.allSettled(
      providers.map((p) =>
        deps.callProvider(caller, p, 'lineGeometries', deps.timeoutMs, (c, ctx) => c.lineGeometries(ctx), true),
      ),
    )
    const found: TileLineFeature[] = []
    answers.forEach((answer, i) => {
      if (answer.status !== 'fulfilled') return
      const p = providers[i]
      for (const feature of tileOf(indexOf(p.entry.id, p.entry.name, answer.value), z, x, y)) {
        const mode = feature.tags?.mode as TransitMode
        if (z >= (MODE_MIN_ZOOM[mode] ?? LINES_MIN_ZOOM)) found.push(feature)
      }
    })
    // Buses first, rail last (drawn on top); past the cap the first are left out. The sort is stable.
    const rank = (f: TileLineFeature) => MODE_RANK[f.tags?.mode as TransitMode] ?? 1
    return found.sort((a, b) => rank(a) - rank(b)).slice(-MAX_LINE_FEATURES)
  }
}

export type TransitLines = ReturnType<typeof createTransitLines>
