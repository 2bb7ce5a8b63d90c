import { type StaticDecode, Type } from 'typebox'
import { integerIn, numberIn, parseOptions } from '../shared/options.ts'
import type { Capabilities } from '../types/common.ts'

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

const PROFILE_PROBLEM =
  `must be one of ${Object.keys(SANDBOX_PROFILES).join(', ')}` +
  ' (it may be left out for the ids sandbox-rent, sandbox-share, sandbox-scoot, sandbox-bike, sandbox-transit)'

/** The options of a `sandbox` providers-file entry; options it does not name are ignored, as they always were. */
export const SandboxOptionsSchema = Type.Object({
  profile: Type.Unsafe<SandboxProfile>(
    Type.String({ enum: Object.keys(SANDBOX_PROFILES), problem: PROFILE_PROBLEM, whenMissing: PROFILE_PROBLEM }),
  ),
  /** Simulated provider latency in ms for every call. */
  latencyMs: numberIn(0, 60_000, 0, 'must be a number between 0 and 60000'),
  /**
   * Car profiles: extra time a prebook takes, as a real provider holding a car does (default 100), so concurrent
   * prebooks of one offer meet while the first one runs (409 INTERNAL_ERROR, spec 7.2).
   */
  prebookLatencyMs: Type.Optional(numberIn(0, 60_000, undefined, 'must be a number between 0 and 60000')),
  /** Share of calls (0..1) that fail as a provider error would. */
  failureRate: numberIn(0, 1, 0, 'must be a number between 0 and 1'),
  /** Micromobility profiles: vehicles in the fleet (default: scoot 400, bike 250). */
  fleetSize: Type.Optional(integerIn(1, 10_000, undefined, 'must be an integer between 1 and 10000')),
  /** Micromobility profiles: another seed gives another deterministic fleet (default: the provider id). */
  seed: Type.Optional(
    Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 200 }),
        Type.Number({ minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE }),
      ],
      {
        problem: 'must be a number or a non-empty string',
      },
    ),
  ),
  /** Operations this provider pretends not to offer (to try how clients handle a provider lacking one). */
  disabledOperations: Type.Optional(Type.Array(Type.String(), { problem: 'must be a list of operation names' })),
})

export type SandboxOptions = StaticDecode<typeof SandboxOptionsSchema>

/** The profile a provider id names: the binding sandbox ids (`sandbox-rent` ...) need no `options.profile`. */
const profileOfId = (id: string | undefined) => {
  const named = id?.startsWith('sandbox-') ? id.slice('sandbox-'.length) : undefined
  return named && named in SANDBOX_PROFILES ? named : undefined
}

/** Checks the options of a providers-file entry; throws with every problem (the provider is then UNAVAILABLE). */
export function parseSandboxOptions(raw: Record<string, unknown> = {}, providerId?: string): SandboxOptions {
  const profile = raw.profile ?? profileOfId(providerId)
  const { prebookLatencyMs, ...options } = parseOptions(
    SandboxOptionsSchema,
    {
      ...raw,
      ...(profile === undefined ? {} : { profile }),
      ...(raw.prebookLatencyMs === null ? { prebookLatencyMs: undefined } : {}),
    },
    {
      connector: 'sandbox',
      providerId,
      unknown: 'ignore',
      across: ({ profile, disabledOperations = [] }) => {
        if (!profile) return []
        const offered: readonly string[] = SANDBOX_PROFILES[profile].operations
        const unknown = disabledOperations.filter((o) => !offered.includes(o))
        return unknown.length > 0
          ? [`options.disabledOperations: ${unknown.join(', ')} not offered by profile ${profile}`]
          : []
      },
    },
  )
  // Car providers take their time to prebook unless told otherwise.
  const prebook = prebookLatencyMs ?? (options.profile === 'rent' || options.profile === 'share' ? 100 : 0)
  return { ...options, ...(prebook > 0 ? { prebookLatencyMs: prebook } : {}) }
}
