import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../contract/errors.ts'
import {
  GbfsDiscovery,
  GbfsFeedFile,
  GbfsFeedParams,
  GbfsManifest,
  GbfsParams,
  gbfsResponses,
} from '../../contract/gbfs.ts'
import { type GbfsDocument, type GbfsOut, gbfsJson } from '../../domain/micromobility/gbfs-out.ts'
import { callerOf } from '../../http/caller.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { detail } from '../../platform/i18n/texts.ts'

export interface GbfsRouteDeps {
  gbfs: GbfsOut
  clock: () => Date
  /** The API prefix (`/mobility-api/v2`): feed URLs are absolute. */
  apiPrefix: string
}

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/

/**
 * Where this request reached the service, for the absolute URLs of gbfs.json and manifest.json: the Host header (or,
 * behind a proxy TRUST_PROXY trusts, X-Forwarded-Host and -Proto, as Fastify reads them), so a consumer follows the
 * URLs to the same place with the same Authorization header. A Host that is not a host name answers 400.
 */
export function gbfsBase(request: FastifyRequest, apiPrefix: string): string {
  const host = request.host
  if (!host || !HOST.test(host)) {
    throw new ApiError('INVALID_REQUEST', undefined, { Host: detail('HOST_INVALID') })
  }
  const protocol = request.protocol === 'https' ? 'https' : 'http'
  return `${protocol}://${host.toLowerCase()}${apiPrefix}/gbfs`
}

/** A GBFS file as it is: JSON, not the API envelope; it depends on the key, so only private caches keep it. */
function send(reply: FastifyReply, file: GbfsDocument) {
  return reply
    .header('cache-control', file.ttl > 0 ? `private, max-age=${file.ttl}` : 'private, no-cache')
    .type('application/json; charset=utf-8')
    .send(gbfsJson(file))
}

const EXAMPLE = (path: string) =>
  `\n\nExample:\n\n    curl -H "Authorization: Bearer $KEY" https://mobility.example.com/mobility-api/v2/gbfs/${path}`

const COMMON =
  'GBFS 3.0 (MobilityData), for any GBFS consumer (OpenTripPlanner, journey planners, city dashboards): the file itself on success, not the API envelope; errors in the API envelope. The key goes in the Authorization header (publishable keys allowed, with an allowed Origin, as for search); URLs in manifest.json and gbfs.json are absolute, so a consumer follows them with the same header. `ttl` is how long until the service reads the provider again (15 s; 0 while a provider that fails is answered from its last read, at most 5 minutes old); `Cache-Control: private` with that max-age.'

const doc = (operationId: string, summary: string, description: string) => ({
  operationId,
  tags: ['GBFS'],
  summary,
  description,
  security: [{ apiKey: [] }],
})

export function gbfsRoutes(app: TypedApp, { gbfs, clock, apiPrefix }: GbfsRouteDeps) {
  const config = {
    permission: 'micromobility:offer:read' as const,
    errors: ['NOT_FOUND', 'PROVIDER_ERROR', 'TIMEOUT'] as const,
  }

  app.get(
    '/gbfs/manifest.json',
    {
      config,
      schema: {
        ...doc(
          'getGbfsManifest',
          'GBFS manifest: one system per micromobility provider of the tenant',
          `${COMMON} Lists every micromobility provider enabled for the tenant in the key's environment (live or test) as a dataset whose \`system_id\` is the provider id, with the URL of its gbfs.json. \`ttl\` is 0: the list changes when the operator changes the tenant's providers.${EXAMPLE('manifest.json')}`,
        ),
        response: gbfsResponses(GbfsManifest),
      },
    },
    async (request, reply) => send(reply, gbfs.manifest(callerOf(request, clock), gbfsBase(request, apiPrefix))),
  )

  app.get(
    '/gbfs/:providerId/gbfs.json',
    {
      config,
      schema: {
        ...doc(
          'getGbfsDiscovery',
          'GBFS discovery (gbfs.json) of one provider',
          `${COMMON} Lists the files this provider has, each at \`/mobility-api/v2/gbfs/{providerId}/{feed}.json\`: always system_information, vehicle_types and vehicle_status; station_information and station_status for providers with stations; geofencing_zones for providers with zones; system_pricing_plans when vehicles have prices. 404 NOT_FOUND for a provider that is unknown, not enabled for the tenant, not in the key's environment or not micromobility.${EXAMPLE('sandbox-scoot/gbfs.json')}`,
        ),
        params: GbfsParams,
        response: gbfsResponses(GbfsDiscovery),
      },
    },
    async (request, reply) =>
      send(
        reply,
        await gbfs.discovery(callerOf(request, clock), request.params.providerId, gbfsBase(request, apiPrefix)),
      ),
  )

  app.get(
    '/gbfs/:providerId/:feed.json',
    {
      config,
      schema: {
        ...doc(
          'getGbfsFeed',
          'One GBFS file of one provider',
          `${COMMON} \`feed\` is one of system_information, vehicle_types, vehicle_status, station_information, station_status, geofencing_zones, system_pricing_plans; a file the provider does not have (not listed in its gbfs.json) answers 404 NOT_FOUND (details.reason FEED_NOT_PUBLISHED). In vehicle_status, \`vehicle_id\` is rotated as GBFS requires: an HMAC (keyed with a secret derived from TOKEN_KEYS) of the provider's vehicle id and where and how the vehicle stands (position to 1e-6°, charge), so it changes after every trip, stays while the vehicle stands still and never shows the provider's id; rental links that name the provider's vehicle id are left out. A provider that fails answers 500 PROVIDER_ERROR, 503 or 504 TIMEOUT unless a read of it younger than 5 minutes is at hand.${EXAMPLE('sandbox-scoot/vehicle_status.json')}`,
        ),
        params: GbfsFeedParams,
        response: gbfsResponses(GbfsFeedFile),
      },
    },
    async (request, reply) => {
      const { providerId, feed } = request.params
      return send(reply, await gbfs.feed(callerOf(request, clock), providerId, feed, gbfsBase(request, apiPrefix)))
    },
  )
}
