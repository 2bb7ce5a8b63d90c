import { createHmac } from 'node:crypto'
import type { ProviderMicroVehicle } from '../../connectors/types/micromobility.ts'

/**
 * The `vehicle_id` of GBFS out. GBFS says it "MUST be rotated to a random string after each trip" and "SHOULD only be
 * rotated once per trip", so that nobody can follow a rider from where a vehicle was taken to where it was left.
 *
 * The id is the HMAC-SHA256, under a secret derived from TOKEN_KEYS (the same on every instance), of the environment,
 * the provider, the provider's vehicle id and where and how the vehicle stands: its position to 1e-6° (about 0.1 m)
 * and its charge in whole percent. A trip moves the vehicle or drains it (a ride that ends where it began still uses
 * charge), so the id after a trip is new and cannot be linked to the one before; a vehicle that stands still keeps its
 * id, so consumers can follow what is parked. Without the secret the id reveals nothing of the provider's vehicle id.
 * What remains: a human-powered bike brought back to exactly the same point keeps its id, which tells no more than its
 * position already does.
 */

const PURPOSE = 'gbfs-out/vehicle-id/v1'
export const GBFS_VEHICLE_ID_PURPOSE = PURPOSE

/** Where and how a vehicle stands: what a trip changes. */
export function parkedState(v: Pick<ProviderMicroVehicle, 'latitude' | 'longitude' | 'batteryPercent'>): string {
  const charge = v.batteryPercent === undefined ? '-' : String(Math.round(v.batteryPercent))
  return `${v.latitude.toFixed(6)},${v.longitude.toFixed(6)},${charge}`
}

/** Rotated ids for one provider in one environment; `secret` from `TokenCipher.deriveKey(GBFS_VEHICLE_ID_PURPOSE)`. */
export function vehicleIdRotation(secret: Buffer, environment: string, providerId: string) {
  const prefix = `${environment}\n${providerId}\n`
  return (v: Pick<ProviderMicroVehicle, 'vehicleId' | 'latitude' | 'longitude' | 'batteryPercent'>): string =>
    createHmac('sha256', secret)
      .update(`${prefix}${v.vehicleId}\n${parkedState(v)}`)
      .digest('base64url')
      .slice(0, 27)
}
