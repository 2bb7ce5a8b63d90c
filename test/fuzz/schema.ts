import fc from 'fast-check'
import { At, type Template } from './template.ts'

/** Valid values from a JSON Schema, and the schema of a node inside a value. */

/** The subset of JSON Schema (OpenAPI 3.1) the service's document uses. */
export interface Schema {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  items?: Schema
  oneOf?: Schema[]
  anyOf?: Schema[]
  allOf?: Schema[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  pattern?: string
  format?: string
  default?: unknown
  minProperties?: number
  discriminator?: { propertyName: string }
}

const HOUR = 3600_000
const DAY = 24 * HOUR

// ---------------------------------------------------------------------------------------------------------------
// Valid values from a schema (the base that mutations start from when no hand-written example exists)

const SAFE_TEXT = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -'),
  minLength: 1,
  maxLength: 12,
})

export const firstType = (s: Schema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type)

/** A better valid value for a field than its schema alone gives (a coordinate in Berlin, a real provider id). */
export type Hint = (name: string, schema: Schema) => fc.Arbitrary<Template> | undefined

export function validOf(schema: Schema | undefined, name = '', hint?: Hint): fc.Arbitrary<Template> {
  if (!schema) return fc.constant('x')
  const hinted = hint?.(name, schema)
  if (hinted) return hinted
  if (schema.const !== undefined) return fc.constant(schema.const as Template)
  if (schema.enum) return fc.constantFrom(...(schema.enum as Template[]))
  const branches = schema.oneOf ?? schema.anyOf
  if (branches) return fc.oneof(...branches.map((b) => validOf({ ...b, type: b.type ?? schema.type }, name, hint)))
  if (schema.allOf) return validOf(Object.assign({}, ...schema.allOf), name, hint)
  switch (firstType(schema)) {
    case 'object':
      return validObject(schema, hint)
    case 'array': {
      const min = schema.minItems ?? 0
      const max = Math.min(schema.maxItems ?? min + 3, min + 3)
      return schema.uniqueItems
        ? fc.uniqueArray(validOf(schema.items, name, hint), {
            minLength: min,
            maxLength: max,
            selector: (v) => JSON.stringify(v),
          })
        : fc.array(validOf(schema.items, name, hint), { minLength: min, maxLength: max })
    }
    case 'string':
      return validString(schema, name)
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0)
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : min + 1000)
      return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, min + 100_000)) })
    }
    case 'number': {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? 0
      const max = schema.maximum ?? schema.exclusiveMaximum ?? min + 1000
      return fc
        .double({ min, max, noNaN: true, noDefaultInfinity: true })
        .filter((n) => (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) && n !== max + 1)
        .map((n) => Math.round(n * 1e6) / 1e6)
        .filter(
          (n) =>
            n >= min &&
            n <= max &&
            (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) &&
            (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum),
        )
    }
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    default:
      return fc.constant('x')
  }
}

function validObject(schema: Schema, hint?: Hint): fc.Arbitrary<Template> {
  const props = schema.properties ?? {}
  const required = new Set(schema.required ?? [])
  const entries = Object.entries(props)
  if (entries.length === 0) {
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      return fc.dictionary(
        fc.constantFrom('flightNumber', 'note', 'x'),
        validOf(schema.additionalProperties, '', hint) as fc.Arbitrary<any>,
        {
          maxKeys: 2,
        },
      )
    }
    return fc.constant({})
  }
  const record: Record<string, fc.Arbitrary<Template>> = {}
  for (const [k, v] of entries) record[k] = validOf(v, k, hint)
  const requiredKeys = entries.map(([k]) => k).filter((k) => required.has(k))
  return fc.record(record, { requiredKeys }).map((o) => {
    // minProperties (a PATCH): keep at least one.
    if ((schema.minProperties ?? 0) > Object.keys(o).length && entries.length > 0) {
      const [k] = entries[0]
      return { ...o, [k]: fc.sample(record[k], { numRuns: 1, seed: 1 })[0] }
    }
    return o
  }) as fc.Arbitrary<Template>
}

function validString(schema: Schema, name: string): fc.Arbitrary<Template> {
  const fits = (s: string) =>
    s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY)
  switch (schema.format) {
    case 'date-time':
      return fc.integer({ min: 1, max: 30 * 24 }).map((h) => new At(h * HOUR) as Template)
    case 'date':
      return /birth/i.test(name)
        ? fc.constantFrom<Template>('1990-12-10', '1985-01-31', '2000-02-29')
        : fc.integer({ min: 1, max: 60 }).map((d) => new At(d * DAY, 'date') as Template)
    case 'email':
      return fc.constantFrom<Template>('ada@example.com', 'rider+1@example.org')
    case 'uri':
    case 'url':
      return fc.constantFrom<Template>('https://example.com/', 'https://app.example/hook')
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter(fits)
    } catch {
      // A pattern fast-check cannot generate from: fall through to plain text.
    }
  }
  return SAFE_TEXT.filter(fits)
}

/** The schema of the node at `path` below `schema` (the oneOf branch matching the value's discriminator). */
export function schemaAt(schema: Schema | undefined, path: (string | number)[], value: unknown): Schema | undefined {
  let s = schema
  let v: any = value
  for (const k of path) {
    if (!s) return undefined
    const branches = s.oneOf ?? s.anyOf
    if (branches) {
      const disc = s.discriminator?.propertyName
      s =
        branches.find((b) => disc && v && b.properties?.[disc]?.enum?.includes(v[disc])) ??
        branches.find((b) => typeof k === 'string' && b.properties?.[k]) ??
        branches[0]
    }
    if (typeof k === 'number') s = s?.items
    else {
      const ap = s?.additionalProperties
      s = s?.properties?.[k] ?? (typeof ap === 'object' ? ap : undefined)
    }
    v = v?.[k]
  }
  return s
}
