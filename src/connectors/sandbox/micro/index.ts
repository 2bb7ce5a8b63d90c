export { createSandboxMicroConnector } from './connector.ts'
export { type BaseVehicle, BIKE_PLANS, DEFAULT_FLEET_SIZE, MIN_BATTERY_PERCENT, SCOOT_PLANS } from './fleet.ts'
export { RESERVATION_HOLD_MS, RIDE_HOLD_MS } from './trips.ts'
export { ALEXANDERPLATZ, BERLIN_CENTRE, BIKE_STATIONS, HAUPTBAHNHOF, type MicroKind } from './zones.ts'
