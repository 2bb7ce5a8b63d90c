import type { MicromobilityTrips } from '../../domain/micromobility/trips.ts'
import type { MicromobilityVehicles } from '../../domain/micromobility/vehicles.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { micromobilityTripRoutes } from './trip-routes.ts'
import { micromobilityVehicleRoutes } from './vehicle-routes.ts'
import { micromobilityZoneRoutes } from './zone-routes.ts'

export interface MicromobilityRouteDeps {
  vehicles: MicromobilityVehicles
  trips: MicromobilityTrips
  clock: () => Date
}

/** Every route under /micromobility, one file per resource, registered in this order (the API document's). */
export function micromobilityRoutes(app: TypedApp, deps: MicromobilityRouteDeps) {
  micromobilityVehicleRoutes(app, deps)
  micromobilityTripRoutes(app, deps)
  micromobilityZoneRoutes(app, deps)
}
