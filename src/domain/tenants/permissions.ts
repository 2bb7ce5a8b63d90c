import { PERMISSIONS, type Permission } from '../../contract/access.ts'
/**
 * What a publishable key may hold (DECISIONS "Publishable keys"): the catalogue reads. Such a key sits in a web page
 * and the Origin check binds browsers only, so anything with personal data (bookings, tickets, trips, subscriptions)
 * or acting for the tenant stays with secret keys.
 */
export const CATALOGUE_PERMISSIONS: readonly Permission[] = [
  'account:read',
  'providers:read',
  'cars:offer:read',
  'public-transport:offer:read',
  'micromobility:offer:read',
  'multimodal:read',
]

export type KeyType = 'secret' | 'publishable'

export const defaultPermissions = (type: KeyType): Permission[] =>
  type === 'secret' ? [...PERMISSIONS] : [...CATALOGUE_PERMISSIONS]

export const allowedPermissions = (type: KeyType): readonly Permission[] =>
  type === 'secret' ? PERMISSIONS : CATALOGUE_PERMISSIONS

/**
 * Whether a key of this type and these stored permissions may use a route that needs `permission`. The type is
 * checked, not only the list: publishable keys created before the catalogue rule may still hold more in the store.
 */
export const keyMay = (key: { type: KeyType; permissions: readonly string[] }, permission: Permission): boolean =>
  key.permissions.includes(permission) && allowedPermissions(key.type).includes(permission)

/** The permissions a key can actually use: what it holds, within what its type allows. */
export const effectivePermissions = (key: { type: KeyType; permissions: readonly string[] }): Permission[] => {
  const allowed: readonly string[] = allowedPermissions(key.type)
  return key.permissions.filter((p): p is Permission => allowed.includes(p))
}
