import type { PublicTransportAlerts } from '../../domain/public-transport/alerts.ts'
import type { PublicTransportJourneys } from '../../domain/public-transport/journeys.ts'
import type { PublicTransportStops } from '../../domain/public-transport/stops.ts'
import type { PublicTransportSubscriptions } from '../../domain/public-transport/subscriptions.ts'
import type { PublicTransportTickets } from '../../domain/public-transport/tickets.ts'
import type { PublicTransportVehicles } from '../../domain/public-transport/vehicles.ts'
import type { TypedApp } from '../../http/typed-app.ts'
import { publicTransportBookingRoutes } from './booking-routes.ts'
import { publicTransportSearchRoutes } from './search-routes.ts'
import { publicTransportSubscriptionRoutes } from './subscription-routes.ts'

export interface PublicTransportRouteDeps {
  stops: PublicTransportStops
  journeys: PublicTransportJourneys
  tickets: PublicTransportTickets
  subscriptions: PublicTransportSubscriptions
  alerts: PublicTransportAlerts
  vehicles: PublicTransportVehicles
  clock: () => Date
}

/** Every route under /public-transport, one file per resource, registered in this order (the API document's). */
export function publicTransportRoutes(app: TypedApp, deps: PublicTransportRouteDeps) {
  publicTransportSearchRoutes(app, deps)
  publicTransportBookingRoutes(app, deps)
  publicTransportSubscriptionRoutes(app, deps)
}
