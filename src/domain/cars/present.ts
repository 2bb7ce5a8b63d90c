import type { ProviderCarOffer } from '../../connectors/types/cars.ts'
import type { Provider } from '../../connectors/types/common.ts'
import type { CarOffer } from '../../contract/cars.ts'
import type { ProviderDisplay } from '../../contract/shared.ts'
import type { Caller } from '../providers/calls.ts'
import type { OfferTokens } from './offer-tokens.ts'
import type { PooledOffer } from './ranking.ts'

export const providerDisplay = (provider: Provider): ProviderDisplay => ({
  id: provider.entry.id,
  name: provider.entry.name,
  ...(provider.entry.branding?.logoUrl ? { logoUrl: provider.entry.branding.logoUrl } : {}),
  ...(provider.entry.websiteUrl ? { websiteUrl: provider.entry.websiteUrl } : {}),
})

/**
 * The provider offer an API offer was made from (a symbol key: no serializer writes it), so the search answer can
 * reuse the JSON of an immutable provider offer's fixed fields (see api/cars/search-body.ts).
 */
export const OFFER_SOURCE = Symbol('offer source')
export type PresentedOffer = CarOffer & { [OFFER_SOURCE]?: ProviderCarOffer }

/** A provider's offer as the API shows it: with a fresh single-use token, and a price only when one was asked for. */
export function presentOffer(
  item: PooledOffer,
  provider: Provider,
  caller: Caller,
  tokens: OfferTokens,
  options: { ttlSeconds: number; withPrice: boolean; nonce?: string },
): PresentedOffer {
  const offer: ProviderCarOffer = item.offer
  const usableUntil = new Date(caller.now.getTime() + options.ttlSeconds * 1000)
  const offerToken = tokens.issue('offer', caller.tenant.id, caller.environment, {
    n: options.nonce,
    p: item.providerId,
    r: offer.offerRef,
    x: usableUntil.getTime(),
    a: offer.price.totalPrice.amount,
    c: offer.price.totalPrice.currency,
    k: options.withPrice,
  })
  return {
    [OFFER_SOURCE]: offer,
    vehicle: offer.vehicle,
    pickupLocation: offer.pickupLocation,
    dropoffLocation: offer.dropoffLocation,
    rentalPeriod: offer.rentalPeriod,
    ...(options.withPrice ? { price: offer.price } : {}),
    insurance: offer.insurance,
    refillPolicy: offer.refillPolicy,
    mileageAllowance: offer.mileageAllowance,
    offerToken,
    usableUntil: usableUntil.toISOString(),
    distanceFromSearch: Math.round(offer.distanceMeters),
    provider: providerDisplay(provider),
    ...(offer.deepLinks ? { deepLinks: offer.deepLinks } : {}),
    ...(offer.availableUpsells ? { availableUpsells: offer.availableUpsells } : {}),
    ...(item.recommendation ? { recommendation: item.recommendation } : {}),
    ...(offer.warnings?.length ? { warnings: offer.warnings } : {}),
  }
}
