import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { withTextRule } from './text-rule.ts'

/**
 * Bodies are validated strictly (no type coercion, unknown properties refused where a schema says so);
 * query strings, params and headers are text on the wire, so their values are coerced to the declared types.
 * Every body, query and path schema gets the text rule (src/http/text-rule.ts), so no route can forget it.
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
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
  return ({ schema, httpPart }) => {
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
