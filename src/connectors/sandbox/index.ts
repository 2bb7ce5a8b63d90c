import type { Capabilities, CarConnector, Connector, ConnectorFactory } from '../types.ts'
import { createSandboxCarConnector } from './cars/connector.ts'

export { SANDBOX_SCENARIOS } from './cars/scenarios.ts'

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
    operations: ['STOPS', 'DEPARTURES', 'JOURNEYS', 'PREBOOK', 'BOOK', 'CANCEL', 'TICKETS', 'SUBSCRIPTIONS'],
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
  /** Share of calls (0..1) that fail as a provider error would. */
  failureRate: number
}

export function parseSandboxOptions(raw: Record<string, unknown> = {}): SandboxOptions {
  const profile = raw.profile
  if (typeof profile !== 'string' || !(profile in SANDBOX_PROFILES)) {
    throw new Error(`options.profile must be one of ${Object.keys(SANDBOX_PROFILES).join(', ')}`)
  }
  const latencyMs = raw.latencyMs ?? 0
  const failureRate = raw.failureRate ?? 0
  if (typeof latencyMs !== 'number' || !Number.isFinite(latencyMs) || latencyMs < 0 || latencyMs > 60_000) {
    throw new Error('options.latencyMs must be a number between 0 and 60000')
  }
  if (typeof failureRate !== 'number' || Number.isNaN(failureRate) || failureRate < 0 || failureRate > 1) {
    throw new Error('options.failureRate must be a number between 0 and 1')
  }
  return { profile: profile as SandboxProfile, latencyMs, failureRate }
}

const capabilitiesOf = (profile: SandboxProfile): Capabilities => {
  const capabilities = SANDBOX_PROFILES[profile]
  return {
    ...capabilities,
    modalities: [...capabilities.modalities],
    operations: [...capabilities.operations],
  } as Capabilities
}

/**
 * Profiles `rent` and `share` are simulated car providers (CarConnector, see ./cars); the others so far only
 * declare their capabilities.
 */
export const sandbox: ConnectorFactory = (entry, deps) => {
  const options = parseSandboxOptions(entry.options)
  const capabilities = capabilitiesOf(options.profile)
  if (options.profile === 'rent' || options.profile === 'share') {
    return createSandboxCarConnector(options.profile, entry, deps, capabilities, options) satisfies CarConnector
  }
  return { capabilities } satisfies Connector
}
