import type { Kv } from '../../../platform/kv/types.ts'
import type { SubscriptionHolder } from '../../types/public-transport.ts'
import { nextReference, STATE_TTL_MS, stateKeyPrefix, withKvLock } from '../common.ts'
import type { OfferParams } from './refs.ts'

/** Subscriptions run for years; the provider keeps them longer than bookings. */
const SUBSCRIPTION_TTL_MS = 5 * 366 * 24 * 3_600_000

/** The provider's record of a ticket purchase. Ticket issuance is derived from `issueAt` (see ticketing.ts). */
export interface TicketBookingRecord {
  v: 1
  reference: string
  customer: { firstName: string; lastName: string; email: string }
  /** The offers bought, with the price each was sold at (cents). */
  offers: { params: OfferParams; amount: number }[]
  createdAt: string
  /** When the tickets are issued (5 s after booking); absent when they never are (scenario `ticket-delay`). */
  issueAt?: string
  cancellation?: { cancelledAt: string; refund: number }
}

/** The provider's record of a subscription. The status is derived from the dates (see subscriptions.ts). */
export interface SubscriptionRecord {
  v: 1
  reference: string
  productId: string
  holder: Omit<SubscriptionHolder, 'identification'> & {
    identification?: { type: string; numberLast4: string }
  }
  pinSet: boolean
  startDate: string
  createdAt: string
  cancelledAt?: string
  /** The last day it is valid, once cancelled (absent when withdrawn before it started). */
  endDate?: string
  /** Cancelled before it started: it never runs. */
  withdrawn?: boolean
}

/**
 * The state of the simulated transit provider in the shared key-value store, under `sandbox:<providerId>:<environment>:`,
 * so that every instance of the service sees the same bookings and subscriptions:
 * - `booking:<reference>` and `subscription:<reference>`: the records, changed only under `lock:<reference>`;
 * - `seq:booking`, `seq:subscription`: the counters behind references (`ST-XXXXXX`, `SUB-XXXXXX`).
 */
export function transitStore(kv: Kv, providerId: string) {
  const key = (env: string, rest: string) => `${stateKeyPrefix(providerId, env)}${rest}`
  const read = async <T>(k: string) => {
    const text = await kv.get(k)
    return text ? (JSON.parse(text) as T) : undefined
  }
  return {
    newBookingReference: (env: string) =>
      nextReference(
        kv,
        key(env, 'seq:booking'),
        'ST',
        async (r) => (await kv.get(key(env, `booking:${r}`))) !== undefined,
      ),
    newSubscriptionReference: (env: string) =>
      nextReference(
        kv,
        key(env, 'seq:subscription'),
        'SUB',
        async (r) => (await kv.get(key(env, `subscription:${r}`))) !== undefined,
      ),

    getBooking: (env: string, reference: string) =>
      /^ST-[0-9A-Z]{6}$/.test(reference)
        ? read<TicketBookingRecord>(key(env, `booking:${reference}`))
        : Promise.resolve(undefined),
    saveBooking: (env: string, record: TicketBookingRecord) =>
      kv.set(key(env, `booking:${record.reference}`), JSON.stringify(record), STATE_TTL_MS),

    getSubscription: (env: string, reference: string) =>
      /^SUB-[0-9A-Z]{6}$/.test(reference)
        ? read<SubscriptionRecord>(key(env, `subscription:${reference}`))
        : Promise.resolve(undefined),
    saveSubscription: (env: string, record: SubscriptionRecord) =>
      kv.set(key(env, `subscription:${record.reference}`), JSON.stringify(record), SUBSCRIPTION_TTL_MS),

    /** Runs `fn` holding the record's lock, so a booking or subscription changes in one place at a time. */
    withLock: <T>(env: string, reference: string, fn: () => Promise<T>) =>
      withKvLock(kv, key(env, `lock:${reference}`), fn, { busyReason: 'BOOKING_BUSY' }),
  }
}

export type TransitStore = ReturnType<typeof transitStore>
