import type { OperationExample } from '../../http/openapi/examples.ts'

/**
 * Requests that work as they are against the sandbox with a test key (`svc_test_...`), around Berlin
 * (52.52, 13.405), for the day the document is served: the searches and reads a newcomer tries first. The docs page
 * fills "Try it out" with them, and test/http/openapi-examples.test.ts sends each one to a running service.
 * scripts/capture-examples.ts sends them too, and records what they answer (captured.json) with the rest of the flows.
 */

/** The day `days` after `now` at `time` (UTC), as an RFC 3339 date-time. */
export const dayAt = (now: Date, days: number, time: string) =>
  `${new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10)}T${time}:00Z`

const BERLIN = { latitude: 52.52, longitude: 13.405 }
/** S+U Alexanderplatz and S+U Berlin Hauptbahnhof in the sandbox network (VBB-style ids). */
export const ALEXANDERPLATZ = 'sandbox-transit:900100003'
export const HAUPTBAHNHOF = 'sandbox-transit:900003201'

/** By operationId. Only these are expected to answer 2xx as they are; the others need a token or an id first. */
export const liveExamples = (now: Date): Record<string, OperationExample> => ({
  checkApiKey: {},
  listMobilityProviders: { query: { page: 0, limit: 20 } },
  searchCars: {
    body: {
      pickup: { type: 'coordinates', coordinates: BERLIN, radiusMeters: 5000 },
      dates: { start: dayAt(now, 1, '10:00'), end: dayAt(now, 4, '10:00') },
      estimatedKilometers: 250,
      driverAge: 30,
      sortBy: 'RECOMMENDED',
      limit: 5,
    },
  },
  listCarStations: { query: { ...BERLIN, radiusMeters: 5000, limit: 5 } },
  searchMicromobilityVehicles: { body: { location: BERLIN, radiusMeters: 500, limit: 5 } },
  listMicromobilityZones: { query: { ...BERLIN, radiusMeters: 1000, provider: 'sandbox-scoot' } },
  searchStops: { query: { ...BERLIN, radiusMeters: 1000, limit: 5 } },
  listDepartures: { params: { stopId: ALEXANDERPLATZ }, query: { from: dayAt(now, 1, '08:00'), limit: 5 } },
  planJourneys: {
    body: {
      origin: { type: 'stop', stopId: ALEXANDERPLATZ },
      destination: { type: 'stop', stopId: HAUPTBAHNHOF },
      departAt: dayAt(now, 1, '08:00'),
      limit: 3,
      travellers: [{ category: 'ADULT' }],
    },
  },
  listSubscriptionProducts: {},
  listTransitVehicles: { query: { latitude: 52.5219, longitude: 13.4132, radiusMeters: 1500, limit: 5 } },
  listTransitAlerts: { query: { provider: 'sandbox-transit', limit: 5 } },
  listTrips: { query: { limit: 5 } },
  searchMultimodal: { body: { location: BERLIN, radiusMeters: 500, limit: 3 } },
  // The z 14 tile around Alexanderplatz (XYZ: x = 8802, y = 5372).
  getMapTile: { params: { z: 14, x: 8802, y: 5372 } },
  getHealth: {},
  getReadiness: {},
})
