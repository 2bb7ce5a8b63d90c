import type { Price } from '../../../contract/shared.ts'
import { distanceMeters } from '../../../platform/geo.ts'
import type {
  ProviderTicketOffer,
  TransitJourney,
  TransitLeg,
  TravellerCategory,
} from '../../types/public-transport.ts'
import { pick } from '../common.ts'
import { type FareZone, KIND_OF_ROUTE, type RouteKind, STATIONS, ZONE_OF_STOP } from './network.ts'
import type { OfferParams } from './refs.ts'

/**
 * The fares of Sandbox Transit Berlin, modelled on the VBB tariff of 2025 (amounts in cents, EUR):
 *
 * | product        | zones | valid                | ADULT | CHILD / REDUCED |
 * |----------------|-------|----------------------|-------|-----------------|
 * | single-ab      | AB    | 2 h from departure   |  3.80 |  2.40           |
 * | single-abc     | ABC   | 2 h from departure   |  4.70 |  3.40           |
 * | short-trip     | AB    | 2 h from departure   |  2.60 |  2.00           |
 * | day-ab         | AB    | 24 h from departure  | 10.60 |  6.70           |
 * | day-abc        | ABC   | 24 h from departure  | 12.30 |  7.50           |
 *
 * Zones: A inside the Ringbahn, B the rest of Berlin, C beyond (Flughafen BER). A journey that touches C needs an
 * ABC ticket, any other an AB ticket (the feed has no journey confined to B and C, so there is no BC ticket).
 * Short trip (Kurzstrecke): one ride without changing, at most 3 stations by S-Bahn or U-Bahn or 6 stops by tram or
 * bus, within AB; never on regional trains (FEX, RE). Children (6 to 14 years) and reduced fares pay the same.
 * Every traveller gets their own offers: a single ticket, a short trip where it applies, and a 24-hour ticket.
 */

export type ZoneSet = 'AB' | 'ABC'
export type TicketKind = 'SINGLE' | 'SHORT_TRIP' | 'DAY'

interface TicketProduct {
  id: string
  kind: TicketKind
  zones: ZoneSet
  validityMs: number
  prices: Record<TravellerCategory, number>
  name: { en: string; de: string; fr: string }
  description: { en: string; de: string; fr: string }
}

const HOUR = 3_600_000
export const CURRENCY = 'EUR'

const product = (
  id: string,
  kind: TicketKind,
  zones: ZoneSet,
  hours: number,
  adult: number,
  reduced: number,
  name: TicketProduct['name'],
  description: TicketProduct['description'],
): TicketProduct => ({
  id,
  kind,
  zones,
  validityMs: hours * HOUR,
  prices: { ADULT: adult, CHILD: reduced, REDUCED: reduced },
  name,
  description,
})

export const TICKET_PRODUCTS: Record<string, TicketProduct> = Object.fromEntries(
  [
    product(
      'single-ab',
      'SINGLE',
      'AB',
      2,
      380,
      240,
      { en: 'Single ticket Berlin AB', de: 'Einzelfahrschein Berlin AB', fr: 'Ticket simple Berlin AB' },
      {
        en: 'One journey in zones A and B within 2 hours; changes and interruptions allowed in one direction.',
        de: 'Eine Fahrt in den Tarifbereichen A und B innerhalb von 2 Stunden; Umsteigen und Unterbrechen in eine Richtung erlaubt.',
        fr: 'Un trajet dans les zones A et B en 2 heures ; correspondances et interruptions permises dans un sens.',
      },
    ),
    product(
      'single-abc',
      'SINGLE',
      'ABC',
      2,
      470,
      340,
      { en: 'Single ticket Berlin ABC', de: 'Einzelfahrschein Berlin ABC', fr: 'Ticket simple Berlin ABC' },
      {
        en: 'One journey in zones A, B and C (Flughafen BER) within 2 hours; changes allowed in one direction.',
        de: 'Eine Fahrt in den Tarifbereichen A, B und C (Flughafen BER) innerhalb von 2 Stunden; Umsteigen in eine Richtung erlaubt.',
        fr: 'Un trajet dans les zones A, B et C (aéroport BER) en 2 heures ; correspondances permises dans un sens.',
      },
    ),
    product(
      'short-trip',
      'SHORT_TRIP',
      'AB',
      2,
      260,
      200,
      { en: 'Short-trip ticket', de: 'Kurzstrecke', fr: 'Ticket courte distance' },
      {
        en: 'Up to 3 stations by S-Bahn or U-Bahn, or 6 stops by tram or bus, without changing.',
        de: 'Bis zu 3 Stationen mit S- oder U-Bahn oder 6 Haltestellen mit Tram oder Bus, ohne Umsteigen.',
        fr: 'Jusqu’à 3 stations en S-Bahn ou U-Bahn, ou 6 arrêts en tram ou en bus, sans correspondance.',
      },
    ),
    product(
      'day-ab',
      'DAY',
      'AB',
      24,
      1060,
      670,
      { en: '24-hour ticket Berlin AB', de: '24-Stunden-Karte Berlin AB', fr: 'Billet 24 heures Berlin AB' },
      {
        en: 'Any number of journeys in zones A and B for 24 hours from the first journey.',
        de: 'Beliebig viele Fahrten in den Tarifbereichen A und B für 24 Stunden ab der ersten Fahrt.',
        fr: 'Trajets illimités dans les zones A et B pendant 24 heures à partir du premier trajet.',
      },
    ),
    product(
      'day-abc',
      'DAY',
      'ABC',
      24,
      1230,
      750,
      { en: '24-hour ticket Berlin ABC', de: '24-Stunden-Karte Berlin ABC', fr: 'Billet 24 heures Berlin ABC' },
      {
        en: 'Any number of journeys in zones A, B and C for 24 hours from the first journey.',
        de: 'Beliebig viele Fahrten in den Tarifbereichen A, B und C für 24 Stunden ab der ersten Fahrt.',
        fr: 'Trajets illimités dans les zones A, B et C pendant 24 heures à partir du premier trajet.',
      },
    ),
  ].map((p) => [p.id, p]),
)

const FARE_ZONES: Record<ZoneSet, string[]> = { AB: ['A', 'B'], ABC: ['A', 'B', 'C'] }
export const TRAVELLER_CATEGORIES: readonly TravellerCategory[] = ['ADULT', 'CHILD', 'REDUCED']

const CENTRE = { latitude: 52.52, longitude: 13.405 }
const BER = { latitude: STATIONS.ber.lat, longitude: STATIONS.ber.lon }

/** A stop's zone; a point off the feed (a walk's end) by where it is: near BER or outside Berlin is C. */
export function zoneOf(point: { stopId?: string; latitude: number; longitude: number }): FareZone {
  const known = point.stopId ? ZONE_OF_STOP.get(point.stopId) : undefined
  if (known) return known
  if (distanceMeters(point, BER) < 4_000 || distanceMeters(point, CENTRE) > 20_000) return 'C'
  return 'B'
}

const isRide = (leg: TransitLeg) => leg.mode !== 'WALK'

function kindOf(leg: TransitLeg): RouteKind | undefined {
  const known = leg.line ? KIND_OF_ROUTE.get(leg.line.routeId) : undefined
  if (known) return known
  if (leg.mode === 'SUBWAY') return 'U_BAHN'
  if (leg.mode === 'TRAM') return 'TRAM'
  if (leg.mode === 'BUS' || leg.mode === 'TROLLEYBUS') return 'BUS'
  return undefined
}

const SHORT_TRIP_STOPS: Partial<Record<RouteKind, number>> = { S_BAHN: 3, U_BAHN: 3, TRAM: 6, BUS: 6 }

/** Whether a journey is a short trip (see the table above). Unknown stop counts never are. */
export function isShortTrip(journey: TransitJourney): boolean {
  const rides = journey.legs.filter(isRide)
  if (rides.length !== 1) return false
  const [leg] = rides
  const kind = kindOf(leg)
  const limit = kind ? SHORT_TRIP_STOPS[kind] : undefined
  if (limit === undefined || !leg.intermediateStops) return false
  return leg.intermediateStops.length + 1 <= limit
}

/** The zones a journey's rides touch (every stop on the way, not only where it starts and ends). */
export function zonesOf(journey: TransitJourney): ZoneSet {
  for (const leg of journey.legs.filter(isRide)) {
    if (zoneOf(leg.from) === 'C' || zoneOf(leg.to) === 'C') return 'ABC'
    if (leg.intermediateStops?.some((s) => ZONE_OF_STOP.get(s.stopId) === 'C')) return 'ABC'
  }
  return 'AB'
}

const localized = (text: { en: string; de: string; fr: string }, language: string) => pick(text, language)

export const priceOf = (productId: string, category: TravellerCategory): Price => ({
  amount: TICKET_PRODUCTS[productId].prices[category],
  currency: CURRENCY,
})

export const productOf = (productId: string): TicketProduct | undefined =>
  Object.hasOwn(TICKET_PRODUCTS, productId) ? TICKET_PRODUCTS[productId] : undefined

/** The offer an offer reference stands for (the price from today's table, never from the reference). */
export function offerFrom(params: OfferParams, ref: string, language: string): ProviderTicketOffer {
  const p = TICKET_PRODUCTS[params.p]
  const validFrom = new Date(params.f)
  return {
    offerRef: ref,
    productId: p.id,
    name: localized(p.name, language),
    description: localized(p.description, language),
    price: priceOf(p.id, params.c),
    travellerCategory: params.c,
    validFrom,
    validUntil: new Date(validFrom.getTime() + p.validityMs),
    fareZones: [...FARE_ZONES[p.zones]],
  }
}

/** The products that fit a journey, per traveller, in the order of the travellers. */
export function offerParams(journey: TransitJourney, travellers: TravellerCategory[]): OfferParams[] {
  if (!journey.legs.some(isRide)) return []
  const zones = zonesOf(journey)
  const products = [
    zones === 'AB' ? 'single-ab' : 'single-abc',
    ...(zones === 'AB' && isShortTrip(journey) ? ['short-trip'] : []),
    zones === 'AB' ? 'day-ab' : 'day-abc',
  ]
  const f = journey.departure.toISOString()
  return travellers.flatMap((c, n) => products.map((p) => ({ p, c, f, n })))
}
