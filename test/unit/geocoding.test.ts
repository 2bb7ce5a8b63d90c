import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { CITIES, createGazetteerGeocoder, lookup, PLACES, type Place } from '../../src/domain/geocoding/index.ts'

const geocoder = createGazetteerGeocoder()
const ALIASES: [Place, string][] = PLACES.flatMap((place) =>
  place.aliases.map((alias): [Place, string] => [place, alias]),
)

const ACCENTS: Record<string, string[]> = {
  a: ['á', 'à', 'â', 'ä', 'å'],
  e: ['é', 'è', 'ê', 'ë'],
  i: ['í', 'ì', 'î', 'ï'],
  o: ['ó', 'ò', 'ô', 'ö'],
  u: ['ú', 'ù', 'û', 'ü'],
  c: ['ç'],
  n: ['ñ'],
}
const EXPANSIONS: Record<string, string[]> = {
  ä: ['ae', 'a'],
  ö: ['oe', 'o'],
  ü: ['ue', 'u'],
  ß: ['ss'],
  é: ['e'],
  è: ['e'],
  î: ['i'],
}
const SEPARATORS = [' ', '  ', '-', ', ', '. ', ' / ', '_', '', '\t']
const WRAPPERS = ['', '"', '(', ')', '!', '.', ',', '  ', '*', '¿', '?']

/**
 * A variant of `text` as people type it: any casing, accents added or dropped, umlauts written out,
 * other separators between words (or none), hyphens and apostrophes dropped, punctuation around it.
 */
function variant(text: string, choices: number[]): string {
  let k = 0
  const next = (n: number) => choices[k++ % choices.length] % n
  let out = WRAPPERS[next(WRAPPERS.length)]
  for (const ch of text) {
    const lower = ch.toLowerCase()
    let piece = ch
    if (ch === ' ') piece = SEPARATORS[next(SEPARATORS.length)]
    else if (ch === '-' || ch === "'" || ch === '’') piece = [ch, ' ', ''][next(3)]
    else if (EXPANSIONS[lower] && next(2) === 0) piece = EXPANSIONS[lower][next(EXPANSIONS[lower].length)]
    else if (ACCENTS[lower] && next(4) === 0) piece = ACCENTS[lower][next(ACCENTS[lower].length)]
    out += [...piece].map((c) => (next(2) ? c.toUpperCase() : c.toLowerCase())).join('')
  }
  return out + WRAPPERS[next(WRAPPERS.length)]
}

describe('gazetteer geocoder', () => {
  it('resolves every alias of every place to that place', () => {
    for (const [place, alias] of ALIASES) assert.equal(lookup(alias)?.id, place.id, alias)
  })

  it('any casing, diacritics or punctuation variant of a gazetteer name still resolves to it (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ALIASES),
        fc.array(fc.nat({ max: 9_999 }), { minLength: 1, maxLength: 64 }),
        ([place, alias], choices) => {
          const text = variant(alias, choices)
          assert.equal(lookup(text)?.id, place.id, `${JSON.stringify(text)} (from ${alias})`)
        },
      ),
      { numRuns: 2_000 },
    )
  })

  it('tolerates house numbers, postcodes and the city after the name (property)', () => {
    const notCities = ALIASES.filter(([place]) => place.kind !== 'city')
    fc.assert(
      fc.property(
        fc.constantFrom(...notCities),
        fc.integer({ min: 1, max: 250 }),
        fc.integer({ min: 1000, max: 99_999 }),
        fc.boolean(),
        ([place, alias], number, postcode, withCountry) => {
          const city = CITIES[place.city]
          const text = `${alias} ${number}, ${postcode} ${city.names[number % city.names.length]}${withCountry ? `, ${city.country[0]}` : ''}`
          assert.equal(lookup(text)?.id, place.id, text)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('geocodes addresses with labels in the caller’s language', async () => {
    const cases: [string, string, string, string][] = [
      ['Alexanderplatz 1, 10178 Berlin', 'en', 'alexanderplatz', 'Alexanderplatz, Berlin'],
      ['Flughafen BER', 'de', 'ber', 'Flughafen Berlin Brandenburg (BER)'],
      ['Berlin Brandenburg Airport', 'en', 'ber', 'Berlin Brandenburg Airport (BER)'],
      ['Aéroport de Berlin-Brandebourg', 'fr', 'ber', 'Aéroport de Berlin-Brandebourg (BER)'],
      ['Hauptbahnhof', 'en', 'berlinhbf', 'Berlin Central Station'],
      ['München Hauptbahnhof', 'de', 'muenchenhbf', 'München Hauptbahnhof'],
      ['Muenchen Hbf', 'en', 'muenchenhbf', 'Munich Central Station'],
      ['Marienplatz, 80331 München', 'en', 'marienplatz', 'Marienplatz, Munich'],
      ['Munich', 'de', 'munich', 'München'],
      ['Friedrichstr. 100, 10117 Berlin', 'de', 'friedrichstrasse', 'Friedrichstraße, Berlin'],
      ['KURFUERSTENDAMM 21', 'en', 'kudamm', 'Kurfürstendamm, Berlin'],
      ['Warschauer Strasse', 'en', 'warschauer', 'Warschauer Straße, Berlin'],
      ['Potsdamerplatz', 'en', 'potsdamerplatz', 'Potsdamer Platz, Berlin'],
      ['Brandenburg Gate', 'fr', 'brandenburgertor', 'Porte de Brandebourg, Berlin'],
      ['Alexanderplaz', 'en', 'alexanderplatz', 'Alexanderplatz, Berlin'],
      ['Tempelhofer Feld', 'en', 'tempelhoferfeld', 'Tempelhof Field, Berlin'],
      ['Wien Hauptbahnhof', 'en', 'wienhbf', 'Vienna Central Station'],
      ['Vienne', 'fr', 'vienna', 'Vienne'],
      ['Tour Eiffel', 'de', 'eiffel', 'Eiffelturm, Paris'],
      ["Aéroport d'Orly", 'fr', 'orly', 'Aéroport de Paris-Orly (ORY)'],
      ['Hamburg Hbf', 'en', 'hamburghbf', 'Hamburg Central Station'],
      ['Hauptstraße 5, 10827 Berlin', 'en', 'berlin', 'Berlin'],
      ['18 Rue de Dunkerque, 75010 Paris', 'en', 'paris', 'Paris'],
    ]
    for (const [address, language, id, label] of cases) {
      const found = await geocoder.geocode(address, language)
      const place = PLACES.find((p) => p.id === id)!
      assert.deepEqual(
        found,
        { coordinates: place.coordinates, label, countryCode: CITIES[place.city].countryCode },
        address,
      )
    }
  })

  it('answers undefined when nothing plausible matches', async () => {
    for (const address of [
      '',
      '   ',
      '12345',
      'Foo Bar',
      'Main Street 5, Springfield',
      'Strasse',
      'Flughafen',
      'Platz 1',
      'xyz Berlin abc def',
    ]) {
      assert.equal(await geocoder.geocode(address, 'en'), undefined, JSON.stringify(address))
    }
  })

  it('knows the sandbox cities with their countries', async () => {
    const codes = await Promise.all(
      ['Berlin', 'München', 'Hamburg', 'Paris', 'Wien'].map((c) => geocoder.geocode(c, 'en')),
    )
    assert.deepEqual(
      codes.map((c) => c?.countryCode),
      ['DE', 'DE', 'DE', 'FR', 'AT'],
    )
  })
})
