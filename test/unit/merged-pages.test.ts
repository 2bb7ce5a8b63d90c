import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { ApiError } from '../../src/contract/errors.ts'
import { CURSOR_SESSION_MS, MAX_PAGE_RETRIES, mergedPage } from '../../src/domain/providers/merged-pages.ts'
import { createTokenCipher, generateTokenKeys, parseTokenKeys } from '../../src/platform/tokens.ts'

const tokens = createTokenCipher(parseTokenKeys(generateTokenKeys('k1')))
const NOW = new Date('2026-11-21T10:00:00Z')

interface Item {
  source: string
  key: number
}
const compare = (a: Item, b: Item) => a.key - b.key || a.source.localeCompare(b.source)
const label = (x: Item) => `${x.source}:${x.key}`

/** Providers with sorted lists; `fails(page, source)` says which of them fail on which page. */
const lists = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 30 }), {
  minLength: 1,
  maxLength: 4,
})

async function pageThrough(
  keys: number[][],
  limit: number,
  fails: (page: number, source: number) => boolean,
  maxPages = 200,
) {
  const sources = keys.map((list, s) => {
    const sorted = [...list].sort((a, b) => a - b).map((key) => ({ source: `p${s}`, key }))
    return { id: `p${s}`, sorted }
  })
  const seen: Item[] = []
  let cursor: string | undefined
  for (let page = 0; page < maxPages; page++) {
    const result = await mergedPage<Item>({
      tokens,
      context: { kind: 'micro-cursor' as const, tenantId: 't1', environment: 'test' },
      cursor,
      params: ['same'],
      now: NOW,
      limit,
      compare,
      sources: sources.map((s, i) => ({
        id: s.id,
        fetch: async (want: number) => {
          if (fails(page, i)) throw new ApiError('PROVIDER_ERROR')
          return s.sorted.slice(0, want)
        },
      })),
    })
    assert.ok(result.items.length <= limit)
    seen.push(...result.items)
    assert.equal(result.nextCursor !== undefined, result.hasMore, 'nextCursor exactly when hasMore')
    if (!result.hasMore) return seen
    cursor = result.nextCursor
  }
  assert.fail('paging did not end')
}

describe('merged pages over several providers (stateless cursor)', () => {
  it('without failures, the pages together are the merged list in order, each item once', async () => {
    await fc.assert(
      fc.asyncProperty(lists, fc.integer({ min: 1, max: 12 }), async (keys, limit) => {
        const seen = await pageThrough(keys, limit, () => false)
        const all = keys.flatMap((list, s) => list.map((key) => ({ source: `p${s}`, key }))).sort(compare)
        assert.deepEqual(seen.map(label), all.map(label))
      }),
    )
  })

  it('a provider that fails on a page joins on the next one: nothing lost, nothing twice', async () => {
    await fc.assert(
      fc.asyncProperty(
        lists,
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.array(fc.boolean(), { maxLength: 4 }), { maxLength: 40 }),
        async (keys, limit, pattern) => {
          // Never two failures in a row for one provider, so every provider is heard within the retries.
          const fails = (page: number, s: number) => page % 2 === 0 && (pattern[page]?.[s] ?? false)
          const seen = await pageThrough(keys, limit, fails)
          const expected = keys.flatMap((list, s) => list.map((key) => label({ source: `p${s}`, key })))
          assert.deepEqual([...seen.map(label)].sort(), [...expected].sort())
          assert.equal(new Set(seen.map(label)).size, seen.length)
        },
      ),
    )
  })

  it(`a provider that keeps failing holds paging open for ${MAX_PAGE_RETRIES} pages, then paging ends`, async () => {
    const seen = await pageThrough(
      [
        [1, 2, 3],
        [4, 5],
      ],
      10,
      (_page, s) => s === 1,
    )
    assert.deepEqual(seen.map(label), ['p0:1', 'p0:2', 'p0:3'])
  })

  it('a cursor expires 30 minutes after its page; other parameters start afresh; garbage is INVALID_CURSOR', async () => {
    const base = {
      tokens,
      context: { kind: 'micro-cursor' as const, tenantId: 't1', environment: 'test' },
      params: ['a'],
      limit: 1,
      compare,
      sources: [{ id: 'p', fetch: async () => [1, 2, 3].map((key) => ({ source: 'p', key })) }],
    }
    const first = await mergedPage<Item>({ ...base, cursor: undefined, now: NOW })
    assert.ok(first.nextCursor)
    const later = (ms: number) => new Date(NOW.getTime() + ms)
    const second = await mergedPage<Item>({ ...base, cursor: first.nextCursor, now: later(CURSOR_SESSION_MS) })
    assert.equal(second.items[0].key, 2)
    // Renewed at each page: the second page's cursor runs from the second page.
    const third = await mergedPage<Item>({ ...base, cursor: second.nextCursor, now: later(2 * CURSOR_SESSION_MS) })
    assert.equal(third.items[0].key, 3)
    await assert.rejects(
      mergedPage<Item>({ ...base, cursor: first.nextCursor, now: later(CURSOR_SESSION_MS + 1) }),
      (e: ApiError) => e.code === 'INVALID_CURSOR' && e.details?.reason === 'CURSOR_EXPIRED',
    )
    const fresh = await mergedPage<Item>({
      ...base,
      params: ['b'],
      cursor: first.nextCursor,
      now: later(CURSOR_SESSION_MS + 1),
    })
    assert.equal(fresh.items[0].key, 1)
    await assert.rejects(
      mergedPage<Item>({ ...base, cursor: 'garbage', now: NOW }),
      (e: ApiError) => e.code === 'INVALID_CURSOR',
    )
    await assert.rejects(
      mergedPage<Item>({
        ...base,
        context: { ...base.context, kind: 'stops-cursor' },
        cursor: first.nextCursor,
        now: NOW,
      }),
      (e: ApiError) => e.code === 'INVALID_CURSOR' && e.details?.reason === 'CURSOR_OF_ANOTHER_LIST',
    )
    await assert.rejects(
      mergedPage<Item>({
        ...base,
        context: { ...base.context, environment: 'live' },
        cursor: first.nextCursor,
        now: NOW,
      }),
      (e: ApiError) => e.code === 'INVALID_CURSOR' && e.details?.reason === 'OTHER_ENVIRONMENT',
    )
    await assert.rejects(
      mergedPage<Item>({ ...base, context: { ...base.context, tenantId: 't2' }, cursor: first.nextCursor, now: NOW }),
      (e: ApiError) => e.code === 'INVALID_CURSOR' && e.details?.reason === 'MALFORMED_CURSOR',
    )
  })
})
