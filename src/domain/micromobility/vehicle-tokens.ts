import { ApiError } from '../../contract/errors.ts'
import { detail } from '../../platform/i18n/texts.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { Caller } from '../providers/calls.ts'
import { tokenContext, tokenError } from '../token-diagnosis.ts'

/** How long a vehicle token lets a rider reserve or start the vehicle. */
export const VEHICLE_TOKEN_TTL_MS = 5 * 60 * 1000

const context = (caller: Caller) => tokenContext('vehicle', caller.tenant.id, caller.environment)

export interface VehicleClaim {
  p: string
  v: string
  x: number
}

export function createVehicleTokens(tokens: TokenCipher) {
  // The vehicles of one page share their validity: its text is made once, not per vehicle.
  let last = { ms: Number.NaN, iso: '' }
  return {
    issue(caller: Caller, providerId: string, vehicleId: string) {
      const x = caller.now.getTime() + VEHICLE_TOKEN_TTL_MS
      if (last.ms !== x) last = { ms: x, iso: new Date(x).toISOString() }
      return {
        vehicleToken: tokens.seal(context(caller), { p: providerId, v: vehicleId, x }),
        tokenValidUntil: last.iso,
      }
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
