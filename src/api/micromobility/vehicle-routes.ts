import { Type } from 'typebox'
import { responses } from '../../contract/common.ts'
import { MicroSearchRequest, MicroSearchResult, MicroVehicle } from '../../contract/micromobility.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { doc } from './route-shared.ts'
import type { MicromobilityRouteDeps } from './routes.ts'
import { microSearchBody } from './search-body.ts'

/** Vehicles: the search around a point, and one vehicle by QR code or id. */
export function micromobilityVehicleRoutes(app: TypedApp, { vehicles, clock }: MicromobilityRouteDeps) {
  app.post(
    '/micromobility',
    {
      config: {
        permission: 'micromobility:offer:read',
        locationFields: /^location\./,
        errors: ['INVALID_CURSOR', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'searchMicromobilityVehicles',
        ...doc(
          'Find scooters, bikes and mopeds near a point',
          'Nearest first within `radiusMeters` (default 500, max 5000). Trip-capable providers give a short-lived `vehicleToken`; search-only providers give `deepLinks`. Publishable keys allowed.',
        ),
        body: MicroSearchRequest,
        response: responses(MicroSearchResult),
      },
    },
    async (request, reply) => {
      const page = await vehicles.searchPage(request.body, callerOf(request, clock))
      // Written from cached parts instead of by the route's serializer (the same schema; see search-body.ts).
      const { meta } = ok(request, undefined)
      reply.type('application/json; charset=utf-8')
      // Returned, not sent: an async handler that returns the reply makes Fastify await it as a thenable (see the
      // car search route). The bytes are the typed answer already serialized, which the reply's type cannot express.
      return microSearchBody(page, meta) as never
    },
  )

  app.get(
    '/micromobility/vehicles/by-qr/:qrCode',
    {
      config: { permission: 'micromobility:offer:read', errors: ['NOT_FOUND', ...PROVIDER_CALL] },
      schema: {
        operationId: 'getMicromobilityVehicleByQrCode',
        ...doc(
          'Look up a vehicle by its QR code',
          'The scanned content, URL-encoded. Answers the vehicle with a fresh vehicleToken; 404 when no provider knows it.',
        ),
        params: Type.Object({ qrCode: Type.String({ minLength: 1, maxLength: 2000 }) }),
        response: responses(MicroVehicle),
      },
    },
    async (request) => ok(request, await vehicles.byQr(request.params.qrCode, callerOf(request, clock))),
  )

  app.get(
    '/micromobility/vehicles/:vehicleId',
    {
      config: {
        permission: 'micromobility:offer:read',
        statusOverrides: { OFFER_EXPIRED: 400 },
        errors: ['NOT_FOUND', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'getMicromobilityVehicle',
        ...doc(
          'Read a vehicle',
          'With a fresh vehicleToken. Passing the previous `vehicleToken` checks it: 400 OFFER_EXPIRED once it ran out.',
        ),
        params: Type.Object({ vehicleId: Type.String({ minLength: 1, maxLength: 200 }) }),
        querystring: Type.Object(
          { vehicleToken: Type.Optional(Type.String({ maxLength: 4096 })) },
          { additionalProperties: false },
        ),
        response: responses(MicroVehicle),
      },
    },
    async (request) =>
      ok(request, await vehicles.byId(request.params.vehicleId, callerOf(request, clock), request.query.vehicleToken)),
  )
}
