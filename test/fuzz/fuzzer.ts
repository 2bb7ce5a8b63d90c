import { toApiError } from '../../src/http/error-handler.ts'
import type { Harness } from '../helpers/harness.ts'
import { deref } from '../helpers/openapi.ts'
import { type Corpus, learn, replenish, setUp } from './corpus.ts'
import { describe, type Generated, Generator, operationsOf } from './generate.ts'
import { documentedErrors, type Exchange, judge, routeStatuses, scenariosOf, type Verdict } from './oracle.ts'
import { Raw, resolve, type Template, text, toJson } from './template.ts'

export interface FuzzOptions {
  requests: number
  seed: number
  /** Requests in flight at once. */
  concurrency: number
  /** Requests between two refills of the corpus (tokens are single use; the clock moves on at each refill). */
  batch: number
  /** How far the service's clock moves at each refill (offer tokens, reservations and cursors age). */
  clockStepMs: number
  /** A request not answered within this long is a finding ("hangs"). */
  timeoutMs: number
  /** Only these request indices (after the same setup), printed in full. */
  replay?: number[]
  /** Only operations whose id (`POST /mobility-api/v2/cars`) matches. */
  only?: RegExp
  /** Print every exchange in full. */
  verbose?: boolean
  log: (line: string) => void
}

/** A request as it went on the wire. */
export interface Sent {
  method: string
  url: string
  headers: Record<string, string>
  payload?: Buffer
}

export interface Finding {
  /** Index of the generated request; undefined for a setup request. */
  index?: number
  op: string
  verdict: Verdict
  mutations: string[]
  /** The generated request with corpus values by name (`<carOffer:live#12>`). */
  template?: string
  sent: Sent
  status: number
  answer: string
  stack?: string
}

export interface FuzzResult {
  requests: number
  setupRequests: number
  ms: number
  byStatus: Map<number, number>
  byRoute: Map<string, Map<string, number>>
  expected5xx: Map<string, number>
  /** Unexpected answers grouped by signature: count and the first few examples. */
  findings: Map<string, { count: number; examples: Finding[] }>
  problems: string[]
  corpusSizes: Record<string, number>
}

const EXAMPLES_PER_SIGNATURE = 3

export async function runFuzz(h: Harness, options: FuzzOptions): Promise<FuzzResult> {
  const started = Date.now()
  // Stacks of errors that were not the service's own error type, by request id: they explain a 500.
  const stacks = new Map<string, string>()
  for (const app of h.apps) {
    app.addHook('onError', async (request, _reply, error) => {
      if (!toApiError(error)) stacks.set(request.id, (error as Error)?.stack ?? String(error))
    })
  }
  const result: FuzzResult = {
    requests: 0,
    setupRequests: 0,
    ms: 0,
    byStatus: new Map(),
    byRoute: new Map(),
    expected5xx: new Map(),
    findings: new Map(),
    problems: [],
    corpusSizes: {},
  }
  const docRes = await h.request({ url: '/mobility-api/v2/openapi.json' })
  if (docRes.status !== 200) throw new Error(`the OpenAPI document answered ${docRes.status}`)
  // Schemas, parameters and answers are named components: the generator and the oracle read them resolved.
  const doc = deref(docRes.body)
  const ops = operationsOf(doc)
  const overrides = routeStatuses(doc)
  const documented = documentedErrors(doc)
  const matchers = ops.map((op) => ({
    op,
    re: new RegExp(`^${op.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  }))
  const opOf = (method: string, url: string) =>
    matchers.find((m) => m.op.method === method && m.re.test(url.split('?')[0]))?.op.id ?? `${method} (unmatched)`

  const record = (finding: Finding) => {
    const sig = signature(finding)
    const entry = result.findings.get(sig) ?? { count: 0, examples: [] }
    entry.count++
    if (entry.examples.length < EXAMPLES_PER_SIGNATURE) entry.examples.push(finding)
    result.findings.set(sig, entry)
  }

  const exchange = async (sent: Sent) => {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<undefined>((r) => {
      timer = setTimeout(() => r(undefined), options.timeoutMs)
    })
    try {
      return await Promise.race([
        h.request({ method: sent.method, url: sent.url, headers: sent.headers, payload: sent.payload }),
        timeout,
      ])
    } finally {
      clearTimeout(timer)
    }
  }

  // Setup requests go through the same judgement: a valid request answered with a 5xx is a finding too.
  const setupSend = async (method: string, url: string, key: string | undefined, body?: unknown) => {
    const headers: Record<string, string> = {}
    if (key !== undefined) headers.authorization = `Bearer ${key}`
    let payload: Buffer | undefined
    if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body))
      headers['content-type'] = 'application/json'
    }
    const sent = { method, url, headers, payload }
    const res = await exchange(sent)
    result.setupRequests++
    const op = opOf(method, url)
    if (!res) {
      record({ op, verdict: hang(options.timeoutMs), mutations: ['setup'], sent, status: 0, answer: '' })
      throw new Error(`${method} ${url} did not answer`)
    }
    const verdict = judge(
      {
        op,
        method,
        routeAsDocumented: true,
        scenarios: [],
        status: res.status,
        headers: res.headers,
        text: res.text,
        body: res.body,
      },
      overrides,
      documented,
    )
    if (!verdict.ok) {
      record({
        op,
        verdict,
        mutations: ['setup (a valid request)'],
        sent,
        status: res.status,
        answer: res.text,
        stack: stackOf(stacks, res.headers),
      })
    }
    return res
  }

  const setup = await setUp(h, setupSend)
  const chosen = options.only ? ops.filter((op) => options.only!.test(op.id)) : ops
  if (chosen.length === 0) throw new Error(`no operation matches ${options.only}`)
  const generator = new Generator(chosen, options.seed)
  const total = options.replay ? options.replay.length : options.requests
  const indices = options.replay ?? Array.from({ length: options.requests }, (_, i) => i)
  let lastLog = Date.now()

  const one = async (index: number) => {
    const g = generator.at(index)
    const sent = concrete(g, setup.corpus, () => h.clock().getTime())
    const t0 = performance.now()
    const res = await exchange(sent)
    result.requests++
    const route = result.byRoute.get(g.op.id) ?? new Map<string, number>()
    result.byRoute.set(g.op.id, route)
    const bump = (m: Map<any, number>, k: any, by = 1) => m.set(k, (m.get(k) ?? 0) + by)
    const took = performance.now() - t0
    bump(route, 'ms', took)
    route.set('max', Math.max(route.get('max') ?? 0, took))
    const base = {
      index,
      op: g.op.id,
      mutations: g.mutations,
      template: templateText(g),
      sent,
    }
    if (!res) {
      bump(route, 'hang')
      record({ ...base, verdict: hang(options.timeoutMs), status: 0, answer: '' })
      return
    }
    bump(result.byStatus, res.status)
    const kind = 'kind' in g.auth ? g.auth.kind : undefined
    const testKey = kind === 'test' || kind === 'pkTest' || kind === 'foreignTest'
    const e: Exchange = {
      op: g.op.id,
      method: g.method,
      routeAsDocumented: g.method === g.op.method && (g.pathSuffix === '' || g.pathSuffix === '/'),
      scenarios: scenariosOf(sent.headers['x-sandbox-scenario'], testKey),
      status: res.status,
      headers: res.headers,
      text: res.text,
      body: res.body,
    }
    const verdict = judge(e, overrides, documented)
    bump(route, bucket(res.status, verdict))
    if (verdict.kind === 'expected-5xx') bump(result.expected5xx, verdict.reason)
    if (!verdict.ok)
      record({ ...base, verdict, status: res.status, answer: res.text, stack: stackOf(stacks, res.headers) })
    else if (e.routeAsDocumented)
      learn(setup.corpus, g.op.id, testKey ? 'test' : 'live', keyOf(g, setup.corpus), res.status, res.body)
    if (options.replay || options.verbose)
      options.log(printExchange(options.seed, { ...base, verdict, status: res.status, answer: res.text }))
  }

  for (let start = 0; start < indices.length; start += options.batch) {
    const round = start / options.batch
    if (round > 0) h.clock.advance(options.clockStepMs)
    await replenish(h, setup, setupSend, round)
    const slice = indices.slice(start, start + options.batch)
    let next = 0
    const worker = async () => {
      while (next < slice.length) await one(slice[next++])
    }
    await Promise.all(Array.from({ length: Math.min(options.concurrency, slice.length) }, worker))
    if (Date.now() - lastLog > 5000 || start + options.batch >= indices.length) {
      lastLog = Date.now()
      const unexpected = [...result.findings.values()].reduce((n, f) => n + f.count, 0)
      const rate = Math.round(result.requests / ((Date.now() - started) / 1000))
      options.log(`  ${result.requests}/${total} requests, ${unexpected} unexpected, ${rate} requests/s`)
    }
  }
  result.problems = setup.problems
  result.corpusSizes = setup.corpus.sizes()
  result.ms = Date.now() - started
  stacks.clear()
  return result
}

const hang = (ms: number): Verdict => ({ ok: false, kind: 'unexpected-5xx', reason: `no answer within ${ms} ms` })

function bucket(status: number, verdict: Verdict): string {
  if (!verdict.ok) return verdict.kind === 'unexpected-5xx' ? '5xx!' : 'bad'
  if (status >= 500) return '5xx'
  if (status < 400) return '2xx'
  return [400, 401, 403, 404, 409, 422, 429].includes(status) ? String(status) : '4xx'
}

function signature(f: Finding): string {
  const method = f.sent.method === f.op.split(' ')[0] ? '' : ` as ${f.sent.method}`
  const frame = f.stack
    ?.split('\n')
    .find((l) => l.includes('/src/'))
    ?.trim()
    .replace(/^at /, '')
    .replace(/\(?file:\/\/.*\/src\//, 'src/')
  return `${f.op}${method}: ${f.verdict.kind} ${f.verdict.reason}${frame ? ` at ${frame}` : ''}`
}

function stackOf(stacks: Map<string, string>, headers: Record<string, unknown>): string | undefined {
  const id = headers['x-request-id']
  return typeof id === 'string' ? stacks.get(id) : undefined
}

function keyOf(g: Generated, corpus: Corpus): string | undefined {
  return 'kind' in g.auth ? corpus.ref(`key:${g.auth.kind}`, 0) : undefined
}

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD, as any client would send them). */
const encode = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) => {
      const c = String.fromCharCode(b)
      return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
    })
    .join('')

const isHeaderChar = (c: string) => c === '\t' || (c >= ' ' && c !== '\u007f')

/** What an HTTP client can put in a header: latin1 bytes without controls (tab allowed), trimmed as parsers do. */
const headerSafe = (s: string) =>
  Buffer.from(s, 'utf8').toString('latin1').split('').filter(isHeaderChar).join('').trim()

/** The request on the wire: corpus values and times filled in, URL and headers encoded. */
export function concrete(g: Generated, corpus: Corpus, now: () => number): Sent {
  const resolver = { ref: (slot: string, pick: number) => corpus.ref(slot, pick), now }
  const piece = (t: Template) => {
    const v = resolve(t, resolver)
    return v instanceof Raw ? v.text : encode(text(v))
  }
  let url = g.op.path.replace(/\{([^}]+)\}/g, (_m, name) => piece(g.pathParams[name] ?? '')) + g.pathSuffix
  if (g.query.length) url += `?${g.query.map(([k, v]) => `${encode(k)}=${piece(v)}`).join('&')}`
  const headers: Record<string, string> = {}
  if ('kind' in g.auth) headers.authorization = `Bearer ${corpus.ref(`key:${g.auth.kind}`, 0)}`
  else if ('raw' in g.auth) headers.authorization = headerSafe(text(resolve(g.auth.raw, resolver)))
  for (const [name, value] of Object.entries(g.headers)) headers[name] = headerSafe(text(resolve(value, resolver)))
  let payload: Buffer | undefined
  if (g.body?.kind === 'json') payload = Buffer.from(toJson(resolve(g.body.value, resolver)), 'utf8')
  else if (g.body?.kind === 'bytes') payload = Buffer.from(g.body.bytes, 'latin1')
  if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json'
  return { method: g.method, url, headers, payload }
}

function templateText(g: Generated): string {
  const parts = [
    `${g.method} ${g.op.path.replace(/\{([^}]+)\}/g, (_m, n) => describe(g.pathParams[n]))}${g.pathSuffix}`,
  ]
  if (g.query.length) parts.push(`query ${g.query.map(([k, v]) => `${k}=${describe(v)}`).join(' ')}`)
  parts.push(`auth ${'kind' in g.auth ? `key:${g.auth.kind}` : 'raw' in g.auth ? describe(g.auth.raw) : 'none'}`)
  if (g.body) parts.push(`body ${g.body.kind === 'json' ? describe(g.body.value) : g.body.label}`)
  return parts.join('; ')
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s)

/** Control characters, lone surrogates and other invisible code points as \uXXXX, so a report stays plain text. */
export function printable(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const next = s.charCodeAt(i + 1)
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += s[i] + s[i + 1]
      i++
      continue
    }
    const invisible =
      (c < 0x20 && c !== 0x0a) ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0xd800 && c <= 0xdfff) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0xfeff ||
      c >= 0xfffe
    out += invisible ? `\\u${c.toString(16).padStart(4, '0')}` : s[i]
  }
  return out
}

/** A finding as text: enough to send the same request again by hand, or to replay it by index. */
export function printExchange(seed: number, f: Finding): string {
  const lines: string[] = []
  const replay = f.index === undefined ? 'setup request' : `FUZZ_SEED=${seed} FUZZ_REPLAY=${f.index}`
  lines.push(`  #${f.index ?? '-'} (${replay}) ${f.op}`)
  lines.push(`    mutations: ${f.mutations.join('; ')}`)
  lines.push(`    request:   ${f.sent.method} ${clip(f.sent.url, 300)}`)
  for (const [k, v] of Object.entries(f.sent.headers)) {
    const shown = k === 'authorization' ? v.replace(/(svc_[a-z_]*?_)[A-Za-z0-9]{6,}/, '$1…') : v
    lines.push(`      ${k}: ${clip(JSON.stringify(shown), 200)}`)
  }
  if (f.sent.payload) lines.push(`      body: ${clip(JSON.stringify(f.sent.payload.toString('utf8')), 600)}`)
  lines.push(`    answer:    ${f.status} ${clip(f.answer.replace(/\s+/g, ' '), 400)}`)
  if (!f.verdict.ok) lines.push(`    verdict:   ${f.verdict.kind}: ${f.verdict.reason}`)
  if (f.stack) lines.push(`    stack:     ${clip(f.stack, 1500).split('\n').slice(0, 8).join('\n               ')}`)
  return printable(lines.join('\n'))
}
