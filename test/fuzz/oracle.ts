import { ERROR_STATUS } from '../../src/http/errors.ts'

/**
 * What the fuzzer accepts as an answer. Every answer is the spec's envelope (2.1) except where a route serves
 * something else by design; 4xx is always fine when it is the envelope with a known code and that code's status;
 * a 5xx is fine only when a rule below asked for it. Everything else is "unexpected" and fails the run.
 */

export interface Exchange {
  /** `METHOD /path/{param}` of the operation (after a wrong method or suffix: still the one it was made from). */
  op: string
  method: string
  /** The method and suffix are the operation's own (the route was matched as documented). */
  routeAsDocumented: boolean
  /** Test keys only: the scenarios named in X-Sandbox-Scenario. */
  scenarios: string[]
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  body: any
}

export interface Verdict {
  ok: boolean
  /** The rule that allowed a 5xx, or what is wrong. */
  reason: string
  kind: 'ok' | 'expected-5xx' | 'unexpected-5xx' | 'not-envelope' | 'wrong-status' | 'undocumented-code'
}

/** Answers that are not the envelope by design, when successful: documents, pages, metrics, tiles, GBFS files. */
const NOT_ENVELOPED = [
  /\/openapi\.json$/,
  /\/docs(\/|$)/,
  /^GET \/metrics$/,
  /\.mvt$/,
  /^GET \/mobility-api\/v2\/gbfs\/.+\.json$/,
]

/** Scenarios that make a provider fail on purpose (the rest change data, not the outcome). */
const FAILING_SCENARIOS = new Set([
  'provider-error',
  'provider-timeout',
  'provider-slow',
  'booking-fails',
  'vehicle-rejects',
])

interface Rule {
  id: string
  why: string
  allows(e: Exchange, code: string, reason: unknown): boolean
}

/** The 5xx answers the spec or a scenario asks for. */
export const RULES: Rule[] = [
  {
    id: 'scenario',
    why: 'a test key asked for a provider failure with X-Sandbox-Scenario',
    allows: (e, code) =>
      e.scenarios.some((s) => FAILING_SCENARIOS.has(s)) &&
      ['PROVIDER_ERROR', 'TIMEOUT', 'SERVICE_UNAVAILABLE', 'BOOKING_FAILED'].includes(code),
  },
  {
    id: 'spec-7.2-booking-provider-error',
    why: 'spec 7.2: GET and PATCH /cars/bookings/{bookingId} answer 502 PROVIDER_ERROR when the provider fails',
    allows: (e, code) =>
      e.status === 502 &&
      code === 'PROVIDER_ERROR' &&
      /^(GET|PATCH) \/mobility-api\/v2\/cars\/bookings\/\{bookingId\}$/.test(e.op),
  },
  {
    id: 'spec-7.1-trip-ended',
    why: 'spec 7.1: PROVIDER_ERROR for a trip that already ended',
    allows: (e, code, reason) =>
      code === 'PROVIDER_ERROR' && reason === 'TRIP_ENDED' && e.op.includes('/micromobility/trips'),
  },
  {
    id: 'spec-7.1-vehicle-rejected',
    why: 'spec 7.1: PROVIDER_ERROR for a vehicle that rejected a command',
    allows: (e, code, reason) =>
      code === 'PROVIDER_ERROR' &&
      (reason === 'VEHICLE_REJECTED' || reason === 'COMMAND_NOT_SUPPORTED') &&
      e.op.endsWith('/vehicle-action'),
  },
  {
    id: 'spec-7.1-not-supported',
    why: 'spec 7.1: 501 OPERATION_NOT_SUPPORTED for a feature the provider lacks',
    allows: (e, code) => e.status === 501 && code === 'OPERATION_NOT_SUPPORTED',
  },
]

/**
 * The error codes the document lists for each operation, as `CODE:status` (`x-error-codes` of each error answer;
 * the document must have its `$ref`s resolved). Operations without such lists are left out.
 */
export function documentedErrors(doc: any): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      const pairs = new Set<string>()
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        for (const code of response?.['x-error-codes'] ?? []) pairs.add(`${code}:${status}`)
      }
      if (pairs.size > 0) out.set(`${method.toUpperCase()} ${path}`, pairs)
    }
  }
  return out
}

/** Statuses that differ from the table for one route (spec 7.2), as the document declares them, plus the spec's own. */
export function routeStatuses(doc: any): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>()
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      const codes = new Map<string, number>()
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        const m = /^([A-Z_, ]+) on this route/.exec(response?.description ?? '')
        const listed: string[] = response?.['x-error-codes'] ?? (m ? m[1].split(',').map((c) => c.trim()) : [])
        for (const code of listed) {
          if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== Number(status)) codes.set(code, Number(status))
        }
      }
      out.set(`${method.toUpperCase()} ${path}`, codes)
    }
  }
  return out
}

/** The one code each of these statuses stands for (spec 7.1, 7.2), for answers without a body. */
const HEAD_CODES: Record<number, string> = {
  500: 'PROVIDER_ERROR',
  501: 'OPERATION_NOT_SUPPORTED',
  502: 'PROVIDER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
  504: 'TIMEOUT',
}

/** Spec 7.2 and DECISIONS: 409 INTERNAL_ERROR while the same offer is being prebooked or booked (retry). */
const SPEC_PAIRS = new Set(['INTERNAL_ERROR:409'])

/**
 * `documented` (optional): the codes the document lists per operation; an error answer of an operation whose route
 * matched as documented must be one of them (the document may not drift from what the service answers).
 */
export function judge(
  e: Exchange,
  overrides: Map<string, Map<string, number>>,
  documented?: Map<string, Set<string>>,
): Verdict {
  const enveloped = !(e.status < 400 && NOT_ENVELOPED.some((r) => r.test(`${e.method} ${e.op.split(' ')[1]}`)))
  // HEAD answers carry no body: the GET route's answer without it. A 5xx is judged by the code only that status has
  // (a 500 could be an internal error, so it needs a scenario).
  if (e.method === 'HEAD') {
    if (e.status < 500) return { ok: true, kind: 'ok', reason: '' }
    const code = HEAD_CODES[e.status] ?? 'INTERNAL_ERROR'
    const asGet = { ...e, op: e.op.replace(/^[A-Z]+ /, 'GET ') }
    const rule = RULES.find((r) => r.allows(asGet, code, undefined))
    return rule
      ? { ok: true, kind: 'expected-5xx', reason: rule.id }
      : { ok: false, kind: 'unexpected-5xx', reason: `${e.status} to HEAD` }
  }
  if (e.status === 204 || e.status === 304) {
    return e.text === ''
      ? { ok: true, kind: 'ok', reason: '' }
      : { ok: false, kind: 'not-envelope', reason: `${e.status} with a body` }
  }
  if (enveloped) {
    const problem = envelopeProblem(e)
    if (problem) return { ok: false, kind: 'not-envelope', reason: problem }
  }
  if (e.status < 400) return { ok: true, kind: 'ok', reason: '' }
  const code: string = e.body?.error?.code ?? ''
  const reason = e.body?.error?.details?.reason
  const declared = e.routeAsDocumented ? overrides.get(e.op)?.get(code) : undefined
  const expectedStatus = ERROR_STATUS[code as keyof typeof ERROR_STATUS]
  if (expectedStatus !== e.status && declared !== e.status && !SPEC_PAIRS.has(`${code}:${e.status}`)) {
    return {
      ok: false,
      kind: 'wrong-status',
      reason: `${code} answered ${e.status}; spec 7.1 gives ${expectedStatus}${declared ? ` and this route ${declared}` : ''}`,
    }
  }
  // ROUTE_NOT_FOUND: the router matched no route (a path value it cannot place), so no operation answered.
  const listed = e.routeAsDocumented && reason !== 'ROUTE_NOT_FOUND' ? documented?.get(e.op) : undefined
  if (listed && !listed.has(`${code}:${e.status}`)) {
    return { ok: false, kind: 'undocumented-code', reason: `${code} answered ${e.status}, not listed for ${e.op}` }
  }
  if (e.status < 500) return { ok: true, kind: 'ok', reason: '' }
  const rule = RULES.find((r) => r.allows(e, code, reason))
  if (rule) return { ok: true, kind: 'expected-5xx', reason: rule.id }
  return { ok: false, kind: 'unexpected-5xx', reason: `${e.status} ${code}${reason ? ` (${String(reason)})` : ''}` }
}

function envelopeProblem(e: Exchange): string | undefined {
  const type = String(e.headers['content-type'] ?? '')
  if (!type.startsWith('application/json')) return `content-type ${JSON.stringify(type)}, not JSON`
  const b = e.body
  if (b === undefined) return 'the body is not JSON'
  if (b === null || typeof b !== 'object' || Array.isArray(b)) return 'the body is not an object'
  if (typeof b.success !== 'boolean') return 'no boolean success'
  if (typeof b.meta?.requestId !== 'string' || typeof b.meta?.timestamp !== 'string')
    return 'no meta.requestId/timestamp'
  if (Number.isNaN(Date.parse(b.meta.timestamp))) return 'meta.timestamp is not a date-time'
  if (b.success !== e.status < 400) return `success ${b.success} with status ${e.status}`
  if (b.success) {
    if (!('data' in b)) return 'success without data'
    if ('error' in b) return 'success with error'
    return undefined
  }
  if (typeof b.error?.code !== 'string' || typeof b.error?.message !== 'string') return 'error without code and message'
  if (!(b.error.code in ERROR_STATUS)) return `unknown error code ${b.error.code}`
  if (b.error.details !== undefined && (b.error.details === null || typeof b.error.details !== 'object'))
    return 'error.details is not an object'
  if ('data' in b) return 'error with data'
  return undefined
}

/** The scenario names of an X-Sandbox-Scenario header, as the service would honour them (test keys only). */
export function scenariosOf(header: unknown, testKey: boolean): string[] {
  if (!testKey || typeof header !== 'string') return []
  return header
    .split(',')
    .map((p) => p.trim().split(':')[0])
    .filter(Boolean)
}
