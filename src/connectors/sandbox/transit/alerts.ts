import { type AlertSnapshot, decodeAlerts } from '../../gtfs/alerts.ts'
import { transit_realtime } from '../../gtfs/realtime.ts'
import type { CallContext } from '../../types/common.ts'
import { hasScenario } from '../common.ts'

/**
 * The `transit-alert:<providerId>` scenario: S+U Friedrichstraße (station `900100001`, with its platforms) is
 * closed, an alert with effect NO_SERVICE in English, German and French. It is written as a GTFS-Realtime feed and
 * decoded by the GTFS connector's own reader, so it goes through the same checks, matching and translation as an
 * operator's alert feed. Active from the start of the previous day (UTC) until further notice.
 */

export const CLOSED_STOP_ID = '900100001'
export const SCENARIO_ALERT_ID = `transit-alert-${CLOSED_STOP_ID}`

const DAY_MS = 86_400_000

const texts = (en: string, de: string, fr: string) => ({
  translation: [
    { text: en, language: 'en' },
    { text: de, language: 'de' },
    { text: fr, language: 'fr' },
  ],
})

function scenarioFeed(since: number): Uint8Array {
  const message = transit_realtime.FeedMessage.fromObject({
    header: { gtfsRealtimeVersion: '2.0', incrementality: 'FULL_DATASET', timestamp: since / 1000 },
    entity: [
      {
        id: SCENARIO_ALERT_ID,
        alert: {
          activePeriod: [{ start: since / 1000 }],
          informedEntity: [{ stopId: CLOSED_STOP_ID }],
          cause: 'CONSTRUCTION',
          effect: 'NO_SERVICE',
          severityLevel: 'SEVERE',
          headerText: texts(
            'S+U Friedrichstraße closed',
            'S+U Friedrichstraße geschlossen',
            'S+U Friedrichstraße fermée',
          ),
          descriptionText: texts(
            'Because of construction work no trains stop at S+U Friedrichstraße until further notice. Please use S+U Hauptbahnhof or S+U Alexanderplatz.',
            'Wegen Bauarbeiten halten bis auf Weiteres keine Züge in S+U Friedrichstraße. Bitte nutzen Sie S+U Hauptbahnhof oder S+U Alexanderplatz.',
            "En raison de travaux, aucun train ne s'arrête à S+U Friedrichstraße jusqu'à nouvel ordre. Veuillez utiliser S+U Hauptbahnhof ou S+U Alexanderplatz.",
          ),
          url: { translation: [{ text: 'https://transit.sandbox.example/alerts/friedrichstrasse' }] },
        },
      },
    ],
  })
  return transit_realtime.FeedMessage.encode(message).finish()
}

/** The scenario's alerts for a call that asks for them, else undefined; one decoded snapshot per day. */
export function scenarioAlerts(providerId: string) {
  let cached: { since: number; snapshot: AlertSnapshot } | undefined
  return (ctx: CallContext): AlertSnapshot | undefined => {
    if (!hasScenario(ctx, providerId, 'transit-alert')) return undefined
    const since = Math.floor(ctx.now.getTime() / DAY_MS) * DAY_MS - DAY_MS
    if (cached?.since !== since) {
      const snapshot = decodeAlerts(scenarioFeed(since), since, (message) => {
        throw new Error(`the transit-alert scenario's feed has a problem: ${message}`)
      })
      cached = { since, snapshot }
    }
    return cached.snapshot
  }
}
