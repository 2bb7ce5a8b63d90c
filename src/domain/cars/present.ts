import type { ProviderCarOffer } from '../../connectors/types/cars.ts'
import type { Provider } from '../../connectors/types/common.ts'
import type { CarOffer } from '../../contract/cars.ts'
import type { ProviderDisplay } from '../../contract/shared.ts'
import type { Caller } from '../providers/calls.ts'
import type { OfferClaim, OfferTokens } from './offer-tokens.ts'
import type { PooledOffer } from './ranking.ts'

/** Displays by provider entry (an entry is replaced, not changed, when the providers are loaded again). */
const displays = new WeakMap<object, ProviderDisplay>()

/** How a provider is shown: one frozen object per provider entry, which the answer's writer keeps the JSON of. */
export function providerDisplay(provider: Provider): ProviderDisplay {
  let display = displays.get(provider.entry)
  if (!display) {
    display = Object.freeze({
      id: provider.entry.id,
      name: provider.entry.name,
      ...(provider.entry.branding?.logoUrl ? { logoUrl: provider.entry.branding.logoUrl } : {}),
      ...(provider.entry.websiteUrl ? { websiteUrl: provider.entry.websiteUrl } : {}),
    })
    displays.set(provider.entry, display)
  }
  return display
}

/**
 * The provider offer an API offer was made from (a symbol key: no serializer writes it), so the search answer can
 * reuse the JSON of an immutable provider offer's fixed fields (see api/cars/search-body.ts).
 */
/** What an offer's token says, but its nonce. */
export const offerClaim = (item: PooledOffer, untilMs: number, withPrice: boolean): Omit<OfferClaim, 'n'> => ({
  p: item.providerId,
  r: item.offer.offerRef,
  x: untilMs,
  a: item.offer.price.totalPrice.amount,
  c: item.offer.price.totalPrice.currency,
  k: withPrice,
})

export const OFFER_SOURCE = Symbol('offer source')
export type PresentedOffer = CarOffer & { [OFFER_SOURCE]?: ProviderCarOffer }

/**
 * A provider's offer as the API shows it: with a fresh single-use token, and a price only when one was asked for.
 * A search presents a page at once and passes what is the same for every offer of it (`display`, `usableUntil`).
 * Built by assignment in the answer's order: the literal with a symbol key and conditional spreads it replaces was
 * 5 % of the car-search profile on its own.
 */
export function presentOffer(
  item: PooledOffer,
  provider: Provider,
  caller: Caller,
  tokens: OfferTokens,
  options: {
    ttlSeconds: number
    withPrice: boolean
    nonce?: string
    display?: ProviderDisplay
    usableUntil?: { ms: number; iso: string }
    /** The offer's token, issued already with the rest of its page (see offerClaim). */
    offerToken?: string
  },
): PresentedOffer {
  const offer: ProviderCarOffer = item.offer
  const untilMs = options.usableUntil?.ms ?? caller.now.getTime() + options.ttlSeconds * 1000
  const offerToken =
    options.offerToken ??
    tokens.issue('offer', caller.tenant.id, caller.environment, {
      n: options.nonce,
      ...offerClaim(item, untilMs, options.withPrice),
    })
  const presented: PresentedOffer = {
    vehicle: offer.vehicle,
    pickupLocation: offer.pickupLocation,
    dropoffLocation: offer.dropoffLocation,
    rentalPeriod: offer.rentalPeriod,
  } as PresentedOffer
  if (options.withPrice) presented.price = offer.price
  presented.insurance = offer.insurance
  presented.refillPolicy = offer.refillPolicy
  presented.mileageAllowance = offer.mileageAllowance
  presented.offerToken = offerToken
  presented.usableUntil = options.usableUntil?.iso ?? new Date(untilMs).toISOString()
  presented.distanceFromSearch = Math.round(offer.distanceMeters)
  presented.provider = options.display ?? providerDisplay(provider)
  if (offer.deepLinks) presented.deepLinks = offer.deepLinks
  if (offer.availableUpsells) presented.availableUpsells = offer.availableUpsells
  if (item.recommendation) presented.recommendation = item.recommendation
  if (offer.warnings?.length) presented.warnings = offer.warnings
  presented[OFFER_SOURCE] = offer
  return presented
}
