import { VehicleActionRequest, VehicleActionResult } from '../../contract/car-bookings.ts'
import { responses } from '../../contract/common.ts'
import { callerOf } from '../../http/caller.ts'
import { ok } from '../../http/envelope.ts'
import { PROVIDER_CALL } from '../../http/openapi/route-errors.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { BookingParams, doc } from './route-shared.ts'
import type { CarRouteDeps } from './routes.ts'

/** Vehicle actions on a booked car (car sharing). */
export function carVehicleActionRoutes(app: TypedApp, { bookings, clock }: CarRouteDeps) {
  app.post(
    '/cars/bookings/:bookingId/vehicle-action',
    {
      config: {
        permission: 'cars:booking:write',
        errors: ['NOT_FOUND', 'APP_ACCESS_NOT_AVAILABLE', 'OPERATION_NOT_SUPPORTED', ...PROVIDER_CALL],
      },
      schema: {
        operationId: 'performCarVehicleAction',
        ...doc(
          'Vehicle action (car sharing)',
          'UNLOCK, LOCK, HONK, FLASH_LIGHTS or LOCATE on the booked car, for providers with app access during the rental. A car that rejects the command answers 500 PROVIDER_ERROR (spec 7.1) with details.reason VEHICLE_REJECTED, and details.retryable false when no retry can change it (a cancelled booking, a rental that ended).',
        ),
        params: BookingParams,
        body: VehicleActionRequest,
        response: responses(VehicleActionResult),
      },
    },
    async (request) =>
      ok(
        request,
        await bookings.vehicleAction(request.params.bookingId, request.body.action, callerOf(request, clock)),
      ),
  )
}
