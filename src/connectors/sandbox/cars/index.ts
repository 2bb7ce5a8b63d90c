import type { CarConnector } from '../../types/cars.ts'
import type { Capabilities, ConnectorDeps, ProviderEntry } from '../../types/common.ts'
import type { SimulationOptions } from '../common.ts'
import { managing } from './managing.ts'
import type { ProfileKind } from './policies.ts'
import { carRuntime } from './runtime.ts'
import { shopping } from './shopping.ts'

/**
 * A simulated car provider (DECISIONS "Test environment and sandbox"): `rent` is station-based car rental,
 * `share` app-based car sharing. Its state (availability, bookings) lives in `deps.kv` under
 * `sandbox:<providerId>:<environment>:`, so every instance of the service sees the same provider.
 */
export function createSandboxCarConnector(
  kind: ProfileKind,
  entry: ProviderEntry,
  deps: ConnectorDeps,
  capabilities: Capabilities,
  options: SimulationOptions,
): CarConnector {
  const rt = carRuntime(kind, entry, deps, options)
  return { capabilities, ...shopping(rt), ...managing(rt) } satisfies CarConnector
}

export { SANDBOX_SCENARIOS, type SandboxScenarioName } from '../../../contract/sandbox.ts'
export { RENT_FLEET, type SandboxVehicleModel } from './fleet.ts'
export { CAR_PROFILES, type CarProfile } from './profiles.ts'
export { SHARE_FLEET, SHARE_STATIONS } from './share.ts'
export { RENT_STATIONS, type SandboxStation } from './stations.ts'
