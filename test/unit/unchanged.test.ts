import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { sameAsStored } from '../../src/store/unchanged.ts'

/** What a JSONB column gives back: the JSON of the value, with its keys in another order. */
const reordered = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reordered)
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reordered(v)]),
    )
  return value
}
const asStored = (value: unknown) => reordered(JSON.parse(JSON.stringify(value)))
const record = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })

describe('sameAsStored: a write is skipped only when nothing changed', () => {
  it('holds for a value and its stored JSON, in any key order; undefined fields are not written either', () => {
    fc.assert(
      fc.property(record, (value) => {
        assert.ok(sameAsStored(value, asStored(value)))
        assert.ok(sameAsStored({ ...value, absent: undefined }, asStored(value)))
      }),
    )
  })

  it('fails for any changed, added or removed field', () => {
    fc.assert(
      fc.property(record, fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), (value, key, next) => {
        const stored = asStored(value)
        const changed = { ...value, [key]: next }
        fc.pre(!(key in value) || JSON.stringify(value[key]) !== JSON.stringify(next))
        assert.equal(sameAsStored(changed, stored), false)
        if (key in value) {
          const { [key]: _removed, ...rest } = value
          assert.equal(sameAsStored(rest, stored), false)
        }
      }),
    )
  })

  it('leaves out the top-level keys it is told to ignore (when a record was written)', () => {
    const stored = asStored({ id: 'b1', status: 'CONFIRMED', updatedAt: '2026-01-01T00:00:00Z' })
    assert.ok(sameAsStored({ id: 'b1', status: 'CONFIRMED', updatedAt: '2026-02-02T00:00:00Z' }, stored, ['updatedAt']))
    assert.equal(sameAsStored({ id: 'b1', status: 'CANCELLED', updatedAt: 'x' }, stored, ['updatedAt']), false)
    assert.equal(sameAsStored({ id: 'b1', status: 'CONFIRMED', updatedAt: 'x' }, stored), false)
  })
})
