import type { Coordinates } from '../../../contract/shared.ts'
import type { ProviderZone } from '../../types/micromobility.ts'
import { pick } from '../common.ts'
import { boxRing, circleRing, contains, type Geometry, squareRing } from './geometry.ts'

export type MicroKind = 'scoot' | 'bike'

/** Berlin, as DECISIONS places every sandbox provider. */
export const BERLIN_CENTRE: Coordinates = { latitude: 52.52, longitude: 13.405 }
export const ALEXANDERPLATZ: Coordinates = { latitude: 52.5219, longitude: 13.4132 }
export const HAUPTBAHNHOF: Coordinates = { latitude: 52.5251, longitude: 13.3694 }
/** Vehicles are parked at most this far from the centre; the service area reaches a kilometer further. */
export const FLEET_RADIUS_M = 6_000
export const SERVICE_AREA_RADIUS_M = 7_000

/** A virtual bike station: bikes are parked inside its parking zone. */
export interface BikeStation {
  id: string
  name: string
  coordinates: Coordinates
}

export const BIKE_STATIONS: BikeStation[] = [
  { id: 'hauptbahnhof', name: 'Hauptbahnhof', coordinates: HAUPTBAHNHOF },
  { id: 'alexanderplatz', name: 'Alexanderplatz', coordinates: { latitude: 52.5215, longitude: 13.4115 } },
  { id: 'potsdamer-platz', name: 'Potsdamer Platz', coordinates: { latitude: 52.5096, longitude: 13.376 } },
  { id: 'nordbahnhof', name: 'Nordbahnhof', coordinates: { latitude: 52.5317, longitude: 13.3886 } },
  { id: 'kottbusser-tor', name: 'Kottbusser Tor', coordinates: { latitude: 52.499, longitude: 13.418 } },
  { id: 'warschauer-strasse', name: 'Warschauer Straße', coordinates: { latitude: 52.5057, longitude: 13.449 } },
]
/** Half the side of a station's parking square, meters. */
export const STATION_HALF_SIDE_M = 30

type Localized = { en: string; de: string; fr: string }
interface ZoneDef {
  id: string
  name: Localized
  kind: ProviderZone['kind']
  geometry: Geometry
  rules: ProviderZone['rules']
}

const ALLOWED = { rideStartAllowed: true, rideEndAllowed: true, rideThroughAllowed: true }

const serviceArea = (kind: MicroKind): ZoneDef => ({
  id: 'berlin-service-area',
  name: {
    en: 'Berlin city centre service area',
    de: 'Geschäftsgebiet Berlin Innenstadt',
    fr: 'Zone de service du centre de Berlin',
  },
  kind: 'SERVICE_AREA',
  geometry: { type: 'Polygon', coordinates: [circleRing(BERLIN_CENTRE, SERVICE_AREA_RADIUS_M, 36)] },
  rules: [kind === 'scoot' ? { ...ALLOWED, maximumSpeedKph: 20 } : { ...ALLOWED }],
})

/** Pariser Platz in front of the Brandenburg Gate. */
const NO_PARKING: ZoneDef = {
  id: 'pariser-platz-no-parking',
  name: {
    en: 'Brandenburg Gate / Pariser Platz',
    de: 'Brandenburger Tor / Pariser Platz',
    fr: 'Porte de Brandebourg / Pariser Platz',
  },
  kind: 'NO_PARKING',
  geometry: { type: 'Polygon', coordinates: [boxRing(13.3762, 52.5152, 13.3812, 52.5174)] },
  rules: [{ rideStartAllowed: false, rideEndAllowed: false, rideThroughAllowed: true }],
}

/** The pedestrian area around Alexanderplatz. */
const SLOW: ZoneDef = {
  id: 'alexanderplatz-slow',
  name: {
    en: 'Alexanderplatz pedestrian area',
    de: 'Fußgängerbereich Alexanderplatz',
    fr: 'Zone piétonne d’Alexanderplatz',
  },
  kind: 'SLOW',
  geometry: { type: 'Polygon', coordinates: [boxRing(13.4085, 52.5195, 13.4175, 52.5245)] },
  rules: [{ ...ALLOWED, maximumSpeedKph: 6 }],
}

/** The inner paths of the Tiergarten, either side of the Großer Stern. */
const NO_RIDING: ZoneDef = {
  id: 'tiergarten-no-riding',
  name: { en: 'Tiergarten inner paths', de: 'Tiergarten, innere Wege', fr: 'Tiergarten, allées intérieures' },
  kind: 'NO_RIDING',
  geometry: {
    type: 'MultiPolygon',
    coordinates: [[boxRing(13.338, 52.511, 13.346, 52.517)], [boxRing(13.356, 52.511, 13.369, 52.516)]],
  },
  rules: [{ rideStartAllowed: false, rideEndAllowed: false, rideThroughAllowed: false }],
}

const STATION_PARKING: ZoneDef = {
  id: 'bike-stations-parking',
  name: { en: 'Bike stations', de: 'Fahrradstationen', fr: 'Stations de vélos' },
  kind: 'PARKING',
  geometry: {
    type: 'MultiPolygon',
    coordinates: BIKE_STATIONS.map((s) => [squareRing(s.coordinates, STATION_HALF_SIDE_M)]),
  },
  rules: [{ ...ALLOWED, stationParking: true }],
}

const ZONES: Record<MicroKind, ZoneDef[]> = {
  scoot: [serviceArea('scoot'), NO_PARKING, SLOW, NO_RIDING],
  bike: [serviceArea('bike'), NO_PARKING, SLOW, NO_RIDING, STATION_PARKING],
}

/** Where a vehicle of this provider may not be parked: no-parking and no-riding zones. */
export function parkingForbidden(p: Coordinates): boolean {
  return contains(NO_PARKING.geometry, p) || contains(NO_RIDING.geometry, p)
}

/** The zones of a provider, with names in the caller's language (English, German or French). */
export function zonesOf(kind: MicroKind, language: string): ProviderZone[] {
  return ZONES[kind].map((z) => ({
    id: z.id,
    name: pick(z.name, language),
    kind: z.kind,
    geometry: structuredClone(z.geometry),
    rules: structuredClone(z.rules),
  }))
}
