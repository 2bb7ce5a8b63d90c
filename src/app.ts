import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import FindMyWay from 'find-my-way'
import { accountRoutes } from './api/account/routes.ts'
import { adminRoutes } from './api/admin/routes.ts'
import { bookingRoutes } from './api/bookings/routes.ts'
import { carRoutes } from './api/cars/routes.ts'
import { operationExamples } from './api/examples/index.ts'
import { gbfsRoutes } from './api/gbfs/routes.ts'
import { micromobilityRoutes } from './api/micromobility/routes.ts'
import { registerMultimodal } from './api/multimodal/routes.ts'
import { operationsRoutes } from './api/operations/routes.ts'
import { providerRoutes } from './api/providers/routes.ts'
import { publicTransportRoutes } from './api/public-transport/routes.ts'
import { adminWebhookRoutes } from './api/webhooks/admin-routes.ts'
import { openapiWebhooks, WEBHOOKS_GUIDE } from './api/webhooks/guide.ts'
import { webhookRoutes } from './api/webhooks/routes.ts'
import { ApiError } from './contract/errors.ts'
import { randomString } from './domain/tenants/keys.ts'
import { installAuth } from './http/auth.ts'
import { createAuthFailures } from './http/auth-failures.ts'
import { addVary } from './http/envelope.ts'
import { clientErrorHandler, installErrorHandling, sendError } from './http/error-handler.ts'
import { createIdempotency } from './http/idempotency.ts'
import { loadShedding } from './http/load-shedding.ts'
import { referResponses, schemaComponents } from './http/openapi/components.ts'
import { registerApiDocument } from './http/openapi/document.ts'
import { lazyRequestLogger } from './http/request-logger.ts'
import { routeConfig } from './http/route-context.ts'
import { lazySerializers } from './http/serialization.ts'
import { markIfEarly, serverLimits, serverOptions } from './http/server-limits.ts'
import { traceRequests } from './http/tracing.ts'
import { validatorCompiler } from './http/validation.ts'
import type { Locks, RateLimiter } from './platform/kv/types.ts'
import type { LoadGuard } from './platform/load-guard.ts'
import type { Metrics } from './platform/metrics.ts'
import type { ReadinessChecks } from './platform/readiness.ts'
import { createServices, registerJobHandlers, type ServicesDeps } from './services.ts'
import { createIdempotencyRepo } from './store/idempotency-repo.ts'
import './http/context.ts'
import { detail } from './platform/i18n/texts.ts'

export const API_PREFIX = '/mobility-api/v2'
export const ADMIN_PREFIX = '/admin/v1'
export const API_VERSION = '2.0.0-beta.1'

/** What the app is built from: the services' dependencies and what the HTTP server itself needs. */
export interface AppDeps extends ServicesDeps {
  /** Says when to refuse work before memory runs out. */
  loadGuard: LoadGuard
  locks: Locks
  rateLimiter: RateLimiter
  metrics: Metrics
  /** Pino options, or false for silence (tests). */
  logger: boolean | Record<string, unknown>
  /** What GET /ready checks (the store, Redis when configured); read at each request. */
  readiness?: ReadinessChecks
}

export type App = FastifyInstance

/** What answers with a language vary by (addVary's result when nothing set Vary before). */
const VARY_KEY_AND_LANGUAGE = 'Authorization, Accept-Language'
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/
/** An Idempotency-Key is held this much longer than a request may take before a repeat may take it over. */
const IDEMPOTENCY_LEASE_MARGIN_MS = 60_000

const isJson = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export async function createApp(deps: AppDeps) {
  const { config, store, kv, rateLimiter, clock, metrics, registry } = deps
  // Request ids: a random prefix per instance and a counter; unique across instances, and cheap on the hot path.
  const idPrefix = `req_${randomString(8)}`
  let requestCounter = 0
  const newRequestId = () => `${idPrefix}${(++requestCounter).toString(36).padStart(6, '0')}`
  const limits = serverLimits(config)
  // Named shapes (titled schemas) are registered once and referred to with $ref (src/http/openapi/components.ts).
  const components = schemaComponents((schema) => app.addSchema(schema))
  // The validator is given as the factory every plugin context builds its own from: set with setValidatorCompiler, a
  // context that has shared schemas (all of them, once named shapes are added) would build Fastify's default instead.
  const validate = validatorCompiler(components)
  const app = Fastify({
    logger: deps.logger,
    // Without a logger Fastify makes no child at all; with one, the request's child only once it logs something.
    ...(deps.logger ? { childLoggerFactory: lazyRequestLogger } : {}),
    bodyLimit: config.bodyLimit,
    ...serverOptions(limits),
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newRequestId()
    },
    clientErrorHandler: clientErrorHandler(() => newRequestId()),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 },
    // request.ip (the failed-authentication throttle counts by it) is the socket's address unless TRUST_PROXY is set.
    trustProxy: config.trustProxy as string, // also a boolean or hops: Fastify's overloads take no union
    // Errors the router raises before a route is found (a malformed URL) get the envelope like every other.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error),
    // (Fastify types the factory for Ajv's own compile function; ours is a FastifySchemaCompiler like Ajv's.)
    // Response serializers are built at a route's first answer, not all at start (src/http/serialization.ts).
    schemaController: {
      compilersFactory: { buildValidator: (() => validate) as never, buildSerializer: lazySerializers as never },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Each connection holds a file descriptor: beyond the limit Node closes new ones at once rather than run out.
  app.server.maxConnections = limits.maxConnections
  app.server.on('drop', () => metrics.connectionsRefused.inc())
  // First of the hooks, so that what authentication does (Redis, the database) is part of the request's trace.
  if (deps.tracing) traceRequests(app, deps.tracing)
  // The API speaks JSON only; any other body gets 415 rather than being read as text.
  app.removeContentTypeParser('text/plain')
  // Clients that send `Content-Type: application/json` on every request also send it with no body (POST .../cancel):
  // that is an empty body, validated as {}, not an error.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (text.length < 64 && text.trim() === '') return done(null, undefined)
    parseJson(request, text, (error, value) => {
      // Valid JSON the parser refuses has a key that could poison prototypes: say so rather than "malformed".
      if (error && isJson(text)) {
        return done(
          new ApiError('INVALID_REQUEST', undefined, {
            body: detail('FORBIDDEN_PROPERTY_KEYS'),
            reason: 'FORBIDDEN_PROPERTY',
          }),
          undefined,
        )
      }
      done(error, value)
    })
  })

  // Every route is mirrored in a method-agnostic router, so a wrong method gets 405 instead of 404.
  const routes = FindMyWay()
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && method !== 'OPTIONS') routes.on(method as 'GET', route.url, () => {})
    }
    const schema = route.schema as Record<string, unknown> | undefined
    if (schema && !schema.hide) {
      const response = schema.response as Record<string, Record<string, unknown>> | undefined
      route.schema = {
        ...schema,
        ...(schema.body ? { body: components.refer(schema.body) } : {}),
        ...(response ? { response: referResponses(response, components.refer) } : {}),
      }
    }
  })
  const allowedMethods = (url: string) =>
    ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].filter((m) => routes.find(m as 'GET', url.split('?')[0]) !== null)

  let closing = false
  const shed = loadShedding(app.log, deps.loadGuard)
  // Set once the services exist (below); no request arrives before createApp returns.
  let authorize: ReturnType<typeof installAuth> = (_request, _reply, done) => done()
  // The request id, the shutdown, the load guard, then authentication: one hook (each hook costs Fastify a step of
  // its runner).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    if (closing) {
      reply.header('connection', 'close')
      return done(
        new ApiError(
          'SERVICE_UNAVAILABLE',
          undefined,
          { reason: 'SHUTTING_DOWN' },
          { headers: { 'retry-after': '1' } },
        ),
      )
    }
    const refused = shed(request)
    if (refused !== undefined) return done(refused)
    authorize(request, reply, done)
  })
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  // Requests that finish while closing end their connection, so keep-alive sockets do not hold the shutdown open.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close')
    // The language the answer's names, descriptions and messages are in (errors set it themselves).
    if (request.language) {
      if (!reply.hasHeader('content-language')) reply.header('content-language', request.language)
      // Answers depend on the key and the language: shared caches must keep them apart.
      if (reply.hasHeader('vary')) addVary(reply, 'Authorization', 'Accept-Language')
      else reply.header('vary', VARY_KEY_AND_LANGUAGE)
    }
    done(null, payload)
  })
  app.addHook('onResponse', (request, reply, done) => {
    markIfEarly(request)
    metrics.observeRequest(request.method, routeConfig(request).url ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    done()
  })

  installErrorHandling(app, allowedMethods)

  const services = createServices(deps, app.log)
  const { tenants, keys, webhooks } = services
  registerJobHandlers(deps.jobs, services)
  const failures = createAuthFailures({
    rateLimiter,
    kv,
    clock,
    settings: { limit: config.authFailureLimit, windowSeconds: config.authFailureWindowSeconds },
  })
  authorize = installAuth(app, {
    keys,
    rateLimiter,
    now: deps.now ?? (() => clock().getTime()),
    adminToken: config.adminToken,
    failures,
  })
  const idempotency = createIdempotency({
    repo: createIdempotencyRepo(store.db),
    jobs: deps.jobs,
    clock,
    // A request runs no longer than its provider calls' budget; the margin covers the rest of its work.
    leaseMs: Math.max(config.requestTimeoutMs, config.searchTimeoutMs) + IDEMPOTENCY_LEASE_MARGIN_MS,
    maxAnswerBytes: config.idempotencyMaxAnswerBytes,
    apiPrefix: API_PREFIX,
  })
  idempotency.install(app)
  idempotency.registerSweep()

  await webhooks.start().catch((error: unknown) => app.log.warn({ err: error }, 'could not schedule webhook upkeep'))
  app.addHook('onClose', () => webhooks.close())

  const serveDocument = await registerApiDocument(app, {
    apiPrefix: API_PREFIX,
    version: API_VERSION,
    examples: operationExamples,
    clock,
    tags: [
      {
        name: 'GBFS',
        description:
          "The tenant's micromobility fleet as GBFS 3.0 feeds (manifest.json, gbfs.json and its files) for any GBFS consumer",
      },
      {
        name: 'Webhooks',
        description: `Signed, retried push of every status change to your endpoints (secret keys with account:webhook:write).\n\n${WEBHOOKS_GUIDE}`,
      },
    ],
    webhooks: openapiWebhooks,
    schemas: components.all,
  })

  await app.register(
    async (api) => {
      const typed = api.withTypeProvider<TypeBoxTypeProvider>()
      accountRoutes(typed)
      providerRoutes(typed, { registry })
      carRoutes(typed, { ...services.cars, clock })
      micromobilityRoutes(typed, { ...services.micromobility, clock })
      gbfsRoutes(typed, { gbfs: services.gbfs, clock, apiPrefix: API_PREFIX })
      publicTransportRoutes(typed, { ...services.publicTransport, clock })
      bookingRoutes(typed, { bookings: services.bookings, clock })
      webhookRoutes(typed, { endpoints: webhooks.endpoints })
    },
    { prefix: API_PREFIX },
  )
  await registerMultimodal(app, { multimodal: services.multimodal, clock, apiPrefix: API_PREFIX })
  await app.register(
    async (admin) => {
      const typed = admin.withTypeProvider<TypeBoxTypeProvider>()
      adminRoutes(typed, { tenants })
      adminWebhookRoutes(typed, { webhooks })
    },
    { prefix: ADMIN_PREFIX },
  )
  operationsRoutes(app, { metrics, apiPrefix: API_PREFIX, readiness: deps.readiness ?? {}, document: serveDocument })

  return Object.assign(app, { services: { ...services, idempotency } })
}
