import { Type } from 'typebox'
import { responses } from '../../contract/common.ts'
import { Zone, ZoneQuery } from '../../contract/micromobility.ts'
import { providerOutcome } from '../../contract/shared.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { doc } from './route-shared.ts'
import type { MicromobilityRouteDeps } from './routes.ts'

/** Zones (geofencing) around a point or in a box. */
export function micromobilityZoneRoutes(app: TypedApp, { vehicles, clock }: MicromobilityRouteDeps) {
  app.get(
    '/micromobility/zones',
    {
      config: {
        permission: 'micromobility:offer:read',
        locationFields: /^(latitude|longitude|bbox)$/,
        errors: ['NOT_FOUND', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'listMicromobilityZones',
        ...doc(
          'Service areas and parking zones',
          'GeoJSON geometries with their rules, from GBFS geofencing_zones and the sandbox, around a point (`latitude`, `longitude`, `radiusMeters` or its alias `radius`, default 1000) or in a `bbox`, optionally of one `provider`.',
        ),
        querystring: ZoneQuery,
        response: responses(
          Type.Object({
            zones: Type.Array(Zone),
            providers: Type.Array(providerOutcome('zones', 'Zones of this provider in the area')),
          }),
        ),
      },
    },
    async (request) => ok(request, await vehicles.zones(request.query, callerOf(request, clock))),
  )
}
