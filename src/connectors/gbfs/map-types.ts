import type { PricingPlan, PropulsionType, VehicleType } from '../../contract/micromobility.ts'
import { toMinor } from '../../platform/money.ts'
import { defaultName } from '../shared/vehicle-names.ts'
import { type Envelope, id, isObject, num, type Report, short, text } from './map.ts'

// ---------------------------------------------------------------------------------------------------------------
// vehicle_types

export interface VehicleTypeInfo {
  type: VehicleType
  propulsionType: PropulsionType
  name: string
  defaultPricingPlanId?: string
}

const FORM_FACTORS: Record<string, VehicleType> = {
  bicycle: 'BICYCLE',
  cargo_bicycle: 'CARGO_BICYCLE',
  car: 'CAR',
  moped: 'MOPED',
  scooter: 'SCOOTER', // 2.x
  scooter_standing: 'SCOOTER',
  scooter_seated: 'SCOOTER',
  other: 'OTHER',
}

const PROPULSION_TYPES: Record<string, PropulsionType> = {
  human: 'HUMAN',
  electric_assist: 'ELECTRIC_ASSIST',
  electric: 'ELECTRIC',
  combustion: 'COMBUSTION',
  combustion_diesel: 'COMBUSTION',
  hybrid: 'HYBRID',
  plug_in_hybrid: 'HYBRID',
  hydrogen_fuel_cell: 'OTHER',
}

/** GBFS assumes bicycles where a system publishes no vehicle types. */
export const DEFAULT_VEHICLE_TYPE: VehicleTypeInfo = { type: 'BICYCLE', propulsionType: 'HUMAN', name: 'Bicycle' }
/** A vehicle whose declared type is not published. */
export const UNKNOWN_VEHICLE_TYPE: VehicleTypeInfo = { type: 'OTHER', propulsionType: 'OTHER', name: 'Vehicle' }

export function mapVehicleTypes(envelope: Envelope, language: string | undefined, report: Report) {
  const types = new Map<string, VehicleTypeInfo>()
  const list = envelope.data.vehicle_types as unknown[]
  for (const [i, raw] of list.entries()) {
    if (!isObject(raw)) {
      report(`vehicle type #${i} is not an object; skipped`)
      continue
    }
    const typeId = id(raw.vehicle_type_id)
    if (!typeId) {
      report(`vehicle type #${i} has no vehicle_type_id; skipped`)
      continue
    }
    if (types.has(typeId)) {
      report(`vehicle type ${typeId} appears twice; the first is kept`)
      continue
    }
    let type = FORM_FACTORS[String(raw.form_factor)]
    if (!type) {
      report(`vehicle type ${typeId}: unknown form_factor ${short(raw.form_factor)}; taken as OTHER`)
      type = 'OTHER'
    }
    let propulsionType = PROPULSION_TYPES[String(raw.propulsion_type)]
    if (!propulsionType) {
      report(`vehicle type ${typeId}: unknown propulsion_type ${short(raw.propulsion_type)}; taken as OTHER`)
      propulsionType = 'OTHER'
    }
    const makeModel = [text(raw.make, language), text(raw.model, language)].filter(Boolean).join(' ')
    const name = text(raw.name, language) ?? (makeModel || defaultName(type, propulsionType))
    const defaultPricingPlanId = id(raw.default_pricing_plan_id)
    types.set(typeId, { type, propulsionType, name, ...(defaultPricingPlanId ? { defaultPricingPlanId } : {}) })
  }
  return types
}

// ---------------------------------------------------------------------------------------------------------------
// system_pricing_plans

export function mapPricingPlans(envelope: Envelope, language: string | undefined, report: Report) {
  const plans = new Map<string, PricingPlan>()
  const list = envelope.data.plans as unknown[]
  for (const [i, raw] of list.entries()) {
    if (!isObject(raw)) {
      report(`pricing plan #${i} is not an object; skipped`)
      continue
    }
    const planId = id(raw.plan_id)
    if (!planId) {
      report(`pricing plan #${i} has no plan_id; skipped`)
      continue
    }
    if (plans.has(planId)) {
      report(`pricing plan ${planId} appears twice; the first is kept`)
      continue
    }
    const currency = typeof raw.currency === 'string' ? raw.currency.trim().toUpperCase() : ''
    if (!/^[A-Z]{3}$/.test(currency)) {
      report(`pricing plan ${planId}: currency ${short(raw.currency)} is not ISO 4217; skipped`)
      continue
    }
    const price = num(raw.price)
    if (price === undefined || price < 0) {
      report(`pricing plan ${planId}: price ${short(raw.price)} is not a non-negative number; skipped`)
      continue
    }

    // The first segment (lowest `start`) is the rate a rider pays from the first minute; a rate per `interval`
    // minutes is spread over the minutes of the interval.
    const segments = (Array.isArray(raw.per_min_pricing) ? raw.per_min_pricing : [])
      .filter(isObject)
      .map((s) => ({ start: num(s.start) ?? 0, rate: num(s.rate), interval: num(s.interval) ?? 1 }))
      .filter((s): s is { start: number; rate: number; interval: number } => s.rate !== undefined && s.rate >= 0)
      .sort((a, b) => a.start - b.start)
    if (Array.isArray(raw.per_min_pricing) && segments.length === 0) {
      report(`pricing plan ${planId}: per_min_pricing has no usable segment`)
    }
    const first = segments[0]
    const interval = first && first.interval > 0 ? first.interval : 1
    const perMinuteRate: PricingPlan['perMinuteRate'] = first
      ? {
          amount: toMinor(first.rate / interval, currency),
          currency,
          ...(interval !== 1 ? { description: `${first.rate} ${currency} per ${interval} minutes` } : {}),
        }
      : {
          amount: 0,
          currency,
          description: Array.isArray(raw.per_km_pricing) ? 'charged by distance, not by time' : 'no per-minute charge',
        }
    plans.set(planId, {
      planId,
      name: text(raw.name, language) ?? planId,
      currency,
      unlockFee: { amount: toMinor(price, currency), currency },
      perMinuteRate,
    })
  }
  return plans
}
