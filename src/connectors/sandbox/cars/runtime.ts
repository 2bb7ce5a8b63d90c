import { ApiError } from '../../../contract/errors.ts'
import type { ProviderBooking } from '../../types/cars.ts'
import type { CallContext, ConnectorDeps, ProviderEntry } from '../../types/common.ts'
import { hasScenario, type SimulationOptions, simulation } from '../common.ts'
import { buildTerms, location, type OfferScope, policyInput, quoteFor, type Resolved, resolve } from './offers.ts'
import type { ProfileKind } from './policies.ts'
import { rentalDays } from './pricing.ts'
import { CAR_PROFILES } from './profiles.ts'
import type { OfferParams } from './refs.ts'
import { type BookingRecord, sandboxStore } from './store.ts'

/** What the operations of one sandbox car provider share: its profile, state, simulation and presentation. */
export function carRuntime(kind: ProfileKind, entry: ProviderEntry, deps: ConnectorDeps, options: SimulationOptions) {
  const profile = CAR_PROFILES[kind]
  const store = sandboxStore(deps.kv, entry.id, profile.referencePrefix)
  const enter = simulation(entry.id, options)
  const websiteUrl = (entry.websiteUrl ?? `https://${kind}.sandbox.example`).replace(/\/$/, '')
  const contact = {
    phone: entry.contact?.phone ?? '+49 30 1234560',
    email: entry.contact?.email ?? `support@${kind}.sandbox.example`,
    url: entry.contact?.url ?? `${websiteUrl}/help`,
  }
  const scopeOf = (ctx: CallContext): OfferScope => ({
    profile,
    providerId: entry.id,
    websiteUrl,
    contact,
    language: ctx.language,
  })
  const soldOut = (ctx: CallContext) => hasScenario(ctx, entry.id, 'sold-out')
  const expired = (reason: string) => new ApiError('OFFER_EXPIRED', undefined, { reason })

  async function freeOf(ctx: CallContext, r: Resolved, except?: string) {
    const free = await store.freeUnits(ctx.environment, r.pickup.id, { [r.model.id]: r.units }, r.start, r.end, except)
    return free[r.model.id]
  }

  /** The offer behind a reference, still bookable now: OFFER_EXPIRED (SOLD_OUT, PICKUP_TIME_PASSED) otherwise. */
  async function bookable(ctx: CallContext, params: OfferParams) {
    const r = resolve(profile, params)
    if (r.start <= ctx.now) throw expired('PICKUP_TIME_PASSED')
    if (soldOut(ctx)) throw expired('SOLD_OUT')
    const free = await freeOf(ctx, r)
    if (free <= 0) throw expired('SOLD_OUT')
    return { r, free }
  }

  async function load(ctx: CallContext, reference: string): Promise<BookingRecord> {
    const record = await store.getBooking(ctx.environment, reference)
    if (!record) throw new ApiError('NOT_FOUND', `No booking ${reference} at this provider`)
    return record
  }

  const policyOf = (ctx: CallContext, record: BookingRecord, r: Resolved) =>
    policyInput(scopeOf(ctx), r, record.price.totalPrice.amount, record.lateFee, ctx.now)

  function present(ctx: CallContext, record: BookingRecord): ProviderBooking {
    const r = resolve(profile, record.offer)
    const scope = scopeOf(ctx)
    const total = record.price.totalPrice.amount
    const terms = buildTerms(scope, r, total, record.lateFee, rentalDays(r.start, r.end), ctx.now)
    const booked = new Set(record.upsells)
    return {
      reference: record.reference,
      status: record.status,
      vehicle: { ...r.model.vehicle, features: [...r.model.vehicle.features] },
      pickupLocation: location(r.pickup, ctx.language),
      dropoffLocation: location(r.dropoff, ctx.language),
      rentalPeriod: { start: record.offer.a, end: record.offer.b },
      price: record.price,
      chargedRate: record.cancellation
        ? record.cancellation.fee
        : { amount: total, currency: record.price.totalPrice.currency },
      insurance: r.model.insurance,
      refillPolicy: r.model.refillPolicy,
      mileageAllowance: quoteFor(profile, record.offer, r, { ratePercent: record.ratePercent, language: ctx.language })
        .mileageAllowance,
      upsells: terms.upsells.filter(
        (u) => u.availability === 'ALWAYS_INCLUDED' || u.availability === 'INCLUDED' || booked.has(u.referenceCode),
      ),
      terms,
      ...(record.accessMethod ? { accessMethod: record.accessMethod } : {}),
      operatorAccount: { ...profile.operatorAccount },
      ...(record.cancellation ? { cancellation: record.cancellation } : {}),
    }
  }

  return { entry, profile, store, enter, scopeOf, soldOut, expired, bookable, load, policyOf, present }
}

export type CarRuntime = ReturnType<typeof carRuntime>
