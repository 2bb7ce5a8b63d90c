import { ApiError } from '../../contract/errors.ts'

type LatLon = { latitude: number; longitude: number }

/** A trip's end location as a connector gets it: undefined, or real coordinates (INVALID_LOCATION otherwise). */
export function checkEndLocation(location: LatLon | undefined): LatLon | undefined {
  if (location === undefined) return undefined
  const { latitude, longitude } = location
  if (
    !Number.isFinite(latitude) ||
    !Number.isFinite(longitude) ||
    Math.abs(latitude) > 90 ||
    Math.abs(longitude) > 180
  ) {
    throw new ApiError('INVALID_LOCATION', undefined, { field: 'endLocation' })
  }
  return { latitude, longitude }
}
