import type { PropulsionType, VehicleType } from '../../contract/micromobility.ts'

/** Names of a vehicle without one: [human or unknown propulsion, motorised]. */
const NAMES: Record<VehicleType, [string, string]> = {
  // [human or unknown, motorised]
  BICYCLE: ['Bicycle', 'E-bike'],
  CARGO_BICYCLE: ['Cargo bike', 'Electric cargo bike'],
  SCOOTER: ['Kick scooter', 'E-scooter'],
  MOPED: ['Moped', 'E-moped'],
  CAR: ['Car', 'Car'],
  OTHER: ['Vehicle', 'Vehicle'],
}

/** The name of a vehicle that has none of its own, by type and propulsion (GBFS and TOMP alike). */
export const defaultName = (type: VehicleType, propulsion: PropulsionType) =>
  NAMES[type][propulsion === 'HUMAN' ? 0 : 1]
