import type { Driver } from '../../../contract/car-bookings.ts'
import { RENT_FLEET, type SandboxVehicleModel } from './fleet.ts'
import type { ProfileKind } from './policies.ts'
import { SHARE_FLEET, SHARE_STATIONS } from './share.ts'
import { RENT_STATIONS, type SandboxStation } from './stations.ts'
import { RENT_UPSELLS, SHARE_UPSELLS, type UpsellDef } from './upsells.ts'

/** How a sandbox car provider behaves: its data and the rules that differ between rental and sharing. */
export interface CarProfile {
  kind: ProfileKind
  /** Booking references look like `SR-4K9Q2Z` (rent) or `SS-...` (share). */
  referencePrefix: string
  stations: SandboxStation[]
  fleet: Map<string, SandboxVehicleModel>
  upsells: UpsellDef[]
  /** Hourly rates capped per day (sharing) rather than daily rates. */
  hourly: boolean
  /** Pickup and return times are rounded up to this many minutes (0: not rounded). */
  roundMinutes: number
  /** Whether the car can be returned at another station. */
  oneWay: boolean
  appAccess: boolean
  vehicleActions: boolean
  /** Longest rental; longer searches find nothing. */
  maxDays: number
  /** The account bookings run on at the provider (what retention NONE reports as the driver). */
  operatorAccount: Driver
}

const byId = (fleet: SandboxVehicleModel[]) => new Map(fleet.map((m) => [m.id, m]))

export const CAR_PROFILES: Record<ProfileKind, CarProfile> = {
  rent: {
    kind: 'rent',
    referencePrefix: 'SR',
    stations: RENT_STATIONS,
    fleet: byId(RENT_FLEET),
    upsells: RENT_UPSELLS,
    hourly: false,
    roundMinutes: 30,
    oneWay: true,
    appAccess: false,
    vehicleActions: false,
    maxDays: 90,
    operatorAccount: { firstName: 'Sandbox', lastName: 'Operator', email: 'ops@rent.sandbox.example' },
  },
  share: {
    kind: 'share',
    referencePrefix: 'SS',
    stations: SHARE_STATIONS,
    fleet: byId(SHARE_FLEET),
    upsells: SHARE_UPSELLS,
    hourly: true,
    roundMinutes: 0,
    oneWay: false,
    appAccess: true,
    vehicleActions: true,
    maxDays: 30,
    operatorAccount: { firstName: 'Sandbox', lastName: 'Operator', email: 'ops@share.sandbox.example' },
  },
}

/** `date` rounded up to the next multiple of `minutes` (unchanged when already on one, or when minutes is 0). */
function roundUp(date: Date, minutes: number): Date {
  if (!minutes) return date
  const step = minutes * 60_000
  return new Date(Math.ceil(date.getTime() / step) * step)
}

/**
 * A rental period rounded up to the provider's step. When both times round to the same step (a request shorter than
 * one step), the rental lasts one step: rounding never makes a rental without length.
 */
export function roundPeriod(start: Date, end: Date, minutes: number): { start: Date; end: Date } {
  const from = roundUp(start, minutes)
  const to = roundUp(end, minutes)
  return { start: from, end: to > from ? to : new Date(from.getTime() + Math.max(minutes, 1) * 60_000) }
}
