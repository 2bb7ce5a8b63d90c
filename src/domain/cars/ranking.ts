import type { CarFilters, Recommendation, SortBy } from '../../api/cars/schemas.ts'
import type { ProviderCarOffer } from '../../connectors/types.ts'

/** An offer in a search session: the provider's offer plus who made it and how it scored. */
export interface PooledOffer {
  providerId: string
  offer: ProviderCarOffer
  recommendation?: Recommendation
}

export function matchesFilters(offer: ProviderCarOffer, filters: CarFilters | undefined): boolean {
  if (!filters) return true
  const v = offer.vehicle
  if (filters.category && !filters.category.includes(v.category)) return false
  if (filters.minSeats !== undefined && v.seats < filters.minSeats) return false
  if (filters.minDoors !== undefined && v.doors < filters.minDoors) return false
  if (filters.fuelType && !filters.fuelType.includes(v.fuelType)) return false
  if (filters.transmission && !filters.transmission.includes(v.transmission)) return false
  if (filters.refillPolicy && !filters.refillPolicy.includes(offer.refillPolicy)) return false
  if (filters.insuranceCoverage && !filters.insuranceCoverage.includes(offer.insurance)) return false
  if (filters.unlimitedMileage === true && !offer.mileageAllowance.unlimited) return false
  if (filters.requiredFeatures && !filters.requiredFeatures.every((f) => v.features.includes(f))) return false
  if (filters.minLuggageCapacity !== undefined && (v.luggageCapacity ?? 0) < filters.minLuggageCapacity) return false
  if (filters.maxPricePerDay !== undefined && offer.pricePerDay.amount > filters.maxPricePerDay) return false
  if (filters.maxTotalPrice !== undefined && offer.price.totalPrice.amount > filters.maxTotalPrice) return false
  return true
}

type Axis = 'cost' | 'time' | 'co2'
const WEIGHTS: Record<Axis, number> = { cost: 0.5, time: 0.3, co2: 0.2 }
const REASONS: Record<Axis, Recommendation['reasonCode']> = {
  cost: 'LOWEST_PRICE',
  time: 'SHORTEST_DISTANCE',
  co2: 'LOWEST_CO2',
}
const REASON_TEXT: Record<Recommendation['reasonCode'], string> = {
  BEST_OVERALL: 'Best balance of price, distance and emissions in this search',
  LOWEST_PRICE: 'Scores best on price',
  SHORTEST_DISTANCE: 'Scores best on distance to the searched location',
  LOWEST_CO2: 'Scores best on CO2 emissions',
}

const axisValue = (o: ProviderCarOffer, axis: Axis): number | undefined =>
  axis === 'cost' ? o.price.totalPrice.amount : axis === 'time' ? o.distanceMeters : o.vehicle.co2Emissions

/** The range of each axis over a result set; an axis counts only when every offer has a value for it. */
export type AxisRanges = Partial<Record<Axis, { min: number; max: number }>>

export function axisRanges(offers: ProviderCarOffer[]): AxisRanges {
  const ranges: AxisRanges = {}
  if (offers.length === 0) return ranges
  for (const axis of Object.keys(WEIGHTS) as Axis[]) {
    const values = offers.map((o) => axisValue(o, axis))
    if (values.some((v) => v === undefined || !Number.isFinite(v))) continue
    ranges[axis] = { min: Math.min(...(values as number[])), max: Math.max(...(values as number[])) }
  }
  return ranges
}

export const widenRanges = (a: AxisRanges, b: AxisRanges): AxisRanges => {
  const out: AxisRanges = {}
  for (const axis of Object.keys(WEIGHTS) as Axis[]) {
    if (a[axis] && b[axis]) {
      out[axis] = { min: Math.min(a[axis].min, b[axis].min), max: Math.max(a[axis].max, b[axis].max) }
    }
  }
  return out
}

/**
 * Scores 0..100 from the axes available across the result set (lower price, distance and CO2 are better; each
 * factor 0..1, min–max normalized). The single top-scored offer is BEST_OVERALL unless `bestTaken`; the others are
 * named after their best axis.
 */
export function recommend(pool: PooledOffer[], ranges: AxisRanges, bestTaken: boolean): boolean {
  const axes = (Object.keys(WEIGHTS) as Axis[]).filter((a) => ranges[a])
  if (axes.length === 0) return bestTaken
  const weight = axes.reduce((sum, a) => sum + WEIGHTS[a], 0)
  for (const item of pool) {
    const factors: Recommendation['factors'] = {}
    let score = 0
    for (const axis of axes) {
      const { min, max } = ranges[axis]!
      const value = axisValue(item.offer, axis) ?? max
      const factor = max === min ? 1 : Math.min(1, Math.max(0, (max - value) / (max - min)))
      factors[axis] = Math.round(factor * 1000) / 1000
      score += (WEIGHTS[axis] / weight) * factor
    }
    const best = axes.reduce((a, b) => ((factors[b] ?? 0) > (factors[a] ?? 0) ? b : a))
    const reasonCode = REASONS[best]
    item.recommendation = { score: Math.round(score * 100), reasonCode, reason: REASON_TEXT[reasonCode], factors }
  }
  if (bestTaken || pool.length === 0) return bestTaken
  const top = pool.reduce((a, b) => ((b.recommendation?.score ?? 0) > (a.recommendation?.score ?? 0) ? b : a))
  top.recommendation!.reasonCode = 'BEST_OVERALL'
  top.recommendation!.reason = REASON_TEXT.BEST_OVERALL
  return true
}

/**
 * A search session's pool, compact: it lives for 30 minutes per search, so it holds no object per offer of its own.
 * The offers are the providers' (shared, never changed), and each recommendation is one number (see packRecommendation).
 */
export interface PackedPool {
  offers: ProviderCarOffer[]
  providerIds: string[]
  recommendations: number[]
}

const REASON_ORDER: Recommendation['reasonCode'][] = ['BEST_OVERALL', 'LOWEST_PRICE', 'SHORTEST_DISTANCE', 'LOWEST_CO2']
const AXES: Axis[] = ['cost', 'time', 'co2']
/** A factor in thousandths (0..1000), or ABSENT for an axis the result set lacks. */
const FACTOR_STATES = 1002
const ABSENT = 1001

/**
 * A recommendation as one number (mixed radix: score 0..100, reason 0..3, then each factor in thousandths or absent);
 * -1 for none. Factors are rounded to thousandths already, so nothing is lost.
 */
export function packRecommendation(r: Recommendation | undefined): number {
  if (!r) return -1
  let factors = 0
  for (const axis of [...AXES].reverse()) {
    const f = r.factors[axis]
    factors = factors * FACTOR_STATES + (f === undefined ? ABSENT : Math.round(f * 1000))
  }
  return r.score + 101 * (REASON_ORDER.indexOf(r.reasonCode) + 4 * factors)
}

export function unpackRecommendation(n: number): Recommendation | undefined {
  if (n < 0) return undefined
  const score = n % 101
  let rest = Math.floor(n / 101)
  const reasonCode = REASON_ORDER[rest % 4]
  rest = Math.floor(rest / 4)
  const factors: Recommendation['factors'] = {}
  for (const axis of AXES) {
    const f = rest % FACTOR_STATES
    rest = Math.floor(rest / FACTOR_STATES)
    if (f !== ABSENT) factors[axis] = f / 1000
  }
  return { score, reasonCode, reason: REASON_TEXT[reasonCode], factors }
}

export const packPool = (items: PooledOffer[]): PackedPool => ({
  offers: items.map((i) => i.offer),
  providerIds: items.map((i) => i.providerId),
  recommendations: items.map((i) => packRecommendation(i.recommendation)),
})

/** Entries `from` (inclusive) to `to` (exclusive) of a packed pool. */
export function unpackPool(pool: PackedPool, from = 0, to = pool.offers.length): PooledOffer[] {
  const items: PooledOffer[] = []
  for (let i = from; i < Math.min(to, pool.offers.length); i++) {
    const recommendation = unpackRecommendation(pool.recommendations[i])
    items.push({
      providerId: pool.providerIds[i],
      offer: pool.offers[i],
      ...(recommendation ? { recommendation } : {}),
    })
  }
  return items
}

export function sortOffers(pool: PooledOffer[], sortBy: SortBy): PooledOffer[] {
  const price = (p: PooledOffer) => p.offer.price.totalPrice.amount
  const tie = (a: PooledOffer, b: PooledOffer) => a.offer.distanceMeters - b.offer.distanceMeters || price(a) - price(b)
  const compare: Record<SortBy, (a: PooledOffer, b: PooledOffer) => number> = {
    PRICE_LOW_TO_HIGH: (a, b) => price(a) - price(b) || tie(a, b),
    PRICE_HIGH_TO_LOW: (a, b) => price(b) - price(a) || tie(a, b),
    DISTANCE: (a, b) => a.offer.distanceMeters - b.offer.distanceMeters || price(a) - price(b),
    RECOMMENDED: (a, b) =>
      Number(b.recommendation?.reasonCode === 'BEST_OVERALL') -
        Number(a.recommendation?.reasonCode === 'BEST_OVERALL') ||
      (b.recommendation?.score ?? 0) - (a.recommendation?.score ?? 0) ||
      tie(a, b),
  }
  return [...pool].sort(compare[sortBy])
}
