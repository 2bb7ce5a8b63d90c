import assert from 'node:assert/strict'
import type { AppDeps } from '../../src/app.ts'
import type { CallContext } from '../../src/connectors/types/common.ts'
import type { Repos } from '../../src/services.ts'
import type { Harness } from './harness.ts'

type Call = unknown[]

/**
 * A store that fails when a test says so: `fail('carBookings.insert')` makes that repository method throw (as a
 * database that dropped the connection would) for its next `times` calls, `fail('kv.set', n, when)` the key-value
 * store's writes that `when` picks. Given to the harness as `decorate`, it wraps what the app is built from; nothing
 * of it lives in the service's code. The arguments of each failed call are kept (`failed`), so a test learns what the
 * service tried to write, such as the provider's reference of a booking it could not record.
 */
export function storeFaults() {
  const plans = new Map<string, { left: number; when: (args: Call) => boolean }>()
  const failedCalls = new Map<string, Call[]>()

  const shouldFail = (name: string, args: Call) => {
    const plan = plans.get(name)
    if (!plan || plan.left <= 0 || !plan.when(args)) return false
    plan.left--
    failedCalls.set(name, [...(failedCalls.get(name) ?? []), args])
    return true
  }

  const wrap = <T extends object>(prefix: string, target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver)
        if (typeof value !== 'function') return value
        const name = `${prefix}.${String(property)}`
        return (...args: Call) =>
          shouldFail(name, args)
            ? Promise.reject(new Error(`injected store failure: ${name}`))
            : value.apply(object, args)
      },
    })

  return {
    /** The next `times` calls of `name` (e.g. `trips.insert`, `kv.set`) that `when` accepts fail. */
    fail(name: string, times = Number.POSITIVE_INFINITY, when: (args: Call) => boolean = () => true) {
      plans.set(name, { left: times, when })
    },
    /** Every method works again. */
    heal() {
      plans.clear()
    },
    /** The arguments of the calls of `name` that failed, oldest first. */
    failed(name: string): Call[] {
      return failedCalls.get(name) ?? []
    },
    decorate: (deps: AppDeps): AppDeps => ({
      ...deps,
      kv: wrap('kv', deps.kv),
      wrapRepos: (repos: Repos): Repos => ({
        carBookings: wrap('carBookings', repos.carBookings),
        trips: wrap('trips', repos.trips),
        publicTransport: wrap('publicTransport', repos.publicTransport),
      }),
    }),
  }
}

/** A call context for asking a provider directly what it holds (the provider's own records, not the service's). */
export const providerContext = (h: Harness, tenantId: string, environment: 'live' | 'test' = 'live'): CallContext => ({
  signal: new AbortController().signal,
  now: h.clock(),
  language: 'en',
  tenantId,
  environment,
  scenarios: [],
})

/** Runs every due job on every instance (the tests run no job pollers), as often as jobs keep running. */
export async function runJobs(h: Harness) {
  for (let round = 0; round < 5; round++) {
    let ran = 0
    for (const runtime of h.runtimes) ran += await runtime.jobs.runDue(100)
    if (ran === 0) return
  }
}

/** The answer when the provider said yes but the service could not record it: 503 NOT_RECORDED, retryable. */
export const notRecorded = (res: { status: number; text: string; body: any }) => {
  assert.equal(res.status, 503, res.text)
  assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE')
  assert.equal(res.body.error.details.reason, 'NOT_RECORDED')
  assert.equal(res.body.error.details.retryable, true)
}
