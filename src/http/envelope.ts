import type { FastifyReply, FastifyRequest } from 'fastify'
import { localizeHistory } from '../platform/i18n/texts.ts'

/**
 * The success envelope (spec 2.1). A booking's statusHistory keeps the platform's own reasons in English; they are
 * answered in the caller's language (issue 21).
 */
export const ok = <T>(request: FastifyRequest, data: T) => ({
  success: true as const,
  data: localizeHistory(data, request.language),
  meta: { requestId: request.id, timestamp: timestamp() },
})

let stampedAt = Number.NaN
let stamp = ''
/** The time now as ISO 8601, formatted once per millisecond (~0.5 µs each) rather than once per answer. */
function timestamp(): string {
  const now = Date.now()
  if (now !== stampedAt) {
    stamp = new Date(now).toISOString()
    stampedAt = now
  }
  return stamp
}

/** The caller's tenant and key; routes with a permission always have them. */
/**
 * A 201 for a resource created by POST to its collection: `Location` names the new resource (the collection's path
 * plus its id), the body is the envelope.
 */
export function created<T>(request: FastifyRequest, reply: FastifyReply, id: string, data: T) {
  reply.header('location', `${request.url.split('?')[0]}/${encodeURIComponent(id)}`)
  return reply.status(201).send(ok(request, data))
}

export function authOf(request: FastifyRequest) {
  if (!request.auth) throw new Error('route without authentication asked for the caller')
  return request.auth
}

/** Adds `values` to the answer's Vary header, each once, whatever set it before. */
export function addVary(reply: FastifyReply, ...values: string[]) {
  const current = reply.getHeader('vary')
  // Nothing set yet (the common case): the values as they are, without splitting and joining.
  if (current === undefined || current === '') {
    reply.header('vary', values.length === 1 ? values[0] : [...new Set(values)].join(', '))
    return
  }
  const parts = new Set(
    String(current)
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  )
  for (const value of values) parts.add(value)
  reply.header('vary', [...parts].join(', '))
}
