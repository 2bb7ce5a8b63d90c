import { randomBytes } from 'node:crypto'
import type {
  JourneyEnd,
  ProviderTicketOffer,
  TransitJourney,
  TravellerCategory,
} from '../../connectors/types/public-transport.ts'
import { ApiError } from '../../contract/errors.ts'
import type { Journey, JourneyRequest, TicketOffer } from '../../contract/public-transport.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { resolveLocation } from '../cars/locations.ts'
import type { OfferTokens } from '../cars/offer-tokens.ts'
import type { Geocoder } from '../geocoding/index.ts'
import type { Caller, CallProvider } from '../providers/calls.ts'
import { failIfNoProviderAnswered, providerOutcome } from '../providers/merged-pages.ts'
import { presentAlerts } from './alert-view.ts'
import { lineOf, type PtProvider, type PublicTransportStops, scopedStopId, splitStopId } from './stops.ts'

/** Journeys each provider is asked to plan, at most. */
const MAX_JOURNEYS_PER_PROVIDER = 10

export interface JourneyDeps {
  stops: PublicTransportStops
  callProvider: CallProvider
  geocoder: Geocoder
  offerTokens: OfferTokens
  offerTokenTtlSeconds: number
  timeoutMs: number
}

/** A ticket offer as the API shows it, with a token for POST /public-transport/prebook. */
export function presentTicketOffer(
  p: PtProvider,
  o: ProviderTicketOffer,
  caller: Caller,
  offerTokens: OfferTokens,
  ttlSeconds: number,
): TicketOffer {
  // Usable for the configured validity (OFFER_TOKEN_TTL_SECONDS), but never for a journey that has left: prebook
  // checks the departure (`d`).
  const usableUntil = new Date(caller.now.getTime() + ttlSeconds * 1000)
  return {
    offerToken: offerTokens.issue('pt-offer', caller.tenant.id, caller.environment, {
      p: p.entry.id,
      r: o.offerRef,
      x: usableUntil.getTime(),
      d: o.validFrom.getTime(),
      a: o.price.amount,
      c: o.price.currency,
      k: true,
    }),
    usableUntil: usableUntil.toISOString(),
    ...offerFields(p, o),
  }
}

export const offerFields = (p: PtProvider, o: ProviderTicketOffer) => ({
  productId: o.productId,
  name: o.name,
  ...(o.description ? { description: o.description } : {}),
  price: o.price,
  travellerCategory: o.travellerCategory,
  validFrom: o.validFrom.toISOString(),
  validUntil: o.validUntil.toISOString(),
  ...(o.fareZones ? { fareZones: o.fareZones } : {}),
  provider: { id: p.entry.id, name: p.entry.name },
})

/** POST /public-transport/journeys: every provider that can route both ends, merged, with ticket offers. */
export function createPublicTransportJourneys(deps: JourneyDeps) {
  async function end(
    value: JourneyRequest['origin'],
    field: string,
    caller: Caller,
  ): Promise<{ end: JourneyEnd; providerId?: string }> {
    if (value.type === 'stop') {
      const scoped = splitStopId(value.stopId)
      if (!scoped) throw new ApiError('NOT_FOUND', undefined, { resource: 'stop', [`${field}.stopId`]: value.stopId })
      return { end: { stopId: scoped.stopId }, providerId: scoped.providerId }
    }
    const area = await resolveLocation(value, field, deps.geocoder, caller.language)
    return { end: { ...area.coordinates, ...(area.label ? { name: area.label } : {}) } }
  }

  const present = (p: PtProvider, j: TransitJourney, offers: TicketOffer[]): Journey => ({
    journeyId: `jrn_${randomBytes(9).toString('base64url')}`,
    provider: { id: p.entry.id, name: p.entry.name },
    departure: j.departure.toISOString(),
    arrival: j.arrival.toISOString(),
    durationMinutes: Math.round((j.arrival.getTime() - j.departure.getTime()) / 60_000),
    transfers: j.transfers,
    legs: j.legs.map((leg) => ({
      mode: leg.mode,
      from: {
        ...(leg.from.stopId ? { stopId: scopedStopId(p.entry.id, leg.from.stopId) } : {}),
        name: leg.from.name,
        location: { latitude: leg.from.latitude, longitude: leg.from.longitude },
      },
      to: {
        ...(leg.to.stopId ? { stopId: scopedStopId(p.entry.id, leg.to.stopId) } : {}),
        name: leg.to.name,
        location: { latitude: leg.to.latitude, longitude: leg.to.longitude },
      },
      departure: leg.departure.toISOString(),
      arrival: leg.arrival.toISOString(),
      durationMinutes: Math.round((leg.arrival.getTime() - leg.departure.getTime()) / 60_000),
      ...(leg.line ? { line: lineOf(leg.line) } : {}),
      ...(leg.headsign ? { headsign: leg.headsign } : {}),
      ...(leg.tripId ? { tripId: leg.tripId } : {}),
      ...(leg.intermediateStops
        ? {
            intermediateStops: leg.intermediateStops.map((s) => ({
              stopId: scopedStopId(p.entry.id, s.stopId),
              name: s.name,
              arrival: s.arrival.toISOString(),
              departure: s.departure.toISOString(),
            })),
          }
        : {}),
      ...(leg.distanceMeters !== undefined ? { distanceMeters: Math.round(leg.distanceMeters) } : {}),
      alerts: presentAlerts(p, leg.alerts),
    })),
    ticketOffers: offers,
  })

  return async function journeys(request: JourneyRequest, caller: Caller) {
    if (request.departAt && request.arriveBy) {
      throw new ApiError('INVALID_REQUEST', undefined, {
        arriveBy: detail('SEND_ONE_NOT_BOTH', { first: 'departAt', second: 'arriveBy' }),
      })
    }
    const origin = await end(request.origin, 'origin', caller)
    const destination = await end(request.destination, 'destination', caller)
    if (origin.providerId && destination.providerId && origin.providerId !== destination.providerId) {
      throw new ApiError('INVALID_REQUEST', undefined, {
        destination: detail('STOPS_OF_DIFFERENT_PROVIDERS'),
      })
    }
    const only = origin.providerId ?? destination.providerId
    const providers = only
      ? [deps.stops.providerById(caller, only, 'JOURNEYS')]
      : deps.stops.providersOf(caller, 'JOURNEYS')
    // A stop the provider does not know is 404 NOT_FOUND, as for its departures, not a search with no journeys.
    for (const [field, side] of [
      ['origin', origin],
      ['destination', destination],
    ] as const) {
      if (!('stopId' in side.end) || !side.providerId) continue
      const stopId = side.end.stopId
      const known = await deps.callProvider(
        caller,
        providers[0],
        'stopById',
        deps.timeoutMs,
        (c, ctx) => c.stopById(stopId, ctx),
        true,
      )
      if (!known) {
        const scoped = (request[field] as { stopId: string }).stopId
        throw new ApiError('NOT_FOUND', undefined, { resource: 'stop', [`${field}.stopId`]: scoped })
      }
    }
    const limit = request.limit ?? 5
    const travellers: TravellerCategory[] = (request.travellers ?? [{ category: 'ADULT' as const }]).map(
      (t) => t.category,
    )
    const query = {
      origin: origin.end,
      destination: destination.end,
      ...(request.arriveBy
        ? { arriveBy: new Date(request.arriveBy) }
        : { departAt: request.departAt ? new Date(request.departAt) : caller.now }),
      // Planning cost grows with the journeys asked for; more than this many per provider adds little.
      limit: Math.min(limit, MAX_JOURNEYS_PER_PROVIDER),
    }
    const answers = await Promise.allSettled(
      providers.map(async (p) => {
        const found = await deps.callProvider(
          caller,
          p,
          'journeys',
          deps.timeoutMs,
          (c, ctx) => c.journeys(query, ctx),
          true,
        )
        // Retention NONE: a provider that books only with a stored booking plans, but offers no tickets (spec 4.5).
        const bookable = !(caller.tenant.dataRetention === 'NONE' && p.connector.capabilities.requiresStoredBooking)
        const ticketing = bookable ? p.connector.ticketing : undefined
        return Promise.all(
          found.map(async (j) => {
            // A journey that has already left is shown (planning the past is allowed) but sells no tickets.
            const offers =
              ticketing && j.departure.getTime() >= caller.now.getTime()
                ? await deps
                    .callProvider(
                      caller,
                      p,
                      'ticketOffers',
                      deps.timeoutMs,
                      (_c, ctx) => ticketing.offers(j, travellers, ctx),
                      true,
                    )
                    .catch(() => [] as ProviderTicketOffer[])
                : []
            return present(
              p,
              j,
              offers.map((o) => presentTicketOffer(p, o, caller, deps.offerTokens, deps.offerTokenTtlSeconds)),
            )
          }),
        )
      }),
    )
    const all = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []))
    if (request.arriveBy) all.sort((a, b) => Date.parse(b.departure) - Date.parse(a.departure))
    else all.sort((a, b) => Date.parse(a.arrival) - Date.parse(b.arrival) || a.transfers - b.transfers)
    const journeys = all.slice(0, limit)
    const outcomes = answers.map((a, i) =>
      providerOutcome(
        providers[i],
        a,
        caller.language,
        'journeys',
        journeys.filter((j) => j.provider.id === providers[i].entry.id).length,
      ),
    )
    failIfNoProviderAnswered(answers, outcomes)
    return { journeys, providers: outcomes }
  }
}

export type PublicTransportJourneys = ReturnType<typeof createPublicTransportJourneys>
