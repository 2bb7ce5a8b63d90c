/** vt-pbf ships no types; this is the part the tile builder uses. */
declare module 'vt-pbf' {
  /** A tile as geojson-vt's getTile() answers it (tile-space coordinates). */
  export interface GeoJsonVtTile {
    features: readonly unknown[]
  }
  /** Encodes geojson-vt tiles, one per layer name, as one Mapbox Vector Tile. */
  export function fromGeojsonVt(
    layers: Record<string, GeoJsonVtTile>,
    options?: { version?: number; extent?: number },
  ): Uint8Array
  const vtpbf: { fromGeojsonVt: typeof fromGeojsonVt }
  export default vtpbf
}
