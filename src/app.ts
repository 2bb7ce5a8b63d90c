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
import type { Config } from './config.ts'
import type { Registry } from './connectors/registry.ts'
import type { Resilience } from './connectors/resilience.ts'
import { createBookingList } from './domain/bookings/list.ts'
import { createCarBookings } from './domain/cars/bookings.ts'
import { createMailNotifier } from './domain/cars/notifications.ts'
import { createOfferTokens } from './domain/cars/offer-tokens.ts'
import { createCarSearch } from './domain/cars/search.ts'
import { createCarStations } from './domain/cars/stations.ts'
import { createEventPublisher } from './domain/event-publishing.ts'
import type { EventSink } from './domain/events.ts'
import type { Geocoder } from './domain/geocoding/index.ts'
import { createGbfsOut } from './domain/micromobility/gbfs-out.ts'
import { GBFS_VEHICLE_ID_PURPOSE } from './domain/micromobility/gbfs-out-ids.ts'
import { createMicromobilityTrips } from './domain/micromobility/trips.ts'
import { createVehicleTokens } from './domain/micromobility/vehicle-tokens.ts'
import { createMicromobilityVehicles } from './domain/micromobility/vehicles.ts'
import { createProviderCaller } from './domain/providers/calls.ts'
import { createPublicTransport } from './domain/public-transport/index.ts'
import { createKeyResolver } from './domain/tenants/key-resolver.ts'
import { randomString } from './domain/tenants/keys.ts'
import { createTenantService } from './domain/tenants/service.ts'
import { createWebhooks } from './domain/webhooks/index.ts'
import type { HostResolver } from './domain/webhooks/url-policy.ts'
import { installAuth } from './http/auth.ts'
import { createAuthFailures } from './http/auth-failures.ts'
import { addVary } from './http/envelope.ts'
import { clientErrorHandler, installErrorHandling, sendError } from './http/error-handler.ts'
import { ApiError } from './http/errors.ts'
import { createIdempotency } from './http/idempotency.ts'
import { installLoadShedding } from './http/load-shedding.ts'
import { referResponses, schemaComponents } from './http/openapi/components.ts'
import { registerApiDocument } from './http/openapi/document.ts'
import { markEarlyAnswers, serverLimits, serverOptions } from './http/server-limits.ts'
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
import { createBookingsListRepo } from './store/bookings-list-repo.ts'
import { createCarBookingsRepo } from './store/car-bookings-repo.ts'
import type { Store } from './store/db.ts'
import { createIdempotencyRepo } from './store/idempotency-repo.ts'
import { createPublicTransportRepo } from './store/public-transport-repo.ts'
import { createTenantsRepo } from './store/tenants-repo.ts'
import { createTripsRepo } from './store/trips-repo.ts'
import './http/context.ts'
import { detail } from './platform/i18n/texts.ts'

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
  /** Where status changes go once recorded (webhooks); default: nowhere. */
  events?: EventSink
  /** How webhook deliveries resolve host names (default: the system's resolver; tests play DNS rebinding here). */
  resolveHost?: HostResolver
}

/** The repositories the booking flows write to after a provider's confirmation. */
export interface Repos {
  carBookings: ReturnType<typeof createCarBookingsRepo>
  trips: ReturnType<typeof createTripsRepo>
  publicTransport: ReturnType<typeof createPublicTransportRepo>
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
  const { config, store, kv, rateLimiter, clock, metrics, registry, tokens } = deps
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
    schemaController: { compilersFactory: { buildValidator: (() => validate) as never } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Each connection holds a file descriptor: beyond the limit Node closes new ones at once rather than run out.
  app.server.maxConnections = limits.maxConnections
  app.server.on('drop', () => metrics.connectionsRefused.inc())
  markEarlyAnswers(app)
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

  const repo = createTenantsRepo(store.db)
  const keys = createKeyResolver({ repo, kv, clock })
  const tenants = createTenantService({
    repo,
    clock,
    providerIds: () => registry.ids(),
    onChange: () => keys.invalidate(),
  })
  const failures = createAuthFailures({
    rateLimiter,
    kv,
    clock,
    settings: { limit: config.authFailureLimit, windowSeconds: config.authFailureWindowSeconds },
  })
  installAuth(app, { keys, rateLimiter, clock, adminToken: config.adminToken, failures })
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

  // Webhooks: the sink every domain service publishes status changes to, and the jobs that deliver them.
  const webhooks = createWebhooks({
    db: store.db,
    jobs: deps.jobs,
    tokens,
    clock,
    allowPrivate: config.webhooksAllowPrivate,
    log: app.log,
    tenantExists: async (tenantId) => (await repo.findTenant(tenantId)) !== undefined,
    resolveHost: deps.resolveHost,
  })
  for (const [kind, handler] of Object.entries(webhooks.jobHandlers)) deps.jobs.register(kind, handler)
  await webhooks.start().catch((error: unknown) => app.log.warn({ err: error }, 'could not schedule webhook upkeep'))
  app.addHook('onClose', () => webhooks.close())
  // Status changes go to the tenant's webhooks; a sink given in the deps (tests) hears them too.
  const extraSink = deps.events
  const events: EventSink = extraSink
    ? { publish: async (event) => void (await Promise.all([extraSink.publish(event), webhooks.sink.publish(event)])) }
    : webhooks.sink

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
  })

  const callProvider = createProviderCaller(deps.resilience, deps.tracing)
  const plainRepos: Repos = {
    carBookings: createCarBookingsRepo(store.db),
    trips: createTripsRepo(store.db),
    publicTransport: createPublicTransportRepo(store.db),
  }
  const repos = deps.wrapRepos ? deps.wrapRepos(plainRepos) : plainRepos
  const followUpDeps = { jobs: deps.jobs, tenants: repo, clock, log: app.log }
  // Status changes of bookings, trips, tickets and subscriptions, published once recorded (DECISIONS "Safe retries
  // and push"); a sink that fails is logged and never fails the request or job.
  const publish = createEventPublisher(events, app.log)
  const offers = createOfferTokens(tokens)
  const cars = {
    search: createCarSearch({
      registry,
      callProvider,
      sessions: deps.sessions,
      tokens,
      offerTokens: offers,
      geocoder: deps.geocoder,
      searchTimeoutMs: config.searchTimeoutMs,
      offerTokenTtlSeconds: config.offerTokenTtlSeconds,
    }),
    stations: createCarStations({
      registry,
      callProvider,
      tokens,
      timeoutMs: Math.min(config.searchTimeoutMs, 10_000),
    }),
    bookings: createCarBookings({
      registry,
      callProvider,
      kv,
      tokens,
      offerTokens: offers,
      repo: repos.carBookings,
      offerTokenTtlSeconds: config.offerTokenTtlSeconds,
      ...followUpDeps,
      notifier: createMailNotifier({
        jobs: deps.jobs,
        mailer: deps.mailer,
        log: (err) => app.log.warn({ err }, 'booking mail failed'),
      }),
      publish,
    }),
    clock,
  }

  const vehicleTokensOf = createVehicleTokens(tokens)
  const microVehicles = createMicromobilityVehicles({
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
    publish,
  })
  const micro = {
    vehicles: microVehicles,
    trips: createMicromobilityTrips({
      registry,
      callProvider,
      repo: repos.trips,
      vehicles: microVehicles,
      vehicleTokens: vehicleTokensOf,
      ...followUpDeps,
      tokens,
      publish,
    }),
    clock,
  }
  const gbfs = createGbfsOut({
    registry,
    callProvider,
    secret: tokens.deriveKey(GBFS_VEHICLE_ID_PURPOSE),
    clock,
    timeoutMs: Math.min(config.searchTimeoutMs, 10_000),
    // A placeholder in a reserved domain (RFC 2606) says plainly that the operator has not named one.
    contactEmail: config.gbfsContactEmail ?? 'gbfs-contact-not-configured@example.invalid',
  })
  const bookings = createBookingList({ repo: createBookingsListRepo(store.db), registry })

  await app.register(
    async (api) => {
      const typed = api.withTypeProvider<TypeBoxTypeProvider>()
      accountRoutes(typed)
      providerRoutes(typed, { registry })
      carRoutes(typed, cars)
      micromobilityRoutes(typed, micro)
      gbfsRoutes(typed, { gbfs, clock, apiPrefix: API_PREFIX })
      publicTransportRoutes(typed, { ...publicTransport, clock })
      bookingRoutes(typed, { bookings, clock })
      webhookRoutes(typed, { endpoints: webhooks.endpoints })
    },
    { prefix: API_PREFIX },
  )
  await registerMultimodal(app, { registry, callProvider, vehicles: microVehicles, clock, apiPrefix: API_PREFIX })
  await app.register(
    async (admin) => {
      const typed = admin.withTypeProvider<TypeBoxTypeProvider>()
      adminRoutes(typed, { tenants })
      adminWebhookRoutes(typed, { webhooks })
    },
    { prefix: ADMIN_PREFIX },
  )
  operationsRoutes(app, { metrics, apiPrefix: API_PREFIX, readiness: deps.readiness ?? {}, document: serveDocument })

  return Object.assign(app, { services: { tenants, keys, idempotency, events, webhooks } })
}
