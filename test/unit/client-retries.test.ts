import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { backoffMs, retryAfterMs, retryingFetch } from '../../clients/typescript/src/index.ts'

const envelope = (status: number, details?: Record<string, unknown>) =>
  new Response(
    JSON.stringify(
      status < 400
        ? { success: true, data: {}, meta: { requestId: 'r', timestamp: 't' } }
        : { success: false, error: { code: 'X', message: 'm', details }, meta: { requestId: 'r', timestamp: 't' } },
    ),
    { status, headers: { 'content-type': 'application/json' } },
  )

/** A fetch answering the given statuses in turn (a thrown Error stands for a network failure). */
function scripted(answers: (number | Error | Response)[]) {
  const seen: Request[] = []
  const waits: number[] = []
  const send = async (request: Request) => {
    seen.push(request)
    const next = answers.shift()
    if (next instanceof Error) throw next
    if (next instanceof Response) return next
    return envelope(next ?? 200)
  }
  const sleep = async (ms: number) => {
    waits.push(ms)
  }
  return { seen, waits, fetch: retryingFetch({ baseUrl: '', apiKey: 'k', fetch: send, sleep, random: () => 0.5 }) }
}

const post = () =>
  new Request('http://x/cars/bookings', {
    method: 'POST',
    body: '{"a":1}',
    headers: { 'content-type': 'application/json' },
  })

describe('client retries (spec 7.3)', () => {
  it('retries network errors, 5xx and 429 after 1, 2, 4, 8 s plus jitter, then answers the last', async () => {
    const s = scripted([new TypeError('socket hang up'), 502, 503, 500, 500])
    const res = await s.fetch(post())
    assert.equal(res.status, 500)
    assert.equal(s.seen.length, 5)
    assert.deepEqual(s.waits, [1500, 2500, 4500, 8500])
  })

  it('answers at once what retrying cannot fix: 4xx, 501, and errors that say retryable: false', async () => {
    for (const answer of [400, 401, 403, 404, 409, 422, 501, envelope(502, { retryable: false })]) {
      const s = scripted([answer, 200])
      const res = await s.fetch(post())
      assert.equal(s.seen.length, 1, `${answer instanceof Response ? 'retryable:false' : answer} is final`)
      assert.notEqual(res.status, 200)
    }
  })

  it('honours Retry-After (seconds or a date) instead of the backoff', async () => {
    const limited = new Response('{}', { status: 429, headers: { 'retry-after': '7' } })
    const s = scripted([limited, 200])
    assert.equal((await s.fetch(post())).status, 200)
    assert.deepEqual(s.waits, [7000])
    assert.equal(retryAfterMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2026, 0, 1)), 30_000)
    assert.equal(retryAfterMs('soon'), undefined)
    assert.equal(retryAfterMs('999999'), 60_000, 'capped')
  })

  it('every attempt of a write carries the same Idempotency-Key and the whole body; reads carry none', async () => {
    const s = scripted([503, 503, 201])
    await s.fetch(post())
    const keys = s.seen.map((r) => r.headers.get('idempotency-key'))
    assert.equal(new Set(keys).size, 1)
    assert.match(keys[0] ?? '', /^[0-9a-f-]{36}$/)
    for (const request of s.seen) assert.equal(await request.text(), '{"a":1}')
    const g = scripted([200])
    await g.fetch(new Request('http://x/cars/bookings/ABC'))
    assert.equal(g.seen[0].headers.get('idempotency-key'), null)
    const own = scripted([200])
    const mine = post()
    mine.headers.set('idempotency-key', 'mine-1')
    await own.fetch(mine)
    assert.equal(own.seen[0].headers.get('idempotency-key'), 'mine-1', "the caller's key is kept")
  })

  it('backoff stays within 1-2, 2-3, 4-5, 8-9 s for any jitter source, even a broken one', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.oneof(fc.double(), fc.constant(Number.NaN)), (retry, r) => {
        const base = [1, 2, 4, 8][Math.min(retry, 3)] * 1000
        const ms = backoffMs(retry, () => r)
        return Number.isFinite(ms) && ms >= base && ms <= base + 1000
      }),
    )
  })
})
