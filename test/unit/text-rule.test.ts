import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { Type } from 'typebox'
import { FreeText } from '../../src/contract/common.ts'
import { validationDetails } from '../../src/http/error-handler.ts'
import { KEY_RULE_MESSAGE as KEY_RULE, TEXT_RULE_MESSAGE as TEXT_RULE, withTextRule } from '../../src/http/text-rule.ts'
import { validatorCompiler } from '../../src/http/validation.ts'
import { renderText } from '../../src/platform/i18n/texts.ts'

/**
 * The oracle, written without regular expressions: C0 controls, DEL, C1 controls, and a surrogate that is not half of
 * a pair (a high one not followed by a low one, a low one not preceded by a high one). Free text may hold \t \n \r.
 */
function forbidden(text: string, freeText: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const high = c >= 0xd800 && c <= 0xdbff
    const low = c >= 0xdc00 && c <= 0xdfff
    if (high) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
      return true
    }
    if (low) return true
    if (c < 0x20 && !(freeText && (c === 0x09 || c === 0x0a || c === 0x0d))) return true
    if (c >= 0x7f && c <= 0x9f) return true
  }
  return false
}

const compile = validatorCompiler()
const validator = (schema: unknown, httpPart = 'body') => {
  const validate = compile({ schema, httpPart, method: 'POST', url: '/t' }) as (data: unknown) => {
    error?: { validation: Parameters<typeof validationDetails>[0] }
  }
  return (data: unknown) => {
    const result = validate(data)
    return result.error ? JSON.parse(JSON.stringify(validationDetails(result.error.validation, httpPart))) : undefined
  }
}

const Body = Type.Object(
  {
    line: Type.Optional(Type.String()),
    free: Type.Optional(FreeText()),
    record: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
)
const check = validator(Body)

/** Text that mixes ordinary letters, other scripts, emoji, the allowed and the forbidden characters, and any code unit. */
const text = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom('a', 'Z', ' ', 'ë', '北', '京', '🚲', '👩‍👩‍👧', '\u00a0', '\u2028', '\ufffd'),
      },
      { weight: 2, arbitrary: fc.constantFrom('\t', '\n', '\r', '\u0000', '\u001f', '\u007f', '\u0085', '\u009f') },
      { weight: 2, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude80') },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''))

/** The English messages (details are catalog texts, serialized in English). */
const TEXT_RULE_MESSAGE = renderText('en', TEXT_RULE)
const KEY_RULE_MESSAGE = renderText('en', KEY_RULE)

describe('the text rule', () => {
  it('refuses a one-line string exactly when it holds a forbidden character, naming the field', () => {
    fc.assert(
      fc.property(text, (s) => {
        const details = check({ line: s })
        if (forbidden(s, false)) assert.deepEqual(details, { line: TEXT_RULE_MESSAGE })
        else assert.equal(details, undefined)
      }),
      { numRuns: 2000 },
    )
  })

  it('lets free text hold tab, line feed and carriage return, and nothing else of the forbidden', () => {
    fc.assert(
      fc.property(text, (s) => {
        const details = check({ free: s })
        if (forbidden(s, true)) assert.deepEqual(details, { free: TEXT_RULE_MESSAGE })
        else assert.equal(details, undefined)
      }),
      { numRuns: 2000 },
    )
  })

  it('holds for the keys and values of records', () => {
    fc.assert(
      fc.property(text, text, (key, value) => {
        const details = check({ record: { [key]: value } })
        const expected: Record<string, string> = {}
        if (forbidden(key, false)) expected.record = KEY_RULE_MESSAGE
        if (forbidden(value, false)) expected[`record.${key}`] = TEXT_RULE_MESSAGE
        assert.deepEqual(details ?? {}, expected)
      }),
      { numRuns: 1000 },
    )
  })

  it('accepts every script and emoji, and refuses the characters of issue 14', () => {
    for (const ok of ['Zoë', '北京', '🚲', '👩‍👩‍👧', 'Ünïcødé – “quotes”', '+49 30 1234567', '', 'a\u00a0b']) {
      assert.equal(check({ line: ok }), undefined, JSON.stringify(ok))
    }
    for (const bad of ['A\u0000B', '\ud800', '+49\u0000', 'x\u007f', '\u0085', 'a\tb', 'a\nb', '\ude00🚲']) {
      assert.deepEqual(check({ line: bad }), { line: TEXT_RULE_MESSAGE }, JSON.stringify(bad))
    }
    assert.equal(check({ free: 'line 1\r\nline 2\tend' }), undefined)
  })

  it('applies to query strings and path parameters too, and leaves headers alone', () => {
    const query = validator(Type.Object({ q: Type.String(), n: Type.Optional(Type.Integer()) }), 'querystring')
    assert.deepEqual(query({ q: 'a\u0000', n: '3' }), { q: TEXT_RULE_MESSAGE })
    assert.equal(query({ q: 'Zoë', n: '3' }), undefined)
    const params = validator(Type.Object({ id: Type.String({ maxLength: 20 }) }), 'params')
    assert.deepEqual(params({ id: '\u0000' }), { id: TEXT_RULE_MESSAGE })
    const headers = validator(Type.Object({ 'x-anything': Type.Optional(Type.String()) }), 'headers')
    assert.equal(headers({ 'x-anything': 'a\u0001' }), undefined)
  })

  it('keeps what the schema already said: patterns, formats, lengths, enums, constants, unions', () => {
    const schema = Type.Object({
      place: Type.Optional(Type.String({ pattern: '^p_[a-z0-9]+$' })),
      email: Type.Optional(Type.String({ format: 'email' })),
      short: Type.Optional(Type.String({ maxLength: 3 })),
      kind: Type.Optional(Type.Union([Type.Literal('A'), Type.Literal('B')])),
      choice: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['X', 'Y'] })),
      either: Type.Optional(Type.Union([Type.String(), Type.Boolean()])),
      list: Type.Optional(Type.Array(Type.String())),
      maybe: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
    })
    const v = validator(schema)
    assert.equal(v({ place: 'p_abc', email: 'a@example.com', short: 'abc', kind: 'A', choice: 'X' }), undefined)
    assert.match(v({ place: 'P_ABC' })?.place ?? '', /pattern "\^p_/)
    assert.deepEqual(v({ place: 'p_a\u0000' }), { place: TEXT_RULE_MESSAGE })
    assert.match(v({ email: 'nope' })?.email ?? '', /format/)
    assert.match(v({ short: 'abcd' })?.short ?? '', /more than 3/)
    assert.ok(v({ kind: 'C' })?.kind)
    assert.equal(v({ choice: 'Z' })?.choice, 'must be one of X, Y')
    assert.equal(v({ either: true, maybe: null }), undefined)
    assert.deepEqual(v({ either: 'a\u0000' }), { either: TEXT_RULE_MESSAGE })
    assert.deepEqual(v({ list: ['ok', '\u0000'] }), { 'list[1]': TEXT_RULE_MESSAGE })
    assert.deepEqual(v({ maybe: '\ud800' }), { maybe: TEXT_RULE_MESSAGE })
  })

  it('copies the schema (answers share the shapes) and applies the rule once', () => {
    const schema = Type.Object({ name: Type.String({ pattern: '^[a-z]+$' }) })
    const before = JSON.stringify(schema)
    const ruled = withTextRule(schema)
    assert.equal(JSON.stringify(schema), before, 'the schema itself is unchanged')
    assert.equal(withTextRule(schema), ruled, 'the same copy for the same schema')
    assert.equal(JSON.stringify(withTextRule(ruled)), JSON.stringify(ruled), 'applying it again changes nothing')
  })
})
