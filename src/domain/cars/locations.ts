import type { GeoArea } from '../../connectors/types/common.ts'
import { ApiError } from '../../contract/errors.ts'
import type { Coordinates, LocationSearch } from '../../contract/shared.ts'
import { walkingRadius } from '../../platform/geo.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { Geocoder } from '../geocoding/index.ts'

export const DEFAULT_RADIUS_METERS = 5_000
/** A place is one station: searching it looks this close around it. */
export const PLACE_RADIUS_METERS = 300

const WIDTH = 5
const encode = (value: number) => value.toString(36).padStart(WIDTH, '0')

/** `p_` + latitude and longitude at 1e-5 degrees (about 1 m), base 36, then the station's own id. */
export function placeIdFor(coordinates: Coordinates, stationId: string): string {
  const lat = Math.round((coordinates.latitude + 90) * 1e5)
  const lon = Math.round((coordinates.longitude + 180) * 1e5)
  return `p_${encode(lat)}${encode(lon)}${stationId.toLowerCase().replace(/[^a-z0-9]/g, '')}`
}

export function coordinatesOfPlace(placeId: string): Coordinates | undefined {
  const match = /^p_([a-z0-9]{5})([a-z0-9]{5})[a-z0-9]*$/.exec(placeId)
  if (!match) return undefined
  const latitude = Number.parseInt(match[1], 36) / 1e5 - 90
  const longitude = Number.parseInt(match[2], 36) / 1e5 - 180
  if (!(latitude >= -90 && latitude <= 90 && longitude >= -180 && longitude <= 180)) return undefined
  return { latitude, longitude }
}

/** Turns a LocationSearch into the area providers search: geocoding addresses, decoding places. */
export async function resolveLocation(
  location: LocationSearch,
  field: string,
  geocoder: Geocoder,
  language: string,
): Promise<GeoArea & { label?: string }> {
  const radius = (l: { radiusMeters?: number; walkingTimeMinutes?: number }) =>
    l.radiusMeters ?? (l.walkingTimeMinutes !== undefined ? walkingRadius(l.walkingTimeMinutes) : DEFAULT_RADIUS_METERS)
  // Spec 2.2: walkingTimeMinutes is the alternative to radiusMeters. Both at once used to let one win silently
  // (issue 21); now the caller is told to choose.
  if (location.type !== 'place' && location.radiusMeters !== undefined && location.walkingTimeMinutes !== undefined) {
    const message = detail('SEND_ONE_NOT_BOTH', { first: 'radiusMeters', second: 'walkingTimeMinutes' })
    throw new ApiError('INVALID_REQUEST', undefined, {
      [`${field}.radiusMeters`]: message,
      [`${field}.walkingTimeMinutes`]: message,
    })
  }
  switch (location.type) {
    case 'coordinates':
      return { coordinates: location.coordinates, radiusMeters: radius(location) }
    case 'address': {
      const found = await geocoder.geocode(location.address, language)
      if (!found) throw new ApiError('GEOCODING_FAILED', undefined, { [`${field}.address`]: location.address })
      return { coordinates: found.coordinates, radiusMeters: radius(location), label: found.label }
    }
    case 'place': {
      const coordinates = coordinatesOfPlace(location.placeId)
      if (!coordinates) {
        throw new ApiError('INVALID_LOCATION', undefined, {
          [`${field}.placeId`]: detail('NOT_A_PLACE_ID', { route: 'GET /cars/stations' }),
        })
      }
      return { coordinates, radiusMeters: PLACE_RADIUS_METERS }
    }
  }
}
