import type { Provider } from '../../connectors/types/common.ts'
import type {
  TransitAlert as ProviderAlert,
  PublicTransportConnector,
} from '../../connectors/types/public-transport.ts'
import type { TransitAlert } from '../../contract/transit-alerts.ts'

/** Alert ids are scoped like stop ids (`<providerId>:<feed entity id>`), so one id names one alert across providers. */
export const scopedAlertId = (providerId: string, alertId: string) => `${providerId}:${alertId}`

/** An alert as departures, legs and boards show it. */
export function presentAlert(p: Provider, a: ProviderAlert): TransitAlert {
  return {
    alertId: scopedAlertId(p.entry.id, a.id),
    header: a.header,
    ...(a.description ? { description: a.description } : {}),
    ...(a.url ? { url: a.url } : {}),
    cause: a.cause,
    effect: a.effect,
    severity: a.severity,
    activePeriods: a.activePeriods.map((period) => ({
      ...(period.start ? { start: period.start.toISOString() } : {}),
      ...(period.end ? { end: period.end.toISOString() } : {}),
    })),
  }
}

export const presentAlerts = (p: Provider, list: ProviderAlert[] | undefined): TransitAlert[] =>
  (list ?? []).map((a) => presentAlert(p, a))

/** Whether a provider publishes alerts: its connector can, and the provider offers it (capability ALERTS). */
export const publishesAlerts = (p: Provider & { connector: PublicTransportConnector }): boolean =>
  typeof p.connector.alerts === 'function' && p.connector.capabilities.operations.includes('ALERTS')
