import type { Coordinates } from '../../contract/shared.ts'
import { CITIES, type Labels, PLACES, type Place } from './gazetteer.ts'

export interface GeocodeResult {
  coordinates: Coordinates
  /** The place found, in the requested language where the gazetteer has it. */
  label: string
  /** ISO 3166-1 alpha-2. */
  countryCode: string
}

/** Turns a free-text address into coordinates; undefined when nothing plausible matches. The service depends on this only. */
export interface Geocoder {
  geocode(address: string, language: string): Promise<GeocodeResult | undefined>
}

// ---------------------------------------------------------------------------------------------------------------
// Normalization

/**
 * Lower case, no diacritics (ü → u, ß → ss, æ → ae), every run of other characters a separator; the abbreviation
 * "str." (as in "Friedrichstr.") written out.
 */
export function rawTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((t) => (t.endsWith('str') ? `${t}asse` : t))
}

/** German transliterations written out (ue, oe, ae) match the plain vowel: "Muenchen" = "München" = "Munchen". */
export const canonical = (token: string) => token.replace(/([aou])e/g, '$1')

const STOPWORDS = new Set(
  [
    'der',
    'die',
    'das',
    'den',
    'dem',
    'des',
    'am',
    'an',
    'im',
    'in',
    'bei',
    'und',
    'zum',
    'zur',
    'von',
    'the',
    'of',
    'at',
  ]
    .concat(['and', 'de', 'du', 'la', 'le', 'les', 'l', 'd', 'et', 'a', 'au', 'aux', 'st', 's'])
    .map(canonical),
)
const isNumber = (t: string) => /^\d+[a-z]?$/.test(t)

/** Words that say what kind of place it is but not which: alone they never make a match. */
const KIND_WORDS = new Set(
  [
    'strasse',
    'street',
    'platz',
    'place',
    'square',
    'rue',
    'avenue',
    'allee',
    'bahnhof',
    'station',
    'gare',
    'airport',
    'flughafen',
    'aeroport',
    'central',
    'main',
    'centrale',
    'tor',
    'gate',
    'park',
    'garten',
    'markt',
    'berg',
    'hbf',
  ].map(canonical),
)
/** City and country names: they place a query in a city, but never identify a place inside it. */
const AREA_WORDS = new Set(
  Object.values(CITIES)
    .flatMap((c) => [...c.names, ...c.country].flatMap(rawTokens))
    .map(canonical),
)

/** A query word as matched: its canonical form, and whether it counts (not a number or stopword). */
interface Word {
  text: string
  meaningful: boolean
}

function words(text: string): Word[] {
  return rawTokens(text).map((t) => {
    const text = canonical(t)
    return { text, meaningful: !isNumber(t) && !STOPWORDS.has(text) }
  })
}

/** Damerau-free Levenshtein distance of at most 1 (one edit), for typo tolerance on long words. */
function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true
  if (Math.abs(a.length - b.length) > 1) return false
  let i = 0
  let j = 0
  let edits = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++
      j++
      continue
    }
    if (++edits > 1) return false
    if (a.length > b.length) i++
    else if (b.length > a.length) j++
    else {
      i++
      j++
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

interface Alias {
  place: Place
  tokens: string[]
  compact: string
}

const ALIASES: Alias[] = PLACES.flatMap((place) =>
  place.aliases.map((alias) => {
    const tokens = words(alias)
      .filter((w) => w.meaningful)
      .map((w) => w.text)
    return { place, tokens, compact: canonical(rawTokens(alias).join('')) }
  }),
)

const CONTEXT = new Map(
  Object.entries(CITIES).map(([key, city]) => [
    key,
    new Set([...city.names, ...city.country].flatMap(rawTokens).map(canonical)),
  ]),
)

/** Indexes of query words that, joined, spell the alias (so "Potsdamerplatz", "Karl Marx Allee" match). */
function spelled(raw: string[], compact: string): number[] | undefined {
  for (let i = 0; i < raw.length; i++) {
    let joined = ''
    for (let j = i; j < raw.length && joined.length < compact.length; j++) {
      joined += raw[j]
      if (canonical(joined) === compact) return Array.from({ length: j - i + 1 }, (_, k) => i + k)
    }
  }
  return undefined
}

interface Candidate {
  place: Place
  score: number
}

function score(alias: Alias, query: Word[], raw: string[]): Candidate | undefined {
  const meaningful = query.filter((w) => w.meaningful).length
  const explained = new Set<number>()
  const span = spelled(raw, alias.compact)
  let aliasCoverage: number
  if (span) {
    for (const i of span) explained.add(i)
    aliasCoverage = 1
  } else {
    let matched = 0
    let specific = false
    for (const token of alias.tokens) {
      const exact = query.findIndex((w) => w.meaningful && w.text === token)
      const fuzzy =
        exact >= 0 || token.length < 7
          ? -1
          : query.findIndex((w) => w.meaningful && w.text.length >= 7 && withinOneEdit(w.text, token))
      const at = exact >= 0 ? exact : fuzzy
      if (at < 0) continue
      explained.add(at)
      matched += exact >= 0 ? 1 : 0.8
      if (!KIND_WORDS.has(token) && !AREA_WORDS.has(token)) specific = true
    }
    if (!specific || alias.tokens.length === 0) return undefined
    aliasCoverage = matched / alias.tokens.length
    if (aliasCoverage < 0.5) return undefined
  }
  const context = CONTEXT.get(alias.place.city)!
  // The city and country named, and words such as "Straße" or "Rue", are consistent with the place.
  query.forEach((w, i) => {
    if (w.meaningful && (context.has(w.text) || KIND_WORDS.has(w.text))) explained.add(i)
  })
  const explainedMeaningful = [...explained].filter((i) => query[i].meaningful).length
  const queryCoverage = meaningful === 0 ? 1 : explainedMeaningful / meaningful
  if (queryCoverage < 0.5) return undefined
  return { place: alias.place, score: 2 * aliasCoverage + queryCoverage + (alias.place.kind === 'city' ? 0 : 0.05) }
}

const labelOf = (labels: Labels, language: string) => {
  const primary = language.trim().slice(0, 2).toLowerCase()
  return (primary === 'de' && labels.de) || (primary === 'fr' && labels.fr) || labels.en
}

/** The best gazetteer place for a text, or undefined. */
export function lookup(address: string): Place | undefined {
  const raw = rawTokens(address)
  const query = words(address)
  if (!query.some((w) => w.meaningful)) return undefined
  let best: Candidate | undefined
  for (const alias of ALIASES) {
    const candidate = score(alias, query, raw)
    if (candidate && (!best || candidate.score > best.score + 1e-9)) best = candidate
  }
  return best?.place
}

/** The offline geocoder over the bundled gazetteer (Berlin and the other sandbox cities). */
export function createGazetteerGeocoder(): Geocoder {
  return {
    geocode: async (address, language) => {
      const place = lookup(address)
      if (!place) return undefined
      return {
        coordinates: { ...place.coordinates },
        label: labelOf(place.labels, language),
        countryCode: CITIES[place.city].countryCode,
      }
    },
  }
}

export { CITIES, PLACES, type Place } from './gazetteer.ts'
