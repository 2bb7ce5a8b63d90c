import { type Static, Type } from 'typebox'
import { PERMISSIONS } from './access.ts'
import { DateTime, Nullable, OneOf } from './common.ts'
import { LANGUAGES } from './languages.ts'

const Language = Type.Unsafe<string>({ type: 'string', enum: LANGUAGES, description: 'Default language of the tenant' })
const DataRetention = OneOf(['STANDARD', 'NONE'])
const Origin = Type.String({
  pattern: '^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$',
  description: 'scheme://host[:port] (kept in lower case, without a trailing slash)',
})
const PermissionSchema = Type.Unsafe<string>({ type: 'string', enum: [...PERMISSIONS] })

const settings = {
  organization: Nullable(Type.String({ maxLength: 200 })),
  defaultLanguage: Language,
  dataRetention: DataRetention,
  providers: Nullable(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 500,
      description:
        'Enabled provider ids. On input, null (or leaving it out) enables all, now and later; answers list them',
    }),
  ),
  emailOptOut: Type.Boolean(),
  allowedOrigins: Type.Array(Origin, { maxItems: 100 }),
  reservationWindowSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
}

export const Tenant = Type.Object(
  { id: Type.String(), name: Type.String(), ...settings, createdAt: DateTime, updatedAt: DateTime },
  { title: 'Tenant' },
)
export type Tenant = Static<typeof Tenant>

export const TenantCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    organization: Type.Optional(settings.organization),
    defaultLanguage: Type.Optional(settings.defaultLanguage),
    dataRetention: Type.Optional(settings.dataRetention),
    providers: Type.Optional(settings.providers),
    emailOptOut: Type.Optional(settings.emailOptOut),
    allowedOrigins: Type.Optional(settings.allowedOrigins),
    reservationWindowSeconds: Type.Optional(settings.reservationWindowSeconds),
  },
  { additionalProperties: false, title: 'TenantCreateRequest' },
)
export type TenantCreate = Static<typeof TenantCreate>

export const TenantUpdate = Type.Partial(TenantCreate, {
  additionalProperties: false,
  minProperties: 1,
  title: 'TenantUpdateRequest',
})
export type TenantUpdate = Static<typeof TenantUpdate>

export const RateLimitSetting = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    windowSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
  },
  { additionalProperties: false, title: 'RateLimitSetting' },
)

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    tenantId: Type.String(),
    type: OneOf(['secret', 'publishable']),
    environment: OneOf(['live', 'test']),
    name: Nullable(Type.String()),
    prefix: Type.String({ description: 'The key type prefix, e.g. svc_live_' }),
    lastFour: Type.String({ description: 'Last four characters, to recognise the key' }),
    permissions: Type.Array(PermissionSchema),
    rateLimit: RateLimitSetting,
    expiresAt: Nullable(DateTime),
    revokedAt: Nullable(DateTime),
    createdAt: DateTime,
  },
  { title: 'ApiKey' },
)
export type ApiKey = Static<typeof ApiKey>

export const CreatedApiKey = Type.Intersect(
  [ApiKey, Type.Object({ secret: Type.String({ description: 'The full key. Returned only once.' }) })],
  { title: 'CreatedApiKey' },
)
export type CreatedApiKey = Static<typeof CreatedApiKey>

export const ApiKeyCreate = Type.Object(
  {
    type: Type.Optional(OneOf(['secret', 'publishable'], 'Default secret')),
    environment: Type.Optional(OneOf(['live', 'test'], 'Default live')),
    permissions: Type.Optional(
      Type.Array(PermissionSchema, {
        uniqueItems: true,
        description:
          'Default: every permission for a secret key; the catalogue reads for a publishable key (account:read, providers:read, cars:offer:read, public-transport:offer:read, micromobility:offer:read, multimodal:read), which is all a publishable key may hold: asking for more answers 403 FORBIDDEN with details.reason NOT_ALLOWED_FOR_PUBLISHABLE_KEY and details.refusedPermissions',
      }),
    ),
    rateLimit: Type.Optional(RateLimitSetting),
    expiresAt: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description: 'Must lie in the future (else 400 INVALID_REQUEST); absent or null: the key never expires',
        }),
      ),
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false, title: 'ApiKeyCreateRequest' },
)
export type ApiKeyCreate = Static<typeof ApiKeyCreate>
