import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ok } from '../../http/envelope.ts'
import { responses } from '../../http/schemas.ts'
import type { Metrics } from '../../platform/metrics.ts'

/** Health, Prometheus metrics (admin token) and the OpenAPI document. */
export function operationsRoutes(
  app: FastifyInstance,
  { metrics, apiPrefix }: { metrics: Metrics; apiPrefix: string },
) {
  app.get(
    '/health',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Liveness',
        response: responses(Type.Object({ status: Type.Literal('ok') })),
      },
    },
    async (request) => ok(request, { status: 'ok' as const }),
  )
  app.get(
    '/metrics',
    {
      config: { admin: true },
      schema: {
        tags: ['Operations'],
        summary: 'Prometheus metrics',
        description: 'Requests by route and status, latency histograms, provider call outcomes. Needs the admin token.',
        security: [{ adminToken: [] }],
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  )
  app.get(
    `${apiPrefix}/openapi.json`,
    { schema: { tags: ['Operations'], summary: 'This API document (OpenAPI 3.1)' } },
    async () => app.swagger(),
  )
}
