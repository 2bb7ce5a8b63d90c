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
import { createMultimodal } from './domain/multimodal/index.ts'
import { createProviderCaller } from './domain/providers/calls.ts'
import { createPublicTransport } from './domain/public-transport/index.ts'
import { createKeyResolver } from './domain/tenants/key-resolver.ts'
import { createTenantService } from './domain/tenants/service.ts'
import { createWebhooks } from './domain/webhooks/index.ts'
import type { HostResolver } from './domain/webhooks/url-policy.ts'
import type { JobHandlers, Jobs, JobsLogger } from './platform/jobs.ts'
import type { Kv } from './platform/kv/types.ts'
import type { Mailer } from './platform/mail.ts'
import type { SessionStore } from './platform/sessions/types.ts'
import type { TokenCipher } from './platform/tokens.ts'
import type { Tracing } from './platform/tracing.ts'
import { createBookingsListRepo } from './store/bookings-list-repo.ts'
import { type CarBookingsRepo, createCarBookingsRepo } from './store/car-bookings-repo.ts'
import type { Store } from './store/db.ts'
import { createPublicTransportRepo, type PublicTransportRepo } from './store/public-transport-repo.ts'
import { createTenantsRepo } from './store/tenants-repo.ts'
import { createTripsRepo, type TripsRepo } from './store/trips-repo.ts'

/** The repositories the booking flows write to after a provider's confirmation. */
export interface Repos {
  carBookings: CarBookingsRepo
  trips: TripsRepo
  publicTransport: PublicTransportRepo
}

/** What the domain services are built from; none of it is HTTP. */
export interface ServicesDeps {
  config: Config
  store: Store
  kv: Kv
  /** Car search sessions, bounded (memory or Redis). */
  sessions: SessionStore
  tokens: TokenCipher
  registry: Registry
  /** Deadline, breaker, bulkhead and retries around every connector call. */
  resilience: Resilience
  jobs: Jobs
  mailer: Mailer
  geocoder: Geocoder
  clock: () => Date
  /** `clock` in milliseconds (Date.now with the system's clock); default: `clock().getTime()`. */
  now?: () => number
  /** Traces (OTLP), when configured. */
  tracing?: Tracing
  /** Wraps the repositories of bookings, trips and tickets (tests put a store that fails at a chosen moment here). */
  wrapRepos?: (repos: Repos) => Repos
  /** Where status changes go once recorded (webhooks); default: nowhere. */
  events?: EventSink
  /** How webhook deliveries resolve host names (default: the system's resolver; tests play DNS rebinding here). */
  resolveHost?: HostResolver
}

/** Where the services log what they do in the background (jobs, failed publications, mails); pino's signature. */
export type ServicesLogger = JobsLogger

/**
 * Every domain service, built once from explicit dependencies. Nothing here registers itself anywhere: the job
 * handlers are handed over with `registerJobHandlers`, and the app (app.ts) turns the services into routes.
 */
export function createServices(deps: ServicesDeps, log: ServicesLogger) {
  const { config, store, kv, registry, clock } = deps
  // Every service opens tokens with the cipher that also knows the compact ones (vehicle tokens, micromobility
  // cursors), so the token diagnosis recognises them wherever they are sent.
  const vehicleTokens = createVehicleTokens(deps.tokens)
  const tokens = vehicleTokens.cipher
  const tenantsRepo = createTenantsRepo(store.db)
  const keys = createKeyResolver({ repo: tenantsRepo, kv, clock })
  const tenants = createTenantService({
    repo: tenantsRepo,
    clock,
    providerIds: () => registry.ids(),
    onChange: () => keys.invalidate(),
  })

  // Webhooks: the sink every domain service publishes status changes to, and the jobs that deliver them.
  const webhooks = createWebhooks({
    db: store.db,
    jobs: deps.jobs,
    tokens,
    clock,
    allowPrivate: config.webhooksAllowPrivate,
    log,
    tenantExists: async (tenantId) => (await tenantsRepo.findTenant(tenantId)) !== undefined,
    resolveHost: deps.resolveHost,
  })
  // Status changes go to the tenant's webhooks; a sink given in the deps (tests) hears them too.
  const extraSink = deps.events
  const events: EventSink = extraSink
    ? { publish: async (event) => void (await Promise.all([extraSink.publish(event), webhooks.sink.publish(event)])) }
    : webhooks.sink

  const callProvider = createProviderCaller(deps.resilience, deps.tracing)
  const plainRepos: Repos = {
    carBookings: createCarBookingsRepo(store.db),
    trips: createTripsRepo(store.db),
    publicTransport: createPublicTransportRepo(store.db),
  }
  const repos = deps.wrapRepos ? deps.wrapRepos(plainRepos) : plainRepos
  const followUpDeps = { jobs: deps.jobs, tenants: tenantsRepo, clock, log }
  // Status changes of bookings, trips, tickets and subscriptions, published once recorded (DECISIONS "Safe retries
  // and push"); a sink that fails is logged and never fails the request or job.
  const publish = createEventPublisher(events, log)
  const offers = createOfferTokens(tokens)
  /** Reads of providers answer within this, whatever the search timeout says. */
  const readTimeoutMs = Math.min(config.searchTimeoutMs, 10_000)
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
    stations: createCarStations({ registry, callProvider, tokens, timeoutMs: readTimeoutMs }),
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
        log: (err) => log.warn({ err }, 'booking mail failed'),
      }),
      publish,
    }),
  }

  const vehicles = createMicromobilityVehicles({
    registry,
    callProvider,
    tokens,
    vehicleTokens,
    timeoutMs: readTimeoutMs,
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
    timeoutMs: readTimeoutMs,
    offerTokenTtlSeconds: config.offerTokenTtlSeconds,
    publish,
  })
  const micromobility = {
    vehicles,
    trips: createMicromobilityTrips({
      registry,
      callProvider,
      repo: repos.trips,
      vehicles,
      vehicleTokens,
      ...followUpDeps,
      tokens,
      publish,
    }),
  }
  const gbfs = createGbfsOut({
    registry,
    callProvider,
    secret: tokens.deriveKey(GBFS_VEHICLE_ID_PURPOSE),
    clock,
    timeoutMs: readTimeoutMs,
    // A placeholder in a reserved domain (RFC 2606) says plainly that the operator has not named one.
    contactEmail: config.gbfsContactEmail ?? 'gbfs-contact-not-configured@example.invalid',
  })
  const bookings = createBookingList({ repo: createBookingsListRepo(store.db), registry })
  const multimodal = createMultimodal({ registry, callProvider, vehicles })

  return {
    tenants,
    keys,
    webhooks,
    events,
    cars,
    micromobility,
    gbfs,
    publicTransport,
    bookings,
    multimodal,
    /** The handlers of every job the services enqueue, by kind, per service (see registerJobHandlers). */
    jobHandlers: [
      webhooks.jobHandlers,
      cars.bookings.jobHandlers,
      micromobility.trips.jobHandlers,
      publicTransport.tickets.jobHandlers,
      publicTransport.subscriptions.jobHandlers,
    ] satisfies JobHandlers[],
  }
}

export type Services = ReturnType<typeof createServices>

/**
 * Registers the services' job handlers with the runner: the one place a domain job kind gets its handler (a kind
 * two services claim fails here, at start).
 */
export function registerJobHandlers(jobs: Jobs, services: Pick<Services, 'jobHandlers'>): void {
  for (const handlers of services.jobHandlers) {
    for (const [kind, handler] of Object.entries(handlers)) jobs.register(kind, handler)
  }
}
