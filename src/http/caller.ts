import type { FastifyRequest } from 'fastify'
import { type Caller, parseScenarios } from '../domain/providers/calls.ts'
import { authOf } from './envelope.ts'

/** The domain's view of an authenticated request: tenant, environment, language, time, test scenarios. */
export function callerOf(request: FastifyRequest, clock: () => Date): Caller {
  const { tenant, key } = authOf(request)
  return {
    tenant,
    environment: key.environment,
    language: request.language,
    now: clock(),
    scenarios: parseScenarios(request.headers['x-sandbox-scenario'], key.environment),
    signal: request.raw.destroyed ? AbortSignal.abort() : undefined,
  }
}
