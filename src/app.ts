import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import FindMyWay from 'find-my-way'
import { accountRoutes } from './api/account/routes.ts'
import { adminRoutes } from './api/admin/routes.ts'
import { carRoutes } from './api/cars/routes.ts'
import { micromobilityRoutes } from './api/micromobility/routes.ts'
import { registerMultimodal } from './api/multimodal/routes.ts'
import { operationsRoutes } from './api/operations/routes.ts'
import { providerRoutes } from './api/providers/routes.ts'
import { publicTransportRoutes } from './api/public-transport/routes.ts'
import type { Config } from './config.ts'
import type { Registry } from './connectors/registry.ts'
import type { Resilience } from './connectors/resilience.ts'
import { carBookings } from './domain/cars/bookings.ts'
import { mailNotifier } from './domain/cars/notifications.ts'
import { offerTokens } from './domain/cars/offer-tokens.ts'
import { carSearch } from './domain/cars/search.ts'
import { carStations } from './domain/cars/stations.ts'
import type { Geocoder } from './domain/geocoding/index.ts'
import { micromobilityTrips } from './domain/micromobility/trips.ts'
import { vehicleTokens } from './domain/micromobility/vehicle-tokens.ts'
import { micromobilityVehicles } from './domain/micromobility/vehicles.ts'
import { providerCaller } from './domain/providers/calls.ts'
import { createPublicTransport } from './domain/public-transport/index.ts'
import { keyResolver } from './domain/tenants/key-resolver.ts'
import { randomString } from './domain/tenants/keys.ts'
import { tenantService } from './domain/tenants/service.ts'
import { installAuth } from './http/auth.ts'
import { authFailures } from './http/auth-failures.ts'
import { addVary } from './http/envelope.ts'
import { clientErrorHandler, installErrorHandling, sendError } from './http/error-handler.ts'
import { ApiError } from './http/errors.ts'
import { installLoadShedding } from './http/load-shedding.ts'
import { documentHeaders } from './http/openapi-headers.ts'
import { ErrorEnvelope } from './http/schemas.ts'
import { markEarlyAnswers, serverLimits, serverOptions } from './http/server-limits.ts'
import { documentTextRule } from './http/text-rule.ts'
import { traceRequests } from './http/tracing.ts'
import { validatorCompiler } from './http/validation.ts'
import type { Jobs } from './platform/jobs.ts'
import type { Kv, Locks, RateLimiter } from './platform/kv/types.ts'
import type { LoadGuard } from './platform/load-guard.ts'
import type { Mailer } from './platform/mail.ts'
import type { Metrics } from './platform/metrics.ts'
import type { ReadinessChecks } from './platform/readiness.ts'
import type { SessionStore } from './platform/sessions/types.ts'
import type { TokenCipher } from './platform/tokens.ts'
import type { Tracing } from './platform/tracing.ts'
import { carBookingsRepo } from './store/car-bookings-repo.ts'
import type { Store } from './store/db.ts'
import { publicTransportRepo } from './store/public-transport-repo.ts'
import { tenantsRepo } from './store/tenants-repo.ts'
import { tripsRepo } from './store/trips-repo.ts'
import './http/context.ts'

export const API_PREFIX = '/mobility-api/v2'
export const ADMIN_PREFIX = '/admin/v1'
export const API_VERSION = '2.0.0-beta.1'

export interface AppDeps {
  config: Config
  store: Store
  kv: Kv
  /** Car search sessions, bounded (memory or Redis). */
  sessions: SessionStore
  /** Says when to refuse work before memory runs out. */
  loadGuard: LoadGuard
  locks: Locks
  rateLimiter: RateLimiter
  tokens: TokenCipher
  registry: Registry
  /** Deadline, breaker, bulkhead and retries around every connector call. */
  resilience: Resilience
  metrics: Metrics
  jobs: Jobs
  mailer: Mailer
  geocoder: Geocoder
  clock: () => Date
  /** Pino options, or false for silence (tests). */
  logger: boolean | Record<string, unknown>
  /** What GET /ready checks (the store, Redis when configured); read at each request. */
  readiness?: ReadinessChecks
  /** Traces (OTLP), when configured. */
  tracing?: Tracing
  /** Wraps the repositories of bookings, trips and tickets (tests put a store that fails at a chosen moment here). */
  wrapRepos?: (repos: Repos) => Repos
}

/** The repositories the booking flows write to after a provider's confirmation. */
export interface Repos {
  carBookings: ReturnType<typeof carBookingsRepo>
  trips: ReturnType<typeof tripsRepo>
  publicTransport: ReturnType<typeof publicTransportRepo>
}

export type App = FastifyInstance
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/

const isJson = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export async function createApp(deps: AppDeps) {
  const { config, store, kv, rateLimiter, clock, metrics, registry, tokens } = deps
  // Request ids: a random prefix per instance and a counter; unique across instances, and cheap on the hot path.
  const idPrefix = `req_${randomString(8)}`
  let requestCounter = 0
  const newRequestId = () => `${idPrefix}${(++requestCounter).toString(36).padStart(6, '0')}`
  const limits = serverLimits(config)
  const app = Fastify({
    logger: deps.logger,
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
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Each connection holds a file descriptor: beyond the limit Node closes new ones at once rather than run out.
  app.server.maxConnections = limits.maxConnections
  app.server.on('drop', () => metrics.connectionsRefused.inc())
  markEarlyAnswers(app)
  // First of the hooks, so that what authentication does (Redis, the database) is part of the request's trace.
  if (deps.tracing) traceRequests(app, deps.tracing)
  app.setValidatorCompiler(validatorCompiler())
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
            body: 'must not contain __proto__ or constructor.prototype keys',
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
    // A route's own statuses (spec 7.2) are documented as responses of their own, beside 4XX and 5XX.
    const overrides = (route.config as { statusOverrides?: Record<string, number> } | undefined)?.statusOverrides
    const response = route.schema?.response as Record<string, unknown> | undefined
    if (overrides && response) {
      const codesOf = new Map<number, string[]>()
      for (const [code, status] of Object.entries(overrides))
        codesOf.set(status, [...(codesOf.get(status) ?? []), code])
      for (const [status, codes] of codesOf) {
        response[status] ??= { ...ErrorEnvelope, description: `${codes.join(', ')} on this route (spec 7.2)` }
      }
    }
  })
  const allowedMethods = (url: string) =>
    ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].filter((m) => routes.find(m as 'GET', url.split('?')[0]) !== null)

  let closing = false
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    if (!closing) return done()
    reply.header('connection', 'close')
    done(
      new ApiError('SERVICE_UNAVAILABLE', undefined, { reason: 'SHUTTING_DOWN' }, { headers: { 'retry-after': '1' } }),
    )
  })
  installLoadShedding(app, deps.loadGuard)
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
      addVary(reply, 'Authorization', 'Accept-Language')
    }
    done(null, payload)
  })
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime)
    done()
  })

  installErrorHandling(app, allowedMethods)

  const repo = tenantsRepo(store.db)
  const keys = keyResolver({ repo, kv, clock })
  const tenants = tenantService({ repo, clock, providerIds: () => registry.ids(), onChange: () => keys.invalidate() })
  const failures = authFailures({
    rateLimiter,
    kv,
    clock,
    settings: { limit: config.authFailureLimit, windowSeconds: config.authFailureWindowSeconds },
  })
  installAuth(app, { keys, rateLimiter, clock, adminToken: config.adminToken, failures })

  await app.register(swagger, {
    transform: (route) => documentHeaders(documentTextRule(route)),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mobility Aggregation Service API',
        version: API_VERSION,
        description:
          'One REST/JSON API over many mobility providers: cars, public transport, micromobility, multimodal map data and a provider directory. Every answer uses the envelope `{ success, data | error, meta }`. Text in requests (bodies, query strings, paths) never holds NUL, other control characters or lone surrogates (the `pattern` of every string schema); fields marked `x-free-text` may hold tab, line feed and carriage return. Anything else answers 400 INVALID_REQUEST naming the field.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'API key: svc_live_, svc_pk_live_, svc_test_ or svc_pk_test_. Publishable keys (svc_pk_) need an allowed Origin and hold catalogue reads only: bookings, tickets, trips, prebooks and subscriptions answer them 403 FORBIDDEN (NOT_ALLOWED_FOR_PUBLISHABLE_KEY). After too many failed authentications from one address, requests from it answer 429 (TOO_MANY_FAILED_AUTHENTICATIONS) with Retry-After.',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN)' },
        },
        schemas: { ErrorEnvelope: ErrorEnvelope as unknown as Record<string, unknown> },
      },
      tags: [
        { name: 'Account', description: 'The caller: tenant, key, permissions, limits' },
        { name: 'Mobility Providers', description: 'Directory of providers enabled for the tenant' },
        {
          name: 'Cars',
          description:
            'Car rental and car sharing: search, offer details, prebook, booking, change, cancel, vehicle actions',
        },
        {
          name: 'Public Transport',
          description: 'Stops, departures, journeys, tickets (prebook, booking, cancel) and subscriptions',
        },
        {
          name: 'Micro Mobility',
          description:
            'Scooters, bikes and mopeds (beta): search, QR look-up, reserve, start, lock, unlock, end; zones',
        },
        { name: 'Multimodal', description: 'Everything near a point (beta), and map tiles' },
        { name: 'Admin', description: 'Operator API: tenants and keys (ADMIN_TOKEN)' },
        { name: 'Operations', description: 'Health, metrics, the API document' },
      ],
    },
  })
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, uiConfig: { url: `${API_PREFIX}/openapi.json` } })

  const callProvider = providerCaller(deps.resilience, deps.tracing)
  const plainRepos: Repos = {
    carBookings: carBookingsRepo(store.db),
    trips: tripsRepo(store.db),
    publicTransport: publicTransportRepo(store.db),
  }
  const repos = deps.wrapRepos ? deps.wrapRepos(plainRepos) : plainRepos
  const followUpDeps = { jobs: deps.jobs, tenants: repo, clock, log: app.log }
  const offers = offerTokens(tokens)
  const cars = {
    search: carSearch({
      registry,
      callProvider,
      sessions: deps.sessions,
      tokens,
      offerTokens: offers,
      geocoder: deps.geocoder,
      searchTimeoutMs: config.searchTimeoutMs,
      offerTokenTtlSeconds: config.offerTokenTtlSeconds,
    }),
    stations: carStations({ registry, callProvider, tokens, timeoutMs: Math.min(config.searchTimeoutMs, 10_000) }),
    bookings: carBookings({
      registry,
      callProvider,
      kv,
      tokens,
      offerTokens: offers,
      repo: repos.carBookings,
      offerTokenTtlSeconds: config.offerTokenTtlSeconds,
      ...followUpDeps,
      notifier: mailNotifier({
        jobs: deps.jobs,
        mailer: deps.mailer,
        log: (err) => app.log.warn({ err }, 'booking mail failed'),
      }),
    }),
    clock,
  }

  const vehicleTokensOf = vehicleTokens(tokens)
  const microVehicles = micromobilityVehicles({
    registry,
    callProvider,
    tokens,
    vehicleTokens: vehicleTokensOf,
    timeoutMs: Math.min(config.searchTimeoutMs, 10_000),
  })
  const publicTransport = createPublicTransport({
    registry,
    callProvider,
    tokens,
    offerTokens: offers,
    kv,
    geocoder: deps.geocoder,
    repo: repos.publicTransport,
    ...followUpDeps,
    timeoutMs: Math.min(config.searchTimeoutMs, 10_000),
    offerTokenTtlSeconds: config.offerTokenTtlSeconds,
  })
  const micro = {
    vehicles: microVehicles,
    trips: micromobilityTrips({
      registry,
      callProvider,
      repo: repos.trips,
      vehicles: microVehicles,
      vehicleTokens: vehicleTokensOf,
      ...followUpDeps,
    }),
    clock,
  }

  await app.register(
    async (api) => {
      const typed = api.withTypeProvider<TypeBoxTypeProvider>()
      accountRoutes(typed)
      providerRoutes(typed, { registry })
      carRoutes(typed, cars)
      micromobilityRoutes(typed, micro)
      publicTransportRoutes(typed, { ...publicTransport, clock })
    },
    { prefix: API_PREFIX },
  )
  await registerMultimodal(app, { registry, callProvider, vehicles: microVehicles, clock, apiPrefix: API_PREFIX })
  await app.register(async (admin) => adminRoutes(admin.withTypeProvider<TypeBoxTypeProvider>(), { tenants }), {
    prefix: ADMIN_PREFIX,
  })
  operationsRoutes(app, { metrics, apiPrefix: API_PREFIX, readiness: deps.readiness ?? {} })

  return Object.assign(app, { services: { tenants, keys } })
}
