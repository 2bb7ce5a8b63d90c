import type { Environment } from '../domain/tenants/permissions.ts'

export const MODALITIES = ['CAR_RENTAL', 'CAR_SHARING', 'SCOOTER', 'BIKE', 'MOPED', 'PUBLIC_TRANSPORT'] as const
export type Modality = (typeof MODALITIES)[number]

export const OPERATIONS = [
  'SEARCH',
  'STATIONS',
  'OFFER_DETAILS',
  'PREBOOK',
  'BOOK',
  'CHANGE',
  'CANCEL',
  'VEHICLE_ACTIONS',
  'APP_ACCESS',
  'QR_LOOKUP',
  'TRIPS',
  'ZONES',
  'STOPS',
  'DEPARTURES',
  'JOURNEYS',
  'TICKETS',
  'SUBSCRIPTIONS',
] as const
export type Operation = (typeof OPERATIONS)[number]

export interface Capabilities {
  modalities: Modality[]
  operations: Operation[]
  stationBased: boolean
  freeFloating: boolean
  /** The provider needs a stored booking (for example subscriptions); excluded for tenants with retention NONE. */
  requiresStoredBooking: boolean
}

/** One entry of the providers file (DECISIONS "Providers file"). */
export interface ProviderEntry {
  id: string
  name: string
  connector: string
  environments: Environment[]
  countries?: string[]
  languages?: string[]
  websiteUrl?: string
  branding?: { logoUrl?: string; primaryColor?: string; secondaryColor?: string }
  contact?: { email?: string; phone?: string; url?: string }
  options?: Record<string, unknown>
}

/**
 * What every connector gives the service, whatever its protocol. The modality contracts (cars, micromobility,
 * public transport) extend this in their own files.
 */
export interface Connector {
  capabilities: Capabilities
  /** Starts background work (feed loading); a failure is reported, never thrown at start. */
  start?(): Promise<void>
  stop?(): Promise<void>
}

/** Builds a connector from a provider entry; throws when the options are wrong (so start reports it). */
export type ConnectorFactory = (entry: ProviderEntry) => Connector

export interface Provider {
  entry: ProviderEntry
  /** Undefined when the provider could not be built; `error` says why. */
  connector?: Connector
  status: 'ACTIVE' | 'UNAVAILABLE'
  error?: string
}
