import { FREE_TEXT } from '../contract/common.ts'

/**
 * The one rule for text the API accepts: no NUL, no other C0 or C1 control character, no DEL and no lone UTF-16
 * surrogate in any string of a body, query or path, nor in the keys of objects that take arbitrary keys. Such
 * characters are never meaningful in names, ids, tokens or addresses; PostgreSQL refuses NUL, a lone surrogate
 * cannot be encoded as UTF-8 (it would be stored as U+FFFD), and either would fail only after a provider acted.
 * Free-text fields (notes, reasons), marked with `FREE_TEXT`, may also hold tab, line feed and carriage return.
 *
 * The rule is a JSON Schema `pattern`, so the API document shows it and generated clients can check it. Patterns
 * are compiled with the `u` flag (Ajv's default, and the JSON Schema meaning), where `[\uD800-\uDFFF]` matches a
 * surrogate only when it is not half of a pair: emoji and every script pass.
 */
export const LINE_TEXT_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]*$'
export const FREE_TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]*$'
export const TEXT_RULE_PATTERNS: readonly string[] = [LINE_TEXT_PATTERN, FREE_TEXT_PATTERN]
/** Catalog keys (src/platform/i18n/*.json "details") of the rule's messages. */
export const TEXT_RULE_MESSAGE = 'NO_CONTROL_CHARACTERS'
export const KEY_RULE_MESSAGE = 'NO_CONTROL_CHARACTERS_IN_KEYS'

type Schema = Record<string, unknown>

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const hasType = (schema: Schema, type: string) =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type))

/** The schema with `pattern` added; a schema that has a pattern of its own gets the rule as `allOf` beside it. */
function withPattern(schema: Schema, pattern: string): Schema {
  if (schema.pattern === undefined) return { ...schema, pattern }
  const allOf = Array.isArray(schema.allOf) ? schema.allOf : []
  if (schema.pattern === pattern || allOf.some((s) => isSchema(s) && s.pattern === pattern)) return schema
  return { ...schema, allOf: [...allOf, { pattern }] }
}

const ANY_KEY = '^[\\s\\S]*$'

const mapValues = (record: unknown) =>
  isSchema(record) ? Object.fromEntries(Object.entries(record).map(([k, v]) => [k, applyTextRule(v)])) : record

/** Subschemas that describe (parts of) the same value; `if` and `not` are left alone, the rule would turn them. */
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const
const SUBSCHEMAS = ['additionalProperties', 'unevaluatedProperties', 'contains', 'then', 'else', 'additionalItems']

export function applyTextRule(schema: unknown): unknown {
  if (!isSchema(schema)) return schema
  let out: Schema = { ...schema }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key]
    if (Array.isArray(list)) out[key] = list.map(applyTextRule)
  }
  for (const key of SUBSCHEMAS) if (isSchema(schema[key])) out[key] = applyTextRule(schema[key])
  if (Array.isArray(schema.items)) out.items = schema.items.map(applyTextRule)
  else if (isSchema(schema.items)) out.items = applyTextRule(schema.items)
  if (schema.properties) out.properties = mapValues(schema.properties)
  if (isSchema(schema.patternProperties)) {
    // TypeBox writes a record of any string key as `^.*$`, which misses keys with a line break (U+2028 is clean
    // text): their values would go unchecked. Any key means any key.
    const entries = Object.entries(schema.patternProperties).map(([k, v]) => [k === '^.*$' ? ANY_KEY : k, v])
    out.patternProperties = mapValues(Object.fromEntries(entries))
  }
  // Objects that take keys the schema does not name (records such as `additionalFields`): the keys are text too.
  if (hasType(schema, 'object') && (schema.additionalProperties !== false || schema.patternProperties)) {
    out.propertyNames = withPattern(isSchema(schema.propertyNames) ? schema.propertyNames : {}, LINE_TEXT_PATTERN)
  }
  if (hasType(schema, 'string') && schema.enum === undefined && schema.const === undefined) {
    out = withPattern(out, schema[FREE_TEXT] === true ? FREE_TEXT_PATTERN : LINE_TEXT_PATTERN)
  }
  return out
}

const applied = new WeakMap<object, unknown>()

/**
 * A copy of a request schema (body, querystring or params) with the text rule on every string that is not one of a
 * closed set of values. The schema itself is left as it is: the same shapes describe answers too.
 */
export function withTextRule<T>(schema: T): T {
  if (!isSchema(schema)) return schema
  let copy = applied.get(schema)
  if (copy === undefined) {
    copy = applyTextRule(schema)
    applied.set(schema, copy)
  }
  return copy as T
}

/** @fastify/swagger `transform` step: the API document shows request schemas with the rule, as they are validated. */
export function documentTextRule<T extends { schema: unknown }>(route: T): T {
  const schema = route.schema as Record<string, unknown> | undefined
  if (!isSchema(schema)) return route
  const parts = Object.fromEntries(
    (['body', 'querystring', 'params'] as const).filter((p) => schema[p]).map((p) => [p, withTextRule(schema[p])]),
  )
  return { ...route, schema: { ...schema, ...parts } }
}
