import { TRANSIT_MODES, type TransitMode } from '../../contract/public-transport.ts'
import type { TransitLine, TransitStop } from '../types/public-transport.ts'
import type { Timetable } from './engine/timetable.ts'

/** GTFS route_type → TransitMode: the basic types 0-12 and the extended (HVT) types 100-1799. */
export function modeOf(routeType: number): TransitMode {
  switch (routeType) {
    case 0:
      return 'TRAM'
    case 1:
      return 'SUBWAY'
    case 2:
      return 'RAIL'
    case 3:
      return 'BUS'
    case 4:
      return 'FERRY'
    case 5:
      return 'CABLE_CAR'
    case 6:
      return 'GONDOLA'
    case 7:
      return 'FUNICULAR'
    case 11:
      return 'TROLLEYBUS'
    case 12:
      return 'MONORAIL'
  }
  const group = Math.floor(routeType / 100)
  switch (group) {
    case 1: // railway service
    case 3: // suburban railway
      return 'RAIL'
    case 2: // coach service
    case 7: // bus service
      return 'BUS'
    case 4: // urban railway: 400 metro, 401 underground, 402 urban railway, 403 all, 404 other, 405 monorail
      if (routeType === 405) return 'MONORAIL'
      return routeType === 402 ? 'RAIL' : 'SUBWAY'
    case 5: // metro service
    case 6: // underground service
      return 'SUBWAY'
    case 8: // trolleybus service
      return 'TROLLEYBUS'
    case 9: // tram service
      return 'TRAM'
    case 10: // water transport
    case 12: // ferry service
      return 'FERRY'
    case 13: // aerial lift: telecabin, cable car, chair lift ...
      return 'GONDOLA'
    case 14: // funicular
      return 'FUNICULAR'
    default: // 11 air, 15 taxi, 16 self drive, 17 miscellaneous (horse-drawn carriage ...)
      return 'OTHER'
  }
}

const BIT_OF = new Map(TRANSIT_MODES.map((mode, i) => [mode, 1 << i]))

export const modeBit = (routeType: number): number => BIT_OF.get(modeOf(routeType)) ?? 0

export function modesOf(bits: number): TransitMode[] {
  return TRANSIT_MODES.filter((_, i) => bits & (1 << i))
}

/** `FFD700` / `#ffd700` → `#FFD700`; undefined for anything else. */
export function parseColor(text: string | undefined): string | undefined {
  const value = text?.trim().replace(/^#/, '')
  return value && /^[0-9A-Fa-f]{6}$/.test(value) ? `#${value.toUpperCase()}` : undefined
}

const WHEELCHAIR = ['UNKNOWN', 'POSSIBLE', 'NOT_POSSIBLE'] as const

export function mapStop(tt: Timetable, s: number): TransitStop {
  const parent = tt.stopParent[s]
  const code = tt.stopCode[s]
  const platform = tt.stopPlatform[s]
  return {
    id: tt.stopIds[s],
    name: tt.stopNames[s],
    latitude: tt.stopLat[s],
    longitude: tt.stopLon[s],
    ...(code ? { code } : {}),
    ...(platform ? { platform } : {}),
    ...(parent >= 0 ? { parentStation: tt.stopIds[parent] } : {}),
    wheelchairBoarding: WHEELCHAIR[tt.stopWheelchair[s]] ?? 'UNKNOWN',
    modes: modesOf(tt.stopModes[s]),
  }
}

export function mapLine(tt: Timetable, route: number): TransitLine {
  const agency = tt.agencies[tt.routeAgency[route]]
  const color = tt.routeColor[route]
  const textColor = tt.routeTextColor[route]
  return {
    routeId: tt.routeIds[route],
    name: tt.routeShortName[route] || tt.routeLongName[route] || tt.routeIds[route],
    mode: modeOf(tt.routeType[route]),
    ...(color ? { color } : {}),
    ...(textColor ? { textColor } : {}),
    ...(agency ? { agency: agency.name } : {}),
  }
}

/** What a rider reads on the vehicle: stop_headsign, else trip_headsign, else the name of the trip's last stop. */
export function headsignOf(tt: Timetable, trip: number, pos: number): string {
  const a = tt.tripSt[trip]
  return (
    tt.stHeadsign.get(a + pos) ||
    tt.tripHeadsign[trip] ||
    tt.stopNames[tt.stStop[a + tt.tripLen[trip] - 1]] ||
    tt.routeLongName[tt.tripRoute[trip]] ||
    ''
  )
}
