import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { OneOf, responses } from '../../contract/common.ts'
import { ApiError } from '../../contract/errors.ts'
import { ok } from '../../http/envelope.ts'
import type { Metrics } from '../../platform/metrics.ts'
import { checkReadiness, type ReadinessChecks } from '../../platform/readiness.ts'

/** Each dependency must answer within this, so a probe never hangs on one (load balancers give up after a few s). */
const READY_CHECK_TIMEOUT_MS = 1000
const CheckStatus = OneOf(['OK', 'FAILED', 'TIMEOUT'] as const)

/** Liveness, readiness, Prometheus metrics (admin token) and the OpenAPI document. */
export interface OperationsRouteDeps {
  metrics: Metrics
  apiPrefix: string
  readiness: ReadinessChecks
  /** The API document as served to a request (src/http/openapi/document.ts). */
  document: (request: FastifyRequest) => Record<string, unknown>
}

export function operationsRoutes(
  app: FastifyInstance,
  { metrics, apiPrefix, readiness, document }: OperationsRouteDeps,
) {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['Operations'],
        summary: 'Liveness',
        description:
          'The process runs and answers HTTP. Checks no dependency: restart the process only when this fails.',
        security: [],
        response: responses(Type.Object({ status: Type.Literal('ok') })),
      },
    },
    async (request) => ok(request, { status: 'ok' as const }),
  )
  app.get(
    '/ready',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['Operations'],
        summary: 'Readiness',
        description:
          'Whether this instance can serve requests: the store (the embedded database or PostgreSQL) and, when configured, Redis answered within 1 s each. 503 SERVICE_UNAVAILABLE otherwise, with `details.checks` naming what failed (`FAILED` or `TIMEOUT`). Take the instance out of the load balancer while it fails; do not restart it for that.',
        security: [],
        response: responses(
          Type.Object({
            status: Type.Literal('ready'),
            checks: Type.Object({ store: CheckStatus, redis: Type.Optional(CheckStatus) }),
          }),
        ),
      },
    },
    async (request, reply) => {
      const { ready, checks } = await checkReadiness(readiness, READY_CHECK_TIMEOUT_MS)
      reply.header('cache-control', 'no-store')
      if (!ready) {
        throw new ApiError('SERVICE_UNAVAILABLE', undefined, { reason: 'NOT_READY', checks })
      }
      return ok(request, { status: 'ready' as const, checks: checks as { store: 'OK'; redis?: 'OK' } })
    },
  )
  app.get(
    '/metrics',
    {
      config: { admin: true },
      schema: {
        operationId: 'getMetrics',
        tags: ['Operations'],
        summary: 'Prometheus metrics',
        description: 'Requests by route and status, latency histograms, provider call outcomes. Needs the admin token.',
        security: [{ adminToken: [] }],
        produces: ['text/plain'],
        response: {
          200: {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const text = await metrics.text().catch(() => {
        throw new ApiError('SERVICE_UNAVAILABLE', undefined, { reason: 'METRICS_UNAVAILABLE' })
      })
      return reply.type(metrics.registry.contentType).send(text)
    },
  )
  app.get(
    `${apiPrefix}/openapi.json`,
    {
      schema: {
        operationId: 'getOpenApiDocument',
        tags: ['Operations'],
        summary: 'This API document (OpenAPI 3.1)',
        description:
          'The document the docs page shows, with examples for the day it is served and this service as its server. Needs no key.',
        security: [],
        response: {
          200: {
            description: 'The OpenAPI 3.1 document',
            content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
          },
        },
      },
    },
    async (request) => document(request),
  )
}
