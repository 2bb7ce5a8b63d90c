import assert from 'node:assert/strict'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import type { TSchema } from 'typebox'
import { DEFAULT_PROVIDERS } from '../../src/connectors/default-providers.ts'
import { buildRegistry } from '../../src/connectors/registry.ts'
import type { CallContext, Connector, ProviderEntry, Scenario } from '../../src/connectors/types/common.ts'
import type { Environment } from '../../src/contract/access.ts'
import { ApiError, type ErrorCode } from '../../src/contract/errors.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import type { Kv } from '../../src/platform/kv/types.ts'
import { type TestClock, testClock } from './clock.ts'

/**
 * Set-up shared by the connector conformance suites: a default provider built through the registry, as the service
 * does, on a test clock and a store of choice; call contexts; schema checks; and expected ApiErrors.
 */

/** The store a provider is built on, made for its clock. */
export type KvFactory = (clock: TestClock) => Kv
export const inMemory: KvFactory = (clock) => memoryKv({ now: () => clock().getTime() })

export interface CtxOptions {
  scenarios?: Scenario[]
  signal?: AbortSignal
  language?: string
  environment?: Environment
}

export interface ConnectorSetup<C> {
  connector: C
  clock: TestClock
  kv: Kv
  ctx(options?: CtxOptions): CallContext
}

/**
 * The registry of default provider `id` (or of a provider entry of its own) alone, with `options` over its own if
 * given, on `kv` and `clock`, and the problems it reported.
 */
export function registryOf(
  id: string | ProviderEntry,
  options: Record<string, unknown> | undefined,
  kv: Kv,
  clock: TestClock,
) {
  const base = typeof id === 'string' ? DEFAULT_PROVIDERS.find((p) => p.id === id)! : id
  const entry: ProviderEntry = options === undefined ? base : { ...base, options: { ...base.options, ...options } }
  const problems: string[] = []
  const registry = buildRegistry([entry], { kv, clock }, (_, message) => problems.push(message))
  return { registry, problems }
}

/**
 * Builds default provider `id` (or a provider entry) through the registry; asserts that it loads without problems
 * and is a connector of `kind` (by `is`). `shared` (a clock and a store) makes a second instance; else a test clock
 * at `start` and a store from `makeKv`.
 */
export function buildConnector<C extends Connector>(
  id: string | ProviderEntry,
  kind: { is: (connector: Connector | undefined) => connector is C; name: string },
  setup: {
    options?: Record<string, unknown>
    shared?: { clock: TestClock; kv: Kv }
    makeKv?: KvFactory
    start: number
  },
): ConnectorSetup<C> {
  const clock = setup.shared?.clock ?? testClock(setup.start)
  const kv = setup.shared?.kv ?? (setup.makeKv ?? inMemory)(clock)
  const { registry, problems } = registryOf(id, setup.options, kv, clock)
  assert.deepEqual(problems, [])
  const providerId = typeof id === 'string' ? id : id.id
  const connector = registry.get(providerId)?.connector
  assert.ok(kind.is(connector), `${providerId} is a ${kind.name} connector`)
  return {
    connector,
    clock,
    kv,
    ctx: (o = {}) => ({
      signal: o.signal ?? new AbortController().signal,
      now: clock(),
      language: o.language ?? 'en',
      tenantId: 'tenant-1',
      environment: o.environment ?? 'test',
      scenarios: o.scenarios ?? [],
    }),
  }
}

const ajv = new Ajv({ allErrors: true })
addFormats.default(ajv)

/** Asserts that a value matches `schema`; `name` and `where` say what failed. */
export function validator(schema: TSchema, name: string) {
  const validate = ajv.compile(schema)
  return (value: unknown, where = '') => {
    assert.ok(
      validate(value),
      `${name}${where ? ` (${where})` : ''}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`,
    )
  }
}

/** Asserts that `promise` rejects with an ApiError of `code` whose details include `details`. */
export async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, details: Record<string, unknown> = {}) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ApiError, `an ApiError, not ${String(error)}`)
    assert.equal(error.code, code, `${error.code}: ${error.message} ${JSON.stringify(error.details)}`)
    for (const [key, value] of Object.entries(details)) assert.deepEqual(error.details?.[key], value, key)
    return true
  })
}
