import type { PricingPlan, PropulsionType, TripAction, VehicleType, Zone } from '../../contract/micromobility.ts'
import type { CallContext, Connector } from './common.ts'

// Micromobility (scooters, bikes, mopeds): the connector contract and what it answers.

/** A vehicle as a provider reports it. */
export interface ProviderMicroVehicle {
  vehicleId: string
  type: VehicleType
  propulsionType: PropulsionType
  name: string
  latitude: number
  longitude: number
  lastUpdated: string
  isAvailable: boolean
  batteryPercent?: number
  pricingPlan?: PricingPlan
  deepLinks?: { android?: string; ios?: string; web?: string }
  /** The content of the QR code on the vehicle (trip-capable providers). */
  qrCode?: string
  /** The station it is parked or docked at, one of the provider's `stations()`. */
  stationId?: string
}

/** A station (docks, or a virtual station: a marked parking area) as GBFS station_information and _status have it. */
export interface ProviderMicroStation {
  stationId: string
  name: string
  latitude: number
  longitude: number
  /** No docks: vehicles are parked inside `area`, or around the point. */
  isVirtual: boolean
  /** Where vehicles are parked (a virtual station's area). */
  area?: { type: 'MultiPolygon'; coordinates: [number, number][][][] }
  /** Places for vehicles (docks or parking spots), when known. */
  capacity?: number
  /** Free docks, when the provider counts them (docked stations). */
  docksAvailable?: number
  isInstalled: boolean
  isRenting: boolean
  isReturning: boolean
  /** When the station last reported its status (RFC 3339), when known. */
  lastReported?: string
}

/** The fleet at one moment; `version` changes whenever the fleet does, so the service can keep its spatial index. */
export interface FleetSnapshot {
  version: string
  vehicles: ProviderMicroVehicle[]
}

/** A zone as GBFS geofencing_zones has it: GeoJSON geometry with rules. */
export interface ProviderZone {
  id: string
  name?: string
  kind: Zone['kind']
  geometry: Zone['geometry']
  rules: Zone['rules']
}

export interface MicromobilityConnector extends Connector {
  /** The whole fleet, served from memory between refreshes. */
  fleet(ctx: CallContext): Promise<FleetSnapshot>
  zones(ctx: CallContext): Promise<ProviderZone[]>
  /** The provider's stations, for providers that have any (vehicles name theirs in `stationId`). */
  stations?(ctx: CallContext): Promise<ProviderMicroStation[]>
  /**
   * Trip-capable providers only (capability TRIPS). Failures are ApiErrors: refusals from `refusals.ts` (a vehicle
   * another trip holds, or in the workshop or flat: OFFER_EXPIRED with reason VEHICLE_NOT_AVAILABLE; what the
   * provider or vehicle definitively refuses: PROVIDER_ERROR with `retryable: false`), faults as PROVIDER_ERROR or
   * TIMEOUT. Only faults count towards the provider's breaker.
   */
  trips?: {
    /** Holds the vehicle (locked) for a reservation; NOT_FOUND (unknown vehicle) / OFFER_EXPIRED when it cannot be held. */
    reserve(
      vehicleId: string,
      rider: { email?: string; name?: string },
      ctx: CallContext,
    ): Promise<{ reference: string }>
    /** Unlocks the vehicle and starts the ride (after a reservation, `reference` is the reservation's). */
    start(
      vehicleId: string,
      reference: string | undefined,
      rider: { email?: string; name?: string },
      ctx: CallContext,
    ): Promise<{ reference: string; location: { latitude: number; longitude: number } }>
    command(reference: string, action: TripAction, ctx: CallContext): Promise<void>
    end(
      reference: string,
      endLocation: { latitude: number; longitude: number } | undefined,
      ctx: CallContext,
    ): Promise<{ location: { latitude: number; longitude: number } }>
    /** Releases a reserved vehicle. */
    release(reference: string, ctx: CallContext): Promise<void>
  }
}

export const isMicromobilityConnector = (connector: Connector | undefined): connector is MicromobilityConnector =>
  !!connector && typeof (connector as MicromobilityConnector).fleet === 'function'
