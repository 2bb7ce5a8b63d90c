import type { FastifyRequest } from 'fastify'

/**
 * A preValidation hook that reads comma-separated values of the query parameters `names` as several values
 * (`status=RESERVED,ACTIVE` as `status=RESERVED&status=ACTIVE`), before the schema checks each one.
 */
export const splitCommas =
  (...names: string[]) =>
  async (request: FastifyRequest) => {
    const query = request.query as Record<string, unknown> | undefined
    if (!query) return
    for (const name of names) {
      const value = query[name]
      if (typeof value === 'string' || Array.isArray(value))
        query[name] = [value]
          .flat()
          .flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]))
          .map((v) => (typeof v === 'string' ? v.trim() : v))
    }
  }
