import assert from 'node:assert/strict'
import { test } from 'node:test'
import fastJson from 'fast-json-stringify'
import { AuthCheck } from '../../src/contract/account.ts'
import { responses } from '../../src/contract/common.ts'
import { answerTemplate } from '../../src/http/answer-template.ts'

const VARYING = [
  ['data', 'rateLimit', 'remaining'],
  ['data', 'rateLimit', 'reset'],
  ['meta', 'requestId'],
  ['meta', 'timestamp'],
]
const serialize = fastJson(JSON.parse(JSON.stringify(responses(AuthCheck)[200]))) as (answer: unknown) => string

const answer = (name: string, organization: string | null, i: number, language = 'en') => ({
  success: true,
  data: {
    tenant: { id: 'ten_0123456789abcdef', name, organization },
    key: {
      id: 'key_0123456789ab',
      type: 'secret',
      environment: 'live',
      name: `${name} key`,
      prefix: 'sk_live_0123',
      expiresAt: i % 2 ? null : '2030-01-01T00:00:00.000Z',
    },
    environment: 'live',
    permissions: ['account:read', 'providers:read', 'cars:offer:read'],
    dataRetention: 'STANDARD',
    defaultLanguage: 'en',
    language,
    rateLimit: { limit: 100, windowSeconds: 60, remaining: 99 - (i % 100), reset: 1_795_573_707 + i },
  },
  meta: {
    requestId: i % 3 ? `req_abcdefgh${i.toString(36)}` : `client"id\\${i}`,
    timestamp: new Date(1_795_573_707_000 + i).toISOString(),
  },
})

test('answer template: the same bytes as the route serializer, whatever the names hold', () => {
  const names = [
    'bench',
    'Ünïcødé "quoted" \\ back',
    'emoji 🚲 and \u2028 separator',
    'control \u0001 char',
    'lone \ud800 surrogate',
    '4503599627370000',
  ]
  for (const name of names) {
    for (const organization of [null, 'Org "A"']) {
      const template = answerTemplate(serialize, answer(name, organization, 0), VARYING)
      if (name === '4503599627370000') {
        // A name holding a stand-in's digits: the template cannot tell them apart, so none is made.
        assert.equal(template, undefined)
        continue
      }
      assert.ok(template, name)
      for (let i = 1; i < 50; i++) {
        const next = answer(name, organization, i % 2 ? 0 : 2)
        next.data.rateLimit.remaining = 99 - i
        next.data.rateLimit.reset += i
        next.meta = answer(name, organization, i).meta
        assert.equal(template(next), serialize(next))
      }
    }
  }
})

test('answer template: a value of another kind is serialized as usual', () => {
  const template = answerTemplate(serialize, answer('bench', null, 0), VARYING)
  assert.ok(template)
  const odd = answer('bench', null, 0)
  ;(odd.data.rateLimit as { remaining: number }).remaining = 1.5
  assert.equal(template(odd), serialize(odd))
  assert.equal(answerTemplate(serialize, odd, VARYING), undefined)
})
