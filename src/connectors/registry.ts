import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { Type } from 'typebox'
import { parse as parseYaml } from 'yaml'
import { DEFAULT_PROVIDERS } from './default-providers.ts'
import { gbfs } from './gbfs/index.ts'
import { gtfs } from './gtfs/index.ts'
import { sandbox } from './sandbox/index.ts'
import { tomp } from './tomp/index.ts'
import type { ConnectorDeps, ConnectorFactory, Provider, ProviderEntry } from './types.ts'

/** Every connector the service can build, by the `connector` name of the providers file. */
export const CONNECTORS: Record<string, ConnectorFactory> = { sandbox, gbfs, gtfs, tomp }

const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' })
const ProviderEntrySchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    connector: Type.String({ minLength: 1 }),
    environments: Type.Array(Type.Union([Type.Literal('live'), Type.Literal('test')]), {
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
const ProvidersFile = Type.Object({ providers: Type.Array(ProviderEntrySchema) })

const ajv = new Ajv({ allErrors: true })
addFormats.default(ajv)
const validateFile = ajv.compile(ProvidersFile)

/** Reads `PROVIDERS_FILE` (JSON or YAML); without one, the built-in demo list. Throws with every problem listed. */
export function loadProviderEntries(file: string | undefined): ProviderEntry[] {
  if (!file) return DEFAULT_PROVIDERS
  const text = readFileSync(file, 'utf8')
  const parsed: unknown = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text)
  if (!validateFile(parsed)) {
    const problems = (validateFile.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`)
    throw new Error(`PROVIDERS_FILE ${file} is invalid:\n  - ${problems.join('\n  - ')}`)
  }
  const entries = (parsed as { providers: ProviderEntry[] }).providers
  const seen = new Set<string>()
  for (const entry of entries) {
    if (seen.has(entry.id)) throw new Error(`PROVIDERS_FILE ${file}: provider id "${entry.id}" appears twice`)
    seen.add(entry.id)
  }
  return entries
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
): Registry {
  const providers = entries.map((entry): Provider => {
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
