import { randomUUID } from 'node:crypto'
import type { Driver } from '../../../contract/car-bookings.ts'
import type { BookingStatus } from '../../../contract/cars.ts'
import { ApiError } from '../../../contract/errors.ts'
import type { DetailedPrice, Price } from '../../../contract/shared.ts'
import type { Kv } from '../../../platform/kv/types.ts'
import { hash32, STATE_TTL_MS } from '../common.ts'
import type { OfferParams } from './refs.ts'

const LOCK_TTL_MS = 5_000
const LOCK_ATTEMPTS = 100
const LOCK_RETRY_MS = 20

/** One unit of a model held at a station for a period (ms since epoch, end exclusive). */
export interface Allocation {
  ref: string
  start: number
  end: number
}
type Allocations = Record<string, Allocation[]>

/** The provider's own record of a booking. */
export interface BookingRecord {
  v: 1
  reference: string
  status: BookingStatus
  offer: OfferParams
  ratePercent: number
  upsells: string[]
  accessMethod?: 'APP'
  driver: Driver
  additionalFields: Record<string, string | boolean>
  notes?: string
  /** Change fees charged so far, minor units. */
  changeFees: number[]
  price: DetailedPrice
  /** Late-cancellation fee base: one day's (rent) or one hour's (share) rate of the booking. */
  lateFee: number
  createdAt: string
  updatedAt: string
  cancellation?: { cancelledAt: string; fee: Price; refund: Price; reason?: string }
  /** Car sharing: whether the car is locked. */
  locked?: boolean
}

/** Most units of one model in use at the same time during [start, end). */
export function maxConcurrent(allocations: Allocation[], start: number, end: number, except?: string): number {
  const events: [number, number][] = []
  for (const a of allocations) {
    if (a.ref === except || a.end <= start || a.start >= end) continue
    events.push([Math.max(a.start, start), 1], [Math.min(a.end, end), -1])
  }
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  let now = 0
  let max = 0
  for (const [, delta] of events) {
    now += delta
    max = Math.max(max, now)
  }
  return max
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The simulated provider's state in the shared key-value store, under `sandbox:<providerId>:<environment>:`, so that
 * every instance of the service sees the same availability and bookings; live and test never share state.
 */
export function sandboxStore(kv: Kv, providerId: string, referencePrefix: string) {
  const prefix = (environment: string) => `sandbox:${providerId}:${environment}:`
  const allocKey = (env: string, station: string) => `${prefix(env)}alloc:${station}`
  const bookingKey = (env: string, reference: string) => `${prefix(env)}booking:${reference}`
  // One string per environment, made once: a new string per search made every lookup hash it again.
  const versionKeys = new Map<string, string>()
  const versionKey = (env: string) => {
    let key = versionKeys.get(env)
    if (key === undefined) {
      key = `${prefix(env)}availability`
      versionKeys.set(env, key)
    }
    return key
  }

  async function allocations(env: string, station: string): Promise<Allocations> {
    const text = await kv.get(allocKey(env, station))
    return text ? (JSON.parse(text) as Allocations) : {}
  }

  /** Runs `fn` holding the station's lock (allocations change only under it, in every instance). */
  async function withStationLock<T>(env: string, station: string, fn: () => Promise<T>): Promise<T> {
    const key = `${prefix(env)}lock:${station}`
    const owner = randomUUID()
    for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
      if (await kv.setIfAbsent(key, owner, LOCK_TTL_MS)) {
        try {
          return await fn()
        } finally {
          await kv.deleteIfEquals(key, owner)
        }
      }
      await sleep(LOCK_RETRY_MS)
    }
    throw new ApiError('PROVIDER_ERROR', 'The provider is busy; try again', { reason: 'STATION_BUSY' })
  }

  return {
    /**
     * Moves whenever any allocation of the environment changes (after the change is written), so an answer computed
     * under one version is still true while the version stands.
     */
    availabilityVersion: async (env: string) => (await kv.get(versionKey(env))) ?? '0',

    /** Free units of each model at a station for a period. */
    async freeUnits(
      env: string,
      station: string,
      fleet: Record<string, number>,
      start: Date,
      end: Date,
      except?: string,
    ) {
      const all = await allocations(env, station)
      const free: Record<string, number> = {}
      for (const [model, units] of Object.entries(fleet)) {
        free[model] = units - maxConcurrent(all[model] ?? [], start.getTime(), end.getTime(), except)
      }
      return free
    },

    /**
     * Holds one unit of `model` for the period under booking `ref` (replacing the booking's earlier hold, for a change);
     * false when every unit is taken for an overlapping window.
     */
    async hold(
      env: string,
      station: string,
      model: string,
      units: number,
      ref: string,
      start: Date,
      end: Date,
      now: Date,
    ) {
      return withStationLock(env, station, async () => {
        const all = await allocations(env, station)
        const list = (all[model] ?? []).filter((a) => a.end > now.getTime() - 24 * 3_600_000)
        if (maxConcurrent(list, start.getTime(), end.getTime(), ref) >= units) return false
        all[model] = [...list.filter((a) => a.ref !== ref), { ref, start: start.getTime(), end: end.getTime() }]
        await kv.set(allocKey(env, station), JSON.stringify(all), STATE_TTL_MS)
        await kv.increment(versionKey(env), STATE_TTL_MS)
        return true
      })
    },

    async release(env: string, station: string, model: string, ref: string) {
      await withStationLock(env, station, async () => {
        const all = await allocations(env, station)
        if (!all[model]?.some((a) => a.ref === ref)) return
        all[model] = all[model].filter((a) => a.ref !== ref)
        await kv.set(allocKey(env, station), JSON.stringify(all), STATE_TTL_MS)
        await kv.increment(versionKey(env), STATE_TTL_MS)
      })
    },

    /**
     * A new booking reference such as `SR-4K9Q2Z`: an atomic counter, scrambled, so instances never collide. Should
     * the counter have expired and restarted, references of bookings still kept are skipped.
     */
    async nextReference(env: string): Promise<string> {
      const space = 36 ** 6
      const salt = hash32(`${providerId}:${env}`) % space
      for (;;) {
        const n = await kv.increment(`${prefix(env)}seq`, STATE_TTL_MS)
        // 7_919_113 is coprime with 36^6, so the mapping is a bijection on the first 36^6 numbers.
        const code = Number((BigInt(n) * 7_919_113n + BigInt(salt)) % BigInt(space)).toString(36)
        const reference = `${referencePrefix}-${code.toUpperCase().padStart(6, '0')}`
        if ((await kv.get(bookingKey(env, reference))) === undefined) return reference
      }
    },

    async getBooking(env: string, reference: string): Promise<BookingRecord | undefined> {
      if (!reference.startsWith(`${referencePrefix}-`)) return undefined
      const text = await kv.get(bookingKey(env, reference))
      return text ? (JSON.parse(text) as BookingRecord) : undefined
    },

    async saveBooking(env: string, record: BookingRecord) {
      await kv.set(bookingKey(env, record.reference), JSON.stringify(record), STATE_TTL_MS)
    },
  }
}

export type SandboxStore = ReturnType<typeof sandboxStore>
