import fastJson, { type Options } from 'fast-json-stringify'
import type { FastifySerializerCompiler } from 'fastify'

/**
 * Fastify's response serializers, compiled at a route's first answer with that status instead of all at start.
 *
 * Fastify's default factory (@fastify/fast-json-stringify-compiler) builds every response schema of every route when
 * the server gets ready: ~230 fast-json-stringify builds that each check and index all the named shapes again, about
 * 7 s of CPU on this machine and +90 MiB of heap at the start's peak, for serializers most of which an instance never
 * uses. This factory is the default one (same fast-json-stringify, same options, same shared schemas: the same bytes)
 * with the build moved to the first call.
 */
export function lazySerializers(
  externalSchemas: unknown,
  serializerOpts: Options | undefined,
): FastifySerializerCompiler<unknown> {
  const shared = (externalSchemas ?? {}) as Record<string, unknown>
  return ({ schema }) => {
    let serialize: ((data: unknown) => string) | undefined
    const build = () => {
      // As the default factory does: a response schema that is itself a named shape is not its own external schema.
      const id = (schema as { $id?: string }).$id
      let schemas = shared
      if (id && schemas[id]) {
        const { [id]: _self, ...others } = schemas
        schemas = others
      }
      return fastJson(schema as object, { ...serializerOpts, schema: schemas as Options['schema'] })
    }
    return (data) => {
      serialize ??= build()
      return serialize(data)
    }
  }
}
