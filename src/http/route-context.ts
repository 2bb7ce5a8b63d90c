import { createRequire } from 'node:module'
import type { FastifyContextConfig, FastifyRequest } from 'fastify'

/** What Fastify keeps of a route for its requests: the route's `config`, plus its `url` and `method`. */
export type RouteConfig = FastifyContextConfig & { url?: string; method?: string | string[] }

/**
 * Fastify's own key for a request's route context. `request.routeOptions` (the public way) builds a new object of
 * twelve fields and asks the router about version constraints at every read: ~0.3 µs, read several times per request
 * (auth, metrics). The context behind it holds the same `config` (with `url` and `method`), read here directly; if a
 * Fastify version moves the key, `routeOptions` answers as before (test/unit/route-context.test.ts says which).
 */
const CONTEXT: symbol | undefined = (() => {
  try {
    const symbols = createRequire(import.meta.url)('fastify/lib/symbols.js') as { kRouteContext?: unknown }
    return typeof symbols.kRouteContext === 'symbol' ? symbols.kRouteContext : undefined
  } catch {
    return undefined
  }
})()

/** Whether the fast read is in use (for the test). */
export const readsRouteContext = CONTEXT !== undefined

/** The request's route config (the route's `config`, its `url`, undefined for a request no route matched, and method). */
export function routeConfig(request: FastifyRequest): RouteConfig {
  const context =
    CONTEXT === undefined ? undefined : (request as unknown as Record<symbol, { config?: RouteConfig }>)[CONTEXT]
  if (context?.config !== undefined) return context.config
  const options = request.routeOptions
  return { ...options.config, url: options.url, method: options.method }
}
