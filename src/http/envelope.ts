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

let second = Number.NaN
let secondText = ''
/**
 * The time now as ISO 8601 (`toISOString`): the part up to the seconds is formatted once per second, the milliseconds
 * are appended (formatting the whole costs ~0.5 µs, and at 10,000 answers a second the millisecond changes at nearly
 * every answer).
 */
function timestamp(): string {
  const now = Date.now()
  const s = Math.floor(now / 1000)
  if (s !== second) {
    // "YYYY-MM-DDTHH:MM:SS." of this second: all but its ".000Z" end's "000Z".
    const text = new Date(s * 1000).toISOString()
    secondText = text.slice(0, text.length - 4)
    second = s
  }
  const ms = now - s * 1000
  return `${secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`
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
