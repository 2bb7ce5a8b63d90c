import { type Static, Type } from 'typebox'
import { CursorPagination, DateTime } from './common.ts'
import { enumOf, providerOutcome } from './shared.ts'

/** GTFS-Realtime Alert causes, effects and severities, by their names in gtfs-realtime.proto. */
export const ALERT_CAUSES = [
  'UNKNOWN_CAUSE',
  'OTHER_CAUSE',
  'TECHNICAL_PROBLEM',
  'STRIKE',
  'DEMONSTRATION',
  'ACCIDENT',
  'HOLIDAY',
  'WEATHER',
  'MAINTENANCE',
  'CONSTRUCTION',
  'POLICE_ACTIVITY',
  'MEDICAL_EMERGENCY',
  'SPECIAL_EVENT',
] as const
export type AlertCause = (typeof ALERT_CAUSES)[number]
export const ALERT_EFFECTS = [
  'NO_SERVICE',
  'REDUCED_SERVICE',
  'SIGNIFICANT_DELAYS',
  'DETOUR',
  'ADDITIONAL_SERVICE',
  'MODIFIED_SERVICE',
  'OTHER_EFFECT',
  'UNKNOWN_EFFECT',
  'STOP_MOVED',
  'NO_EFFECT',
  'ACCESSIBILITY_ISSUE',
] as const
export type AlertEffect = (typeof ALERT_EFFECTS)[number]
export const ALERT_SEVERITIES = ['UNKNOWN_SEVERITY', 'INFO', 'WARNING', 'SEVERE'] as const
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number]

/** Service alerts (GTFS-Realtime Alert): on departures and journey legs, and listed by GET /public-transport/alerts. */

const EXAMPLE = {
  alertId: 'sandbox-transit:transit-alert-900100001',
  header: 'S+U Friedrichstraße closed',
  description:
    'Because of construction work no trains stop at S+U Friedrichstraße until further notice. Please use S+U Hauptbahnhof or S+U Alexanderplatz.',
  url: 'https://transit.sandbox.example/alerts/friedrichstrasse',
  cause: 'CONSTRUCTION',
  effect: 'NO_SERVICE',
  severity: 'SEVERE',
  activePeriods: [{ start: '2025-06-01T00:00:00.000Z' }],
}

export const AlertActivePeriod = Type.Object(
  {
    start: Type.Optional({ ...DateTime, description: 'Left out: active since ever' }),
    end: Type.Optional({ ...DateTime, description: 'Left out: until further notice' }),
  },
  { title: 'TransitAlertActivePeriod' },
)

export const TransitAlert = Type.Object(
  {
    alertId: Type.String({ description: 'Provider-scoped id: <providerId>:<GTFS-Realtime entity id>' }),
    header: Type.String({ description: "One line, in the caller's language where the provider has it" }),
    description: Type.Optional(Type.String({ description: 'May hold line breaks' })),
    url: Type.Optional(Type.String({ format: 'uri', description: 'More about it at the provider' })),
    cause: enumOf(ALERT_CAUSES, 'GTFS-Realtime Alert.Cause'),
    effect: enumOf(ALERT_EFFECTS, 'GTFS-Realtime Alert.Effect (NO_SERVICE on a stop: the stop is closed)'),
    severity: enumOf(ALERT_SEVERITIES, 'GTFS-Realtime Alert.SeverityLevel'),
    activePeriods: Type.Array(AlertActivePeriod, {
      description: 'When it applies; empty: as long as the provider publishes it',
    }),
  },
  {
    title: 'TransitAlert',
    description:
      "A service alert in the caller's language (Accept-Language; else English, else the provider's own text)",
    examples: [EXAMPLE],
  },
)
export type TransitAlert = Static<typeof TransitAlert>

/** On departures and legs: the alerts for that trip at those stops and times, most severe first (20 at most). */
export const ItemAlerts = Type.Array(TransitAlert, {
  description: 'Service alerts for this trip at these stops and times, most severe first (at most 20)',
})

export const InformedEntity = Type.Object(
  {
    agencyId: Type.Optional(Type.String()),
    routeId: Type.Optional(Type.String({ description: 'As `line.id` of departures' })),
    routeType: Type.Optional(Type.Integer({ description: 'GTFS route_type' })),
    directionId: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
    tripId: Type.Optional(Type.String()),
    stopId: Type.Optional(Type.String({ description: 'Provider-scoped: <providerId>:<GTFS stop_id>' })),
  },
  {
    title: 'TransitAlertInformedEntity',
    description: 'What the alert is about (GTFS-Realtime EntitySelector): every field given applies together',
  },
)

export const ListedTransitAlert = Type.Object(
  {
    ...TransitAlert.properties,
    provider: Type.Object({ id: Type.String(), name: Type.String() }),
    informedEntities: Type.Array(InformedEntity),
  },
  {
    title: 'TransitAlertDetails',
    examples: [
      {
        ...EXAMPLE,
        provider: { id: 'sandbox-transit', name: 'Sandbox Transit' },
        informedEntities: [{ stopId: 'sandbox-transit:900100001' }],
      },
    ],
  },
)
export type ListedTransitAlert = Static<typeof ListedTransitAlert>

export const AlertQuery = Type.Object(
  {
    provider: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Only this provider', examples: ['sandbox-transit'] }),
    ),
    stopId: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 300,
        description:
          "Provider-scoped stop id: the alerts its departures (and its platforms') can carry, a closure of the stop among them",
        examples: ['sandbox-transit:900100001'],
      }),
    ),
    routeId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'A line id (`line.id`): the alerts its departures can carry',
        examples: ['S5'],
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { additionalProperties: false },
)
export type AlertQuery = Static<typeof AlertQuery>

export const AlertList = Type.Object({
  alerts: Type.Array(ListedTransitAlert, { description: 'Active now, most severe first' }),
  pagination: CursorPagination,
  providers: Type.Array(providerOutcome('alerts', 'Alerts of this provider in this page')),
})
