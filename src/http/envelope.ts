import type { FastifyRequest } from 'fastify'

/** The success envelope (spec 2.1). */
export const ok = <T>(request: FastifyRequest, data: T) => ({
  success: true as const,
  data,
  meta: { requestId: request.id, timestamp: new Date().toISOString() },
})

/** The caller's tenant and key; routes with a permission always have them. */
export function authOf(request: FastifyRequest) {
  if (!request.auth) throw new Error('route without authentication asked for the caller')
  return request.auth
}
