import fc from 'fast-check'
import type { KeyKind } from './corpus.ts'
import type { Body, Generated, Operation, Parameter } from './operations.ts'
import { type Schema, schemaAt } from './schema.ts'
import { PROVIDER_IDS, ref } from './seeds.ts'
import { At, clone, type Path, parentOf, paths, pathText, Raw, Ref, type Template } from './template.ts'
import {
  badFor,
  deepNesting,
  garbageToken,
  longString,
  NASTY_KEYS,
  nastyId,
  nastyNumericText,
  nastyString,
  tainted,
  twistedRef,
  wrongType,
} from './values.ts'

/**
 * What is done to a valid request: one field replaced by a bad value, removed or swapped for a foreign token; an
 * unknown key; the whole body, query, path, credential, content type, scenario header or method changed.
 */

// ---------------------------------------------------------------------------------------------------------------
// Mutations

/** Token and id slots whose values are swapped in for one another ("well-formed but foreign"). */
const FOREIGN_SLOTS = [
  'carOffer:live',
  'carOffer:test',
  'carOffer:foreign',
  'carPrebooked:live',
  'carPrebooked:test',
  'carBooking:live',
  'carBooking:test',
  'carBooking:foreign',
  'carCursor:live',
  'carCursor:foreign',
  'stationCursor:live',
  'stopsCursor:live',
  'microCursor:live',
  'zr1',
  'vehicleToken:live',
  'vehicleToken:test',
  'vehicleToken:foreign',
  'trip:live',
  'trip:test',
  'trip:foreign',
  'ptOffer:live',
  'ptPrebooked:live',
  'ptBooking:live',
  'subscription:live',
  'placeId:live',
  'qr:live',
  'key:live',
]

const pick = <T>(list: T[], n: number) => list[n % list.length]

export function bodyMutation(op: Operation, base: Template): fc.Arbitrary<{ body: Body; what: string }> {
  const schema = op.body ?? {}
  const all: Path[] = paths(base)
  // Optional properties the valid base left out are places to put bad values too.
  const absent: Path[] = []
  const walk = (s: Schema | undefined, v: any, at: Path) => {
    if (!s?.properties || v === null || typeof v !== 'object' || Array.isArray(v)) return
    for (const [k, sub] of Object.entries(s.properties)) {
      if (!(k in v)) absent.push([...at, k])
      else walk(sub, v[k], [...at, k])
    }
  }
  walk(schema, base, [])
  const json = (value: Template) => ({ kind: 'json', value }) as Body
  const replaceAt = (path: Path) =>
    badFor(schemaAt(schema, path, base), String(path[path.length - 1])).map((bad) => {
      const copy = clone(base)
      const at = parentOf(copy, path)
      if (at) at.parent[at.key] = bad
      return { body: json(copy), what: `body.${pathText(path)} ← ${describe(bad)}` }
    })
  const options: fc.Arbitrary<{ body: Body; what: string }>[] = []
  if (all.length + absent.length > 0) {
    const targets = [...all, ...absent]
    // Replacing one field is the mutation that reaches deepest: it gets the most weight.
    for (let i = 0; i < 4; i++) options.push(fc.nat().chain((n) => replaceAt(pick(targets, n))))
  }
  if (all.length > 0) {
    options.push(
      fc.nat().map((n) => {
        const path = pick(all, n)
        const copy = clone(base)
        const at = parentOf(copy, path)
        if (at) {
          if (Array.isArray(at.parent)) at.parent.splice(Number(at.key), 1)
          else delete at.parent[at.key]
        }
        return { body: json(copy), what: `body.${pathText(path)} removed` }
      }),
    )
    const refs = all.filter((p) => {
      const at = parentOf(base, p)
      return at && at.parent[at.key] instanceof Ref
    })
    if (refs.length > 0) {
      options.push(
        fc
          .tuple(
            fc.nat(),
            fc.oneof(
              fc.constantFrom(...FOREIGN_SLOTS).chain((s) => ref(s)),
              twistedRefFor(base, refs),
            ),
          )
          .map(([n, other]) => {
            const path = pick(refs, n)
            const copy = clone(base)
            const at = parentOf(copy, path)
            if (at) at.parent[at.key] = other
            return { body: json(copy), what: `body.${pathText(path)} ← ${describe(other)}` }
          }),
      )
    }
  }
  // An unknown or poisonous key somewhere in the body.
  const objects: Path[] = [[], ...all.filter((p) => isObject(valueAt(base, p)))]
  options.push(
    fc
      .tuple(fc.nat(), fc.constantFrom(...NASTY_KEYS, 'extra', 'filters', 'tenantId', 'environment'), wrongType)
      .map(([n, key, value]) => {
        const path = pick(objects, n)
        const copy = clone(base)
        const target = path.length ? valueAt(copy, path) : copy
        if (isObject(target))
          Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
        return { body: json(copy), what: `body.${pathText([...path, key])} added` }
      }),
  )
  options.push(wholeBody(base))
  return fc.oneof(...options)
}

function twistedRefFor(base: Template, refs: Path[]): fc.Arbitrary<Template> {
  const slots = refs.map((p) => {
    const at = parentOf(base, p)
    return (at!.parent[at!.key] as Ref).slot
  })
  return fc.constantFrom(...slots).chain((slot) => twistedRef(slot))
}

const isObject = (v: unknown): v is Record<string, Template> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Ref || v instanceof At || v instanceof Raw)

function valueAt(root: Template, path: Path): Template | undefined {
  let node: any = root
  for (const k of path) node = node?.[k]
  return node
}

const bytes = (label: string, b: Buffer) => ({ kind: 'bytes', bytes: b.toString('latin1'), label }) as Body

/** The whole body replaced: other JSON, broken JSON, other encodings, nothing, too much. */
export function wholeBody(base: Template): fc.Arbitrary<{ body: Body; what: string }> {
  const valid = JSON.stringify(base, (_k, v) => (v instanceof Ref || v instanceof At || v instanceof Raw ? 'x' : v))
  const raw = (label: string, text: string) => ({
    body: bytes(label, Buffer.from(text, 'utf8')),
    what: `body ${label}`,
  })
  return fc.oneof(
    fc
      .jsonValue({ maxDepth: 4 })
      .map((v) => ({ body: { kind: 'json', value: v as Template } as Body, what: 'body: random JSON' })),
    fc
      .constantFrom(
        '',
        ' ',
        'null',
        'true',
        '0',
        '"x"',
        '[]',
        '{',
        '{"a":',
        '{"a":1,}',
        "{'a':1}",
        '{"a":1}{"b":2}',
        'NaN',
        '\ufeff{}',
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"a":1,"a":2}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"a":"\\x41"}',
        '{"a":01}',
        '{"a":.5}',
        '{"a":+1}',
        '{"a":Infinity}',
        '/* */{}',
        '{}\u0000',
        `${valid}garbage`,
        `${valid},`,
        `[${valid}]`,
        valid.replace(/"/g, "'"),
        valid.slice(0, Math.max(1, valid.length - 3)),
      )
      .map((t) => raw(`text ${JSON.stringify(t.length > 80 ? `${t.slice(0, 80)}…` : t)}`, t)),
    fc
      .uint8Array({ maxLength: 300 })
      .map((b) => ({ body: bytes('random bytes', Buffer.from(b)), what: 'body: random bytes' })),
    deepNesting.map((n) => ({ body: { kind: 'json', value: n } as Body, what: `body: ${describe(n)}` })),
    longString.map((s) => ({ body: { kind: 'json', value: s } as Body, what: `body: ${describe(s)}` })),
    fc
      .constant(null)
      .map(() => ({ body: bytes('UTF-16', Buffer.from(valid, 'utf16le')), what: 'body: the valid body in UTF-16' })),
    fc.constant(null).map(() => ({
      body: bytes(
        'invalid UTF-8',
        Buffer.concat([
          Buffer.from(valid.slice(0, -1)),
          Buffer.from(',"x":"'),
          Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
          Buffer.from('"}'),
        ]),
      ),
      what: 'body: invalid UTF-8 in a string',
    })),
    fc.constant(null).map(() => ({
      body: bytes('too large', Buffer.from(`{"x":"${'x'.repeat(1_100_000)}"}`)),
      what: 'body: over the body limit',
    })),
  )
}

export function describe(v: Template | undefined): string {
  if (v instanceof Ref || v instanceof At || v instanceof Raw) return String(v.toJSON())
  if (typeof v === 'string')
    return v.length > 40 ? `${JSON.stringify(v.slice(0, 40))}… (${v.length} chars)` : JSON.stringify(v)
  const json = JSON.stringify(v) ?? String(v)
  return json.length > 60 ? `${json.slice(0, 60)}… (${json.length} chars)` : json
}

export function queryMutation(
  op: Operation,
  query: [string, Template][],
): fc.Arbitrary<{ query: [string, Template][]; what: string }> {
  const known = op.params.filter((p) => p.in === 'query')
  const badText = (p?: Parameter) =>
    fc.oneof(
      nastyNumericText as fc.Arbitrary<Template>,
      p ? badFor(p.schema, p.name) : wrongType,
      nastyString as fc.Arbitrary<Template>,
      longString as fc.Arbitrary<Template>,
      garbageToken,
      fc
        .constantFrom('%', '%zz', '%E0%A4%A', '%00', '%C0%80', '%ED%A0%80', '+', '&', '=')
        .map((s) => new Raw(s) as Template),
    )
  const options: fc.Arbitrary<{ query: [string, Template][]; what: string }>[] = []
  if (known.length) {
    options.push(
      fc.nat().chain((n) => {
        const p = pick(known, n)
        return badText(p).map((v) => ({
          query: [...query.filter(([k]) => k !== p.name), [p.name, v] as [string, Template]],
          what: `query ${p.name} ← ${describe(v)}`,
        }))
      }),
      fc.tuple(fc.nat(), badText()).map(([n, v]) => {
        const p = pick(known, n)
        return {
          query: [...query, [p.name, v] as [string, Template]],
          what: `query ${p.name} repeated with ${describe(v)}`,
        }
      }),
      fc.tuple(fc.nat(), fc.constantFrom(...FOREIGN_SLOTS)).map(([n, slot]) => {
        const p = pick(known, n)
        return {
          query: [...query.filter(([k]) => k !== p.name), [p.name, new Ref(slot, n)] as [string, Template]],
          what: `query ${p.name} ← <${slot}>`,
        }
      }),
    )
  }
  if (query.length) {
    options.push(
      fc.nat().map((n) => {
        const [name] = pick(query, n)
        return { query: query.filter(([k]) => k !== name), what: `query ${name} removed` }
      }),
    )
  }
  options.push(
    fc
      .tuple(
        fc.constantFrom(...NASTY_KEYS, 'page[0]', 'limit[]', '__proto__[x]', 'constructor[prototype][x]', 'x'),
        badText(),
      )
      .map(([name, v]) => ({
        query: [...query, [name, v] as [string, Template]],
        what: `query ${describe(name)} added`,
      })),
  )
  return fc.oneof(...options)
}

export function pathMutation(op: Operation, params: Record<string, Template>) {
  const names = Object.keys(params)
  const bad = (name: string) => {
    const p = op.params.find((x) => x.in === 'path' && x.name === name)
    const current = params[name]
    return fc.oneof(
      nastyId.map((v) => (typeof v === 'string' && v.includes('%') ? new Raw(v) : v)),
      p ? badFor(p.schema, name) : wrongType,
      fc.constantFrom(...FOREIGN_SLOTS).chain((s) => ref(s)),
      current instanceof Ref ? twistedRef(current.slot) : garbageToken,
      typeof current === 'string' ? tainted(current) : nastyString,
    ) as fc.Arbitrary<Template>
  }
  return fc.nat().chain((n) => {
    const name = pick(names, n)
    return bad(name).map((v) => ({ pathParams: { ...params, [name]: v }, what: `path ${name} ← ${describe(v)}` }))
  })
}

const SCENARIO_NAMES = [
  'provider-error',
  'provider-timeout',
  'provider-slow',
  'price-increase',
  'sold-out',
  'booking-fails',
  'booking-pending',
  'cancel-refused',
  'ticket-delay',
  'vehicle-rejects',
]

export const scenarioHeader: fc.Arbitrary<Template> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(...SCENARIO_NAMES), fc.option(fc.constantFrom(...PROVIDER_IDS)))
      .map(([n, p]) => (p ? `${n}:${p}` : n)),
  },
  {
    weight: 2,
    arbitrary: fc
      .uniqueArray(fc.tuple(fc.constantFrom(...SCENARIO_NAMES), fc.constantFrom(...PROVIDER_IDS)), {
        minLength: 2,
        maxLength: 4,
      })
      .map((list) => list.map(([n, p]) => `${n}:${p}`).join(',')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'nope',
      'provider-error:',
      ':sandbox-rent',
      'provider-error:sandbox-rent:x',
      'provider-error:nope',
      ',,,',
      ' ',
      'PROVIDER-ERROR',
      'provider-error;sandbox-rent',
      Array.from({ length: 25 }, () => 'provider-slow').join(','),
      'provider-error:'.repeat(300),
      'provider-error:sandbox-rent\u00e9',
    ),
  },
  { weight: 1, arbitrary: nastyString as fc.Arbitrary<Template> },
)

export const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;;',
  'application/jsonx',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'text/json',
  '*/*',
  '',
  ';',
  'application/json, text/plain',
]

export const authMutation: fc.Arbitrary<{ auth: Generated['auth']; what: string }> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .constantFrom<KeyKind>(
        'live',
        'test',
        'pk',
        'pkTest',
        'foreign',
        'foreignTest',
        'retentionNone',
        'revoked',
        'limited',
        'admin',
      )
      .map((kind) => ({ auth: { kind }, what: `key: ${kind}` })),
  },
  { weight: 1, arbitrary: fc.constant({ auth: { none: true } as const, what: 'no Authorization' }) },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc.constantFrom<Template>(
          '',
          'Bearer',
          'Bearer ',
          'Basic dXNlcjpwYXNz',
          'Token abc',
          'Bearer null',
          `Bearer ${'x'.repeat(8000)}`,
          'Bearer svc_live_',
          'Bearer svc_pk_live_',
          'Bearer \u00e9\u00e8',
        ),
        fc
          .tuple(
            fc.constantFrom('svc_live_', 'svc_pk_live_', 'svc_test_', 'svc_pk_test_', 'sk_live_', ''),
            fc.string({
              unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
              minLength: 0,
              maxLength: 48,
            }),
          )
          .map(([prefix, rest]) => `Bearer ${prefix}${rest}`),
        fc.constantFrom(
          ...(
            [
              ['bearer ', ''],
              ['BEARER  ', '  '],
              ['Bearer ', ' extra'],
              ['Bearer ', ',Bearer x'],
              ['Bearer\t', ''],
              ['Basic ', ''],
              ['', ''],
            ] as const
          ).map(
            ([before, after]) =>
              new Ref(
                'key:live',
                0,
                (k) => `${before}${k}${after}`,
                `key:live wrapped ${JSON.stringify([before, after])}`,
              ),
          ),
        ),
        twistedRef('key:live').map(
          (r) => new Ref((r as Ref).slot, 0, (k) => `Bearer ${(r as Ref).transform!(k)}`, `Bearer ${(r as Ref).label}`),
        ),
      )
      .map((raw) => ({ auth: { raw }, what: `Authorization ${describe(raw)}` })),
  },
)
