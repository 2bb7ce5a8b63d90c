import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { ERROR_CODES } from '../../src/contract/errors.ts'
import { LANGUAGES } from '../../src/contract/languages.ts'
import { CATALOGS, errorMessage, negotiateLanguage } from '../../src/platform/i18n/index.ts'

describe('languages', () => {
  it('ships English, German and French with a message for every code and reason', () => {
    assert.deepEqual([...LANGUAGES].sort(), ['de', 'en', 'fr'])
    assert.deepEqual(Object.keys(CATALOGS), [...LANGUAGES], 'one catalog per contract language, in its order')
    const reasons = Object.keys(CATALOGS.en.reasons).sort()
    for (const language of LANGUAGES) {
      for (const code of ERROR_CODES) {
        assert.ok(CATALOGS[language].errors[code]?.length > 0, `${language} ${code}`)
      }
      assert.deepEqual(Object.keys(CATALOGS[language].reasons).sort(), reasons, language)
    }
    assert.notEqual(errorMessage('de', 'NOT_FOUND'), errorMessage('en', 'NOT_FOUND'))
    assert.notEqual(errorMessage('fr', 'NOT_FOUND'), errorMessage('en', 'NOT_FOUND'))
  })

  it('picks the best available language by q-value, then order', () => {
    assert.equal(negotiateLanguage('de;q=0.5, fr;q=0.8', 'en'), 'fr')
    assert.equal(negotiateLanguage('fr-CA, de', 'en'), 'fr')
    assert.equal(negotiateLanguage('ja, it;q=0.9, de;q=0.1', 'en'), 'de')
    assert.equal(negotiateLanguage('ja', 'de'), 'de')
    assert.equal(negotiateLanguage('*', 'fr'), 'fr')
    assert.equal(negotiateLanguage('de;q=0, fr;q=0.1', 'en'), 'fr')
    assert.equal(negotiateLanguage(undefined, 'de'), 'de')
    assert.equal(negotiateLanguage('EN-gb', 'de'), 'en')
  })

  it('always answers an available language or the fallback, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.constantFrom(...LANGUAGES), (header, fallback) => {
        const chosen = negotiateLanguage(header, fallback)
        assert.ok(LANGUAGES.includes(chosen))
      }),
    )
  })

  it('an exact match with the highest q wins', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray([...LANGUAGES], { minLength: 1 }),
        fc.constantFrom(...LANGUAGES),
        (langs, fallback) => {
          const header = langs.map((l, i) => `${l};q=${(1 - i * 0.1).toFixed(1)}`).join(', ')
          assert.equal(negotiateLanguage(header, fallback), langs[0])
        },
      ),
    )
  })
})
