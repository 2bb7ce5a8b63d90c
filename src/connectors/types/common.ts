import type { Environment } from '../../contract/access.ts'
import type { Modality, Operation } from '../../contract/providers.ts'
import type { Coordinates } from '../../contract/shared.ts'
import type { Kv } from '../../platform/kv/types.ts'

/*
 * The connector contracts every modality shares: what a provider can do, how it is built and what each call gets.
 * One file per modality beside this one (cars.ts, micromobility.ts, public-transport.ts).
 */

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
  /**
   * Seconds since the live data this provider serves was published (the stalest realtime feed), for connectors that
   * read feeds; undefined while nothing is loaded. Exported as `feed_age_seconds`.
   */
  feedAgeSeconds?(): number | undefined
}

/** Builds a connector from a provider entry; throws when the options are wrong (so start reports it). */
export type ConnectorFactory = (entry: ProviderEntry, deps: ConnectorDeps) => Connector

export interface Provider {
  entry: ProviderEntry
  /** Undefined when the provider could not be built; `error` says why. */
  connector?: Connector
  status: 'ACTIVE' | 'UNAVAILABLE'
  error?: string
}

/** What a connector may use besides its options: shared state (a simulated provider keeps its bookings there). */
export interface ConnectorDeps {
  kv: Kv
  clock: () => Date
  /**
   * Where a connector reports what goes wrong while it runs (a feed that fails on refresh, bad records skipped), as
   * one line naming the connector and provider; `options.logger` of an entry takes its place.
   */
  logger?: { warn(message: string): void }
}

/** Per-call context the service gives every connector call. */
export interface CallContext {
  signal: AbortSignal
  now: Date
  language: string
  tenantId: string
  environment: Environment
  /** Parsed X-Sandbox-Scenario (test keys only; empty otherwise). Only the sandbox reads it. */
  scenarios: Scenario[]
}

/** One X-Sandbox-Scenario entry, e.g. `provider-error:sandbox-rent` → { name: 'provider-error', target: 'sandbox-rent' }. */
export interface Scenario {
  name: string
  target?: string
}

export interface GeoArea {
  coordinates: Coordinates
  radiusMeters: number
}
