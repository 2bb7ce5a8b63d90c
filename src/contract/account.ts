import { type Static, Type } from 'typebox'
import { ApiKey, Tenant } from './admin.ts'
import { OneOf } from './common.ts'

export const AuthCheck = Type.Object(
  {
    tenant: Type.Pick(Tenant, ['id', 'name', 'organization']),
    key: Type.Pick(ApiKey, ['id', 'type', 'environment', 'name', 'prefix', 'expiresAt']),
    environment: OneOf(['live', 'test']),
    permissions: ApiKey.properties.permissions,
    dataRetention: Tenant.properties.dataRetention,
    defaultLanguage: Type.String({ description: "The tenant's default language" }),
    language: Type.String({ description: 'The language negotiated for this request from Accept-Language' }),
    rateLimit: Type.Object({
      limit: Type.Integer({ description: 'Requests allowed per window' }),
      windowSeconds: Type.Integer(),
      remaining: Type.Integer({ description: 'Requests left in the current window, this one counted' }),
      reset: Type.Integer({ description: 'Unix seconds when the oldest counted request leaves the window' }),
    }),
  },
  { title: 'AuthCheck' },
)
export type AuthCheck = Static<typeof AuthCheck>
