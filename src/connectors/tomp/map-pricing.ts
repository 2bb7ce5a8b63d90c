import type { PricingPlan } from '../../contract/micromobility.ts'
import { toMinor } from '../../platform/money.ts'
import { isObject, type Json, listOf, num, type Report, short, str } from './map.ts'

/** TOMP /operator/pricing-plans (systemPricingPlan: a fare made of parts) → the domain's pricing plans. */

const PER_MINUTE: Record<string, number> = { SECOND: 60, MINUTE: 1, HOUR: 1 / 60 }

/**
 * A TOMP fare as the domain's plan: FIXED parts are the unlock fee, the first time-based FLEX part the per-minute
 * rate. Discounts, surcharges, ancillaries and pause-only parts are not what a rider pays by default, so they stay out.
 */
export function mapPlan(raw: unknown, report: Report): PricingPlan | undefined {
  if (!isObject(raw)) return void report('a pricing plan is not an object; skipped')
  const planId = str(raw.planId)
  if (!planId) return void report('a pricing plan has no planId; skipped')
  const parts = (isObject(raw.fare) && Array.isArray(raw.fare.parts) ? raw.fare.parts : []).filter(isObject)
  const currencies = new Set(parts.map((p) => str(p.currencyCode)?.toUpperCase()))
  const currency = [...currencies][0]
  if (currencies.size !== 1 || !currency || !/^[A-Z]{3}$/.test(currency)) {
    return void report(`pricing plan ${planId}: no single ISO 4217 currency (${short([...currencies])}); skipped`)
  }
  const standard = parts.filter(
    (p) =>
      (p.kind ?? 'DEFAULT') === 'DEFAULT' && (p.class ?? 'FARE') === 'FARE' && (p.assetState ?? 'IN_USE') === 'IN_USE',
  )
  // The specification: a lone part without a type is FIXED.
  const typeOf = (p: Json) => str(p.type)?.toUpperCase() ?? (parts.length === 1 ? 'FIXED' : undefined)
  let unlock = 0
  for (const p of standard) if (typeOf(p) === 'FIXED') unlock += Math.max(0, num(p.amount) ?? 0)
  const perTime = standard
    .filter((p) => typeOf(p) === 'FLEX' && PER_MINUTE[String(p.unitType).toUpperCase()] !== undefined)
    .map((p) => ({ amount: num(p.amount), units: num(p.units) ?? 1, unit: String(p.unitType).toUpperCase(), p }))
    .filter((f): f is typeof f & { amount: number } => f.amount !== undefined && f.amount >= 0 && f.units > 0)
    .sort((a, b) => (num(a.p.scaleFrom) ?? 0) - (num(b.p.scaleFrom) ?? 0))[0]
  const distance = standard.some((p) => typeOf(p) === 'FLEX' && ['KM', 'MILE'].includes(String(p.unitType)))
  const perMinuteRate: PricingPlan['perMinuteRate'] = perTime
    ? {
        amount: toMinor((perTime.amount / perTime.units) * PER_MINUTE[perTime.unit], currency),
        currency,
        ...(perTime.unit !== 'MINUTE' || perTime.units !== 1
          ? { description: `${perTime.amount} ${currency} per ${perTime.units} ${perTime.unit.toLowerCase()}(s)` }
          : {}),
      }
    : { amount: 0, currency, description: distance ? 'charged by distance, not by time' : 'no per-minute charge' }
  return {
    planId,
    name: str(raw.name) ?? planId,
    currency,
    unlockFee: { amount: toMinor(unlock, currency), currency },
    perMinuteRate,
  }
}

export function mapPricingPlans(raw: unknown, report: Report): Map<string, PricingPlan> {
  const plans = new Map<string, PricingPlan>()
  const list = listOf(raw)
  if (!list) report('pricing plans are not a list; none used')
  for (const item of list ?? []) {
    const plan = mapPlan(item, report)
    if (plan && !plans.has(plan.planId)) plans.set(plan.planId, plan)
  }
  return plans
}

/** The plan an asset type names (by id, resolved against /operator/pricing-plans, or embedded). */
export function planOf(assetType: Json, plans: Map<string, PricingPlan>, report: Report): PricingPlan | undefined {
  const named = [
    assetType.defaultPricingPlan,
    ...(Array.isArray(assetType.applicablePricings) ? assetType.applicablePricings : []),
  ]
  for (const candidate of named) {
    const planId = isObject(candidate) ? str(candidate.planId) : str(candidate)
    const plan =
      (planId && plans.get(planId)) ||
      (isObject(candidate) && isObject(candidate.fare) ? mapPlan(candidate, report) : undefined)
    if (plan) return plan
  }
  return undefined
}
