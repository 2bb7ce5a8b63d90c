/**
 * Issue 21: every text for people follows the caller's language. A German or French answer holding an English
 * sentence fails: common English words are looked for after field names, codes, routes and quoted values are removed.
 */
const ENGLISH = [
  ...['the', 'must', 'is', 'not', 'of', 'and', 'be', 'with', 'has', 'only', 'this', 'that', 'for', 'are'],
  ...['to', 'at', 'your', 'you', 'from', 'can', 'may', 'by', 'or', 'were', 'been', 'which', 'when'],
  ...[
    'already',
    'expired',
    'required',
    'missing',
    'allowed',
    'unknown',
    'cannot',
    'does',
    'used',
    'found',
    'no longer',
  ],
]
const ENGLISH_WORDS = new RegExp(`(^|[^\\p{L}])(${ENGLISH.join('|')})(?=$|[^\\p{L}])`, 'iu')

/** The text without what stays as it is in every language: codes, field names, routes, quoted values, params. */
export function englishIn(text: string): string | undefined {
  const prose = text
    .replace(/"[^"]*"|„[^“]*“|«[^»]*»|'[^']*'/g, ' ')
    .replace(/\b(GET|POST|PATCH|DELETE) \/\S*/g, ' ')
    .replace(/\b[A-Z][A-Z0-9_]+\b/g, ' ')
    .replace(/\b[a-z]+[A-Z][A-Za-z0-9.[\]]*\b/g, ' ')
    .replace(/\b\w+\.\w+[\w.]*/g, ' ')
  return ENGLISH_WORDS.exec(prose)?.[2]
}
