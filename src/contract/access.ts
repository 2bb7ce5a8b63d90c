/** Permission names follow `area:resource:action` (DECISIONS "Operating the service"). */
export const PERMISSIONS = [
  'account:read',
  'providers:read',
  'cars:offer:read',
  'cars:booking:read',
  'cars:booking:write',
  'public-transport:offer:read',
  'public-transport:booking:read',
  'public-transport:booking:write',
  'micromobility:offer:read',
  'micromobility:trip:write',
  'multimodal:read',
  'account:webhook:write',
] as const

export type Permission = (typeof PERMISSIONS)[number]

/** The two environments of every tenant: `live` (real providers) and `test` (the sandbox; `svc_test_` keys). */
export const ENVIRONMENTS = ['live', 'test'] as const
export type Environment = (typeof ENVIRONMENTS)[number]
