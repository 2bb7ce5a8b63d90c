import type { Coordinates } from '../../../contract/shared.ts'

/** A GeoJSON position: longitude first. */
export type Position = [longitude: number, latitude: number]
/** A closed ring: the first position is repeated at the end. */
export type Ring = Position[]
export type Polygon = { type: 'Polygon'; coordinates: Ring[] }
export type MultiPolygon = { type: 'MultiPolygon'; coordinates: Ring[][] }
export type Geometry = Polygon | MultiPolygon

const METERS_PER_DEGREE = 111_320

/** Six decimals: about 10 cm, as precise as a vehicle reports its position. */
export const round6 = (value: number) => Math.round(value * 1e6) / 1e6

/** The point `north` meters north and `east` meters east of `from` (good enough over a few kilometers). */
export function offsetMeters(from: Coordinates, north: number, east: number): Coordinates {
  return {
    latitude: round6(from.latitude + north / METERS_PER_DEGREE),
    longitude: round6(from.longitude + east / (METERS_PER_DEGREE * Math.cos((from.latitude * Math.PI) / 180))),
  }
}

/** A point spread evenly over the disc of `radius` meters around `centre`, drawn from `random`. */
export function pointInDisc(centre: Coordinates, radius: number, random: () => number): Coordinates {
  const distance = radius * Math.sqrt(random())
  const angle = 2 * Math.PI * random()
  return offsetMeters(centre, distance * Math.cos(angle), distance * Math.sin(angle))
}

/** A regular polygon approximating a circle, counterclockwise (GeoJSON's right-hand rule). */
export function circleRing(centre: Coordinates, radius: number, vertices = 32): Ring {
  const ring: Ring = []
  for (let i = 0; i < vertices; i++) {
    const angle = (2 * Math.PI * i) / vertices
    const p = offsetMeters(centre, radius * Math.sin(angle), radius * Math.cos(angle))
    ring.push([p.longitude, p.latitude])
  }
  ring.push([...ring[0]] as Position)
  return ring
}

/** An axis-aligned rectangle, counterclockwise. */
export function boxRing(minLon: number, minLat: number, maxLon: number, maxLat: number): Ring {
  return [
    [minLon, minLat],
    [maxLon, minLat],
    [maxLon, maxLat],
    [minLon, maxLat],
    [minLon, minLat],
  ]
}

/** A square of `half` meters either side of `centre`, counterclockwise. */
export function squareRing(centre: Coordinates, half: number): Ring {
  const sw = offsetMeters(centre, -half, -half)
  const ne = offsetMeters(centre, half, half)
  return boxRing(sw.longitude, sw.latitude, ne.longitude, ne.latitude)
}

/** Ray casting: whether `p` lies inside the ring. */
function inRing(p: Coordinates, ring: Ring): boolean {
  let inside = false
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]
    const [xj, yj] = ring[j]
    if (yi > p.latitude !== yj > p.latitude && p.longitude < ((xj - xi) * (p.latitude - yi)) / (yj - yi) + xi) {
      inside = !inside
    }
  }
  return inside
}

const inPolygon = (p: Coordinates, rings: Ring[]) =>
  rings.length > 0 && inRing(p, rings[0]) && !rings.slice(1).some((hole) => inRing(p, hole))

/** Whether `p` lies inside a GeoJSON Polygon or MultiPolygon. */
export function contains(geometry: Geometry, p: Coordinates): boolean {
  return geometry.type === 'Polygon'
    ? inPolygon(p, geometry.coordinates)
    : geometry.coordinates.some((rings) => inPolygon(p, rings))
}

/** Twice the signed area of a ring in degrees; positive when counterclockwise. */
export function signedArea(ring: Ring): number {
  let sum = 0
  for (let i = 0; i < ring.length - 1; i++) sum += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return sum
}
