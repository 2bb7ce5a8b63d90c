import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, type ErrorCode, isApiError } from '../contract/errors.ts'
import { errorMessage, negotiateLanguage } from '../platform/i18n/index.ts'
import { detail, localizeDetails, type Text } from '../platform/i18n/texts.ts'
import { outageIn } from '../platform/outage.ts'
import { statusFor } from './errors.ts'
import { answeredEarly } from './server-limits.ts'
import { KEY_RULE_MESSAGE, TEXT_RULE_MESSAGE, TEXT_RULE_PATTERNS } from './text-rule.ts'

interface ValidationIssue {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
  /** Set by Ajv on errors of a `propertyNames` schema: the key that failed. */
  propertyName?: string
}

const segment = (part: string) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`)

/** `/filters/minSeats` → `filters.minSeats`; `/items/0/id` → `items[0].id`. */
export function fieldPath(instancePath: string, extra?: string, context = 'body'): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (extra !== undefined) parts.push(extra)
  if (parts.length === 0) return context
  return parts.map(segment).join('').replace(/^\./, '')
}

/** The catalog message of one Ajv issue (src/platform/i18n/*.json "details"); field names and values as parameters. */
function issueText(issue: ValidationIssue): Text {
  const p = issue.params
  if (issue.keyword === 'pattern' && TEXT_RULE_PATTERNS.includes(p.pattern as string)) {
    // The key itself is not echoed: it is the text that failed.
    return detail(issue.propertyName === undefined ? TEXT_RULE_MESSAGE : KEY_RULE_MESSAGE)
  }
  // The key is not echoed (it may be long): the rule it broke is named.
  if (issue.propertyName !== undefined)
    return detail('PROPERTY_NAME_INVALID', { rule: issueText({ ...issue, propertyName: undefined }) })
  switch (issue.keyword) {
    case 'required':
      return detail('IS_REQUIRED')
    case 'additionalProperties':
      return detail('IS_NOT_ALLOWED')
    case 'enum':
      return Array.isArray(p.allowedValues)
        ? detail('MUST_BE_ONE_OF', { values: (p.allowedValues as unknown[]).map(String) })
        : detail('IS_INVALID')
    case 'const':
      return detail('MUST_BE_EQUAL_TO', { value: String(p.allowedValue) })
    case 'type':
      return detail('MUST_BE_OF_TYPE', { type: String(p.type) })
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return detail('MUST_COMPARE', { comparison: String(p.comparison), limit: String(p.limit) })
    case 'multipleOf':
      return detail('MUST_BE_MULTIPLE_OF', { value: String(p.multipleOf) })
    case 'minLength':
      return detail('MIN_LENGTH', { limit: String(p.limit) })
    case 'maxLength':
      return detail('MAX_LENGTH', { limit: String(p.limit) })
    case 'minItems':
      return detail('MIN_ITEMS', { limit: String(p.limit) })
    case 'maxItems':
      return detail('MAX_ITEMS', { limit: String(p.limit) })
    case 'minProperties':
      return detail('MIN_PROPERTIES', { limit: String(p.limit) })
    case 'maxProperties':
      return detail('MAX_PROPERTIES', { limit: String(p.limit) })
    case 'uniqueItems':
      return detail('UNIQUE_ITEMS', { i: String(p.i), j: String(p.j) })
    case 'pattern':
      return detail('MUST_MATCH_PATTERN', { pattern: String(p.pattern) })
    case 'format':
      return detail('MUST_MATCH_FORMAT', { format: String(p.format) })
    case 'anyOf':
    case 'oneOf':
    case 'discriminator':
    case 'if':
    case 'not':
      return detail('MUST_MATCH_ALLOWED_SHAPE')
    case 'dependentRequired':
    case 'dependencies':
      return detail('REQUIRES_PROPERTIES', { property: String(p.property), deps: String(p.deps) })
    default:
      return detail('IS_INVALID')
  }
}

/**
 * Per-field messages of a validation failure, as catalog texts (rendered in the request's language when sent;
 * English when serialized as they are).
 */
export function validationDetails(issues: ValidationIssue[], context: string): Record<string, Text> {
  const details: Record<string, Text> = {}
  const constants = new Map<string, string[]>()
  for (const issue of issues) {
    const path =
      issue.keyword === 'required'
        ? fieldPath(issue.instancePath, String(issue.params.missingProperty), context)
        : issue.keyword === 'additionalProperties'
          ? fieldPath(issue.instancePath, String(issue.params.additionalProperty), context)
          : fieldPath(issue.instancePath, undefined, context)
    // anyOf/oneOf add a summary after the branch errors; the first, most specific message wins.
    if (!(path in details)) details[path] = issueText(issue)
    if (issue.keyword === 'const')
      constants.set(path, [...(constants.get(path) ?? []), String(issue.params.allowedValue)])
  }
  // A union of constants (TypeBox literals) fails each branch: name them all.
  for (const [path, values] of constants) {
    if (details[path].key === 'MUST_BE_EQUAL_TO' && values.length > 1)
      details[path] = detail('MUST_BE_ONE_OF', { values })
  }
  return details
}

/** Turns anything thrown into the one error type. */
export function toApiError(error: unknown): ApiError | undefined {
  if (isApiError(error)) return error
  // An outage of Redis or the database, also where a library wrapped it (drizzle's query errors): 503, not 500.
  const outage = outageIn(error)
  if (outage) return outage
  const e = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string }
  if (e?.validation) {
    return new ApiError('INVALID_REQUEST', undefined, validationDetails(e.validation, e.validationContext ?? 'body'))
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('INVALID_REQUEST', undefined, { reason: 'UNSUPPORTED_MEDIA_TYPE' })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('INVALID_REQUEST', undefined, { reason: 'BODY_TOO_LARGE' })
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('INVALID_REQUEST', undefined, { reason: 'EMPTY_BODY' })
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_REQUEST', undefined, { reason: 'MALFORMED_JSON' })
    case 'FST_ERR_BAD_URL':
      return new ApiError('INVALID_REQUEST', undefined, { reason: 'MALFORMED_URL' })
  }
  if (e instanceof SyntaxError) {
    return new ApiError('INVALID_REQUEST', undefined, { reason: 'MALFORMED_JSON' })
  }
  const status = (e as { statusCode?: number })?.statusCode
  // Other client errors of Fastify or a plugin: the code's own status (spec 7.1), the cause as the reason.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST', undefined, {
      reason: e.code ?? 'BAD_REQUEST',
    })
  }
  return undefined
}

/** A validation failure confined to `fields` (a location, the dates) answers that field's own code. */
function narrowed(error: ApiError, fields: RegExp | undefined, code: ErrorCode): ApiError {
  if (!fields || error.code !== 'INVALID_REQUEST' || !error.details || error.details.reason) return error
  const paths = Object.keys(error.details)
  return paths.length > 0 && paths.every((f) => fields.test(f)) ? new ApiError(code, undefined, error.details) : error
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  let apiError = toApiError(error)
  if (!apiError) {
    request.log.error({ err: error }, 'unhandled error')
    apiError = new ApiError('INTERNAL_ERROR')
  }
  const config = request.routeOptions?.config
  apiError = narrowed(apiError, config?.locationFields, 'INVALID_LOCATION')
  apiError = narrowed(apiError, config?.dateFields, 'INVALID_DATE_RANGE')
  const status = apiError.status ?? statusFor(apiError.code, request.routeOptions?.config?.statusOverrides)
  if (status >= 500) request.log.warn({ code: apiError.code, details: apiError.details }, 'request failed')
  const language = request.language || negotiateLanguage(request.headers['accept-language'], 'en')
  for (const [name, value] of Object.entries(apiError.headers ?? {})) reply.header(name, value)
  reply.header('content-language', language)
  // RFC 6750: a 401 names the scheme it wants, and why a given token failed.
  if (status === 401)
    reply.header(
      'www-authenticate',
      apiError.code === 'UNAUTHORIZED'
        ? 'Bearer realm="mobility-api", error="invalid_token"'
        : 'Bearer realm="mobility-api"',
    )
  // Also for errors raised before the onRequest hook ran (a malformed URL).
  reply.header('x-request-id', request.id)
  return reply
    .status(status)
    .type('application/json; charset=utf-8')
    .send({
      success: false,
      error: {
        code: apiError.code,
        message: errorMessage(language, apiError.code, apiError.details?.reason),
        ...(apiError.details ? { details: localizeDetails(apiError.details, language) } : {}),
      },
      meta: { requestId: request.id, timestamp: new Date().toISOString() },
    })
}

export function installErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, error))
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url)
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendError(
        request,
        reply,
        new ApiError(
          'NOT_FOUND',
          undefined,
          { reason: 'METHOD_NOT_ALLOWED', method: request.method, allowedMethods: allowed },
          { headers: { allow: allowed.join(', ') } },
        ),
      )
    }
    return sendError(
      request,
      reply,
      new ApiError('NOT_FOUND', undefined, {
        reason: 'ROUTE_NOT_FOUND',
        method: request.method,
        path: request.url.split('?')[0],
      }),
    )
  })
}

const CLIENT_ERROR_REASONS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (a URL or headers past the size limit, a request
 * that never completes, bytes that are not HTTP) still get the envelope: 400 INVALID_REQUEST with the cause as
 * `details.reason`, and the connection closes.
 */
export function clientErrorHandler(newRequestId: () => string) {
  return (error: Error & { code?: string }, socket: import('node:net').Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const reason = CLIENT_ERROR_REASONS[error.code ?? ''] ?? 'MALFORMED_REQUEST'
    const requestId = newRequestId()
    if (answeredEarly(socket)) return void socket.destroy()
    const body = JSON.stringify({
      success: false,
      error: { code: 'INVALID_REQUEST', message: errorMessage('en', 'INVALID_REQUEST', reason), details: { reason } },
      meta: { requestId, timestamp: new Date().toISOString() },
    })
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Language: en\r\n` +
          `X-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      )
    }
    socket.destroy()
  }
}
