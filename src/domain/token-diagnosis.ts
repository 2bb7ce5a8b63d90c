import { ApiError, type ErrorCode } from '../contract/errors.ts'
import { detail } from '../platform/i18n/texts.ts'
import type { TokenCipher } from '../platform/tokens.ts'

/**
 * Why a token or cursor did not open, and where it belongs instead. Every token is sealed for one context,
 * `kind|tenant|environment`; when one does not open in the context it was sent to, the same tenant's other contexts
 * are tried (a few AES-GCM attempts, on the failure path only; garbage fails on its header before any). Only the
 * caller's own tenant is tried, so nothing about another tenant is ever revealed: its tokens are MALFORMED_TOKEN.
 */
export type TokenKind =
  | 'offer'
  | 'prebooked'
  | 'pt-offer'
  | 'pt-prebooked'
  | 'vehicle'
  | 'cars-cursor'
  | 'stations-cursor'
  | 'stops-cursor'
  | 'micro-cursor'
  | 'alerts-cursor'
  | 'transit-vehicles-cursor'

/** Each kind: the field it is sent as, where it is sent, and the catalog text saying so. */
const KINDS: Record<TokenKind, { field: string; route: string; text: string }> = {
  offer: { field: 'offerToken', route: 'POST /cars/prebook', text: 'IS_CAR_OFFER_TOKEN' },
  prebooked: { field: 'prebookedOfferToken', route: 'POST /cars/bookings', text: 'IS_CAR_PREBOOKED_TOKEN' },
  'pt-offer': { field: 'offerToken', route: 'POST /public-transport/prebook', text: 'IS_PT_OFFER_TOKEN' },
  'pt-prebooked': {
    field: 'prebookedOfferToken',
    route: 'POST /public-transport/bookings',
    text: 'IS_PT_PREBOOKED_TOKEN',
  },
  vehicle: { field: 'vehicleToken', route: 'POST /micromobility/trips', text: 'IS_VEHICLE_TOKEN' },
  'cars-cursor': { field: 'cursor', route: 'POST /cars', text: 'IS_CURSOR_OF' },
  'stations-cursor': { field: 'cursor', route: 'GET /cars/stations', text: 'IS_CURSOR_OF' },
  'stops-cursor': { field: 'cursor', route: 'GET /public-transport/stops', text: 'IS_CURSOR_OF' },
  'micro-cursor': { field: 'cursor', route: 'POST /micromobility', text: 'IS_CURSOR_OF' },
  'alerts-cursor': { field: 'cursor', route: 'GET /public-transport/alerts', text: 'IS_CURSOR_OF' },
  'transit-vehicles-cursor': { field: 'cursor', route: 'GET /public-transport/vehicles', text: 'IS_CURSOR_OF' },
}
const ALL_KINDS = Object.keys(KINDS) as TokenKind[]
const ENVIRONMENTS = ['live', 'test'] as const
const isCursor = (kind: TokenKind) => kind.endsWith('-cursor')

export const tokenContext = (kind: TokenKind, tenantId: string, environment: string) =>
  `${kind}|${tenantId}|${environment}`

export type Diagnosis =
  | { reason: 'WRONG_TOKEN_KIND' | 'CURSOR_OF_ANOTHER_LIST'; kind: TokenKind }
  | { reason: 'OTHER_ENVIRONMENT'; environment: string }
  | { reason: 'MALFORMED_TOKEN' }

/** What a token that did not open as `expected` in `environment` is, among the same tenant's contexts. */
export function diagnoseToken(
  tokens: TokenCipher,
  expected: TokenKind,
  tenantId: string,
  environment: string,
  token: unknown,
): Diagnosis {
  if (typeof token !== 'string') return { reason: 'MALFORMED_TOKEN' }
  const opens = (kind: TokenKind, env: string) => tokens.open(tokenContext(kind, tenantId, env), token) !== undefined
  for (const kind of ALL_KINDS) {
    if (kind !== expected && opens(kind, environment))
      return { reason: isCursor(kind) && isCursor(expected) ? 'CURSOR_OF_ANOTHER_LIST' : 'WRONG_TOKEN_KIND', kind }
  }
  for (const env of ENVIRONMENTS) {
    if (env !== environment && ALL_KINDS.some((kind) => opens(kind, env)))
      return { reason: 'OTHER_ENVIRONMENT', environment: env }
  }
  return { reason: 'MALFORMED_TOKEN' }
}

/**
 * The error for a token sent as `field` that did not open as `expected`: `code` (INVALID_OFFER_TOKEN,
 * INVALID_CURSOR, NOT_FOUND for vehicle tokens) with `details.reason` and a message naming where it belongs:
 *
 * - WRONG_TOKEN_KIND / CURSOR_OF_ANOTHER_LIST: `{ [field]: 'is a car offer token: send it to POST /cars/prebook',
 *   expected: 'prebookedOfferToken', received: 'offerToken', sendTo: 'POST /cars/prebook' }`
 * - OTHER_ENVIRONMENT: `{ [field]: 'was issued in the live environment: …', tokenEnvironment, keyEnvironment }`
 * - MALFORMED_TOKEN (MALFORMED_CURSOR for a cursor): `{ [field]: 'is not a token …' }`
 */
export function tokenError(
  code: ErrorCode,
  tokens: TokenCipher,
  expected: TokenKind,
  caller: { tenantId: string; environment: string },
  token: unknown,
  field: string,
): ApiError {
  const found = diagnoseToken(tokens, expected, caller.tenantId, caller.environment, token)
  if (found.reason === 'OTHER_ENVIRONMENT') {
    return new ApiError(code, undefined, {
      reason: 'OTHER_ENVIRONMENT',
      [field]: detail('TOKEN_OF_OTHER_ENVIRONMENT', { environment: found.environment }),
      tokenEnvironment: found.environment,
      keyEnvironment: caller.environment,
    })
  }
  if (found.reason === 'MALFORMED_TOKEN') {
    const cursor = isCursor(expected)
    return new ApiError(code, undefined, {
      reason: cursor ? 'MALFORMED_CURSOR' : 'MALFORMED_TOKEN',
      [field]: detail(cursor ? 'CURSOR_MALFORMED' : 'TOKEN_MALFORMED'),
    })
  }
  const received = KINDS[found.kind]
  return new ApiError(code, undefined, {
    reason: found.reason,
    [field]: detail(received.text, { route: received.route }),
    expected: KINDS[expected].field,
    received: received.field,
    sendTo: received.route,
  })
}

export const otherEnvironment = (environment: string): 'live' | 'test' => (environment === 'live' ? 'test' : 'live')

/**
 * For ids (bookings, trips, subscriptions) not found in the key's environment: when the same tenant holds the id in
 * the other environment (one more indexed read, on the 404 path only), the 404 says so: `details.reason`
 * OTHER_ENVIRONMENT, `idEnvironment`, `keyEnvironment` and a `hint`. Other tenants are never looked at.
 */
export async function notFoundOrOtherEnvironment(
  code: 'NOT_FOUND' | 'SUBSCRIPTION_NOT_FOUND',
  details: Record<string, unknown>,
  environment: string,
  existsIn: (environment: 'live' | 'test') => Promise<boolean>,
): Promise<ApiError> {
  const other = otherEnvironment(environment)
  if (!(await existsIn(other).catch(() => false))) return new ApiError(code, undefined, details)
  return new ApiError(code, undefined, {
    ...details,
    reason: 'OTHER_ENVIRONMENT',
    idEnvironment: other,
    keyEnvironment: environment,
    hint: detail('ID_OF_OTHER_ENVIRONMENT', { environment: other }),
  })
}
