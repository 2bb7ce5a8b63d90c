import GtfsRealtimeBindings from 'gtfs-realtime-bindings'
import {
  TRANSIT_OCCUPANCY,
  TRANSIT_VEHICLE_STATUSES,
  type TransitOccupancy,
  type TransitVehicleStatus,
} from '../../contract/transit-vehicles.ts'
import type { TransitVehicle } from '../types/public-transport.ts'
import type { Timetable } from './engine/timetable.ts'
import { headsignOf, mapLine } from './map.ts'

const { transit_realtime } = GtfsRealtimeBindings
const { OccupancyStatus, VehicleStopStatus } = transit_realtime.VehiclePosition

/**
 * GTFS-Realtime VehiclePositions: decoded entity by entity into plain positions (a bad entity is skipped and
 * reported, never the whole feed), then joined to a timetable: trip → route → line, stop ids checked.
 */

/** A position as the feed gives it, checked but not yet joined to the static feed. */
export interface RawVehicle {
  /** vehicle.id, else the entity id. */
  id: string
  entityId: string
  label?: string
  tripId?: string
  routeId?: string
  latitude: number
  longitude: number
  bearing?: number
  speed?: number
  stopId?: string
  stopSequence?: number
  currentStatus?: TransitVehicleStatus
  occupancy?: TransitOccupancy
  /** ms */
  lastUpdated: number
}

export interface VehicleSnapshot {
  /** The feed header's timestamp (else the time of the read), ms. */
  timestamp: number
  readAt: number
  vehicles: RawVehicle[]
  /** VehiclePosition entities in the feed (deleted ones not counted). */
  entities: number
  /** Of those, skipped as unusable. */
  skipped: number
}

export interface DecodeOptions {
  readAt: number
  /** Positions older than this (before the read) are skipped. */
  maxAgeMs: number
  /** At most this many vehicles per feed; the rest are skipped. */
  maxVehicles: number
  report: (message: string) => void
}

/** Clocks of feed producers drift: a timestamp up to this far after the read is taken as it is. */
export const FUTURE_TOLERANCE_MS = 120_000
/** No transit vehicle is faster (720 km/h): a higher speed is a unit or encoding error. */
const MAX_SPEED = 200

type Long = { toNumber(): number }
const num = (value: number | Long | null | undefined): number | undefined =>
  value === null || value === undefined ? undefined : typeof value === 'number' ? value : value.toNumber()
/** Decoded messages keep defaults on the prototype: only own properties were sent. */
const has = (object: object | null | undefined, key: string): boolean => !!object && Object.hasOwn(object, key)

/**
 * The top level of a FeedMessage (field 1 header, field 2 entity, extensions), without decoding the fields: the
 * bindings' decoder throws for the whole message when one entity lacks a required field (a position without
 * latitude), so each entity is decoded on its own.
 */
function splitFeedMessage(bytes: Uint8Array): { header?: Uint8Array; entities: Uint8Array[] } {
  let pos = 0
  const varint = (): number => {
    let value = 0
    for (let shift = 0; shift < 64; shift += 7) {
      if (pos >= bytes.length) throw new Error('truncated varint')
      const byte = bytes[pos++]
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
    }
    throw new Error('varint too long')
  }
  let header: Uint8Array | undefined
  const entities: Uint8Array[] = []
  while (pos < bytes.length) {
    const tag = varint()
    const field = Math.floor(tag / 8)
    const wire = tag % 8
    if (field === 0) throw new Error('field number 0')
    if (wire === 0) varint()
    else if (wire === 1) pos += 8
    else if (wire === 5) pos += 4
    else if (wire === 2) {
      const length = varint()
      if (pos + length > bytes.length) throw new Error('a field runs past the end')
      const value = bytes.subarray(pos, pos + length)
      pos += length
      if (field === 1) header = value
      else if (field === 2) entities.push(value)
    } else throw new Error(`wire type ${wire}`)
    if (pos > bytes.length) throw new Error('a field runs past the end')
  }
  return { ...(header ? { header } : {}), entities }
}

const nameOf = <T extends string>(names: readonly T[], byNumber: Record<number, string>, value: unknown) => {
  const name = typeof value === 'number' ? byNumber[value] : undefined
  return names.includes(name as T) ? (name as T) : undefined
}
const iso = (ms: number) => new Date(ms).toISOString()
/**
 * Positions, bearings and speeds are 32-bit floats on the wire (52.52 arrives as 52.52000045776367); five decimals
 * of a degree (about 1 m) are as precise as a float of 180 is.
 */
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits + 0

export function decodeVehiclePositions(bytes: Uint8Array, options: DecodeOptions): VehicleSnapshot {
  const { readAt, report } = options
  let parts: ReturnType<typeof splitFeedMessage>
  let header: InstanceType<typeof transit_realtime.FeedHeader>
  try {
    parts = splitFeedMessage(bytes)
    if (!parts.header) throw new Error('no header')
    header = transit_realtime.FeedHeader.decode(parts.header)
  } catch (error) {
    throw new Error(`not a GTFS-Realtime FeedMessage (${(error as Error).message})`)
  }
  let timestamp = has(header, 'timestamp') ? (num(header.timestamp) ?? 0) * 1000 : readAt
  if (timestamp > readAt + FUTURE_TOLERANCE_MS) {
    report(`the feed's timestamp ${iso(timestamp)} is in the future; the time of reading is used`)
    timestamp = readAt
  }
  const snapshot: VehicleSnapshot = { timestamp, readAt, vehicles: [], entities: 0, skipped: 0 }
  const byId = new Map<string, RawVehicle>()
  const entityIds = new Set<string>()
  const skip = (message: string): undefined => {
    snapshot.skipped++
    report(`${message}; skipped`)
  }
  for (const [i, bytes] of parts.entities.entries()) {
    const vehicle = readEntity(i, bytes)
    if (!vehicle) continue
    const known = byId.get(vehicle.id)
    if (known) {
      report(`vehicle ${JSON.stringify(vehicle.id.slice(0, 100))} is in more than one entity; the newest kept`)
      if (vehicle.lastUpdated > known.lastUpdated) byId.set(vehicle.id, vehicle)
      snapshot.skipped++
    } else if (byId.size >= options.maxVehicles) {
      skip(`entity ${JSON.stringify(vehicle.entityId.slice(0, 100))}: more than ${options.maxVehicles} vehicles`)
    } else byId.set(vehicle.id, vehicle)
  }
  snapshot.vehicles = [...byId.values()]
  return snapshot

  /** One entity's position, or undefined when it has none that can be used (reported) or is not a vehicle. */
  function readEntity(i: number, bytes: Uint8Array): RawVehicle | undefined {
    let entity: InstanceType<typeof transit_realtime.FeedEntity>
    try {
      entity = transit_realtime.FeedEntity.decode(bytes)
    } catch (error) {
      snapshot.entities++
      return skip(`entity #${i + 1} cannot be decoded (${(error as Error).message})`)
    }
    const vp = entity.vehicle
    if (!has(entity, 'vehicle') || !vp || entity.isDeleted) return undefined
    snapshot.entities++
    const label = `entity ${JSON.stringify(entity.id.slice(0, 100))}`
    if (entityIds.has(entity.id)) report(`${label}: the entity id is repeated`)
    entityIds.add(entity.id)
    const position = has(vp, 'position') ? vp.position : undefined
    if (!position) return skip(`${label}: no position`)
    // Rounded first, so that a float a hair off 0, 0 (null island: a receiver without a fix) is no place either.
    const latitude = round(position.latitude, 5)
    const longitude = round(position.longitude, 5)
    if (
      !Number.isFinite(latitude) ||
      !Number.isFinite(longitude) ||
      Math.abs(latitude) > 90 ||
      Math.abs(longitude) > 180 ||
      (latitude === 0 && longitude === 0)
    ) {
      return skip(`${label}: position ${position.latitude}, ${position.longitude} is not a place on Earth`)
    }
    let lastUpdated = has(vp, 'timestamp') ? (num(vp.timestamp) ?? 0) * 1000 : timestamp
    if (lastUpdated > readAt + FUTURE_TOLERANCE_MS) {
      report(`${label}: timestamp ${iso(lastUpdated)} is in the future; the time of reading is used`)
      lastUpdated = readAt
    }
    if (lastUpdated < readAt - options.maxAgeMs) {
      return skip(`${label}: the position of ${iso(lastUpdated)} is older than ${options.maxAgeMs / 1000} s`)
    }
    let bearing: number | undefined
    if (has(position, 'bearing')) {
      const value = position.bearing as number
      if (Number.isFinite(value) && value >= 0 && value <= 360) bearing = round(value, 1) % 360
      else report(`${label}: bearing ${value} is not 0 to 360 degrees; left out`)
    }
    let speed: number | undefined
    if (has(position, 'speed')) {
      const value = position.speed as number
      if (Number.isFinite(value) && value >= 0 && value <= MAX_SPEED) speed = round(value, 2)
      else report(`${label}: speed ${value} m/s is not possible; left out`)
    }
    const descriptor = has(vp, 'vehicle') ? vp.vehicle : undefined
    const trip = has(vp, 'trip') ? vp.trip : undefined
    let occupancy: TransitOccupancy | undefined
    if (has(vp, 'occupancyStatus')) {
      occupancy = nameOf(TRANSIT_OCCUPANCY, OccupancyStatus, vp.occupancyStatus)
      if (!occupancy) report(`${label}: occupancy status ${vp.occupancyStatus} is not known; left out`)
    }
    const currentStatus = has(vp, 'currentStatus')
      ? nameOf(TRANSIT_VEHICLE_STATUSES, VehicleStopStatus, vp.currentStatus)
      : undefined
    return {
      id: descriptor?.id || entity.id,
      entityId: entity.id,
      ...(descriptor?.label ? { label: descriptor.label } : {}),
      ...(trip?.tripId ? { tripId: trip.tripId } : {}),
      ...(trip?.routeId ? { routeId: trip.routeId } : {}),
      latitude,
      longitude,
      ...(bearing !== undefined ? { bearing } : {}),
      ...(speed !== undefined ? { speed } : {}),
      ...(vp.stopId ? { stopId: vp.stopId } : {}),
      ...(has(vp, 'currentStopSequence') ? { stopSequence: vp.currentStopSequence as number } : {}),
      ...(currentStatus ? { currentStatus } : {}),
      ...(occupancy ? { occupancy } : {}),
      lastUpdated,
    }
  }
}

/**
 * The positions of a snapshot on a timetable, newest first: the line from the trip (or the route when the trip is
 * not in the timetable), the stop from stop_id or from current_stop_sequence on the trip. Ids the timetable does
 * not know are reported and left out; the vehicle stays.
 */
export function joinVehicles(
  tt: Timetable,
  snapshot: VehicleSnapshot,
  report: (message: string) => void,
): TransitVehicle[] {
  let routes: Map<string, number> | undefined
  const routeOf = (id: string) => {
    routes ??= new Map(tt.routeIds.map((routeId, r) => [routeId, r]))
    return routes.get(id)
  }
  const vehicles = snapshot.vehicles.map((raw): TransitVehicle => {
    const label = `vehicle ${JSON.stringify(raw.id.slice(0, 100))}`
    const trip = raw.tripId === undefined ? undefined : tt.tripsById.get(raw.tripId)?.[0]
    if (raw.tripId !== undefined && trip === undefined) {
      report(`${label}: trip ${JSON.stringify(raw.tripId.slice(0, 100))} is not in the timetable`)
    }
    let route = trip === undefined ? undefined : tt.tripRoute[trip]
    if (route === undefined && raw.routeId !== undefined) {
      route = routeOf(raw.routeId)
      if (route === undefined)
        report(`${label}: route ${JSON.stringify(raw.routeId.slice(0, 100))} is not in the timetable`)
    }
    let stop: number | undefined
    let pos: number | undefined
    if (raw.stopId !== undefined) {
      stop = tt.stopIndex.get(raw.stopId)
      if (stop === undefined)
        report(`${label}: stop ${JSON.stringify(raw.stopId.slice(0, 100))} is not in the timetable`)
    }
    if (trip !== undefined && raw.stopSequence !== undefined) {
      const a = tt.tripSt[trip]
      for (let i = 0; i < tt.tripLen[trip]; i++) {
        if (tt.stSeq[a + i] !== raw.stopSequence) continue
        pos = i
        stop ??= tt.stStop[a + i]
        break
      }
    }
    return {
      id: raw.id,
      ...(raw.label ? { label: raw.label } : {}),
      latitude: raw.latitude,
      longitude: raw.longitude,
      ...(raw.bearing !== undefined ? { bearing: raw.bearing } : {}),
      ...(raw.speed !== undefined ? { speed: raw.speed } : {}),
      ...(raw.tripId !== undefined ? { tripId: raw.tripId } : {}),
      ...(route !== undefined ? { line: mapLine(tt, route) } : {}),
      ...(trip !== undefined ? { headsign: headsignOf(tt, trip, pos ?? 0) } : {}),
      ...(stop !== undefined ? { stop: { id: tt.stopIds[stop], name: tt.stopNames[stop] } } : {}),
      ...(stop !== undefined && raw.currentStatus ? { currentStatus: raw.currentStatus } : {}),
      ...(raw.occupancy ? { occupancy: raw.occupancy } : {}),
      lastUpdated: new Date(raw.lastUpdated),
    }
  })
  return vehicles.sort((a, b) => b.lastUpdated.getTime() - a.lastUpdated.getTime() || a.id.localeCompare(b.id))
}
