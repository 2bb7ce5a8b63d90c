import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { addIdempotency } from '../openapi-idempotency.ts'
import { documentTextRule } from '../text-rule.ts'
import { restoreRefAnnotations, type Schema } from './components.ts'
import { attachExamples, type ExampleSource } from './examples.ts'
import { finalizeDocument, ROUTE_ERRORS } from './finalize.ts'
import { routeErrors } from './route-errors.ts'

export interface ApiDocumentOptions {
  /** `/mobility-api/v2`: where the document and the docs page are served. */
  apiPrefix: string
  version: string
  /** Examples of each operation, by operationId, for the day the document is served. */
  examples: ExampleSource
  clock: () => Date
  /** Tags beyond the built-in ones (areas that document themselves: GBFS, Webhooks), before Admin and Operations. */
  tags?: { name: string; description: string }[]
  /** The document's `webhooks`: what the service sends to the tenant's endpoints. */
  webhooks?: Record<string, unknown>
  /** The registered named shapes (components.ts), whose annotations beside `$ref` the document keeps. */
  schemas?: () => ReadonlyMap<string, Schema>
}

/** The document as one request gets it (its server and the day's examples), memoized for a few days and hosts. */
export type ServeDocument = (request: FastifyRequest) => Record<string, unknown>

const TAGS = [
  { name: 'Account', description: 'The caller: tenant, key, permissions, limits' },
  { name: 'Mobility Providers', description: 'Directory of providers enabled for the tenant' },
  {
    name: 'Cars',
    description: 'Car rental and car sharing: search, offer details, prebook, booking, change, cancel, vehicle actions',
  },
  {
    name: 'Public Transport',
    description: 'Stops, departures, journeys, tickets (prebook, booking, cancel) and subscriptions',
  },
  {
    name: 'Micro Mobility',
    description: 'Scooters, bikes and mopeds (beta): search, QR look-up, reserve, start, lock, unlock, end; zones',
  },
  { name: 'Multimodal', description: 'Everything near a point (beta), and map tiles' },
]
const LAST_TAGS = [
  { name: 'Admin', description: 'Operator API: tenants, keys and their webhooks (ADMIN_TOKEN)' },
  { name: 'Operations', description: 'Health, readiness, metrics, this document' },
]

const DESCRIPTION = [
  'One REST/JSON API over many mobility providers: cars, public transport, micromobility, multimodal map data and a provider directory.',
  'Every answer uses the envelope `{ success, data | error, meta }`; errors carry a machine-readable `error.code` (listed per operation and status) and `details`.',
  'Text in requests (bodies, query strings, paths) never holds NUL, other control characters or lone surrogates (the `pattern` of every string schema); fields marked `x-free-text` may hold tab, line feed and carriage return. Anything else answers 400 INVALID_REQUEST naming the field.',
  'Try the searches here with a test key (`svc_test_...`, printed at the first start or made with the admin API): press Authorize, paste the key, then "Try it out" on an operation. Test keys reach the sandbox providers, around Berlin.',
].join('\n\n')

/** A host the document may name as its server: what a Host header holds, nothing else. */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/
const MEMO_SIZE = 16

/**
 * Registers @fastify/swagger (the document, built from the route schemas and the named shapes) and the docs page
 * (Swagger UI, served from the package: no CDN, so it works offline and under a strict CSP). Answers how to serve
 * the document to a request.
 */
export async function registerApiDocument(app: FastifyInstance, options: ApiDocumentOptions): Promise<ServeDocument> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mobility Aggregation Service API',
        version: options.version,
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
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
      },
      ...(options.webhooks ? { webhooks: options.webhooks as Record<string, never> } : {}),
      tags: [...TAGS, ...(options.tags ?? []), ...LAST_TAGS],
    },
    // Components are named by their `$id` (the schema's title), not `def-0`.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (json.$id as string) ?? `def-${i}` },
    transform: ({ schema, url, route }) => {
      const { schema: ruled } = documentTextRule({ schema })
      if (!ruled || (ruled as { hide?: boolean }).hide) return { schema: ruled, url }
      const errors = Object.fromEntries(routeErrors(route.config, route.method))
      return { schema: { ...ruled, [ROUTE_ERRORS]: errors }, url }
    },
    transformObject: (built) => {
      const { openapiObject } = built as { openapiObject: Record<string, unknown> }
      if (options.schemas) {
        const components = openapiObject.components as { schemas?: Record<string, unknown> } | undefined
        restoreRefAnnotations(components?.schemas, options.schemas())
      }
      const doc = finalizeDocument(openapiObject)
      addIdempotency(doc, options.apiPrefix)
      return doc as never
    },
  })

  const memo = new Map<string, Record<string, unknown>>()
  const serve: ServeDocument = (request) => {
    const now = options.clock()
    const day = now.toISOString().slice(0, 10)
    const host = request.host
    // The absolute address of this service as the client reached it (behind TRUST_PROXY: as the proxy says), so the
    // docs page, a downloaded copy and a generated client all know where to send requests.
    const origin = HOST.test(host) ? `${request.protocol}://${host}` : ''
    const key = `${day} ${origin}`
    let doc = memo.get(key)
    if (!doc) {
      doc = structuredClone(app.swagger()) as Record<string, unknown>
      doc.servers = [{ url: origin || '/', description: 'This service' }]
      attachExamples(doc, options.examples, now)
      if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value as string)
      memo.set(key, doc)
    }
    return doc
  }

  await app.register(swaggerUi, {
    routePrefix: `${options.apiPrefix}/docs`,
    uiConfig: {
      url: `${options.apiPrefix}/openapi.json`,
      // "Try it out" open on every operation, the pasted key kept across reloads, the duration of each answer shown.
      tryItOutEnabled: true,
      persistAuthorization: true,
      displayRequestDuration: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      filter: true,
    },
    // /docs/json and /docs/yaml serve the same document as /openapi.json.
    transformSpecificationClone: false,
    transformSpecification: (_document, request) => serve(request),
  })
  return serve
}
