/**
 * Stop name search: case- and diacritics-insensitive (é → e, ß → ss, æ → ae, ł → l ...), ranked
 * exact > prefix > word prefix > substring, shorter names first within a rank.
 */

const FOLD: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  ł: 'l',
  Ł: 'l',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
}
const FOLDABLE = new RegExp(`[${Object.keys(FOLD).join('')}]`, 'g')

/** Lower case, without diacritics, punctuation as single spaces: the form both names and queries are compared in. */
export function normalizeText(text: string): string {
  return text
    .replace(FOLDABLE, (c) => FOLD[c] ?? c)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

const RANK_SCORE = [1, 0.8, 0.6, 0.4] as const

/**
 * The rank of a normalized name for a normalized query: 0 exact, 1 prefix, 2 every query word begins a word of
 * the name, 3 substring; -1 no match.
 */
export function rankName(name: string, query: string): number {
  if (name === query) return 0
  if (name.startsWith(query)) return 1
  const words = name.split(' ')
  if (query.split(' ').every((q) => words.some((w) => w.startsWith(q)))) return 2
  if (name.includes(query)) return 3
  return -1
}

/** A score in 0..1: the rank's band, and within it a bonus for names close to the query's length. */
export function scoreOf(rank: number, nameLength: number, queryLength: number): number {
  const closeness = queryLength / Math.max(nameLength, queryLength, 1)
  return Math.round((RANK_SCORE[rank] - 0.15 + 0.15 * closeness) * 1000) / 1000
}

/**
 * The rank of a stop by its name, or by its id or code one rank lower (an exact code counts as a name prefix;
 * substrings of ids do not count).
 */
export function rankStop(name: string, keys: string[], query: string): number {
  let rank = rankName(name, query)
  for (const key of keys) {
    const r = rankName(key, query)
    if (r >= 0 && r < 3 && (rank < 0 || r + 1 < rank)) rank = r + 1
  }
  return rank
}
