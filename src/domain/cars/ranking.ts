import type { ProviderCarOffer } from '../../connectors/types/cars.ts'
import type { CarFilters, Recommendation, SortBy } from '../../contract/cars.ts'
import { recommendationReason } from '../../platform/i18n/index.ts'

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

const REASON_ORDER: Recommendation['reasonCode'][] = ['BEST_OVERALL', 'LOWEST_PRICE', 'SHORTEST_DISTANCE', 'LOWEST_CO2']
const AXES: Axis[] = ['cost', 'time', 'co2']

/**
 * The three sort and score keys of each offer, read once per search: every later pass (ranges, scores, order) reads
 * these arrays instead of each provider's offer objects, whose differing shapes make every property read slow.
 * A missing or non-finite CO2 value is NaN.
 */
export interface OfferKeys {
  cost: Float64Array
  time: Float64Array
  co2: Float64Array
}

export function offerKeys(offers: readonly ProviderCarOffer[]): OfferKeys {
  return readKeys(offers).keys
}

function readKeys(offers: readonly ProviderCarOffer[]): { keys: OfferKeys; frozen: boolean } {
  const n = offers.length
  const keys = { cost: new Float64Array(n), time: new Float64Array(n), co2: new Float64Array(n) }
  let frozen = Object.isFrozen(offers)
  for (let i = 0; i < n; i++) {
    const o = offers[i]
    keys.cost[i] = o.price.totalPrice.amount
    keys.time[i] = o.distanceMeters
    const co2 = o.vehicle.co2Emissions
    keys.co2[i] = co2 === undefined ? Number.NaN : co2
    frozen &&= Object.isFrozen(o) && Object.isFrozen(o.price.totalPrice) && Object.isFrozen(o.vehicle)
  }
  return { keys, frozen }
}

/** Keys of immutable answers (every object read frozen, as the sandbox's repeated answers are), while they live. */
const answerKeyCache = new WeakMap<readonly ProviderCarOffer[], OfferKeys>()

/** offerKeys of one provider's answer: kept beside it when nothing in it can change. */
export function answerKeys(offers: readonly ProviderCarOffer[]): OfferKeys {
  let keys = answerKeyCache.get(offers)
  if (!keys) {
    const read = readKeys(offers)
    keys = read.keys
    if (read.frozen) answerKeyCache.set(offers, keys)
  }
  return keys
}

/**
 * Room for the keys of `n` offers (filled by the caller, see search's merge): one buffer for the three, as a typed
 * array of more than 64 bytes has its memory allocated (and later freed by the collector) outside the heap, each.
 */
export const emptyKeys = (n: number): OfferKeys => {
  const all = new Float64Array(3 * n)
  return { cost: all.subarray(0, n), time: all.subarray(n, 2 * n), co2: all.subarray(2 * n) }
}

/** The first `n` offers' keys. */
export const keysUpTo = (keys: OfferKeys, n: number): OfferKeys => ({
  cost: keys.cost.subarray(0, n),
  time: keys.time.subarray(0, n),
  co2: keys.co2.subarray(0, n),
})

/** The range of each axis over a result set; an axis counts only when every offer has a (finite) value for it. */
export type AxisRanges = Partial<Record<Axis, { min: number; max: number }>>

export function axisRanges(offers: readonly ProviderCarOffer[], keys = offerKeys(offers)): AxisRanges {
  const ranges: AxisRanges = {}
  if (offers.length === 0) return ranges
  for (const axis of AXES) {
    const values = keys[axis]
    let min = Number.POSITIVE_INFINITY
    let max = Number.NEGATIVE_INFINITY
    let complete = true
    for (let i = 0; i < values.length; i++) {
      const value = values[i]
      if (!Number.isFinite(value)) {
        complete = false
        break
      }
      if (value < min) min = value
      if (value > max) max = value
    }
    if (complete) ranges[axis] = { min, max }
  }
  return ranges
}

export const widenRanges = (a: AxisRanges, b: AxisRanges): AxisRanges => {
  const out: AxisRanges = {}
  for (const axis of AXES) {
    if (a[axis] && b[axis]) {
      out[axis] = { min: Math.min(a[axis].min, b[axis].min), max: Math.max(a[axis].max, b[axis].max) }
    }
  }
  return out
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

/** A factor in thousandths (0..1000), or ABSENT for an axis the result set lacks. */
const FACTOR_STATES = 1002
const ABSENT = 1001

/**
 * A recommendation as one number (mixed radix: score 0..100, reason 0..3, then each factor in thousandths or absent);
 * -1 for none. Factors are rounded to thousandths already, so nothing is lost.
 */
export function packRecommendation(r: Recommendation | undefined): number {
  if (!r) return -1
  const thousandths = AXES.map((axis) => {
    const f = r.factors[axis]
    return f === undefined ? ABSENT : Math.round(f * 1000)
  })
  return packParts(r.score, REASON_ORDER.indexOf(r.reasonCode), thousandths)
}

/** Score 0..100, reason index in REASON_ORDER, and the factors in AXES order (thousandths or ABSENT). */
function packParts(score: number, reason: number, thousandths: number[]): number {
  let factors = 0
  for (let i = thousandths.length - 1; i >= 0; i--) factors = factors * FACTOR_STATES + thousandths[i]
  return score + 101 * (reason + 4 * factors)
}

/** The same packed recommendation with another reason. */
const withReason = (packed: number, reason: number) => {
  const score = packed % 101
  const rest = Math.floor(packed / 101)
  return score + 101 * (reason + 4 * Math.floor(rest / 4))
}

export function unpackRecommendation(n: number, language = 'en'): Recommendation | undefined {
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
  return { score, reasonCode, reason: recommendationReason(language, reasonCode), factors }
}

/** Entries `from` (inclusive) to `to` (exclusive) of a packed pool, with recommendation reasons in `language`. */
export function unpackPool(pool: PackedPool, from = 0, to = pool.offers.length, language = 'en'): PooledOffer[] {
  const items: PooledOffer[] = []
  for (let i = from; i < Math.min(to, pool.offers.length); i++) {
    const recommendation = unpackRecommendation(pool.recommendations[i], language)
    items.push({
      providerId: pool.providerIds[i],
      offer: pool.offers[i],
      ...(recommendation ? { recommendation } : {}),
    })
  }
  return items
}

/**
 * Scores 0..100 from the axes available across the result set (lower price, distance and CO2 are better; each
 * factor 0..1, min–max normalized). The single top-scored offer (the first of equals) is BEST_OVERALL unless
 * `bestTaken`; the others are named after their best axis. One packed recommendation per offer, no objects.
 */
export function scoreOffers(
  offers: readonly ProviderCarOffer[],
  ranges: AxisRanges,
  bestTaken: boolean,
  keys = offerKeys(offers),
): { recommendations: number[]; bestTaken: boolean } {
  const n = offers.length
  const recommendations = new Array<number>(n).fill(-1)
  const axes = AXES.filter((a) => ranges[a])
  if (axes.length === 0) return { recommendations, bestTaken }
  const weight = axes.reduce((sum, a) => sum + WEIGHTS[a], 0)
  // Per axis, once: its values, its share of the score and its range (an absent axis has no share). The loop below
  // is written out per axis, on plain numbers: with the axes as objects in a list, every offer allocated numbers.
  const cost = axisOf(keys, ranges, 'cost', weight)
  const time = axisOf(keys, ranges, 'time', weight)
  const co2 = axisOf(keys, ranges, 'co2', weight)
  const costReason = REASON_ORDER.indexOf(REASONS.cost)
  const timeReason = REASON_ORDER.indexOf(REASONS.time)
  const co2Reason = REASON_ORDER.indexOf(REASONS.co2)
  let top = -1
  let topScore = -1
  for (let i = 0; i < n; i++) {
    let score = 0
    let reason = -1
    let bestFactor = -1
    let costFactor = ABSENT
    let timeFactor = ABSENT
    let co2Factor = ABSENT
    if (cost.share > 0) {
      const factor = factorOf(cost.values[i], cost.min, cost.max)
      costFactor = Math.round(factor * 1000)
      score += cost.share * factor
      bestFactor = costFactor
      reason = costReason
    }
    if (time.share > 0) {
      const factor = factorOf(time.values[i], time.min, time.max)
      timeFactor = Math.round(factor * 1000)
      score += time.share * factor
      if (timeFactor > bestFactor) {
        bestFactor = timeFactor
        reason = timeReason
      }
    }
    if (co2.share > 0) {
      const factor = factorOf(co2.values[i], co2.min, co2.max)
      co2Factor = Math.round(factor * 1000)
      score += co2.share * factor
      if (co2Factor > bestFactor) reason = co2Reason
    }
    const rounded = Math.round(score * 100)
    // As packParts: the factors in AXES order (cost first), least significant first.
    recommendations[i] =
      rounded + 101 * (reason + 4 * ((co2Factor * FACTOR_STATES + timeFactor) * FACTOR_STATES + costFactor))
    if (rounded > topScore) {
      top = i
      topScore = rounded
    }
  }
  if (bestTaken || top < 0) return { recommendations, bestTaken }
  recommendations[top] = withReason(recommendations[top], 0)
  return { recommendations, bestTaken: true }
}

/** One axis of a scoring: its values, share of the score (0 when the result set lacks it) and range. */
function axisOf(keys: OfferKeys, ranges: AxisRanges, axis: Axis, weight: number) {
  const range = ranges[axis]
  return range
    ? { values: keys[axis], share: WEIGHTS[axis] / weight, min: range.min, max: range.max }
    : { values: keys[axis], share: 0, min: 0, max: 0 }
}

/**
 * 0..1, min–max normalized, lower values better. An offer without a value for an axis the ranges have (one that came
 * late) counts as the worst.
 */
function factorOf(raw: number, min: number, max: number): number {
  const value = Number.isNaN(raw) ? max : raw
  return max === min ? 1 : Math.min(1, Math.max(0, (max - value) / (max - min)))
}

const indices = (n: number) => {
  const out = new Array<number>(n)
  for (let i = 0; i < n; i++) out[i] = i
  return out
}

/** Ranks of RECOMMENDED are 0..101. */
const RANKS = 102
/** Buckets up to this size are sorted in place by insertion; larger ones by the built-in sort. */
const SMALL_BUCKET = 16

/**
 * Working memory of the orderings, grown to the largest pool seen and reused: every ordering runs to its end without
 * waiting, and its answer is copied out (typed arrays above 64 bytes are allocated outside the heap, one by one).
 */
let rankScratch = new Int32Array(0)
let startScratch = new Int32Array(0)
let sortedScratch = new Int32Array(0)
let valueScratch = new Float64Array(0)

function scratchFor(n: number, ranks: number) {
  if (rankScratch.length < n) {
    const size = Math.max(n, 2 * rankScratch.length)
    rankScratch = new Int32Array(size)
    sortedScratch = new Int32Array(size)
    valueScratch = new Float64Array(size)
  }
  if (startScratch.length < 2 * ranks + 1)
    startScratch = new Int32Array(Math.max(2 * ranks + 1, 2 * startScratch.length))
}

/**
 * The first `limit` indices by `rank[i]` (0 ≤ rank < ranks), then `tie`, then index: a counting sort into one stretch
 * per rank, each stretch sorted on its own, and only as many as the limit needs. The same order as one stable
 * comparison sort by (rank, tie) over every offer, with a fraction of the comparisons. `rank` and the stretches are
 * the scratch arrays (see scratchFor). `ordered`: no key `tie` reads is NaN, so it orders consistently (with a NaN,
 * large stretches keep the built-in sort they always had).
 */
function byRank(
  n: number,
  ranks: number,
  tie: (a: number, b: number) => number,
  limit: number,
  ordered: boolean,
): number[] {
  const rank = rankScratch
  const sorted = sortedScratch
  // starts[r] where rank r's stretch begins; next[r] (at ranks + 1 + r) where its next entry goes.
  const starts = startScratch
  starts.fill(0, 0, ranks + 1)
  for (let i = 0; i < n; i++) starts[rank[i] + 1]++
  for (let r = 0; r < ranks; r++) starts[r + 1] += starts[r]
  const next = ranks + 1
  starts.copyWithin(next, 0, ranks)
  // Within a rank, in index order.
  for (let i = 0; i < n; i++) sorted[starts[next + rank[i]]++] = i
  // As many as `out.length < limit` would take.
  const out = new Array<number>(limit >= n ? n : limit > 0 ? Math.ceil(limit) : 0)
  let taken = 0
  for (let r = 0; r < ranks && taken < out.length; r++) {
    const from = starts[r]
    const to = starts[r + 1]
    if (to - from > SMALL_BUCKET && ordered) {
      // Binary insertion: each entry goes after every one `tie` does not put after it (it has the larger index), in
      // place, with log-many comparisons (no copy of the stretch to sort, as the built-in sort makes).
      for (let k = from + 1; k < to; k++) {
        const v = sorted[k]
        let lo = from
        let hi = k
        while (lo < hi) {
          const mid = (lo + hi) >> 1
          if (tie(sorted[mid], v) > 0) hi = mid
          else lo = mid + 1
        }
        if (lo < k) {
          sorted.copyWithin(lo + 1, lo, k)
          sorted[lo] = v
        }
      }
    } else if (to - from > SMALL_BUCKET) {
      const bucket = Array.from(sorted.subarray(from, to)).sort((a, b) => tie(a, b) || a - b)
      sorted.set(bucket, from)
    } else {
      // Insertion sort, moving an entry only past greater ones: equal ones keep their index order.
      for (let k = from + 1; k < to; k++) {
        const v = sorted[k]
        let j = k - 1
        while (j >= from && tie(sorted[j], v) > 0) {
          sorted[j + 1] = sorted[j]
          j--
        }
        sorted[j + 1] = v
      }
    }
    for (let k = from; k < to && taken < out.length; k++) out[taken++] = sorted[k]
  }
  return out
}

function hasNaN(values: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (Number.isNaN(values[i])) return true
  return false
}

/**
 * Each of the first `n` values' place among the distinct values (ascending, or descending) into rankScratch, and
 * how many distinct values there are (none may be NaN). Equal values as `-` sees them (0 and -0, the same infinity)
 * share a rank.
 */
function valueRanks(values: Float64Array, n: number, descending: boolean): number {
  const distinct = valueScratch
  distinct.set(values.subarray(0, n))
  // A typed array's own sort: numeric, NaN last, no comparator.
  distinct.subarray(0, n).sort()
  let d = 0
  for (let i = 0; i < n; i++) if (d === 0 || distinct[i] !== distinct[d - 1]) distinct[d++] = distinct[i]
  const rank = rankScratch
  for (let i = 0; i < n; i++) {
    const v = values[i]
    let lo = 0
    let hi = d - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (distinct[mid] < v) lo = mid + 1
      else hi = mid
    }
    rank[i] = descending ? d - 1 - lo : lo
  }
  return d
}

/**
 * The pool in `sortBy` order (stable), its first `limit` entries. RECOMMENDED puts the BEST_OVERALL offer first, then
 * higher scores; ties go to the nearer, then the cheaper offer. The keys are computed once, not per comparison.
 */
export function orderPool(
  pool: PackedPool,
  sortBy: SortBy,
  limit: number,
  keys: Pick<OfferKeys, 'cost' | 'time'> = offerKeys(pool.offers),
): PackedPool {
  const n = pool.offers.length
  const price = keys.cost
  const distance = keys.time
  const recs = pool.recommendations
  const tie = (a: number, b: number) => distance[a] - distance[b] || price[a] - price[b]
  scratchFor(n, Math.max(RANKS, n))
  let order: number[] | undefined
  if (sortBy === 'RECOMMENDED') {
    // 0 for BEST_OVERALL, then 101 - score (the lower, the better; no recommendation counts as 0).
    const rank = rankScratch
    for (let i = 0; i < n; i++) {
      const r = recs[i]
      // Score and reason of the packed number, by division (the % of numbers this large is a slow floating modulo).
      const q = Math.floor(r / 101)
      rank[i] = r < 0 ? 101 : q - 4 * Math.floor(q / 4) === 0 ? 0 : 101 - (r - 101 * q)
    }
    order = byRank(n, RANKS, tie, limit, !hasNaN(distance, n) && !hasNaN(price, n))
  } else {
    // By the rank of each offer's price (or distance) among the distinct ones, then as the comparison says: the
    // same order as sorting by the comparison, whose every tie the rank keeps together.
    // A NaN key (no order) or a limit `slice` reads otherwise (negative, fractional) keep the comparison sort.
    const ranks =
      !(limit >= 0 && (limit === Number.POSITIVE_INFINITY || Number.isSafeInteger(limit))) ||
      hasNaN(distance, n) ||
      hasNaN(price, n)
        ? undefined
        : sortBy === 'DISTANCE'
          ? valueRanks(distance, n, false)
          : valueRanks(price, n, sortBy === 'PRICE_HIGH_TO_LOW')
    if (ranks !== undefined) order = byRank(n, ranks, tie, limit, true)
  }
  if (!order) {
    // Only the comparator asked for is made.
    const compare =
      sortBy === 'PRICE_LOW_TO_HIGH'
        ? (a: number, b: number) => price[a] - price[b] || tie(a, b)
        : sortBy === 'PRICE_HIGH_TO_LOW'
          ? (a: number, b: number) => price[b] - price[a] || tie(a, b)
          : (a: number, b: number) => distance[a] - distance[b] || price[a] - price[b]
    order = indices(n).sort(compare).slice(0, limit)
  }
  const k = order.length
  const offers = new Array<ProviderCarOffer>(k)
  const providerIds = new Array<string>(k)
  const recommendations = new Array<number>(k)
  for (let j = 0; j < k; j++) {
    const i = order[j]
    offers[j] = pool.offers[i]
    providerIds[j] = pool.providerIds[i]
    recommendations[j] = recs[i]
  }
  return { offers, providerIds, recommendations }
}
