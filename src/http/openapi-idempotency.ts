/**
 * `Idempotency-Key` in the API document: one reusable header parameter on every POST and PATCH that takes an API key,
 * and the `Idempotent-Replayed` and `Idempotent-Redacted` response headers, as components the operations refer to.
 */

const PARAMETER = 'Idempotency-Key'
const REPLAYED = 'Idempotent-Replayed'
const REDACTED = 'Idempotent-Redacted'

const KEY_DESCRIPTION =
  "Makes this POST or PATCH safe to retry. 1 to 255 printable ASCII characters of your choosing (a UUID is best), one per operation you mean to do once; scoped to the API key, and so to its tenant and environment. Within 24 hours the same key with the same request (method, path with query string, and body compared as canonical JSON: the order of keys and white space do not matter) answers the first answer again, status and body, with `Idempotent-Replayed: true`. The same key with another method, path or body answers 422 INVALID_REQUEST (`details.reason` IDEMPOTENCY_KEY_REUSED); while the first request still runs, 409 INTERNAL_ERROR (IDEMPOTENCY_KEY_IN_PROGRESS) with `Retry-After`. Not kept, so the request can be sent again under the same key: answers refused before any work was done (400, 401, 403, 405, 413, 415, 429), answers that ask for a retry (`details.retryable: true`, such as 409 BOOKING_IN_PROGRESS), 5xx, and answers over the size limit. Under data retention NONE the kept answer has no personal fields (names, e-mail addresses, phone numbers, dates of birth, licence and identification numbers, the rider's location, `additionalFields`, `notes`): a replay then says `Idempotent-Redacted: true`. A value that is not 1 to 255 printable ASCII characters answers 400 INVALID_REQUEST naming the header."

export const idempotencyComponents = {
  parameters: {
    [PARAMETER]: {
      name: PARAMETER,
      in: 'header' as const,
      required: false,
      description: KEY_DESCRIPTION,
      schema: { type: 'string' as const, minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]{1,255}$' },
      // No example: the docs page would send it with every Try it out, and a second request under one key is 422.
    },
  },
  headers: {
    [REPLAYED]: {
      description:
        "`true` when this answer is the kept first answer to an earlier request with the same Idempotency-Key: status and body are that request's (meta.requestId too); X-Request-Id and the rate-limit headers are this request's.",
      schema: { type: 'string' as const, enum: ['true'] },
    },
    [REDACTED]: {
      description:
        '`true` on a replay under data retention NONE: personal fields were removed from the answer before it was kept.',
      schema: { type: 'string' as const, enum: ['true'] },
    },
  },
}

type Json = Record<string, any>

/**
 * The last step of the document: every POST and PATCH of the public API that takes an API key refers to the
 * Idempotency-Key parameter, and its own answers (not the error answers shared as components) to the replay headers.
 */
export function addIdempotency(doc: Json, apiPrefix: string): void {
  doc.components ??= {}
  doc.components.parameters = { ...doc.components.parameters, ...idempotencyComponents.parameters }
  doc.components.headers = { ...doc.components.headers, ...idempotencyComponents.headers }
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    if (!path.startsWith(`${apiPrefix}/`)) continue
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (method !== 'post' && method !== 'patch') continue
      if (!(operation.security ?? []).some((s: object) => 'apiKey' in s)) continue
      operation.parameters = [...(operation.parameters ?? []), { $ref: `#/components/parameters/${PARAMETER}` }]
      for (const response of Object.values<Json>(operation.responses ?? {})) {
        if (response.$ref) continue
        response.headers = {
          ...response.headers,
          [REPLAYED]: { $ref: `#/components/headers/${REPLAYED}` },
          [REDACTED]: { $ref: `#/components/headers/${REDACTED}` },
        }
      }
    }
  }
}
