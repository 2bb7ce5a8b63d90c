import type { CarBookings } from '../../domain/cars/bookings.ts'
import type { CarSearch } from '../../domain/cars/search.ts'
import type { CarStations } from '../../domain/cars/stations.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { carBookingRoutes } from './booking-routes.ts'
import { carSearchRoutes } from './search-routes.ts'
import { carVehicleActionRoutes } from './vehicle-action-routes.ts'

export interface CarRouteDeps {
  search: CarSearch
  stations: CarStations
  bookings: CarBookings
  clock: () => Date
}

/** Every route under /cars, one file per resource, registered in this order (the API document's). */
export function carRoutes(app: TypedApp, deps: CarRouteDeps) {
  carSearchRoutes(app, deps)
  carBookingRoutes(app, deps)
  carVehicleActionRoutes(app, deps)
}
