import { type Static, type TSchema, Type } from 'typebox'
import { ERROR_CODES } from './errors.ts'

/** Schema flag of a free-text string (also shown in the API document). */
export const FREE_TEXT = 'x-free-text'

/**
 * An object with keys of the client's or a provider's choosing. Not `Type.Record`: its `patternProperties: {"^.*$"}`
 * misses keys holding a line break (U+2028 is clean text), whose values would go unchecked and which the answer's
 * serializer would drop (a validation error naming such a key arrived with empty `details`).
 */
export const Dictionary = <T extends TSchema>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<Record<string, Static<T>>>({ ...options, type: 'object', additionalProperties: values })

export const Meta = Type.Object(
  {
    requestId: Type.String({
      description: 'Identifier of this request; also in the X-Request-Id header. Quote it in support requests.',
    }),
    timestamp: Type.String({ format: 'date-time' }),
  },
  { title: 'Meta' },
)

export const ErrorCodeSchema = Type.Union(
  ERROR_CODES.map((code) => Type.Literal(code)),
  { title: 'ErrorCode', description: 'Machine-readable error code (spec 7)' },
)

export const ErrorBody = Type.Object(
  {
    code: Type.Unsafe<string>({
      type: 'string',
      enum: ERROR_CODES,
      description: 'Machine-readable error code (spec 7)',
    }),
    message: Type.String({ description: 'Human-readable, in the negotiated language' }),
    details: Type.Optional(
      Dictionary(Type.Unknown(), {
        description:
          'Field path → message for validation errors; otherwise data that helps to act on the error (for example `reason`; `retryable: false` on a 5xx whose condition no retry can change)',
      }),
    ),
  },
  { title: 'Error' },
)

export const ErrorEnvelope = Type.Object(
  { success: Type.Literal(false), error: ErrorBody, meta: Meta },
  { title: 'ErrorEnvelope', description: 'The envelope of every error answer' },
)

/** The success envelope around one endpoint's `data`. */
export const envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data, meta: Meta })

export const OffsetPagination = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    currentPage: Type.Integer({ minimum: 0, description: '0-indexed' }),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  { title: 'OffsetPagination' },
)

export const OffsetQuery = Type.Object(
  {
    page: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 2_147_483_647,
        default: 0,
        description: '0-indexed page; past the end answers an empty list',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
)

export const CursorPagination = Type.Object(
  {
    hasMore: Type.Boolean(),
    nextCursor: Type.Optional(Type.String({ description: 'Opaque; present only when hasMore is true' })),
  },
  { title: 'CursorPagination' },
)

export const DateTime = Type.String({ format: 'date-time' })
/**
 * `T | null` as `type: [T, 'null']` where T has a plain type: the serializer checks it with typeof, where an
 * `anyOf` would run a validator per value on every response.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const type = (schema as { type?: unknown }).type
  return typeof type === 'string'
    ? Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] })
    : Type.Union([schema, Type.Null()])
}

/**
 * A free-text field (notes, reasons): the text rule lets it hold tab, line feed and carriage return as well.
 * Every other string is one line of text (names, e-mails, phones, ids, tokens, cursors).
 */
export const FreeText = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.String({ ...options, [FREE_TEXT]: true })

/** A closed set of strings as `enum` (serialized as a plain string, unlike a union of literals). */
export const OneOf = <const V extends string>(values: readonly V[], description?: string) =>
  Type.Unsafe<V>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })

/** The responses of a route: its success envelope and the error envelope for every failure. */
export const responses = <T extends TSchema>(data: T, status = 200) => ({
  [status]: envelope(data),
  '4xx': ErrorEnvelope,
  '5xx': ErrorEnvelope,
})
