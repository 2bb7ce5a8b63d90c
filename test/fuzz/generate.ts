import fc from 'fast-check'
import { ALLOWED_ORIGIN, type KeyKind } from './corpus.ts'
import {
  authMutation,
  bodyMutation,
  CONTENT_TYPES,
  describe,
  pathMutation,
  queryMutation,
  scenarioHeader,
  wholeBody,
} from './mutations.ts'
import type { Env, Generated, Operation } from './operations.ts'
import { baseOf } from './seeds.ts'
import type { Template } from './template.ts'
import { nastyString } from './values.ts'

/** Request number i of a run: a valid base of a randomly chosen operation with one to three kinds of mutation. */

export { describe } from './mutations.ts'
export { type Body, type Env, type Generated, type Operation, operationsOf } from './operations.ts'

const KIND = fc.constantFrom(
  'body',
  'body',
  'body',
  'query',
  'path',
  'path',
  'auth',
  'contentType',
  'scenario',
  'headers',
  'method',
  'none',
  'none',
)
// Mostly one change at a time: a second one usually stops the request at a check before the first one's code.
const KINDS = fc.oneof(
  { weight: 6, arbitrary: fc.uniqueArray(KIND, { minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: fc.uniqueArray(KIND, { minLength: 2, maxLength: 2 }) },
  { weight: 1, arbitrary: fc.uniqueArray(KIND, { minLength: 3, maxLength: 3 }) },
)

/** Mutations that do not depend on the base request, built once. */
const FIXED = {
  auth: authMutation,
  contentType: fc.constantFrom(...CONTENT_TYPES),
  scenario: fc.tuple(scenarioHeader, fc.constantFrom<KeyKind>('test', 'test', 'test', 'pkTest')),
  headers: fc.record(
    {
      'accept-language': fc.oneof(
        fc.constantFrom('de', 'fr-CH, fr;q=0.9', '*', 'xx', 'de;q=2', 'en;q=abc', ',,,', 'a'.repeat(5000)),
        nastyString,
      ),
      'x-request-id': fc.oneof(fc.constantFrom('short', 'a'.repeat(129), 'req_00000001', '../../etc'), nastyString),
      origin: fc.constantFrom(
        'https://evil.example',
        'null',
        'HTTPS://APP.EXAMPLE',
        'https://app.example.evil.example',
      ),
      'if-none-match': fc.constantFrom('*', 'W/"x"', '"'),
      'idempotency-key': fc.oneof(fc.constantFrom('', 'k'.repeat(300), 'same-key'), nastyString),
    },
    { requiredKeys: [] },
  ),
  method: fc.tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
    fc.constantFrom('/', '//', '/extra', '.json', '%20', ';x', '/..', '/%2e%2e', '/%00', '~'),
  ),
}

/** One generated request: a valid base of `op`, then one to three kinds of mutation (or none). */
export function requestArbitrary(op: Operation): fc.Arbitrary<Omit<Generated, 'index'>> {
  const envArb = fc.constantFrom<Env>('live', 'live', 'test')
  const bases = { live: fc.tuple(baseOf(op, 'live'), KINDS), test: fc.tuple(baseOf(op, 'test'), KINDS) }
  return envArb.chain((env) =>
    bases[env].chain(([base, kindList]) => {
      const kinds = new Set(kindList)
      // Only the chosen mutations are generated (building the others costs as much as sending the request).
      const parts: Record<string, fc.Arbitrary<any>> = {}
      if (kinds.has('body') && (base.body !== undefined || op.method !== 'GET'))
        parts.body = base.body !== undefined ? bodyMutation(op, base.body) : wholeBody({})
      if (kinds.has('query')) parts.query = queryMutation(op, base.query)
      if (kinds.has('path') && Object.keys(base.pathParams).length) parts.path = pathMutation(op, base.pathParams)
      for (const k of ['auth', 'contentType', 'headers', 'method'] as const) if (kinds.has(k)) parts[k] = FIXED[k]
      if (kinds.has('scenario') && !op.admin) parts.scenario = FIXED.scenario
      return fc.record(parts).map((m: Record<string, any>): Omit<Generated, 'index'> => {
        const g: Omit<Generated, 'index'> = {
          op,
          env,
          method: op.method,
          pathParams: base.pathParams,
          pathSuffix: '',
          query: base.query,
          auth: op.admin ? { kind: 'admin' } : op.secured ? { kind: env } : { none: true },
          headers: {},
          body: base.body !== undefined ? { kind: 'json', value: base.body } : undefined,
          mutations: [],
        }
        if (m.body) {
          g.body = m.body.body
          g.mutations.push(m.body.what)
        }
        if (m.query) {
          g.query = m.query.query
          g.mutations.push(m.query.what)
        }
        if (m.path) {
          g.pathParams = m.path.pathParams
          g.mutations.push(m.path.what)
        }
        if (m.auth) {
          g.auth = m.auth.auth
          g.mutations.push(m.auth.what)
        }
        if (m.scenario) {
          const [header, key] = m.scenario as [Template, KeyKind]
          g.auth = { kind: key }
          g.headers['x-sandbox-scenario'] = header
          g.mutations.push(`key: ${key}, X-Sandbox-Scenario: ${describe(header)}`)
        }
        if (m.contentType !== undefined) {
          g.headers['content-type'] = m.contentType
          g.mutations.push(`Content-Type: ${JSON.stringify(m.contentType)}`)
        }
        if (m.headers && Object.keys(m.headers).length) {
          Object.assign(g.headers, m.headers)
          g.mutations.push(`headers: ${Object.keys(m.headers).join(', ')}`)
        }
        if (m.method) {
          const [method, suffix] = m.method as [string, string]
          if (method === op.method) g.pathSuffix = suffix
          g.method = method
          g.mutations.push(method === op.method ? `path suffix ${JSON.stringify(suffix)}` : `method ${method}`)
        }
        // Publishable keys come from browsers, mostly from the allowed origin.
        const kind = 'kind' in g.auth ? g.auth.kind : undefined
        if ((kind === 'pk' || kind === 'pkTest') && g.headers.origin === undefined) g.headers.origin = ALLOWED_ORIGIN
        if (g.mutations.length === 0) g.mutations.push('none (valid request)')
        return g
      })
    }),
  )
}

/** A 32-bit mix of the run's seed and a request's index (splitmix32), so request i is the same in every run. */
export function seedOf(seed: number, index: number): number {
  let z = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
  return (z ^ (z >>> 16)) >>> 0
}

export class Generator {
  private readonly arbs = new Map<string, fc.Arbitrary<Omit<Generated, 'index'>>>()
  readonly ops: Operation[]
  readonly seed: number
  constructor(ops: Operation[], seed: number) {
    this.ops = ops
    this.seed = seed
  }

  at(index: number): Generated {
    const s = seedOf(this.seed, index)
    const op = this.ops[s % this.ops.length]
    let arb = this.arbs.get(op.id)
    if (!arb) {
      arb = requestArbitrary(op)
      this.arbs.set(op.id, arb)
    }
    const [g] = fc.sample(arb, { seed: s | 0, numRuns: 1 })
    return { ...g, index }
  }
}
