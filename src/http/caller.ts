import type { FastifyRequest } from 'fastify'
import { type Caller, parseScenarios } from '../domain/providers/calls.ts'
import { authOf } from './envelope.ts'

/**
 * The signal of a request whose connection is already gone, made once: `AbortSignal.abort()` builds a DOMException
 * with a stack each time (~5 µs), and a request whose body was read counts as destroyed too, so every POST made one.
 * Nothing listens to an already aborted signal, so one shared instance answers exactly as a fresh one would.
 */
const GONE = AbortSignal.abort()

/** The domain's view of an authenticated request: tenant, environment, language, time, test scenarios. */
export function callerOf(request: FastifyRequest, clock: () => Date): Caller {
  const { tenant, key } = authOf(request)
  return {
    tenant,
    environment: key.environment,
    language: request.language,
    now: clock(),
    scenarios: parseScenarios(request.headers['x-sandbox-scenario'], key.environment),
    signal: request.raw.destroyed ? GONE : undefined,
  }
}
