import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { Recommendation } from '../../src/api/cars/schemas.ts'
import { packRecommendation, unpackRecommendation } from '../../src/domain/cars/ranking.ts'
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
