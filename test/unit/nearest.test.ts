import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { around } from 'geokdbush'
import KDBush from 'kdbush'
import { nearestWithin } from '../../src/platform/nearest.ts'

const RAD = Math.PI / 180
const hav = (theta: number) => Math.sin(theta / 2) ** 2

/** The oracle: every point's haversine (the same formula), within the radius, by distance then id, the first `k`. */
function linear(points: [number, number][], lng: number, lat: number, k: number, km: number): number[] {
  const max = km >= Math.PI * 6371 ? 1 : hav(km / 6371)
  const cos = Math.cos(lat * RAD)
  return points
    .map(([x, y], id) => ({ id, d: cos * Math.cos(y * RAD) * hav((x - lng) * RAD) + hav((y - lat) * RAD) }))
    .filter((p) => p.d <= max)
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, k)
    .map((p) => p.id)
}

function indexOf(points: [number, number][], nodeSize?: number): KDBush {
  const index = new KDBush(Math.max(1, points.length), nodeSize)
  for (const [x, y] of points) index.add(x, y)
  if (points.length === 0) index.add(0, 0)
  index.finish()
  return index
}

const lng = fc.double({ min: -180, max: 180, noNaN: true })
const lat = fc.double({ min: -90, max: 90, noNaN: true })
/** Points in a city (a few km; repeated positions, as vehicles at one station), or anywhere on Earth. */
const city = fc.tuple(
  fc.double({ min: 13.3, max: 13.5, noNaN: true }),
  fc.double({ min: 52.45, max: 52.58, noNaN: true }),
)
const spots = fc.array(city, { minLength: 1, maxLength: 8 })
const cityPoints = spots.chain((s) =>
  fc.array(fc.oneof(city, fc.constantFrom(...s)), { minLength: 1, maxLength: 600, size: 'large' }),
)
const worldPoints = fc.array(fc.tuple(lng, lat), { minLength: 1, maxLength: 400, size: 'large' })

describe('nearestWithin (the micromobility fleet index)', () => {
  it('answers what a linear scan answers: within the radius, by distance then id, at most k', () => {
    fc.assert(
      fc.property(
        fc.oneof(cityPoints, worldPoints),
        fc.oneof(city, fc.tuple(lng, lat)),
        fc.integer({ min: 1, max: 60 }),
        fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.double({ min: 0, max: 25_000, noNaN: true })),
        fc.constantFrom(2, 8, 64),
        (points, [x, y], k, km, nodeSize) => {
          assert.deepEqual(nearestWithin(indexOf(points, nodeSize), x, y, k, km), linear(points, x, y, k, km))
        },
      ),
      { numRuns: 400 },
    )
  })

  it('keeps what geokdbush answered: the same points, its order wherever distances differ', () => {
    fc.assert(
      fc.property(
        cityPoints,
        city,
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        (points, [x, y], k, km) => {
          const index = indexOf(points)
          const ours = nearestWithin(index, x, y, k, km)
          const theirs = around(index, x, y, k, km)
          const d = (id: number) =>
            Math.cos(y * RAD) * Math.cos(points[id][1] * RAD) * hav((points[id][0] - x) * RAD) +
            hav((points[id][1] - y) * RAD)
          assert.equal(ours.length, theirs.length)
          assert.deepEqual(ours.map(d), theirs.map(d))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('filters with accept, answers nothing for k 0 or an empty index, and everything for no bounds', () => {
    const points: [number, number][] = Array.from({ length: 500 }, (_, i) => [
      13.4 + (i % 25) / 1000,
      52.5 + i / 25 / 1000,
    ])
    const index = indexOf(points)
    const even = nearestWithin(index, 13.41, 52.51, 30, 2, (id) => id % 2 === 0)
    assert.deepEqual(
      even,
      linear(points, 13.41, 52.51, 500, 2)
        .filter((id) => id % 2 === 0)
        .slice(0, 30),
    )
    assert.deepEqual(nearestWithin(index, 13.41, 52.51, 0, 2), [])
    assert.deepEqual(nearestWithin(new KDBush(0).finish(), 13.41, 52.51, 5, 2), [])
    assert.equal(nearestWithin(index, 0, 0).length, 500)
    assert.deepEqual(nearestWithin(index, -120, -45, 3), linear(points, -120, -45, 3, Number.POSITIVE_INFINITY))
  })
})
