import type { Permission } from '../contract/access.ts'
import type { ApiKeyRow, TenantRow } from '../store/schema.ts'
import type { StatusOverrides } from './errors.ts'
import type { RouteError } from './openapi/route-errors.ts'

export interface AuthContext {
  tenant: TenantRow
  key: ApiKeyRow
  rateLimit: { limit: number; remaining: number; resetAt: number; windowSeconds: number }
}

/** What a route declares about itself; read by the auth hook and the error handler. */
export interface RouteAccess {
  /** The permission a key needs. Routes without one are public (docs, health). */
  permission?: Permission
  /** Operator routes: the admin token instead of an API key. */
  admin?: boolean
  /** Route-specific statuses (spec 7.2). */
  statusOverrides?: StatusOverrides
  /**
   * The error codes the route's use case answers, beside those of the hooks and the validation; the API document
   * lists them by status (src/http/openapi/route-errors.ts).
   */
  errors?: readonly RouteError[]
  /** Validation failures only in these fields are INVALID_LOCATION rather than INVALID_REQUEST. */
  locationFields?: RegExp
  /** Validation failures only in these fields (malformed or missing dates) are INVALID_DATE_RANGE. */
  dateFields?: RegExp
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext
    /** The negotiated language; empty until the tenant is known. */
    language: string
  }
  interface FastifyContextConfig extends RouteAccess {}
}
