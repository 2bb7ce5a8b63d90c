import type {
  Capabilities,
  CarConnector,
  ConnectorFactory,
  MicromobilityConnector,
  PublicTransportConnector,
} from '../types.ts'
import { createSandboxCarConnector } from './cars/connector.ts'
import { createSandboxMicroConnector } from './micro/connector.ts'
import { parseSandboxOptions, SANDBOX_PROFILES, type SandboxProfile } from './options.ts'
import { createSandboxTransitConnector } from './transit/connector.ts'

export { SANDBOX_SCENARIOS, type SandboxScenarioName } from './common.ts'
export { parseSandboxOptions, SANDBOX_PROFILES, type SandboxOptions, type SandboxProfile } from './options.ts'

const capabilitiesOf = (profile: SandboxProfile, disabled: string[] = []): Capabilities => {
  const capabilities = SANDBOX_PROFILES[profile]
  return {
    ...capabilities,
    modalities: [...capabilities.modalities],
    operations: capabilities.operations.filter((o) => !disabled.includes(o)),
  } as Capabilities
}

/**
 * Profiles `rent` and `share` are simulated car providers (CarConnector, see ./cars), `scoot` and `bike` simulated
 * micromobility providers (MicromobilityConnector, see ./micro), `transit` a simulated public-transport provider
 * (PublicTransportConnector with ticketing, see ./transit) over the bundled Berlin GTFS feed.
 */
export const sandbox: ConnectorFactory = (entry, deps) => {
  const options = parseSandboxOptions(entry.options, entry.id)
  const capabilities = capabilitiesOf(options.profile, options.disabledOperations)
  if (options.profile === 'rent' || options.profile === 'share') {
    return createSandboxCarConnector(options.profile, entry, deps, capabilities, options) satisfies CarConnector
  }
  if (options.profile === 'scoot' || options.profile === 'bike') {
    return createSandboxMicroConnector(
      options.profile,
      entry,
      deps,
      capabilities,
      options,
    ) satisfies MicromobilityConnector
  }
  return createSandboxTransitConnector(
    entry,
    deps,
    capabilities,
    options,
    new URL('./transit/feed/', import.meta.url),
  ) satisfies PublicTransportConnector
}
