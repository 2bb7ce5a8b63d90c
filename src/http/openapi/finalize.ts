import { STATUS_CODES } from 'node:http'
import type { ErrorCode } from '../../contract/errors.ts'
import { applyTextRule } from '../text-rule.ts'
import { isSchema, type Schema } from './components.ts'
import { HEADER_PARAMETERS, RESPONSE_HEADERS, requestHeaderRefs, responseHeaders } from './headers.ts'

/**
 * What @fastify/swagger leaves to be done once every route is in the document: the error answers of each operation
 * (stashed by the route transform as `x-route-errors`), the common headers, the discriminator mappings and the text
 * rule on the named shapes that requests use. Runs once per document (the result is cached).
 */

/** Operation extension the route transform leaves for this step: status → codes. */
export const ROUTE_ERRORS = 'x-route-errors'

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']
const SCHEMAS = '#/components/schemas/'
const ERROR_ENVELOPE = { $ref: `${SCHEMAS}ErrorEnvelope` }

/** The document is JSON built by @fastify/swagger, walked here by key. */
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON, read and written by key
export type Json = Record<string, any>
type Doc = Json
type Operation = Json

export function operationsOf(doc: Doc): [string, string, Operation][] {
  const out: [string, string, Operation][] = []
  for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths ?? {})) {
    for (const method of METHODS) if (item[method]) out.push([path, method, item[method]])
  }
  return out
}

const usesKey = (op: Operation) => (op.security ?? []).some((s: object) => 'apiKey' in s)
const pascal = (text: string) =>
  text.replace(/(^|[\s-])(\w)/g, (_m, _s, c: string) => c.toUpperCase()).replace(/\W/g, '')

/** The answer with `status` carrying `codes`: the envelope, the codes listed, one example per code. */
function errorResponse(status: number, codes: ErrorCode[]) {
  return {
    description: `${STATUS_CODES[status] ?? 'Error'}: ${codes.join(', ')}`,
    'x-error-codes': codes,
    content: {
      'application/json': {
        schema: ERROR_ENVELOPE,
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  }
}

function addErrorResponses(doc: Doc) {
  const used = new Set<ErrorCode>()
  for (const [, , op] of operationsOf(doc)) {
    const errors: Record<string, ErrorCode[]> | undefined = op[ROUTE_ERRORS]
    delete op[ROUTE_ERRORS]
    if (!errors) continue
    const responses: Record<string, unknown> = {}
    for (const [status, body] of Object.entries(op.responses ?? {})) {
      // Fastify's own `4xx` and `5xx` serializer entries: the explicit statuses below replace them.
      if (status !== '4XX' && status !== '5XX' && Number(status) < 400) responses[status] = body
    }
    for (const [status, codes] of Object.entries(errors)) {
      responses[status] = errorResponse(Number(status), codes)
      for (const code of codes) used.add(code)
    }
    responses['4XX'] = { $ref: '#/components/responses/OtherClientError' }
    responses['5XX'] = { $ref: '#/components/responses/OtherServerError' }
    op.responses = responses
  }
  doc.components.responses = {
    OtherClientError: {
      description:
        'Any other client error, in the envelope (spec 7); the statuses listed for the operation are those it answers today',
      content: { 'application/json': { schema: ERROR_ENVELOPE } },
    },
    OtherServerError: {
      description: 'Any other server error, in the envelope (spec 7)',
      content: { 'application/json': { schema: ERROR_ENVELOPE } },
    },
  }
  return used
}

/** Success answers say what they hold rather than swagger's "Default Response". */
function describeSuccess(doc: Doc) {
  for (const [, , op] of operationsOf(doc)) {
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      if (!/^2\d\d$/.test(status) || response.description !== 'Default Response') continue
      const data = response.content?.['application/json']?.schema?.properties?.data?.$ref as string | undefined
      const what = `the envelope with \`data\`${data ? ` as ${data.slice(SCHEMAS.length)}` : ''}`
      const verb = status === '201' ? 'Created (`Location` names the new resource)' : STATUS_CODES[Number(status)]
      response.description = `${verb}: ${what}`
    }
  }
}

function addHeaders(doc: Doc) {
  doc.components.parameters = HEADER_PARAMETERS
  doc.components.headers = RESPONSE_HEADERS
  for (const [, , op] of operationsOf(doc)) {
    const withKey = usesKey(op)
    if (withKey) op.parameters = [...(op.parameters ?? []), ...requestHeaderRefs()]
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      if (response.$ref) continue
      response.headers = { ...responseHeaders(status, withKey), ...response.headers }
    }
  }
  for (const response of Object.values<Json>(doc.components.responses ?? {})) {
    response.headers = responseHeaders('4XX', true)
  }
}

/**
 * The error answers that several operations share word for word become `components.responses`, named by their status
 * (`Unauthorized`, `TooManyRequests`; `BadRequest2` for the second most common 400, ...); answers of one operation
 * stay with it.
 */
function shareErrorResponses(doc: Doc) {
  const counts = new Map<string, { status: string; body: unknown; n: number }>()
  for (const [, , op] of operationsOf(doc)) {
    for (const [status, body] of Object.entries<Json>(op.responses ?? {})) {
      if (Number(status) < 400 || body.$ref) continue
      const key = `${status} ${JSON.stringify(body)}`
      const entry = counts.get(key) ?? { status, body, n: 0 }
      entry.n++
      counts.set(key, entry)
    }
  }
  const shared = [...counts].filter(([, e]) => e.n > 1).sort((a, b) => b[1].n - a[1].n || (a[0] < b[0] ? -1 : 1))
  const names = new Map<string, string>()
  const perStatus = new Map<string, number>()
  for (const [key, { status, body }] of shared) {
    const n = (perStatus.get(status) ?? 0) + 1
    perStatus.set(status, n)
    const name = `${pascal(STATUS_CODES[Number(status)] ?? `Status ${status}`)}${n > 1 ? n : ''}`
    names.set(key, name)
    doc.components.responses[name] = body
  }
  for (const [, , op] of operationsOf(doc)) {
    for (const [status, body] of Object.entries<Json>(op.responses ?? {})) {
      const name = names.get(`${status} ${JSON.stringify(body)}`)
      if (name) op.responses[status] = { $ref: `#/components/responses/${name}` }
    }
  }
}

const refName = (value: unknown) =>
  isSchema(value) && typeof value.$ref === 'string' && value.$ref.startsWith(SCHEMAS)
    ? value.$ref.slice(SCHEMAS.length)
    : undefined

/** Every component name referred to from `value`, and from the components it refers to. */
export function reachable(value: unknown, schemas: Record<string, Schema>, seen = new Set<string>()): Set<string> {
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (!isSchema(node)) return
    const name = refName(node)
    if (name !== undefined && !seen.has(name)) {
      seen.add(name)
      visit(schemas[name])
    }
    for (const child of Object.values(node)) visit(child)
  }
  visit(value)
  return seen
}

/**
 * A discriminator over `$ref`s needs a mapping: the values (`coordinates`, `DEPARTURE`) are not the component names.
 * Built from each branch's `const` or single `enum` value of the property.
 */
function addDiscriminatorMappings(schemas: Record<string, Schema>) {
  for (const schema of Object.values(schemas)) {
    const discriminator = schema.discriminator as { propertyName: string; mapping?: Record<string, string> }
    const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined
    if (!discriminator || !branches || discriminator.mapping) continue
    const mapping: Record<string, string> = {}
    for (const branch of branches) {
      const name = refName(branch)
      const property = name ? (schemas[name]?.properties as Record<string, Schema>)?.[discriminator.propertyName] : {}
      const value = property?.const ?? (Array.isArray(property?.enum) ? property.enum[0] : undefined)
      if (name && typeof value === 'string') mapping[value] = `${SCHEMAS}${name}`
    }
    if (Object.keys(mapping).length === branches.length) discriminator.mapping = mapping
  }
}

/**
 * The named shapes that requests use get the text rule in the document, as they are validated with it
 * (src/http/validation.ts). Shapes only answers use are left as they are.
 */
function textRuleOnRequestShapes(doc: Doc) {
  const schemas: Record<string, Schema> = doc.components.schemas
  const requests = operationsOf(doc).map(([, , op]) => [op.requestBody, op.parameters])
  for (const name of reachable(requests, schemas)) schemas[name] = applyTextRule(schemas[name]) as Schema
}

export function finalizeDocument(doc: Doc): Doc {
  doc.components ??= {}
  const used = addErrorResponses(doc)
  describeSuccess(doc)
  addHeaders(doc)
  shareErrorResponses(doc)
  addDiscriminatorMappings(doc.components.schemas)
  textRuleOnRequestShapes(doc)
  doc.components.examples = Object.fromEntries([...used].sort().map((code) => [code, { value: code }]))
  return doc
}
