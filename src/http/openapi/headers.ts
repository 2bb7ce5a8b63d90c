import { SANDBOX_SCENARIOS } from '../../contract/sandbox.ts'

/**
 * The headers every API-key route reads and answers, documented once as components and referred to by each operation
 * (requests are not validated against them): `Accept-Language`, `X-Request-Id`, `X-Sandbox-Scenario` (test keys) on
 * the way in; `X-RateLimit-*`, `X-Request-Id`, `Content-Language` and, on errors, `Retry-After` on the way out.
 * Operations without a key (health, readiness, the operator API) answer `X-Request-Id`.
 */
const scenarioList = SANDBOX_SCENARIOS.map((s) => `\`${s.name}\`: ${s.description}`).join(' ')

const parameter = (name: string, description: string) => ({ name, in: 'header', required: false, description })

export const HEADER_PARAMETERS = {
  AcceptLanguage: {
    ...parameter(
      'Accept-Language',
      'Language of messages and names (en, de, fr; q-values honoured); else the tenant default',
    ),
    schema: { type: 'string' },
  },
  RequestId: {
    ...parameter(
      'X-Request-Id',
      'Your id for this request (8 to 128 of `A-Za-z0-9._:-`), echoed as X-Request-Id and meta.requestId; generated when absent',
    ),
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' },
  },
  SandboxScenario: {
    ...parameter(
      'X-Sandbox-Scenario',
      `Test keys only: comma-separated \`<scenario>[:<providerId>]\` entries that make sandbox providers misbehave on purpose; an unknown scenario answers 400 INVALID_REQUEST (live keys ignore the header). ${scenarioList}`,
    ),
    schema: { type: 'string' },
  },
}

const header = (type: 'string' | 'integer', description: string) => ({ description, schema: { type } })

export const RESPONSE_HEADERS = {
  'X-RateLimit-Limit': header(
    'integer',
    'Requests allowed in the window of this key (on every answer to a known key, errors included)',
  ),
  'X-RateLimit-Remaining': header('integer', 'Requests left in the current window'),
  'X-RateLimit-Reset': header('integer', 'Unix time (seconds) when the window resets'),
  'X-Request-Id': header('string', 'The request id, also in meta.requestId'),
  'Content-Language': header('string', 'Language of the messages'),
  'Retry-After': header('integer', 'Seconds to wait before retrying (429, 503, TICKET_NOT_READY)'),
}

/** The answers that may carry Retry-After: 409 (TICKET_NOT_READY, work in progress), 429, 503, and the ranges. */
const RETRY_AFTER = new Set(['409', '429', '503', '4XX', '5XX'])

type Name = keyof typeof RESPONSE_HEADERS
const refs = (names: Name[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))

/**
 * The response headers of an operation's answer with `status` (or a range, `4XX`). Success answers to a key carry the
 * rate-limit headers (errors carry them too once the key is known: not on a 401); every answer its request id.
 */
export function responseHeaders(status: string, withKey: boolean): Record<string, { $ref: string }> {
  const success = status.startsWith('2') || status.startsWith('3')
  const names: Name[] = success && withKey ? ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] : []
  names.push('X-Request-Id')
  if (withKey || !success) names.push('Content-Language')
  if (RETRY_AFTER.has(status)) names.push('Retry-After')
  return refs(names)
}

/** The request header parameters of an operation that takes an API key. */
export const requestHeaderRefs = () =>
  Object.keys(HEADER_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` }))
