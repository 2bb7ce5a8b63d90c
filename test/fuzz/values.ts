import fc from 'fast-check'
import { createTokenCipher, generateTokenKeys, parseTokenKeys } from '../../src/platform/tokens.ts'
import { firstType, type Schema } from './schema.ts'
import { At, Raw, Ref, type Template } from './template.ts'

/** The catalogue of bad values: text, numbers, nesting, dates, e-mails, tokens and ids that should be refused. */

const HOUR = 3600_000
const DAY = 24 * HOUR

// ---------------------------------------------------------------------------------------------------------------
// Text that no field should accept, or that only free text should

/** C0 and C1 controls, DEL, lone surrogates, and other code points that break naive handling. */
export const NASTY_CHARS = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\u0008',
  '\t',
  '\n',
  '\u000b',
  '\u000c',
  '\r',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u0085',
  '\u009b',
  '\u009f',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u200b',
  '\u0301',
]

/** Any code point, lone surrogates and controls included (fast-check's own units leave lone surrogates out). */
const anyChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_CHARS) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
)

export const nastyString = fc.array(anyChar, { minLength: 1, maxLength: 12 }).map((a) => a.join(''))

/** `base` with control characters or lone surrogates put in front, in the middle or at the end. */
export const tainted = (base: string) =>
  fc.tuple(fc.constantFrom('start', 'middle', 'end', 'only'), nastyString).map(([where, bad]) => {
    if (where === 'only') return bad
    if (where === 'start') return bad + base
    if (where === 'end') return base + bad
    const i = Math.floor(base.length / 2)
    return base.slice(0, i) + bad + base.slice(i)
  })

const LONG_LENGTHS = [101, 201, 256, 301, 1001, 4097, 8193, 65_537, 300_000]
export const longString = fc
  .tuple(fc.constantFrom(...LONG_LENGTHS), fc.constantFrom('a', 'é', '🚲', '0', '%', ' ', '\\'))
  .map(([n, c]) => c.repeat(c.length === 2 ? Math.ceil(n / 2) : n))

// ---------------------------------------------------------------------------------------------------------------
// Numbers

/** Numbers JSON can carry, the ones JSON.stringify cannot write included (as Raw text). */
export const nastyNumber: fc.Arbitrary<Template> = fc.oneof(
  fc.constantFrom<Template>(
    0,
    -1,
    1,
    -0.5,
    0.5,
    1.5,
    -1e9,
    1e9,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 32,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.EPSILON,
    1e21,
    1e-7,
  ),
  fc.constantFrom(
    new Raw('1e309'),
    new Raw('-1e309'),
    new Raw('1e-400'),
    new Raw('-0'),
    new Raw('-0.0'),
    new Raw('1E2'),
    new Raw('1.0'),
    new Raw('123456789012345678901234567890'),
    new Raw('0.1e-999999'),
    new Raw(`1${'0'.repeat(400)}`),
    new Raw(`0.${'1'.repeat(400)}`),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
)

/** What a query string or path can say instead of a number. */
export const nastyNumericText = fc.oneof(
  fc.constantFrom(
    '1e309',
    '-1e309',
    'Infinity',
    '-Infinity',
    'NaN',
    '-0',
    '0x10',
    '0b1',
    '1_000',
    ' 5',
    '5 ',
    '+5',
    '.5',
    '5.',
    '1e5',
    '١٢',
    '９',
    '',
    '9'.repeat(400),
    '0.0000000000000000000001',
    '-1',
    '2147483648',
    '9007199254740993',
    'true',
    'null',
    '[]',
    '1,2',
  ),
  nastyNumber.map((n) => (n instanceof Raw ? n.text : String(n))),
)

// ---------------------------------------------------------------------------------------------------------------
// Nesting and whole documents

/** Arrays or objects nested `depth` deep (JSON.parse copes; recursive code after it may not). */
export const deepNesting = fc
  .tuple(fc.constantFrom(10, 100, 1000, 10_000, 100_000), fc.constantFrom('array', 'object', 'mixed'))
  .map(([depth, kind]) => {
    if (kind === 'array') return new Raw(`${'['.repeat(depth)}${']'.repeat(depth)}`)
    if (kind === 'object') return new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)
    return new Raw(`${'[{"a":'.repeat(depth / 2)}1${'}]'.repeat(depth / 2)}`)
  })

/** Keys that poison prototypes or break naive record handling. */
export const NASTY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  '$where',
  '$ne',
  'a.b',
  'a[0]',
  '\u0000',
  '\ud800',
  'x'.repeat(300),
]

export const wrongType: fc.Arbitrary<Template> = fc.oneof(
  fc.constantFrom<Template>(null, true, false, '', ' ', '0', 'null', 'undefined', [], {}, [null], [[]], [{}]),
  fc.constant<Template>({ $ne: null }),
  fc.constant<Template>({ __proto__x: 1 }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Template>,
)

// ---------------------------------------------------------------------------------------------------------------
// Dates, e-mails, URIs: well-formed-looking and not

export const nastyDateTime: fc.Arbitrary<Template> = fc.oneof(
  // Valid RFC 3339 that JavaScript dates cannot hold or that sit at the edges of their range: they pass the format
  // check, so they are the likeliest to break the code behind it.
  {
    weight: 3,
    arbitrary: fc.constantFrom<Template>(
      '2031-06-30T23:59:60Z',
      '2031-12-31T23:59:60+01:00',
      '1990-12-31T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '0000-01-01T00:00:00+23:59',
      '9999-12-31T23:59:59-23:59',
      '2031-06-01T10:00:00.0000000000000000001Z',
      '2031-06-01T10:00:00+00:00',
      '2031-06-01t10:00:00z',
    ),
  },
  fc.constantFrom<Template>(
    '2020-01-01T00:00:00Z',
    '1970-01-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59.999999999+14:00',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2031-02-30T10:00:00Z',
    '2031-13-01T10:00:00Z',
    '2031-06-01T24:00:00Z',
    '2031-06-01T23:59:60Z',
    '2031-06-30T23:59:60Z',
    '2031-06-01T10:00:00+24:00',
    '2031-06-01T10:00:00-23:59',
    '2031-06-01T10:00:00',
    '2031-06-01',
    '2031-06-01 10:00:00Z',
    '2031-06-01t10:00:00z',
    '2031-06-01T10:00:00.Z',
    'now',
    'tomorrow',
    '',
    '1e309',
    'T',
    'Z',
  ),
  fc
    .constantFrom(-400 * DAY, -DAY, -HOUR, -1, 0, 1, 60_000, 30 * DAY, 400 * DAY, 3650 * DAY, 99 * 365 * DAY)
    .map((ms) => new At(ms) as Template),
  fc.integer({ min: -1e15, max: 1e15 }).map((n) => n as Template),
)

export const nastyDate: fc.Arbitrary<Template> = fc.constantFrom<Template>(
  '2000-02-29',
  '1900-02-29',
  '2001-02-29',
  '0000-00-00',
  '9999-99-99',
  '0001-01-01',
  '9999-12-31',
  '1850-01-01',
  '2031-06-01T00:00:00Z',
  '20310601',
  '31.12.1990',
  '',
  new At(DAY, 'date'),
  new At(-DAY, 'date'),
  new At(365 * 200 * DAY, 'date'),
)

export const nastyEmail: fc.Arbitrary<Template> = fc.constantFrom<Template>(
  'a@b',
  'a@b.c',
  '@example.com',
  'a@',
  'a b@example.com',
  '"a b"@example.com',
  'a..b@example.com',
  'a@[127.0.0.1]',
  'ä@müller.de',
  `${'x'.repeat(64)}@example.com`,
  `${'x'.repeat(65)}@example.com`,
  `a@${'b'.repeat(250)}.com`,
  'a@example.com\u0000',
  'a@example.com\r\nBcc: x@example.com',
  'a@example.com,b@example.com',
)

// ---------------------------------------------------------------------------------------------------------------
// Tokens, cursors and ids that look right and are not

const b64url = fc
  .string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
    maxLength: 400,
  })
  .map((s) => s)

/**
 * Tokens in the service's own format (version, key id "k1", IV, tag, AES-GCM body, base64url) sealed by another
 * installation's key: they pass every format check and fail only at authentication.
 */
const stranger = createTokenCipher(parseTokenKeys(generateTokenKeys('k1')))
const FOREIGN_SEALED = [
  stranger.seal('offer', { o: 'sandbox-rent:1', t: 'ten_x', e: 'live', x: Date.now() + 1e9 }),
  stranger.seal('cursor', { s: 'session', p: 1 }),
  stranger.seal('zr1', { t: 'ten_x', p: 'sandbox-rent', r: 'RT-000001' }),
  stranger.seal('', null),
  stranger.seal('x', 'x'.repeat(3000)),
]

/** Byte-level changes to a sealed token (version, key id, IV, tag, body). */
const sealedTwist = (mutate: (raw: Buffer) => Buffer) => (token: string) => {
  const raw = Buffer.from(token, 'base64url')
  if (raw.length < 4) return token
  return mutate(Buffer.from(raw)).toString('base64url')
}
const setByte = (i: number, value: number) => (raw: Buffer) => {
  raw[i] = value
  return raw
}
const flip = (at: (raw: Buffer) => number) => (raw: Buffer) => {
  const i = Math.min(raw.length - 1, Math.max(0, at(raw)))
  raw[i] ^= 0x01
  return raw
}

/** Garbage shaped like the service's sealed tokens, JWTs, keys of another format. */
export const garbageToken: fc.Arbitrary<Template> = fc.oneof(
  fc.constantFrom(...FOREIGN_SEALED),
  fc.constantFrom(...FOREIGN_SEALED).map((t) => `zr1_${t}`),
  b64url,
  b64url.map((s) => `k1.${s}`),
  b64url.map((s) => `v1.${s}`),
  b64url.map((s) => `zr1_${s}`),
  b64url.map((s) => `eyJhbGciOiJub25lIn0.${s}.`),
  fc.constantFrom('', ' ', '.', '..', '...', 'null', 'undefined', 'k1.', '.k1', 'zr1_', '%00', '\u0000', '=', '=='),
  tainted('k1.AAAA'),
  longString,
)

/** Transformations of a real token: still well-formed looking, no longer valid. */
export const TOKEN_TWISTS: [string, (s: string) => string][] = [
  ['truncated', (s) => s.slice(0, Math.max(1, Math.floor(s.length / 2)))],
  ['last char changed', (s) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A')],
  ['first char changed', (s) => (s.startsWith('A') ? 'B' : 'A') + s.slice(1)],
  [
    'middle char changed',
    (s) => s.slice(0, s.length >> 1) + (s[s.length >> 1] === 'x' ? 'y' : 'x') + s.slice((s.length >> 1) + 1),
  ],
  ['doubled', (s) => s + s],
  ['padded', (s) => `${s}==`],
  ['spaces around', (s) => ` ${s} `],
  ['upper case', (s) => s.toUpperCase()],
  ['NUL appended', (s) => `${s}\u0000`],
  ['lone surrogate appended', (s) => `${s}\ud800`],
  ['url-encoded', (s) => encodeURIComponent(s)],
  ['kid removed', (s) => s.replace(/^[^.]*\./, '')],
  ['other kid', (s) => s.replace(/^[^.]*\./, 'zz.')],
  ['base64 padding chars', (s) => s.replace(/-/g, '+').replace(/_/g, '/')],
  ['version byte changed', sealedTwist(setByte(0, 2))],
  ['key id changed', sealedTwist((raw) => flip(() => 2)(raw))],
  ['IV bit flipped', sealedTwist(flip((raw) => 2 + raw[1] + 3))],
  ['tag bit flipped', sealedTwist(flip((raw) => 2 + raw[1] + 12 + 5))],
  ['body bit flipped', sealedTwist(flip((raw) => raw.length - 2))],
  ['body cut', sealedTwist((raw) => raw.subarray(0, Math.max(0, raw.length - 5)))],
  ['key id length changed', sealedTwist(setByte(1, 200))],
]

/** A real token of `slot`, twisted. */
export const twistedRef = (slot: string) =>
  fc
    .tuple(fc.nat(), fc.constantFrom(...TOKEN_TWISTS))
    .map(([pick, [label, twist]]) => new Ref(slot, pick, twist, `${slot} ${label}`) as Template)

export const nastyId: fc.Arbitrary<Template> = fc.oneof(
  fc.constantFrom<Template>(
    '..',
    '.',
    '%2e%2e',
    '%2F',
    '%00',
    '%',
    '%zz',
    '%C0%80',
    '%ED%A0%80',
    '%FF%FE',
    'a%2Fb',
    "1' OR '1'='1",
    '1;DROP TABLE bookings',
    '$(id)',
    '{{7*7}}',
    '0',
    '-1',
    '1e309',
    'null',
    'undefined',
    'NaN',
    'bk_',
    'ten_',
    'key_',
    'trip_',
    'zr1_',
    'sandbox:',
    'sandbox-transit:',
    ' ',
    'ÄÖÜ',
    '🚲',
    'A'.repeat(10),
    'a'.repeat(101),
    'a'.repeat(301),
    'a'.repeat(4097),
    'a'.repeat(9000),
  ),
  nastyString,
  b64url,
)

// ---------------------------------------------------------------------------------------------------------------
// Bad values for a schema: the generic catalogue plus what this schema's bounds make interesting

export function badFor(schema: Schema | undefined, name = ''): fc.Arbitrary<Template> {
  const specific: fc.Arbitrary<Template>[] = []
  // Values that look like the field's format and are not (dates that do not exist, e-mails a parser chokes on):
  // the most likely to pass validation and break the code behind it, so they come often.
  const formatted: fc.Arbitrary<Template>[] = []
  const s = schema ?? {}
  const type = firstType(s)
  if (s.enum) {
    const first = String(s.enum[0])
    specific.push(
      fc.constantFrom<Template>(first.toLowerCase(), ` ${first}`, `${first}\u0000`, `${first}X`, 'UNKNOWN', 'OTHERX'),
    )
  }
  if (type === 'string' || s.enum) {
    const max = s.maxLength
    if (max !== undefined) specific.push(fc.constant('y'.repeat(max + 1)))
    if (s.minLength) specific.push(fc.constant(''))
    if (s.format === 'date-time') formatted.push(nastyDateTime)
    if (s.format === 'date') formatted.push(nastyDate)
    if (s.format === 'email') formatted.push(nastyEmail)
    specific.push(tainted(/name/i.test(name) ? 'Ada' : 'abc'))
    if (/token|cursor/i.test(name)) specific.push(garbageToken)
    if (/id$|Id$|code$/i.test(name)) specific.push(nastyId)
  }
  if (type === 'number' || type === 'integer') {
    const edges: Template[] = []
    if (s.minimum !== undefined) edges.push(s.minimum - 1, s.minimum - 0.000001)
    if (s.exclusiveMinimum !== undefined) edges.push(s.exclusiveMinimum, s.exclusiveMinimum - 1e-9)
    if (s.maximum !== undefined) edges.push(s.maximum + 1, s.maximum + 0.000001)
    if (type === 'integer') edges.push(1.5, (s.minimum ?? 0) + 0.5)
    if (edges.length) specific.push(fc.constantFrom(...edges))
    specific.push(fc.constantFrom<Template>('1', '1e309', 'NaN', ''))
  }
  if (type === 'array') {
    specific.push(
      fc.constantFrom<Template>([], [null], ['x', 'x']),
      fc.array(wrongType, { maxLength: 3 }),
      fc.nat({ max: 3 }).map((n) => Array.from({ length: [101, 501, 10_001, 50_001][n] }, () => 'SCOOTER')),
    )
    if (s.items) specific.push(fc.array(badFor(s.items, name), { minLength: 1, maxLength: 3 }))
  }
  if (type === 'object') {
    specific.push(
      fc.constantFrom<Template>({}, [], 'object'),
      fc.constantFrom(...NASTY_KEYS).map((k) => {
        const o: Record<string, Template> = {}
        Object.defineProperty(o, k, { value: 1, enumerable: true, writable: true, configurable: true })
        return o as Template
      }),
    )
  }
  return fc.oneof(
    { weight: formatted.length ? 6 : 0, arbitrary: formatted.length ? fc.oneof(...formatted) : wrongType },
    { weight: 4, arbitrary: specific.length ? fc.oneof(...specific) : wrongType },
    { weight: 2, arbitrary: wrongType },
    { weight: 1, arbitrary: nastyNumber },
    { weight: 1, arbitrary: nastyString as fc.Arbitrary<Template> },
    { weight: 1, arbitrary: longString as fc.Arbitrary<Template> },
    { weight: 1, arbitrary: deepNesting as fc.Arbitrary<Template> },
    { weight: 1, arbitrary: garbageToken },
  )
}
