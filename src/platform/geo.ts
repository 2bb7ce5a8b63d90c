import type { Coordinates } from '../contract/shared.ts'

const EARTH_RADIUS_M = 6_371_008.8
const rad = (deg: number) => (deg * Math.PI) / 180

/** Great-circle distance in meters (haversine). */
export function distanceMeters(a: Coordinates, b: Coordinates): number {
  const dLat = rad(b.latitude - a.latitude)
  const dLon = rad(b.longitude - a.longitude)
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)))
}

/** Average walking speed used to turn walkingTimeMinutes into a radius (4.8 km/h). */
export const WALKING_METERS_PER_MINUTE = 80

export const walkingRadius = (minutes: number) => Math.round(minutes * WALKING_METERS_PER_MINUTE)
