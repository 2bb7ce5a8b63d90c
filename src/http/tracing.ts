import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Span, Tracing } from '../platform/tracing.ts'
import { routeConfig } from './route-context.ts'

const SPAN = Symbol('span')
type Traced = FastifyRequest & { [SPAN]?: Span }

/**
 * A server span per request, continuing the caller's trace when it sends `traceparent`, and active for the request's
 * hooks and handler, so provider calls, queries and Redis commands are its children.
 */
export function traceRequests(app: FastifyInstance, tracing: Tracing): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const incoming = request.headers.traceparent
    const route = routeConfig(request).url ?? 'unmatched'
    const span = tracing.start(`${request.method} ${route}`, {
      kind: 'server',
      ...(typeof incoming === 'string' ? { parent: incoming } : {}),
      attributes: { 'http.request.method': request.method, 'http.route': route, 'request.id': request.id },
    })
    ;(request as Traced)[SPAN] = span
    tracing.enter(span)
    done()
  })
  app.addHook('onResponse', (request, reply, done) => {
    const span = (request as Traced)[SPAN]
    span?.setAttribute('http.response.status_code', reply.statusCode)
    span?.end(reply.statusCode >= 500 ? `HTTP ${reply.statusCode}` : undefined)
    done()
  })
}
