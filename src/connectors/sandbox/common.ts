import { randomUUID } from 'node:crypto'
import { ApiError } from '../../contract/errors.ts'
import type { SandboxScenarioName } from '../../contract/sandbox.ts'
import type { Kv } from '../../platform/kv/types.ts'
import type { CallContext } from '../types/common.ts'

/**
 * What every simulated provider shares, whatever its modality: stable hashing and seeded randomness, the
 * `X-Sandbox-Scenario` entries, simulated latency and failures, and how state is kept in the shared key-value store.
 */

/**
 * Self-contained references (prefix + base64url JSON) that a simulated provider hands out for offers and prebooks,
 * so any instance rebuilds what they point to without server-side state. `decode` answers INVALID_OFFER_TOKEN for
 * anything that is not one of them.
 */
export function refCodec<T>(prefix: string, what: string, valid: (value: unknown) => boolean) {
  return {
    encode: (value: T) => prefix + Buffer.from(JSON.stringify(value)).toString('base64url'),
    decode(ref: unknown): T {
      let value: unknown
      if (typeof ref === 'string' && ref.startsWith(prefix) && ref.length <= 8_000) {
        try {
          value = JSON.parse(Buffer.from(ref.slice(prefix.length), 'base64url').toString('utf8'))
        } catch {
          value = undefined
        }
      }
      if (!value || typeof value !== 'object' || !valid(value)) {
        throw new ApiError('INVALID_OFFER_TOKEN', `The ${what} reference is not one of this provider`)
      }
      return value as T
    },
  }
}

/** FNV-1a, 32 bit: a stable hash for deterministic choices (drift, references, locations). */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** mulberry32: a small seeded generator, so simulated data and failures repeat from run to run. */
export function seededRandom(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shared state

/** The sandbox keeps its provider-side state as long as a real provider would keep a booking. */
export const STATE_TTL_MS = 400 * 24 * 3_600_000

/**
 * Where a simulated provider keeps its state in the shared key-value store, so that every instance of the service
 * sees the same provider; live and test never share state.
 */
export const stateKeyPrefix = (providerId: string, environment: string) => `sandbox:${providerId}:${environment}:`

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface KvLockOptions {
  ttlMs?: number
  attempts?: number
  retryMs?: number
  /** `details.reason` of the PROVIDER_ERROR thrown when the lock stays taken. */
  busyReason?: string
}

/** Runs `fn` holding the lock `key` in the shared store (every instance waits for it); PROVIDER_ERROR when busy. */
export async function withKvLock<T>(kv: Kv, key: string, fn: () => Promise<T>, options: KvLockOptions = {}) {
  const { ttlMs = 5_000, attempts = 300, retryMs = 10, busyReason = 'BUSY' } = options
  const owner = randomUUID()
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await kv.setIfAbsent(key, owner, ttlMs)) {
      try {
        return await fn()
      } finally {
        await kv.deleteIfEquals(key, owner)
      }
    }
    // A little jitter, so instances that collide once do not keep colliding.
    await sleep(retryMs * (0.5 + Math.random()))
  }
  throw new ApiError('PROVIDER_ERROR', 'The provider is busy; try again', { reason: busyReason })
}

/**
 * A new reference such as `ST-4K9Q2Z` from the atomic counter `counterKey`, scrambled so that references do not give
 * away how many came before; instances never collide. Should the counter have expired and restarted, references
 * that `taken` still knows are skipped.
 */
export async function nextReference(
  kv: Kv,
  counterKey: string,
  prefix: string,
  taken: (reference: string) => Promise<boolean>,
): Promise<string> {
  const space = 36 ** 6
  const salt = hash32(counterKey) % space
  for (;;) {
    const n = await kv.increment(counterKey, STATE_TTL_MS)
    // 7_919_113 is coprime with 36^6, so the mapping is a bijection on the first 36^6 numbers.
    const code = Number((BigInt(n) * 7_919_113n + BigInt(salt)) % BigInt(space)).toString(36)
    const reference = `${prefix}-${code.toUpperCase().padStart(6, '0')}`
    if (!(await taken(reference))) return reference
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios and simulation

/** Whether the call's scenarios include `name` for this provider. */
export function hasScenario(ctx: CallContext, providerId: string, name: SandboxScenarioName): boolean {
  // A loop, not some(): no closure per check (several per provider call; most calls have no scenario at all).
  const scenarios = ctx.scenarios
  for (let i = 0; i < scenarios.length; i++) {
    const s = scenarios[i]
    if (s.name === name && (s.target === undefined || s.target === providerId)) return true
  }
  return false
}

const aborted = () => new ApiError('TIMEOUT', 'The provider call was aborted', { reason: 'ABORTED' })

/**
 * The last wait begun: calls that share a signal (a car search's fan-out, see CallOptions.group) and begin the same
 * wait in the same millisecond share its promise, its timer and its listener (they would end together anyway: timers
 * of one duration begun in one millisecond fire in one go), instead of ~20 of each per search.
 */
let lastWait: { signal: AbortSignal; ms: number; at: number; done: Promise<void> } | undefined

/** Waits `ms` (forever when undefined), or rejects as soon as the signal aborts. */
function wait(ms: number | undefined, signal: AbortSignal): Promise<void> {
  if (ms === undefined || signal.aborted) return waitAlone(ms, signal)
  const at = Date.now()
  const last = lastWait
  if (last !== undefined && last.signal === signal && last.ms === ms && last.at === at) return last.done
  const done = waitAlone(ms, signal)
  lastWait = { signal, ms, at, done }
  return done
}

function waitAlone(ms: number | undefined, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(aborted())
    const onAbort = () => {
      clearTimeout(timer)
      reject(aborted())
    }
    // The listener stays after the timer fires (an abort then rejects a settled promise, which does nothing): each
    // call has a signal of its own that goes with it, and removing listeners showed in the car-search profile.
    const timer = ms === undefined ? undefined : setTimeout(resolve, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export interface SimulationOptions {
  latencyMs: number
  failureRate: number
  /** Extra time a prebook takes (the provider holds the car meanwhile), on top of latencyMs. */
  prebookLatencyMs?: number
}

/**
 * What happens before every call reaches the simulated provider: latency (abortable), the failure scenarios,
 * and the configured share of failing calls (seeded by the provider id).
 */
export function simulation(providerId: string, options: SimulationOptions) {
  const random = seededRandom(hash32(providerId))
  const afterWait = async (ctx: CallContext, operation: string): Promise<void> => {
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
  return function enter(ctx: CallContext, operation: string): Promise<void> {
    if (ctx.signal.aborted) return Promise.reject(aborted())
    const latency = options.latencyMs + (operation === 'PREBOOK' ? (options.prebookLatencyMs ?? 0) : 0)
    // Nothing to check after the latency (no scenario, no failure share): the wait itself, shared by the calls of a
    // search (see wait), instead of an async function and its promise per call.
    if (ctx.scenarios.length === 0 && !(options.failureRate > 0)) {
      return latency > 0 ? wait(latency, ctx.signal) : Promise.resolve()
    }
    if (latency > 0) return wait(latency, ctx.signal).then(() => afterWait(ctx, operation))
    return afterWait(ctx, operation)
  }
}

/** A text in the languages the sandbox speaks; English is always there. */
export interface Localized {
  en: string
  de?: string
  fr?: string
}

/** The language of `ctx.language` ("de-DE", "fr", "en-GB;q=0.8"...) the sandbox has, else English. */
export function pick(text: Localized, language: string): string {
  const primary = language.trim().slice(0, 2).toLowerCase()
  if (primary === 'de' && text.de) return text.de
  if (primary === 'fr' && text.fr) return text.fr
  return text.en
}
