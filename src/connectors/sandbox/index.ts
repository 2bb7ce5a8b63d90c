import type { CarConnector } from '../types/cars.ts'
import type { Capabilities, ConnectorFactory } from '../types/common.ts'
import type { MicromobilityConnector } from '../types/micromobility.ts'
import type { PublicTransportConnector } from '../types/public-transport.ts'
import { createSandboxCarConnector } from './cars/connector.ts'
import { createSandboxMicroConnector } from './micro/connector.ts'
import { createSandboxTransitConnector } from './transit/connector.ts'

/** The simulated providers of DECISIONS "Test environment and sandbox"; `options.profile` picks the behaviour. */
export const SANDBOX_PROFILES = {
  rent: {
    modalities: ['CAR_RENTAL'],
    operations: ['SEARCH', 'STATIONS', 'OFFER_DETAILS', 'PREBOOK', 'BOOK', 'CHANGE', 'CANCEL'],
    stationBased: true,
    freeFloating: false,
    requiresStoredBooking: false,
  },
  share: {
    modalities: ['CAR_SHARING'],
    operations: [
      'SEARCH',
      'STATIONS',
      'OFFER_DETAILS',
      'PREBOOK',
      'BOOK',
      'CHANGE',
      'CANCEL',
      'VEHICLE_ACTIONS',
      'APP_ACCESS',
    ],
    stationBased: true,
    freeFloating: false,
    requiresStoredBooking: false,
  },
  scoot: {
    modalities: ['SCOOTER'],
    operations: ['SEARCH', 'QR_LOOKUP', 'TRIPS', 'VEHICLE_ACTIONS', 'ZONES'],
    stationBased: false,
    freeFloating: true,
    requiresStoredBooking: false,
  },
  bike: {
    modalities: ['BIKE'],
    operations: ['SEARCH', 'ZONES'],
    stationBased: true,
    freeFloating: true,
    requiresStoredBooking: false,
  },
  transit: {
    modalities: ['PUBLIC_TRANSPORT'],
    operations: [
      'STOPS',
      'DEPARTURES',
      'JOURNEYS',
      'PREBOOK',
      'BOOK',
      'CANCEL',
      'TICKETS',
      'SUBSCRIPTIONS',
      'VEHICLE_POSITIONS',
      'ALERTS',
    ],
    stationBased: true,
    freeFloating: false,
    requiresStoredBooking: true,
  },
} satisfies Record<string, Capabilities>

export type SandboxProfile = keyof typeof SANDBOX_PROFILES

export interface SandboxOptions {
  profile: SandboxProfile
  /** Simulated provider latency in ms for every call. */
  latencyMs: number
  /**
   * Car profiles: extra time a prebook takes, as a real provider holding a car does (default 100), so concurrent
   * prebooks of one offer meet while the first one runs (409 INTERNAL_ERROR, spec 7.2).
   */
  prebookLatencyMs?: number
  /** Share of calls (0..1) that fail as a provider error would. */
  failureRate: number
  /** Micromobility profiles: vehicles in the fleet (default: scoot 400, bike 250). */
  fleetSize?: number
  /** Micromobility profiles: another seed gives another deterministic fleet (default: the provider id). */
  seed?: string | number
  /** Operations this provider pretends not to offer (to try how clients handle a provider lacking one). */
  disabledOperations?: string[]
}

/** The profile a provider id names: the binding sandbox ids (`sandbox-rent` ...) need no `options.profile`. */
const profileOfId = (id: string | undefined) => {
  const named = id?.startsWith('sandbox-') ? id.slice('sandbox-'.length) : undefined
  return named && named in SANDBOX_PROFILES ? named : undefined
}

export function parseSandboxOptions(raw: Record<string, unknown> = {}, providerId?: string): SandboxOptions {
  const profile = raw.profile ?? profileOfId(providerId)
  if (typeof profile !== 'string' || !(profile in SANDBOX_PROFILES)) {
    throw new Error(
      `options.profile must be one of ${Object.keys(SANDBOX_PROFILES).join(', ')}` +
        ' (it may be left out for the ids sandbox-rent, sandbox-share, sandbox-scoot, sandbox-bike, sandbox-transit)',
    )
  }
  const latencyMs = raw.latencyMs ?? 0
  const prebookLatencyMs = raw.prebookLatencyMs ?? (profile === 'rent' || profile === 'share' ? 100 : 0)
  if (
    typeof prebookLatencyMs !== 'number' ||
    !Number.isFinite(prebookLatencyMs) ||
    prebookLatencyMs < 0 ||
    prebookLatencyMs > 60_000
  ) {
    throw new Error('options.prebookLatencyMs must be a number between 0 and 60000')
  }
  const failureRate = raw.failureRate ?? 0
  if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0 || latencyMs > 60_000) {
    throw new Error('options.latencyMs must be a number between 0 and 60000')
  }
  if (typeof failureRate !== 'number' || Number.isNaN(failureRate) || failureRate < 0 || failureRate > 1) {
    throw new Error('options.failureRate must be a number between 0 and 1')
  }
  const { fleetSize, seed } = raw
  if (
    fleetSize !== undefined &&
    (typeof fleetSize !== 'number' || !Number.isInteger(fleetSize) || fleetSize < 1 || fleetSize > 10_000)
  ) {
    throw new Error('options.fleetSize must be an integer between 1 and 10000')
  }
  if (
    seed !== undefined &&
    !(typeof seed === 'string' && seed.length > 0 && seed.length <= 200) &&
    !(typeof seed === 'number' && Number.isFinite(seed))
  ) {
    throw new Error('options.seed must be a number or a non-empty string')
  }
  const disabled = raw.disabledOperations
  if (disabled !== undefined && !(Array.isArray(disabled) && disabled.every((o) => typeof o === 'string'))) {
    throw new Error('options.disabledOperations must be a list of operation names')
  }
  const unknown = ((disabled as string[] | undefined) ?? []).filter(
    (o) => !(SANDBOX_PROFILES[profile as SandboxProfile].operations as readonly string[]).includes(o),
  )
  if (unknown.length > 0)
    throw new Error(`options.disabledOperations: ${unknown.join(', ')} not offered by profile ${profile}`)
  return {
    profile: profile as SandboxProfile,
    latencyMs,
    failureRate,
    ...(prebookLatencyMs > 0 ? { prebookLatencyMs } : {}),
    ...(disabled === undefined ? {} : { disabledOperations: disabled as string[] }),
    ...(fleetSize === undefined ? {} : { fleetSize }),
    ...(seed === undefined ? {} : { seed }),
  }
}

const capabilitiesOf = (profile: SandboxProfile, disabled: string[] = []): Capabilities => {
  const capabilities = SANDBOX_PROFILES[profile]
  return {
    ...capabilities,
    modalities: [...capabilities.modalities],
    operations: capabilities.operations.filter((o) => !disabled.includes(o)),
  } as Capabilities
}

/**
 * Profiles `rent` and `share` are simulated car providers (CarConnector, see ./cars), `scoot` and `bike` simulated
 * micromobility providers (MicromobilityConnector, see ./micro), `transit` a simulated public-transport provider
 * (PublicTransportConnector with ticketing, see ./transit) over the bundled Berlin GTFS feed.
 */
export const sandbox: ConnectorFactory = (entry, deps) => {
  const options = parseSandboxOptions(entry.options, entry.id)
  const capabilities = capabilitiesOf(options.profile, options.disabledOperations)
  if (options.profile === 'rent' || options.profile === 'share') {
    return createSandboxCarConnector(options.profile, entry, deps, capabilities, options) satisfies CarConnector
  }
  if (options.profile === 'scoot' || options.profile === 'bike') {
    return createSandboxMicroConnector(
      options.profile,
      entry,
      deps,
      capabilities,
      options,
    ) satisfies MicromobilityConnector
  }
  return createSandboxTransitConnector(
    entry,
    deps,
    capabilities,
    options,
    new URL('./transit/feed/', import.meta.url),
  ) satisfies PublicTransportConnector
}
