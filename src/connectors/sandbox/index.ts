import type { CarConnector } from '../types/cars.ts'
import type { Capabilities, ConnectorFactory } from '../types/common.ts'
import type { MicromobilityConnector } from '../types/micromobility.ts'
import type { PublicTransportConnector } from '../types/public-transport.ts'
import { createSandboxCarConnector } from './cars/index.ts'
import { createSandboxMicroConnector } from './micro/index.ts'
import { parseSandboxOptions, SANDBOX_PROFILES, type SandboxProfile } from './options.ts'
import { createSandboxTransitConnector } from './transit/index.ts'

export { SANDBOX_SCENARIOS, type SandboxScenarioName } from '../../contract/sandbox.ts'
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
 *
 * The folder has the shape of the protocol connectors where it can: this index.ts is the one factory, options.ts
 * the one schema of its options, and each profile's folder has its factory in index.ts. It has no client.ts and no
 * map*.ts because nothing is read from a provider and there is no vendor format to map: the simulations answer in
 * the domain's shapes, from tables in code (cars/fleet.ts, micro/zones.ts, transit/network.ts) and state in the
 * shared key-value store. Its one feed, transit/feed/, is generated from transit/network.ts by make-feed.ts and
 * read through the GTFS connector, as a real feed would be.
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
