import { ApiError } from '../../../http/errors.ts'
import type { CallContext } from '../../types.ts'
import { hash32 } from './pricing.ts'

/**
 * The `X-Sandbox-Scenario` entries the sandbox car providers understand (test keys only), each as
 * `<name>:<providerId>`; without a provider id the scenario applies to every sandbox provider.
 */
export const SANDBOX_SCENARIOS = [
  {
    name: 'provider-error',
    description: 'Every call of the provider fails as a provider error would (PROVIDER_ERROR).',
  },
  {
    name: 'provider-timeout',
    description: 'The provider never answers; the call ends when the service gives up at its deadline.',
  },
  {
    name: 'price-increase',
    description: 'Prebook answers a higher price than search (PRICE_CHANGED, PRICE_INCREASED).',
  },
  { name: 'sold-out', description: 'Search finds no cars; offer details and prebook answer OFFER_EXPIRED (SOLD_OUT).' },
  { name: 'booking-fails', description: 'Creating the booking fails with BOOKING_FAILED.' },
  { name: 'booking-pending', description: 'The booking is created PENDING and is CONFIRMED when read next.' },
  {
    name: 'cancel-refused',
    description: 'The provider refuses the cancellation (BOOKING_FAILED, CANCELLATION_REFUSED).',
  },
] as const

export type SandboxScenarioName = (typeof SANDBOX_SCENARIOS)[number]['name']

/** Whether the call's scenarios include `name` for this provider. */
export const hasScenario = (ctx: CallContext, providerId: string, name: SandboxScenarioName) =>
  ctx.scenarios.some((s) => s.name === name && (s.target === undefined || s.target === providerId))

const aborted = () => new ApiError('TIMEOUT', 'The provider call was aborted', { reason: 'ABORTED' })

/** Waits `ms`, or rejects as soon as the signal aborts. */
function wait(ms: number | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted())
    const onAbort = () => {
      clearTimeout(timer)
      reject(aborted())
    }
    const timer =
      ms === undefined
        ? undefined
        : setTimeout(() => {
            signal.removeEventListener('abort', onAbort)
            resolve()
          }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** mulberry32: a small seeded generator, so simulated failures repeat from run to run. */
function seededRandom(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

export interface SimulationOptions {
  latencyMs: number
  failureRate: number
}

/**
 * What happens before every call reaches the simulated provider: latency (abortable), the failure scenarios,
 * and the configured share of failing calls (seeded by the provider id).
 */
export function simulation(providerId: string, options: SimulationOptions) {
  const random = seededRandom(hash32(providerId))
  return async function enter(ctx: CallContext, operation: string): Promise<void> {
    if (ctx.signal.aborted) throw aborted()
    if (options.latencyMs > 0) await wait(options.latencyMs, ctx.signal)
    if (hasScenario(ctx, providerId, 'provider-timeout')) await wait(undefined, ctx.signal)
    if (hasScenario(ctx, providerId, 'provider-error')) {
      throw new ApiError('PROVIDER_ERROR', 'The provider answered with an error (scenario)', {
        reason: 'SCENARIO',
        operation,
      })
    }
    if (options.failureRate > 0 && random() < options.failureRate) {
      throw new ApiError('PROVIDER_ERROR', 'The provider answered with an error (simulated failure)', {
        reason: 'SIMULATED_FAILURE',
        operation,
      })
    }
  }
}
