import { randomBytes, randomUUID } from 'node:crypto'
import type { Kv } from '../../../platform/kv/types.ts'
import { STATE_TTL_MS, stateKeyPrefix, withKvLock } from '../common.ts'

/** How long the provider keeps a trip's record. */
const TRIP_TTL_MS = 30 * 24 * 3_600_000

/**
 * What differs from the base fleet for one vehicle: where it was left, its charge, and whether it is held (reserved
 * or in a ride) and until when the provider keeps holding it should nobody release it.
 */
export interface VehicleOverlay {
  latitude: number
  longitude: number
  batteryPercent?: number
  held?: 'RESERVED' | 'ACTIVE'
  /** ms since epoch; a hold past this time no longer counts. */
  until?: number
  reference?: string
}

interface OverlayDoc {
  v: 1
  version: string
  vehicles: Record<string, VehicleOverlay>
}

/** The provider's own record of a trip (a reservation, a ride, or a reservation that became a ride). */
export interface TripRecord {
  v: 1
  reference: string
  vehicleId: string
  status: 'RESERVED' | 'ACTIVE' | 'ENDED' | 'RELEASED'
  locked: boolean
  reservedAt?: string
  startedAt?: string
  endedAt?: string
  /** ms since epoch: the provider holds the vehicle for the trip until then (a reservation, then a ride). */
  holdUntil: number
  startLocation?: { latitude: number; longitude: number }
  endLocation?: { latitude: number; longitude: number }
}

/** The changed vehicles as one instance last read them, under the version that was current then. */
export interface FleetView {
  /** Undefined while nothing ever changed. */
  version: string | undefined
  vehicles: Record<string, VehicleOverlay>
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * The state of a simulated micromobility provider in the shared key-value store, under
 * `sandbox:<providerId>:<environment>:`:
 * - `hold:<vehicleId>`: who holds the vehicle (a trip reference), set with setIfAbsent, so one trip at most holds it;
 * - `fleet`: every vehicle that differs from the base fleet (moved, drained, held), changed only under `lock:fleet`;
 * - `version`: a fresh token on every change of `fleet`, read once per fleet() so an unchanged fleet costs one read;
 * - `trip:<reference>`: the trip records, changed only under `lock:trip:<reference>`.
 */
export function microStore(kv: Kv, providerId: string, referencePrefix: string) {
  const key = (env: string, rest: string) => `${stateKeyPrefix(providerId, env)}${rest}`
  const views = new Map<string, FleetView>()
  const referencePattern = new RegExp(`^${referencePrefix}-[0-9A-Z]{10}$`)

  async function readDoc(env: string): Promise<OverlayDoc | undefined> {
    const text = await kv.get(key(env, 'fleet'))
    return text ? (JSON.parse(text) as OverlayDoc) : undefined
  }

  return {
    /** The changed vehicles; one read when nothing changed since this instance last looked. */
    async view(env: string): Promise<FleetView> {
      const version = await kv.get(key(env, 'version'))
      const cached = views.get(env)
      if (cached && cached.version === version) return cached
      // Read after the version: should the fleet change in between, the next call sees a new version and reads again.
      const doc = version === undefined ? undefined : await readDoc(env)
      const view: FleetView = { version: doc?.version ?? version, vehicles: doc?.vehicles ?? {} }
      views.set(env, view)
      return view
    },

    /**
     * Changes one vehicle's overlay under the fleet lock: `change` gets the current overlay (undefined when the
     * vehicle is as in the base fleet) and answers the new one (undefined: back to the base; `current` itself: no
     * change) or throws to change nothing. Answers what `change` answered.
     */
    async update(
      env: string,
      vehicleId: string,
      change: (current: VehicleOverlay | undefined) => VehicleOverlay | undefined,
    ): Promise<VehicleOverlay | undefined> {
      return withKvLock(
        kv,
        key(env, 'lock:fleet'),
        async () => {
          const doc = (await readDoc(env)) ?? { v: 1, version: '', vehicles: {} }
          const current = doc.vehicles[vehicleId]
          const next = change(current)
          if (next === current) return next
          if (next) doc.vehicles[vehicleId] = next
          else delete doc.vehicles[vehicleId]
          doc.version = randomUUID()
          await kv.set(key(env, 'fleet'), JSON.stringify(doc), STATE_TTL_MS)
          await kv.set(key(env, 'version'), doc.version, STATE_TTL_MS)
          return next
        },
        { busyReason: 'FLEET_BUSY' },
      )
    },

    /** Holds the vehicle for `reference`; false when someone else holds it. */
    hold: (env: string, vehicleId: string, reference: string, ttlMs: number) =>
      kv.setIfAbsent(key(env, `hold:${vehicleId}`), reference, ttlMs),
    holder: (env: string, vehicleId: string) => kv.get(key(env, `hold:${vehicleId}`)),
    /** Gives the hold up, only if `reference` still has it. */
    unhold: (env: string, vehicleId: string, reference: string) =>
      kv.deleteIfEquals(key(env, `hold:${vehicleId}`), reference),
    /** Keeps holding the vehicle for `reference` for `ttlMs` from now; false when the hold was lost meanwhile. */
    async extendHold(env: string, vehicleId: string, reference: string, ttlMs: number) {
      if (!(await kv.deleteIfEquals(key(env, `hold:${vehicleId}`), reference))) return false
      return kv.setIfAbsent(key(env, `hold:${vehicleId}`), reference, ttlMs)
    },

    /** A new trip reference such as `SC-7K2M9Q4XAB` (50 random bits). */
    newReference(): string {
      let n = BigInt(`0x${randomBytes(7).toString('hex')}`)
      let code = ''
      for (let i = 0; i < 10; i++) {
        code += CROCKFORD[Number(n & 31n)]
        n >>= 5n
      }
      return `${referencePrefix}-${code}`
    },

    async getTrip(env: string, reference: string): Promise<TripRecord | undefined> {
      if (!referencePattern.test(reference)) return undefined
      const text = await kv.get(key(env, `trip:${reference}`))
      return text ? (JSON.parse(text) as TripRecord) : undefined
    },

    async saveTrip(env: string, trip: TripRecord) {
      await kv.set(key(env, `trip:${trip.reference}`), JSON.stringify(trip), TRIP_TTL_MS)
    },

    /** Runs `fn` holding the trip's lock, so its record changes in one place at a time. */
    withTrip: <T>(env: string, reference: string, fn: () => Promise<T>) =>
      withKvLock(kv, key(env, `lock:trip:${reference}`), fn, { busyReason: 'TRIP_BUSY' }),
  }
}

export type MicroStore = ReturnType<typeof microStore>
