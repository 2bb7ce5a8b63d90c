/**
 * Named shapes: every schema with a `title` is registered once under that name, and the route schemas refer to it
 * with `$ref`. The schemas are still written as plain TypeBox objects, nested in one another (so types flow and the
 * car search's own serializer keeps working on them); when a route is added, its body and response schemas are
 * rewritten so that each titled subschema becomes `{ "$ref": "<title>" }`, and the titled schema itself, its own titled
 * subschemas referenced in turn, is registered with `$id: <title>`. The registered objects are what Ajv validates
 * with, what fast-json-stringify serializes with and what @fastify/swagger turns into `components.schemas`.
 *
 * Two different shapes with one title would be one type to a client while the service treats them apart: the second
 * is registered as `<title>_2` (so nothing breaks) and listed by `conflicts()`, which a test keeps empty. A copy that
 * differs only by its description (`{ ...Price, description }`) is the same shape: `{ $ref }` with the description
 * beside it.
 */

export type Schema = Record<string, unknown>

/** Keywords whose value is one subschema (`items` may also be a list). */
const ONE = new Set([
  'items',
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
])
/** Keywords whose value is a list of subschemas. */
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
/** Keywords that describe a shape without changing it. */
const ANNOTATIONS = new Set(['description', 'examples', 'example', '$comment', 'deprecated'])

export const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Deep equality of JSON values (key order ignored; only enumerable keys, as JSON has them). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((v, i) => sameJson(v, other[i]))
  }
  const ka = Object.keys(a).filter((k) => (a as Schema)[k] !== undefined)
  const kb = Object.keys(b).filter((k) => (b as Schema)[k] !== undefined)
  return ka.length === kb.length && ka.every((k) => sameJson((a as Schema)[k], (b as Schema)[k]))
}

/** Calls `fn` on each direct subschema of `schema` and returns a copy holding what it answered. */
export function mapSubschemas(schema: Schema, fn: (sub: unknown) => unknown): Schema {
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (ONE.has(key)) out[key] = Array.isArray(value) ? value.map(fn) : isSchema(value) ? fn(value) : value
    else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map(fn)
    else if (MAP.has(key) && isSchema(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v)]))
    else out[key] = value
  }
  return out
}

/** `{ $ref }` to a registered schema, the way Ajv, fast-json-stringify and @fastify/swagger all resolve it. */
export const refTo = (name: string): Schema => ({ $ref: name })

const withoutAnnotations = (schema: Schema) =>
  Object.fromEntries(Object.entries(schema).filter(([k]) => !ANNOTATIONS.has(k)))

export interface SchemaComponents {
  /** A copy of `schema` in which every titled subschema (the schema itself too) is a `$ref` to its component. */
  refer(schema: unknown): unknown
  /** The registered schemas by name (`$id`), their own titled subschemas referenced. */
  all(): ReadonlyMap<string, Schema>
  /** Titles given to two different shapes: `<title>: <what differs>`. */
  conflicts(): readonly string[]
}

/**
 * The registry. `onAdd` is told of every schema the first time it is registered (the app adds it to Fastify, which
 * passes it on to every plugin context, to the serializer and to the API document).
 */
export function schemaComponents(onAdd: (schema: Schema) => void = () => {}): SchemaComponents {
  const byName = new Map<string, Schema>()
  /** Names each title was registered under (the first is the title itself). */
  const variants = new Map<string, string[]>()
  const conflicts: string[] = []
  /** TypeBox objects already rewritten: most shapes are met many times. */
  const done = new WeakMap<object, unknown>()

  function register(title: string, body: Schema): string {
    const names = variants.get(title) ?? []
    for (const name of names) {
      const { $id: _, ...registered } = byName.get(name) as Schema
      if (sameJson(registered, body)) return name
    }
    const name = names.length === 0 ? title : `${title}_${names.length + 1}`
    if (names.length > 0) conflicts.push(`${title}: two shapes (registered the second as ${name})`)
    variants.set(title, [...names, name])
    const schema = { $id: name, ...body }
    byName.set(name, schema)
    onAdd(schema)
    return name
  }

  function refer(schema: unknown): unknown {
    if (!isSchema(schema)) return schema
    const known = done.get(schema)
    if (known !== undefined) return known
    const inner = mapSubschemas(schema, refer)
    let out: unknown = inner
    const title = schema.title
    if (typeof title === 'string' && title !== '' && schema.$id === undefined && schema.$ref === undefined) {
      // A copy that only describes the shape differently (its own description) is the shape with that description.
      const plain = withoutAnnotations(inner)
      const same = variants.get(title)?.find((name) => {
        const { $id: _, ...registered } = byName.get(name) as Schema
        return !sameJson(registered, inner) && sameJson(withoutAnnotations(registered), plain)
      })
      if (same) {
        const notes = Object.fromEntries(Object.entries(inner).filter(([k]) => ANNOTATIONS.has(k)))
        // OpenAPI 3.1 (JSON Schema 2020-12) lets annotations sit beside `$ref`; `allOf` of one is what linters refuse.
        out = { ...(refTo(same) as Schema), ...notes }
      } else {
        out = refTo(register(title, inner))
      }
    }
    done.set(schema, out)
    return out
  }

  return { refer, all: () => byName, conflicts: () => conflicts }
}

/**
 * @fastify/swagger drops every keyword beside a `$ref` (a rule of OpenAPI 3.0; 3.1 allows them), and with them the
 * `deprecated: true` and the description of a property that refers to a named shape, such as a renamed field's old
 * name (issue 21). Puts them back: walks each registered schema and its component in the document side by side and
 * copies the annotations of every `$ref` that has some onto the document's `$ref`.
 */
export function restoreRefAnnotations(
  documentSchemas: Record<string, unknown> | undefined,
  registered: ReadonlyMap<string, Schema>,
): void {
  if (!documentSchemas) return
  const each = (source: unknown, target: unknown) => {
    if (!Array.isArray(source) || !Array.isArray(target)) return walk(source, target)
    for (const [i, s] of source.entries()) walk(s, target[i])
  }
  function walk(source: unknown, target: unknown): void {
    if (!isSchema(source) || !isSchema(target)) return
    if (typeof source.$ref === 'string') {
      if (typeof target.$ref !== 'string') return
      for (const [key, value] of Object.entries(source)) {
        if (ANNOTATIONS.has(key) && target[key] === undefined) target[key] = value
      }
      return
    }
    for (const [key, value] of Object.entries(source)) {
      const other = target[key]
      if (ONE.has(key) || LIST.has(key)) each(value, other)
      else if (MAP.has(key) && isSchema(value) && isSchema(other)) {
        for (const [name, sub] of Object.entries(value)) walk(sub, other[name])
      }
    }
  }
  for (const [name, schema] of registered) walk(schema, documentSchemas[name])
}

/**
 * A route's `response` map with its schemas referred (`refer`): each status's schema, or each media type's schema of a
 * status given as `{ description, content }` (the tiles).
 */
export function referResponses(
  response: Record<string, Record<string, unknown>>,
  refer: (schema: unknown) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(response).map(([status, entry]) => {
      const content = entry.content as Record<string, { schema?: unknown }> | undefined
      if (!content) return [status, refer(entry)]
      const media = Object.entries(content).map(([type, m]) => [type, { ...m, schema: refer(m.schema) }])
      return [status, { ...entry, content: Object.fromEntries(media) }]
    }),
  )
}
