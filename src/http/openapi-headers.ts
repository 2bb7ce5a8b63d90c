import type { FastifySchema } from 'fastify'
import { SANDBOX_SCENARIOS } from '../connectors/sandbox/common.ts'

/**
 * The headers every API-key route reads and answers, added to the API document only (requests are not validated
 * against them): `Accept-Language`, `X-Request-Id`, `X-Sandbox-Scenario` (test keys) on the way in;
 * `X-RateLimit-*`, `X-Request-Id`, `Content-Language` and, where it applies, `Retry-After` on the way out.
 */
const scenarioList = SANDBOX_SCENARIOS.map((s) => `\`${s.name}\`: ${s.description}`).join(' ')

const requestHeaders = {
  type: 'object',
  properties: {
    'accept-language': {
      type: 'string',
      description: 'Language of messages and names (en, de, fr; q-values honoured); else the tenant default',
    },
    'x-request-id': {
      type: 'string',
      description: 'Your id for this request, echoed as X-Request-Id and meta.requestId; generated when absent',
    },
    'x-sandbox-scenario': {
      type: 'string',
      description: `Test keys only: comma-separated \`<scenario>[:<providerId>]\` entries that make sandbox providers misbehave on purpose; an unknown scenario answers 400 INVALID_REQUEST (live keys ignore the header). ${scenarioList}`,
    },
  },
}

const header = (type: 'string' | 'integer', description: string) => ({ type, description })
const rateLimitHeaders = {
  'X-RateLimit-Limit': header('integer', 'Requests allowed in the window of this key'),
  'X-RateLimit-Remaining': header('integer', 'Requests left in the current window'),
  'X-RateLimit-Reset': header('integer', 'Unix time (seconds) when the window resets'),
}
const commonHeaders = {
  'X-Request-Id': header('string', 'The request id, also in meta.requestId'),
  'Content-Language': header('string', 'Language of the messages'),
}
const retryAfter = {
  'Retry-After': header('integer', 'Seconds to wait before retrying (429, 503, TICKET_NOT_READY)'),
}

type RouteSchema = {
  security?: Record<string, unknown>[]
  headers?: unknown
  response?: Record<string, Record<string, unknown>>
  hide?: boolean
} & Record<string, unknown>

const usesApiKey = (schema: RouteSchema) => schema.security?.some((s) => 'apiKey' in s) ?? false

/** @fastify/swagger `transform`: documents the common headers of the routes that take an API key. */
export function documentHeaders({ schema, url }: { schema: FastifySchema; url: string }): {
  schema: FastifySchema
  url: string
} {
  const route = schema as RouteSchema | undefined
  if (!route || route.hide || !usesApiKey(route)) return { schema, url }
  const response = Object.fromEntries(
    Object.entries(route.response ?? {}).map(([code, body]) => [
      code,
      {
        ...body,
        headers: {
          ...rateLimitHeaders,
          ...commonHeaders,
          ...(code.startsWith('2') ? {} : retryAfter),
        },
      },
    ]),
  )
  return { schema: { ...route, headers: route.headers ?? requestHeaders, response } as FastifySchema, url }
}
