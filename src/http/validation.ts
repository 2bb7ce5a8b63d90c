import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import type { FastifySchemaCompiler } from 'fastify'
import type { SchemaComponents } from './openapi/components.ts'
import { withTextRule } from './text-rule.ts'

const rfc3339 = fullFormats['date-time'] as { validate: (s: string) => boolean }

/**
 * RFC 3339 allows a leap second (`23:59:60`) that a JavaScript date cannot hold: it would reach the code as an Invalid
 * Date and fail there (a RangeError, a failing provider). A date-time is therefore also a time `Date` can read.
 */
const instant = {
  type: 'string' as const,
  validate: (s: string) => rfc3339.validate(s) && !Number.isNaN(Date.parse(s)),
}

/**
 * Bodies are validated strictly (no type coercion, unknown properties refused where a schema says so);
 * query strings, params and headers are text on the wire, so their values are coerced to the declared types.
 * Every body, query and path schema gets the text rule (src/http/text-rule.ts), so no route can forget it, and so does
 * every named shape the schemas refer to (`components`): only requests are validated.
 */
export function validatorCompiler(components?: Pick<SchemaComponents, 'all'>): FastifySchemaCompiler<unknown> {
  const base = {
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    discriminator: true,
  } as const
  const body = new Ajv({ ...base, coerceTypes: false })
  const text = new Ajv({ ...base, coerceTypes: 'array' })
  addFormats.default(body)
  addFormats.default(text)
  body.addFormat('date-time', instant)
  text.addFormat('date-time', instant)
  const added = new Set<string>()
  /** The named shapes registered since the last compilation (all of them are, before the first route compiles). */
  const addComponents = () => {
    for (const [name, schema] of components?.all() ?? []) {
      if (added.has(name)) continue
      added.add(name)
      const checked = withTextRule(schema)
      body.addSchema(checked)
      text.addSchema(checked)
    }
  }
  return ({ schema, httpPart }) => {
    addComponents()
    const checked = httpPart === 'headers' ? schema : withTextRule(schema)
    const validate = (httpPart === 'body' ? body : text).compile(checked as object)
    // A POST or PATCH without a body is validated as an empty object, so optional bodies may be left out and
    // required fields are reported by name.
    const emptyIsObject = httpPart === 'body'
    return (input: unknown) => {
      const data = emptyIsObject && (input === null || input === undefined) ? {} : input
      return validate(data)
        ? { value: data }
        : { error: Object.assign(new Error('validation'), { validation: validate.errors }) }
    }
  }
}
