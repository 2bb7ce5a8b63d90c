import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { ProviderCarOffer } from '../../src/connectors/types/cars.ts'
import type { Recommendation } from '../../src/contract/cars.ts'
import {
  answerKeys,
  axisRanges,
  orderPool,
  packRecommendation,
  scoreOffers,
  unpackRecommendation,
} from '../../src/domain/cars/ranking.ts'
import { lru } from '../../src/platform/lru.ts'
import { randomChunk } from '../../src/platform/random.ts'

const REASONS = ['BEST_OVERALL', 'LOWEST_PRICE', 'SHORTEST_DISTANCE', 'LOWEST_CO2'] as const
const factor = fc.option(
  fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000),
  { nil: undefined },
)

describe('search session packing', () => {
  it('packs every recommendation into one number and back, unchanged', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.constantFrom(...REASONS),
        factor,
        factor,
        factor,
        (score, reasonCode, cost, time, co2) => {
          const factors: Recommendation['factors'] = {}
          if (cost !== undefined) factors.cost = cost
          if (time !== undefined) factors.time = time
          if (co2 !== undefined) factors.co2 = co2
          const packed = packRecommendation({ score, reasonCode, reason: 'x', factors })
          assert.ok(Number.isSafeInteger(packed) && packed >= 0)
          const back = unpackRecommendation(packed)
          assert.equal(back?.score, score)
          assert.equal(back?.reasonCode, reasonCode)
          assert.deepEqual(back?.factors, factors)
          assert.ok(back?.reason && back.reason !== 'x', 'the reason text comes from the code')
        },
      ),
    )
  })

  it('packs no recommendation as -1', () => {
    assert.equal(packRecommendation(undefined), -1)
    assert.equal(unpackRecommendation(-1), undefined)
  })
})

/** The ranking rules written plainly, object by object: what the packed, typed-array version must agree with. */
function reference(offers: ProviderCarOffer[]) {
  const weights = { cost: 0.5, time: 0.3, co2: 0.2 } as const
  const value = (o: ProviderCarOffer, axis: keyof typeof weights) =>
    axis === 'cost' ? o.price.totalPrice.amount : axis === 'time' ? o.distanceMeters : o.vehicle.co2Emissions
  const axes = (['cost', 'time', 'co2'] as const).filter((a) => offers.every((o) => value(o, a) !== undefined))
  const weight = axes.reduce((sum, a) => sum + weights[a], 0)
  const items = offers.map((offer, index) => {
    if (axes.length === 0) return { index, offer, score: 0, best: false, reason: '' }
    let score = 0
    let reason: string = axes[0]
    let bestFactor = -1
    for (const axis of axes) {
      const values = offers.map((o) => value(o, axis) as number)
      const [min, max] = [Math.min(...values), Math.max(...values)]
      const factor = max === min ? 1 : (max - (value(offer, axis) as number)) / (max - min)
      score += (weights[axis] / weight) * factor
      if (Math.round(factor * 1000) > bestFactor) {
        bestFactor = Math.round(factor * 1000)
        reason = axis
      }
    }
    return { index, offer, score: Math.round(score * 100), best: false, reason }
  })
  if (axes.length > 0 && items.length > 0) {
    items.reduce((a, b) => (b.score > a.score ? b : a)).best = true
  }
  return [...items].sort(
    (a, b) =>
      Number(b.best) - Number(a.best) ||
      b.score - a.score ||
      a.offer.distanceMeters - b.offer.distanceMeters ||
      a.offer.price.totalPrice.amount - b.offer.price.totalPrice.amount,
  )
}

const offerArb = fc
  .record({
    amount: fc.integer({ min: 1000, max: 100_000 }),
    distance: fc.integer({ min: 0, max: 5000 }),
    co2: fc.option(fc.integer({ min: 0, max: 250 }), { nil: undefined, freq: 8 }),
  })
  .map(
    ({ amount, distance, co2 }) =>
      ({
        price: { totalPrice: { amount, currency: 'EUR' } },
        distanceMeters: distance,
        vehicle: { co2Emissions: co2 },
      }) as unknown as ProviderCarOffer,
  )

describe('ranking', () => {
  it('scores and orders (RECOMMENDED) exactly as the plain rules say', () => {
    fc.assert(
      fc.property(fc.array(offerArb, { maxLength: 60 }), fc.integer({ min: 1, max: 80 }), (offers, limit) => {
        const scored = scoreOffers(offers, axisRanges(offers), false)
        const providerIds = offers.map((_, i) => `p${i}`)
        const ordered = orderPool(
          { offers, providerIds, recommendations: scored.recommendations },
          'RECOMMENDED',
          limit,
        )
        const expected = reference(offers).slice(0, limit)
        assert.deepEqual(
          ordered.providerIds,
          expected.map((e) => `p${e.index}`),
        )
        const recs = ordered.recommendations.map((r) => unpackRecommendation(r))
        assert.deepEqual(
          recs.map((r) => r?.score ?? 0),
          expected.map((e) => e.score),
        )
        assert.equal(
          recs.filter((r) => r?.reasonCode === 'BEST_OVERALL').length,
          offers.length > 0 && limit > 0 ? 1 : 0,
        )
        for (const r of recs) {
          assert.ok(r === undefined || (r.score >= 0 && r.score <= 100))
          for (const f of Object.values(r?.factors ?? {})) assert.ok(f >= 0 && f <= 1)
        }
      }),
    )
  })

  it('orders by price and distance with the documented tie-breaks', () => {
    fc.assert(
      fc.property(fc.array(offerArb, { maxLength: 40 }), (offers) => {
        const pool = { offers, providerIds: offers.map((_, i) => `p${i}`), recommendations: offers.map(() => -1) }
        const price = (o: ProviderCarOffer) => o.price.totalPrice.amount
        const low = orderPool(pool, 'PRICE_LOW_TO_HIGH', offers.length).offers
        const high = orderPool(pool, 'PRICE_HIGH_TO_LOW', offers.length).offers
        const near = orderPool(pool, 'DISTANCE', offers.length).offers
        for (let i = 1; i < offers.length; i++) {
          assert.ok(price(low[i - 1]) <= price(low[i]))
          assert.ok(price(high[i - 1]) >= price(high[i]))
          assert.ok(near[i - 1].distanceMeters <= near[i].distanceMeters)
          if (near[i - 1].distanceMeters === near[i].distanceMeters) assert.ok(price(near[i - 1]) <= price(near[i]))
        }
      }),
    )
  })
})

/** What orderPool must equal: every index sorted by one stable comparison, then the first `limit`. */
function fullSort(pool: { offers: ProviderCarOffer[]; recommendations: number[] }, sortBy: string, limit: number) {
  const price = pool.offers.map((o) => o.price.totalPrice.amount)
  const distance = pool.offers.map((o) => o.distanceMeters)
  const tie = (a: number, b: number) => distance[a] - distance[b] || price[a] - price[b]
  const rank = pool.recommendations.map((r) => {
    const rec = unpackRecommendation(r)
    return rec === undefined ? 101 : rec.reasonCode === 'BEST_OVERALL' ? 0 : 101 - rec.score
  })
  const compare =
    sortBy === 'RECOMMENDED'
      ? (a: number, b: number) => rank[a] - rank[b] || tie(a, b)
      : sortBy === 'PRICE_LOW_TO_HIGH'
        ? (a: number, b: number) => price[a] - price[b] || tie(a, b)
        : sortBy === 'PRICE_HIGH_TO_LOW'
          ? (a: number, b: number) => price[b] - price[a] || tie(a, b)
          : tie
  return pool.offers
    .map((_, i) => i)
    .sort(compare)
    .slice(0, limit)
}

describe('ordering by rank', () => {
  // Few distinct values, so that long runs of equal prices, distances and scores (the tie-breaks) are common;
  // zeros of both signs and infinities are equal to themselves as the comparison's subtraction sees them.
  const value = fc.oneof(
    fc.integer({ min: 0, max: 6 }).map((n) => n * 10),
    fc.constantFrom(0, -0, Number.POSITIVE_INFINITY, 1e9, 12.5, 0.1 + 0.2),
  )
  const offer = fc.record({ amount: value, distance: value }).map(
    ({ amount, distance }) =>
      ({
        price: { totalPrice: { amount, currency: 'EUR' } },
        distanceMeters: distance,
        vehicle: { co2Emissions: undefined },
      }) as unknown as ProviderCarOffer,
  )
  const recommendation = fc.oneof(
    fc.constant(-1),
    fc
      .record({
        score: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(40, 41)),
        reason: fc.constantFrom(...REASONS),
      })
      .map(({ score, reason }) =>
        packRecommendation({ score, reasonCode: reason, reason: '', factors: { cost: 0.5 } }),
      ),
  )

  it('is the order of one stable comparison sort over every offer, cut at the limit, for every sortBy', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(offer, recommendation), { maxLength: 120, size: 'max' }),
        fc.constantFrom('RECOMMENDED', 'PRICE_LOW_TO_HIGH', 'PRICE_HIGH_TO_LOW', 'DISTANCE'),
        fc.oneof(fc.integer({ min: 0, max: 130 }), fc.constant(Number.POSITIVE_INFINITY)),
        (entries, sortBy, limit) => {
          const pool = {
            offers: entries.map(([o]) => o),
            providerIds: entries.map((_, i) => `p${i}`),
            recommendations: entries.map(([, r]) => r),
          }
          const expected = fullSort(pool, sortBy, limit)
          const ordered = orderPool(pool, sortBy as 'DISTANCE', limit)
          assert.deepEqual(
            ordered.providerIds,
            expected.map((i) => `p${i}`),
          )
          assert.deepEqual(
            ordered.recommendations,
            expected.map((i) => pool.recommendations[i]),
          )
          assert.ok(ordered.offers.every((o, j) => o === pool.offers[expected[j]]))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('orders larger pools than the last one, and smaller ones after it, the same way', () => {
    for (const n of [5, 400, 3, 1000, 0, 50]) {
      const offers = Array.from(
        { length: n },
        (_, i) =>
          ({
            price: { totalPrice: { amount: (i * 7919) % 97, currency: 'EUR' } },
            distanceMeters: (i * 104729) % 13,
            vehicle: { co2Emissions: undefined },
          }) as unknown as ProviderCarOffer,
      )
      const pool = { offers, providerIds: offers.map((_, i) => `p${i}`), recommendations: offers.map(() => -1) }
      for (const sortBy of ['RECOMMENDED', 'PRICE_LOW_TO_HIGH', 'PRICE_HIGH_TO_LOW', 'DISTANCE'] as const) {
        assert.deepEqual(
          orderPool(pool, sortBy, 200).providerIds,
          fullSort(pool, sortBy, 200).map((i) => `p${i}`),
        )
      }
    }
  })
})

describe('offer keys', () => {
  it('are kept beside an answer only when nothing they were read from can change', () => {
    const make = (amount: number) =>
      ({
        price: { totalPrice: { amount, currency: 'EUR' } },
        distanceMeters: 10,
        vehicle: { co2Emissions: undefined },
      }) as unknown as ProviderCarOffer
    const mutable = [make(1), make(2)]
    assert.notEqual(answerKeys(mutable), answerKeys(mutable))
    assert.deepEqual([...answerKeys(mutable).cost], [1, 2])
    assert.ok(Number.isNaN(answerKeys(mutable).co2[0]))
    // A frozen list of offers whose price can still change is read again each time.
    const shallow = Object.freeze([Object.freeze(make(3))])
    assert.notEqual(answerKeys(shallow), answerKeys(shallow))
    const deep = Object.freeze(
      [make(4)].map((o) => {
        Object.freeze(o.price.totalPrice)
        Object.freeze(o.vehicle)
        return Object.freeze(o)
      }),
    )
    assert.equal(answerKeys(deep), answerKeys(deep))
    assert.deepEqual([...answerKeys(deep).cost], [4])
  })
})

describe('lru', () => {
  it('keeps at most its capacity and forgets the least recently used first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 }),
        (capacity, keys) => {
          const cache = lru<number, number>(capacity)
          const model: number[] = []
          for (const key of keys) {
            if (cache.get(key) === undefined) cache.set(key, key * 2)
            const at = model.indexOf(key)
            if (at >= 0) model.splice(at, 1)
            model.push(key)
            if (model.length > capacity) model.shift()
            assert.ok(cache.size <= capacity)
          }
          for (const key of model) assert.equal(cache.get(key), key * 2)
          assert.equal(cache.size, model.length)
        },
      ),
    )
  })

  it('refuses a capacity below one', () => {
    assert.throws(() => lru(0))
  })
})

describe('random pool', () => {
  it('hands out fresh bytes every time', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 5000; i++) {
      const chunk = randomChunk(12)
      assert.equal(chunk.length, 12)
      const hex = chunk.toString('hex')
      assert.ok(!seen.has(hex))
      seen.add(hex)
    }
  })
})
