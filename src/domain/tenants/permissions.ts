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
] as const

export type Permission = (typeof PERMISSIONS)[number]

export const READ_PERMISSIONS: Permission[] = PERMISSIONS.filter((p) => p.endsWith(':read'))

export type KeyType = 'secret' | 'publishable'
export type Environment = 'live' | 'test'

export const defaultPermissions = (type: KeyType): Permission[] =>
  type === 'secret' ? [...PERMISSIONS] : [...READ_PERMISSIONS]

/** Publishable keys live in browsers: they may only ever hold read permissions. */
export const allowedPermissions = (type: KeyType): readonly Permission[] =>
  type === 'secret' ? PERMISSIONS : READ_PERMISSIONS
