import type { Registry } from '../../connectors/registry.ts'
import { type CallOptions, later, type Resilience } from '../../connectors/resilience.ts'
import type { CallContext, Connector, Provider, Scenario } from '../../connectors/types/common.ts'
import type { Environment } from '../../contract/access.ts'
import { ApiError } from '../../contract/errors.ts'
import type { Operation } from '../../contract/providers.ts'
import { SANDBOX_SCENARIOS } from '../../contract/sandbox.ts'
import { detail, type Text } from '../../platform/i18n/texts.ts'
import { outageIn } from '../../platform/outage.ts'
import type { Tracing } from '../../platform/tracing.ts'
import type { TenantRow } from '../../store/schema.ts'
import { providersFor } from './directory.ts'

/** How long a provider told to time out (X-Sandbox-Scenario) takes to miss its deadline: quickly, so callers don't wait. */
const SCENARIO_TIMEOUT_MS = 300
/** How much later a provider told to be slow (`provider-slow`) delivers the answer it already computed. */
const SCENARIO_SLOW_MS = 1000

/** Who is calling, for whom, until when: everything a connector call needs from the request. */
export interface Caller {
  tenant: TenantRow
  environment: Environment
  language: string
  now: Date
  /** X-Sandbox-Scenario entries; honoured for test keys only. */
  scenarios: Scenario[]
  /** The client's signal (closed connection). */
  signal?: AbortSignal
}

const SCENARIO_NAMES: readonly string[] = SANDBOX_SCENARIOS.map((s) => s.name)
const MAX_SCENARIOS = 20

/**
 * The X-Sandbox-Scenario entries of a test key's request (live keys: none, whatever the header says). An entry that
 * is not `<scenario>` or `<scenario>:<providerId>` of a known scenario answers 400, so a typo never passes silently.
 */
export function parseScenarios(header: string | string[] | undefined, environment: Environment): Scenario[] {
  if (environment !== 'test' || !header) return []
  const parts = [header]
    .flat()
    .join(',')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
  const invalid = (message: Text) =>
    new ApiError('INVALID_REQUEST', undefined, { 'X-Sandbox-Scenario': message, knownScenarios: SCENARIO_NAMES })
  if (parts.length > MAX_SCENARIOS) throw invalid(detail('AT_MOST_SCENARIOS', { limit: MAX_SCENARIOS }))
  return parts.map((part) => {
    const [name, target, ...rest] = part.split(':')
    if (rest.length > 0 || !/^[a-z0-9-]+$/.test(name) || (target !== undefined && !/^[A-Za-z0-9_.-]+$/.test(target)))
      throw invalid(detail('SCENARIO_SYNTAX', { value: part.slice(0, 100) }))
    if (!SCENARIO_NAMES.includes(name)) throw invalid(detail('UNKNOWN_SCENARIO', { value: name.slice(0, 100) }))
    return target ? { name, target } : { name }
  })
}

/**
 * Calls one provider through the resilience layer with the caller's context. The deadline is the caller's budget,
 * except for a provider a test scenario tells to time out, which misses a short one instead.
 */
export function createProviderCaller(resilience: Resilience, tracing?: Tracing) {
  return function callProvider<C extends Connector, T>(
    caller: Caller,
    provider: Provider & { connector: C },
    operation: string,
    budgetMs: number,
    fn: (connector: C, ctx: CallContext) => Promise<T>,
    idempotent = false,
    /**
     * The request's calls that end at the same deadline share one signal and one context (CallOptions.group): for
     * fan-outs to connectors that keep nothing running once they answered (car search).
     */
    shareSignal = false,
  ): Promise<T> {
    const id = provider.entry.id
    const scenarios = caller.scenarios
    // Without a target, provider-timeout and provider-error reach every provider, whatever its connector. Most calls
    // have no scenario: they skip the look-ups (and their closures).
    let timesOut = false
    let fails = false
    let slow = false
    // Failures a test asked for never count against a breaker (not even one of their own: another request of any
    // tenant would then see SERVICE_UNAVAILABLE instead of the error its scenario asked for) and are not retried.
    let staged = false
    for (const s of scenarios) {
      if (s.target && s.target !== id) continue
      staged = true
      if (s.name === 'provider-timeout') timesOut = true
      else if (s.name === 'provider-error') fails = true
      else if (s.name === 'provider-slow') slow = true
    }
    const options: CallOptions = {
      provider: id,
      operation,
      deadline: Date.now() + (timesOut ? Math.min(budgetMs, SCENARIO_TIMEOUT_MS) : budgetMs),
      idempotent,
      signal: caller.signal,
      breakerKey: breakerKeyOf(id, caller.environment),
      staged,
      // Always the same shape (a spread of a conditional object copied it through a slow path per call).
      group: shareSignal ? caller : undefined,
    }
    const connector = provider.connector
    const context = shareSignal ? sharedContextOf : contextOf
    const attempt = (signal: AbortSignal): Promise<T> =>
      // A provider provider-error or provider-timeout aims at fails here, whatever its connector (GBFS and GTFS
      // feeds too), so a test can make any source fail; the sandbox connectors also understand them on their own.
      fails
        ? Promise.reject(
            new ApiError('PROVIDER_ERROR', 'The provider answered with an error (scenario)', {
              reason: 'SCENARIO',
              operation,
            }),
          )
        : timesOut
          ? never(signal)
          : slow
            ? fn(connector, context(caller, signal)).then(
                (answer) => later(answer, SCENARIO_SLOW_MS, signal),
                passOutage,
              )
            : fn(connector, context(caller, signal)).catch(passOutage)
    // The connector's own calls (HTTP, Redis) become children of the provider call's span. Without tracing, no
    // closure for it.
    if (!tracing) return resilience.call(options, attempt).then(unwrapOutage)
    return tracing.trace(`provider ${id} ${operation}`, { 'provider.id': id, 'provider.operation': operation }, () =>
      resilience.call(options, attempt).then(unwrapOutage),
    )
  }
}

const contextOf = (caller: Caller, signal: AbortSignal): CallContext => ({
  signal,
  now: caller.now,
  language: caller.language,
  tenantId: caller.tenant.id,
  environment: caller.environment,
  scenarios: caller.scenarios,
})

/**
 * The context of a call that shares its signal (shareSignal): the calls that share one share the context made for
 * the first of them, kept until a call of another caller or signal comes (connectors never change a context).
 */
let sharedCaller: Caller | undefined
let sharedContext: CallContext | undefined
function sharedContextOf(caller: Caller, signal: AbortSignal): CallContext {
  if (sharedCaller !== caller || sharedContext?.signal !== signal) {
    sharedCaller = caller
    sharedContext = contextOf(caller, signal)
  }
  return sharedContext!
}

/** `<provider>|<environment>`, the key of a provider's breaker and bulkhead: one string per pair, not one per call. */
const breakerKeys = new Map<string, Map<string, string>>()
function breakerKeyOf(id: string, environment: string): string {
  let byEnvironment = breakerKeys.get(id)
  if (byEnvironment === undefined) {
    byEnvironment = new Map()
    breakerKeys.set(id, byEnvironment)
  }
  let key = byEnvironment.get(environment)
  if (key === undefined) {
    key = `${id}|${environment}`
    byEnvironment.set(environment, key)
  }
  return key
}

/**
 * An outage of Redis or the database inside a connector (the sandbox keeps its state there) is the service's, not
 * the provider's: it passes the resilience layer as an answer, so no breaker counts it and no retry repeats it, and
 * is thrown again after it as the 503 it is.
 */
class PassedOutage {
  readonly error: ApiError
  constructor(error: ApiError) {
    this.error = error
  }
}
const passOutage = (error: unknown): never => {
  const outage = outageIn(error)
  if (outage) return new PassedOutage(outage) as never
  throw error
}
const unwrapOutage = <T>(answer: T): T => {
  if (answer instanceof PassedOutage) throw answer.error
  return answer
}

/** A call that never answers: it ends when its deadline aborts it. */
const never = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    const abort = () => reject(signal.reason ?? new Error('aborted'))
    if (signal.aborted) abort()
    else signal.addEventListener('abort', abort, { once: true })
  })

export type CallProvider = ReturnType<typeof createProviderCaller>

// Journeys are not among them: planning needs no booking, so a provider that needs a stored booking still plans
// journeys for a tenant under retention NONE, only without ticket offers (see public-transport/journeys.ts).
const BOOKING_SEARCHES: Operation[] = ['SEARCH', 'PREBOOK', 'BOOK', 'TICKETS', 'SUBSCRIPTIONS']

/** The tenant's providers in the caller's environment that can do `operation` and pass `accepts`. */
export function eligibleProviders<C extends Connector>(
  registry: Registry,
  caller: Caller,
  operation: Operation,
  accepts: (connector: Connector | undefined) => connector is C,
): (Provider & { connector: C })[] {
  return providersFor(registry, caller.tenant, caller.environment).filter(
    (p): p is Provider & { connector: C } =>
      p.status === 'ACTIVE' &&
      accepts(p.connector) &&
      p.connector.capabilities.operations.includes(operation) &&
      // Retention NONE: searches that lead to a booking list only providers that can book without a stored
      // booking (spec 4.5); looking at stops and departures needs no booking.
      !(
        caller.tenant.dataRetention === 'NONE' &&
        BOOKING_SEARCHES.includes(operation) &&
        p.connector.capabilities.requiresStoredBooking
      ),
  )
}

/** One provider by id, for operations on an existing offer or booking. */
export function requireProvider<C extends Connector>(
  registry: Registry,
  caller: Caller,
  id: string,
  accepts: (connector: Connector | undefined) => connector is C,
): Provider & { connector: C } {
  const provider = providersFor(registry, caller.tenant, caller.environment).find((p) => p.entry.id === id)
  if (!provider || !accepts(provider.connector)) {
    // Not configured, or no longer enabled for the tenant: only the operator can change that, never a retry.
    throw new ApiError('PROVIDER_ERROR', undefined, {
      providerId: id,
      reason: 'PROVIDER_NOT_AVAILABLE',
      retryable: false,
    })
  }
  return provider as Provider & { connector: C }
}
