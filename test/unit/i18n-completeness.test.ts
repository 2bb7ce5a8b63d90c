import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ERROR_CODES } from '../../src/contract/errors.ts'
import { CATALOGS, errorMessage } from '../../src/platform/i18n/index.ts'
import { detail, localizeDetails, renderText, textKeys } from '../../src/platform/i18n/texts.ts'
import { englishIn } from '../helpers/english.ts'

const SAMPLE = {
  values: ['A', 'B'],
  value: 'A',
  type: 'integer',
  comparison: '<=',
  limit: 3,
  i: 1,
  j: 0,
  pattern: '^x$',
  format: 'date',
  deps: 'b',
  property: 'a',
  rule: 'x',
  environment: 'live',
  route: 'POST /cars/prebook',
  now: '2026-11-24T00:00:00.000Z',
  days: 90,
  max: 3,
  zoom: 2,
  first: 'departAt',
  second: 'arriveBy',
  productId: 'deutschlandticket',
  providers: ['a', 'b'],
  field: 'offerTokens[0]',
  unknown: ['x'],
  available: ['y'],
  known: ['y'],
  action: 'START',
  tripId: 'trp_1',
  code: 'GPS',
  availability: 'INCLUDED',
  age: 21,
  example: 'LH 1234',
  status: 'CANCELLED',
  earliest: '2026-11-01',
  latest: '2027-11-01',
  today: '2026-11-24',
  name: 'traveller',
  old: 'customer',
  provider: 'sandbox-transit',
  host: 'example.com',
  address: '10.0.0.1',
  addressClass: 'private',
  error: 'ENOTFOUND',
  types: 'RENTAL_TIMES',
}

describe('every text for people in the caller language', () => {
  it('the detector finds English and lets German and French through', () => {
    assert.equal(englishIn('must be one of A, B'), 'must')
    assert.equal(englishIn('muss einer dieser Werte sein: A, B'), undefined)
    assert.equal(englishIn("doit être l'une de ces valeurs : A, B"), undefined)
    assert.equal(englishIn('ist ein Cursor von POST /cars: senden Sie ihn nur dort'), undefined)
  })

  it('the catalogs have the same keys in en, de and fr', () => {
    for (const section of ['errors', 'reasons', 'recommendations', 'details', 'history'] as const) {
      const en = Object.keys((CATALOGS.en as any)[section]).sort()
      for (const language of ['de', 'fr']) {
        assert.deepEqual(Object.keys((CATALOGS[language] as any)[section]).sort(), en, `${language} ${section}`)
      }
    }
  })

  it('every error code, every details.reason and every detail message has no English in de and fr', () => {
    const reasons = Object.keys(CATALOGS.en.reasons)
    for (const language of ['de', 'fr']) {
      for (const code of ERROR_CODES) {
        const text = errorMessage(language, code)
        assert.equal(englishIn(text), undefined, `${language} ${code}: ${text}`)
        for (const reason of reasons) {
          const withReason = errorMessage(language, code, reason)
          assert.equal(englishIn(withReason), undefined, `${language} ${code}/${reason}: ${withReason}`)
        }
      }
      for (const section of ['details', 'history'] as const) {
        for (const key of textKeys(section)) {
          const text = renderText(language, key, SAMPLE, section)
          assert.equal(englishIn(text), undefined, `${language} ${key}: ${text}`)
          assert.doesNotMatch(text, /\{\w+\}/, `${language} ${key} has every parameter filled in`)
        }
      }
    }
  })

  it('the English texts do have English (the detector is not blind)', () => {
    const found = textKeys('details').filter((key) => englishIn(renderText('en', key, SAMPLE)))
    assert.ok(found.length > textKeys('details').length / 2)
  })

  it('details are rendered at send time, deeply; anything else stays as it is', () => {
    const details = { a: detail('IS_REQUIRED'), list: [{ b: detail('MUST_BE_ONE_OF', { values: ['X', 'Y'] }) }], n: 3 }
    assert.deepEqual(localizeDetails(details, 'de'), {
      a: 'ist erforderlich',
      list: [{ b: 'muss einer dieser Werte sein: X, Y' }],
      n: 3,
    })
    assert.equal(JSON.stringify(details.a), '"is required"')
    assert.equal(renderText('de-AT', 'IS_REQUIRED'), 'ist erforderlich')
    assert.equal(renderText('es', 'IS_REQUIRED'), 'is required')
  })
})
