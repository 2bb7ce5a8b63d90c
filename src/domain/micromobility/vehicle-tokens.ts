import { ApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { Caller } from '../providers/calls.ts'
import { tokenContext, tokenError } from '../token-diagnosis.ts'
import { createCompactTokenCodec, openingCompactTokens, type VehicleClaim } from './compact-tokens.ts'

export type { VehicleClaim } from './compact-tokens.ts'

/** How long a vehicle token lets a rider reserve or start the vehicle. */
export const VEHICLE_TOKEN_TTL_MS = 5 * 60 * 1000

const context = (caller: Caller) => tokenContext('vehicle', caller.tenant.id, caller.environment)

/**
 * Vehicle tokens: sealed in the compact format (compact-tokens.ts), a page's at once; tokens of the general
 * format (those issued before it) still open. `cipher` is `tokens` opening the compact tokens as well: the one the
 * services use, so the token diagnosis recognises a vehicle token wherever it is sent.
 */
export function createVehicleTokens(general: TokenCipher) {
  const codec = createCompactTokenCodec(general)
  const tokens = openingCompactTokens(general, codec)
  // The vehicles of one page share their validity: its text is made once, not per vehicle.
  let last = { ms: Number.NaN, iso: '' }
  const validity = (caller: Caller) => {
    const x = caller.now.getTime() + VEHICLE_TOKEN_TTL_MS
    if (last.ms !== x) last = { ms: x, iso: new Date(x).toISOString() }
    return last
  }
  /** Tokens for the vehicles `[providerId, vehicleId]` of one answer, in order, and their shared validity. */
  const issueAll = (caller: Caller, vehicles: readonly (readonly [string, string])[]) => {
    const { ms: x, iso: tokenValidUntil } = validity(caller)
    const claims = vehicles.map(([p, v]): VehicleClaim => ({ p, v, x }))
    const sealed = codec?.sealVehicles(context(caller), claims)
    // A claim the compact format cannot carry (an id over 255 bytes) is sealed in the general one.
    const vehicleTokens = claims.map((claim, i) => sealed?.[i] ?? general.seal(context(caller), claim))
    return { vehicleTokens, tokenValidUntil }
  }
  return {
    cipher: tokens,
    /** The cipher of the search's cursors: seals in the compact JSON format, opens every format. */
    cursorCipher: openingCompactTokens(general, codec, true),
    issueAll,
    issue(caller: Caller, providerId: string, vehicleId: string) {
      const { vehicleTokens, tokenValidUntil } = issueAll(caller, [[providerId, vehicleId]])
      return { vehicleToken: vehicleTokens[0], tokenValidUntil }
    },
    /** The claim of a well-formed token of this key, expired or not; undefined otherwise. */
    peek(caller: Caller, token: string): VehicleClaim | undefined {
      const claim = tokens.open<VehicleClaim>(context(caller), token)
      return claim && typeof claim.p === 'string' && typeof claim.v === 'string' ? claim : undefined
    },
    /** NOT_FOUND for a token that is not one of ours (spec 7.1); `expired` (OFFER_EXPIRED by default) once it ran out. */
    open(
      caller: Caller,
      token: string,
      field = 'vehicleToken',
      expired: 'OFFER_EXPIRED' | 'NOT_FOUND' = 'OFFER_EXPIRED',
    ): VehicleClaim {
      const claim = tokens.open<VehicleClaim>(context(caller), token)
      if (!claim || typeof claim.p !== 'string' || typeof claim.v !== 'string') {
        const { id: tenantId } = caller.tenant
        throw tokenError('NOT_FOUND', tokens, 'vehicle', { tenantId, environment: caller.environment }, token, field)
      }
      if (claim.x <= caller.now.getTime()) {
        throw new ApiError(expired, undefined, {
          [field]: detail('HAS_EXPIRED_SEARCH_AGAIN'),
          reason: 'VEHICLE_TOKEN_EXPIRED',
          tokenValidUntil: new Date(claim.x).toISOString(),
        })
      }
      return claim
    },
  }
}

export type VehicleTokens = ReturnType<typeof createVehicleTokens>
