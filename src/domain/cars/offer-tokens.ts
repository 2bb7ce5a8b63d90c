import { ApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { randomChunk, randomId } from '../../platform/random.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { tokenContext, tokenError } from '../token-diagnosis.ts'

export interface OfferClaim {
  /** Nonce: what single use is keyed on. */
  n: string
  /** Provider id. */
  p: string
  /** The provider's offer or prebook reference. */
  r: string
  /** Expiry, ms since epoch. */
  x: number
  /** Price at issue: amount and currency (to report price changes). */
  a: number
  c: string
  /** Whether the search asked for a price (estimatedKilometers). */
  k: boolean
  /** Public transport: when the journey leaves (ms); after it the offer is gone whatever its validity. */
  d?: number
}

type Kind = 'offer' | 'prebooked' | 'pt-offer' | 'pt-prebooked'
/** Nonces of 12 bytes drawn at once (randomChunk hands out at most 256 bytes). */
const NONCES_PER_DRAW = 21
const context = tokenContext

const expired = (field: string, until: number) =>
  new ApiError('OFFER_EXPIRED', undefined, {
    [field]: detail('HAS_EXPIRED'),
    usableUntil: new Date(until).toISOString(),
  })

/** Offer and prebooked tokens: sealed by TokenCipher, bound to tenant, environment and kind; expiry inside. */
export function createOfferTokens(tokens: TokenCipher) {
  const decode = (kind: Kind, tenantId: string, environment: string, token: string, field: string): OfferClaim => {
    const claim = tokens.open<OfferClaim>(context(kind, tenantId, environment), token)
    if (!claim || typeof claim.n !== 'string' || typeof claim.p !== 'string' || typeof claim.x !== 'number') {
      // Say what it is instead: another kind of token, a token of the other environment, or none of ours.
      throw tokenError('INVALID_OFFER_TOKEN', tokens, kind, { tenantId, environment }, token, field)
    }
    return claim
  }
  return {
    issue(kind: Kind, tenantId: string, environment: string, claim: Omit<OfferClaim, 'n'> & { n?: string }): string {
      return tokens.seal(context(kind, tenantId, environment), {
        ...claim,
        n: claim.n ?? randomId(12),
      })
    },
    /**
     * Tokens for a page of offers at once (see TokenCipher.sealMany): each opens on its own, as `issue`'s do. The
     * nonces come from one draw of random bytes, 12 each, as `issue` makes them.
     */
    issueMany(kind: Kind, tenantId: string, environment: string, claims: Omit<OfferClaim, 'n'>[]): string[] {
      const sealed: OfferClaim[] = []
      for (let from = 0; from < claims.length; from += NONCES_PER_DRAW) {
        const nonces = randomChunk(12 * Math.min(NONCES_PER_DRAW, claims.length - from)).toString('base64url')
        for (let i = from; i < Math.min(from + NONCES_PER_DRAW, claims.length); i++) {
          // 12 bytes are 16 base64url characters, no padding: each nonce is its own stretch of the text.
          sealed.push({ ...claims[i], n: nonces.slice(16 * (i - from), 16 * (i - from + 1)) })
        }
      }
      return tokens.sealMany(context(kind, tenantId, environment), sealed)
    },
    /** The claim; INVALID_OFFER_TOKEN (details.reason: WRONG_TOKEN_KIND, OTHER_ENVIRONMENT, MALFORMED_TOKEN); OFFER_EXPIRED after expiry. */
    open(kind: Kind, tenantId: string, environment: string, token: string, now: Date, field: string): OfferClaim {
      const claim = decode(kind, tenantId, environment, token, field)
      if (claim.x <= now.getTime()) throw expired(field, claim.x)
      return claim
    },
    /**
     * As `open`, for a token whose validity can be extended past its own (`x`): usable until `extendedUntil` says,
     * when that is later. The claim's `x` is the validity in force.
     */
    async openExtended(
      kind: Kind,
      tenantId: string,
      environment: string,
      token: string,
      now: Date,
      field: string,
      extendedUntil: (claim: OfferClaim) => Promise<number | undefined>,
    ): Promise<OfferClaim> {
      const claim = decode(kind, tenantId, environment, token, field)
      if (claim.x > now.getTime()) return claim
      const until = Math.max(claim.x, (await extendedUntil(claim)) ?? 0)
      if (until <= now.getTime()) throw expired(field, until)
      return { ...claim, x: until }
    },
  }
}

export type OfferTokens = ReturnType<typeof createOfferTokens>
