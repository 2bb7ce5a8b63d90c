import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv, type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import { Type } from 'typebox'
import { parse as parseYaml } from 'yaml'
import { StartupError } from '../platform/startup-error.ts'
import { DEFAULT_PROVIDERS } from './default-providers.ts'
import { gbfs } from './gbfs/index.ts'
import { gtfs } from './gtfs/index.ts'
import { sandbox } from './sandbox/index.ts'
import { tomp } from './tomp/index.ts'
import type { ConnectorDeps, ConnectorFactory, Provider, ProviderEntry } from './types/common.ts'

/** Every connector the service can build, by the `connector` name of the providers file. */
export const CONNECTORS: Record<string, ConnectorFactory> = { sandbox, gbfs, gtfs, tomp }

const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' })
const ProviderEntrySchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    connector: Type.String({ minLength: 1 }),
    // An enum rather than a union of literals: the validator then says "must be one of live, test", not three
    // lines about constants and anyOf.
    environments: Type.Array(Type.Unsafe<'live' | 'test'>({ type: 'string', enum: ['live', 'test'] }), {
      minItems: 1,
      uniqueItems: true,
    }),
    countries: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z]{2}$' }))),
    languages: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]+)*$' }))),
    websiteUrl: Type.Optional(Type.String({ format: 'uri' })),
    branding: Type.Optional(
      Type.Object(
        {
          logoUrl: Type.Optional(Type.String({ format: 'uri' })),
          primaryColor: Type.Optional(Color),
          secondaryColor: Type.Optional(Color),
        },
        { additionalProperties: false },
      ),
    ),
    contact: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String({ format: 'email' })),
          phone: Type.Optional(Type.String()),
          url: Type.Optional(Type.String({ format: 'uri' })),
        },
        { additionalProperties: false },
      ),
    ),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)
const ProvidersFile = Type.Object({ providers: Type.Array(Type.Unknown()) })
/** What an entry needs to be listed at all (as UNAVAILABLE when the rest of it is wrong). */
const Identity = Type.Object({
  id: ProviderEntrySchema.properties.id,
  name: ProviderEntrySchema.properties.name,
  environments: ProviderEntrySchema.properties.environments,
})

// verbose: errors carry the value found, so a message can say what was wrong, not only what was expected.
const ajv = new Ajv({ allErrors: true, verbose: true })
addFormats.default(ajv)
const validateFile = ajv.compile(ProvidersFile)
const validateEntry = ajv.compile(ProviderEntrySchema)
const validateIdentity = ajv.compile(Identity)

/** `/environments/0` → `environments[0]`, `/branding/primaryColor` → `branding.primaryColor`. */
const fieldOf = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : `${i === 0 ? '' : '.'}${part}`))
    .join('')

/** One readable phrase per problem ("environments[0] must be one of live, test (got "production")"). */
function describeProblem(error: ErrorObject): string {
  const field = fieldOf(error.instancePath)
  const subject = field || 'the entry'
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `${field ? `${field}.` : ''}${String(params.missingProperty)} is required`
    case 'enum':
      return `${subject} must be one of ${(params.allowedValues as unknown[]).join(', ')} (got ${JSON.stringify(error.data)})`
    case 'additionalProperties':
      return `${subject} has a field that is not known (no additional properties allowed): "${String(params.additionalProperty)}"`
    case 'type':
      return `${subject} must be ${params.type === 'array' ? 'a list' : `a ${String(params.type)}`} (got ${JSON.stringify(error.data)})`
    default:
      return `${subject} ${error.message}${error.data === undefined || typeof error.data === 'object' ? '' : ` (got ${JSON.stringify(error.data)})`}`
  }
}

export interface ProviderList {
  entries: ProviderEntry[]
  /** Entries that are wrong but name themselves, by id: listed as UNAVAILABLE with the reason. */
  rejected: Map<string, string>
  /** Entries too broken to list (no usable id, name or environments, or a repeated id), with the reason. */
  skipped: { at: string; message: string }[]
}

/**
 * Reads `PROVIDERS_FILE` (JSON or YAML); without one, the built-in demo list. A wrong entry never stops the service
 * (DECISIONS): it is listed as UNAVAILABLE when it names itself, else skipped, each with every problem. Only a file
 * that cannot be read or is not `{ "providers": [...] }` throws.
 */
export function loadProviderEntries(file: string | undefined): ProviderList {
  const list: ProviderList = { entries: [], rejected: new Map(), skipped: [] }
  if (!file) return { ...list, entries: DEFAULT_PROVIDERS }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EACCES'
          ? 'the service may not read it'
          : code === 'EISDIR'
            ? 'it is a directory, not a file'
            : (error as Error).message
    throw new StartupError(`PROVIDERS_FILE=${file} cannot be read: ${why} (resolved to ${resolve(file)})`)
  }
  let parsed: unknown
  const yaml = /\.ya?ml$/i.test(file)
  try {
    parsed = yaml ? parseYaml(text) : JSON.parse(text)
  } catch (error) {
    throw new StartupError(`PROVIDERS_FILE=${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(error as Error).message}`)
  }
  if (!validateFile(parsed)) throw new StartupError(`PROVIDERS_FILE ${file} must be an object { "providers": [ ... ] }`)
  const problemsOf = (errors: typeof validateEntry.errors) =>
    [...new Set((errors ?? []).map(describeProblem))].join('; ')
  ;(parsed as { providers: unknown[] }).providers.forEach((raw, i) => {
    const at = `PROVIDERS_FILE providers[${i}]`
    const valid = validateEntry(raw)
    const problems = valid ? '' : problemsOf(validateEntry.errors)
    if (!validateIdentity(raw)) {
      list.skipped.push({ at, message: `${at} is invalid and cannot be listed: ${problems}` })
      return
    }
    const entry = raw as ProviderEntry
    if (list.entries.some((e) => e.id === entry.id)) {
      list.skipped.push({ at, message: `${at}: provider id "${entry.id}" appears twice; the first entry is used` })
      return
    }
    if (valid) {
      list.entries.push(entry)
      return
    }
    const connector = typeof entry.connector === 'string' ? entry.connector : ''
    list.entries.push({ id: entry.id, name: entry.name, connector, environments: entry.environments })
    list.rejected.set(entry.id, `${at} is invalid: ${problems}`)
  })
  return list
}

export interface Registry {
  all(): Provider[]
  get(id: string): Provider | undefined
  ids(): string[]
  stop(): Promise<void>
}

/**
 * Builds a provider per entry. A provider that cannot be built is kept as UNAVAILABLE with the reason, reported
 * through `onProblem`, and never stops the service from starting.
 */
export function buildRegistry(
  entries: ProviderEntry[],
  deps: ConnectorDeps,
  onProblem: (providerId: string, message: string) => void,
  factories: Record<string, ConnectorFactory> = CONNECTORS,
  rejected: Map<string, string> = new Map(),
): Registry {
  const providers = entries.map((entry): Provider => {
    const rejection = rejected.get(entry.id)
    if (rejection) {
      onProblem(entry.id, rejection)
      return { entry, status: 'UNAVAILABLE', error: rejection }
    }
    const factory = factories[entry.connector]
    if (!factory) {
      const error = `unknown connector "${entry.connector}" (known: ${Object.keys(factories).join(', ')})`
      onProblem(entry.id, error)
      return { entry, status: 'UNAVAILABLE', error }
    }
    try {
      const connector = factory(entry, deps)
      const provider: Provider = { entry, connector, status: 'ACTIVE' }
      connector.start?.().catch((error: unknown) => {
        provider.status = 'UNAVAILABLE'
        provider.error = error instanceof Error ? error.message : String(error)
        onProblem(entry.id, provider.error)
      })
      return provider
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      onProblem(entry.id, message)
      return { entry, status: 'UNAVAILABLE', error: message }
    }
  })
  const byId = new Map(providers.map((p) => [p.entry.id, p]))
  return {
    all: () => providers,
    get: (id) => byId.get(id),
    ids: () => providers.map((p) => p.entry.id),
    stop: async () => {
      await Promise.allSettled(providers.map((p) => p.connector?.stop?.()))
    },
  }
}
