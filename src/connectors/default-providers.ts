import type { ProviderEntry } from './types/common.ts'

const BOTH: ProviderEntry['environments'] = ['live', 'test']
/** The official GBFS sample feeds bundled with the connector, read from disk with their sibling files. */
const sampleFeed = (version: string) => new URL(`./gbfs/fixtures/${version}/gbfs.json`, import.meta.url).href

/**
 * The built-in demo list: the five sandbox providers of DECISIONS in both environments (ids are binding), and the
 * official GBFS sample feeds so that a fresh start shows real GBFS data too.
 */
export const DEFAULT_PROVIDERS: ProviderEntry[] = [
  {
    id: 'sandbox-rent',
    name: 'Sandbox Rent',
    connector: 'sandbox',
    environments: BOTH,
    countries: ['DE', 'FR', 'AT'],
    languages: ['de', 'en', 'fr'],
    websiteUrl: 'https://rent.sandbox.example',
    branding: { primaryColor: '#0B5FFF', secondaryColor: '#FFFFFF' },
    contact: {
      email: 'support@rent.sandbox.example',
      phone: '+49 30 1234560',
      url: 'https://rent.sandbox.example/help',
    },
    options: { profile: 'rent' },
  },
  {
    id: 'sandbox-share',
    name: 'Sandbox Share',
    connector: 'sandbox',
    environments: BOTH,
    countries: ['DE'],
    languages: ['de', 'en'],
    websiteUrl: 'https://share.sandbox.example',
    branding: { primaryColor: '#00A86B', secondaryColor: '#0F172A' },
    contact: { email: 'hello@share.sandbox.example', phone: '+49 30 1234561' },
    options: { profile: 'share' },
  },
  {
    id: 'sandbox-scoot',
    name: 'Sandbox Scoot',
    connector: 'sandbox',
    environments: BOTH,
    countries: ['DE'],
    languages: ['de', 'en'],
    websiteUrl: 'https://scoot.sandbox.example',
    branding: { primaryColor: '#FF5A1F', secondaryColor: '#111827' },
    contact: { email: 'ride@scoot.sandbox.example' },
    options: { profile: 'scoot' },
  },
  {
    id: 'sandbox-bike',
    name: 'Sandbox Bike',
    connector: 'sandbox',
    environments: BOTH,
    countries: ['DE'],
    languages: ['de', 'en'],
    websiteUrl: 'https://bike.sandbox.example',
    branding: { primaryColor: '#E11D48', secondaryColor: '#FFFFFF' },
    contact: { url: 'https://bike.sandbox.example/contact' },
    options: { profile: 'bike' },
  },
  {
    id: 'sandbox-transit',
    name: 'Sandbox Transit',
    connector: 'sandbox',
    environments: BOTH,
    countries: ['DE'],
    languages: ['de', 'en'],
    websiteUrl: 'https://transit.sandbox.example',
    branding: { primaryColor: '#FFD800', secondaryColor: '#1F2937' },
    contact: { email: 'service@transit.sandbox.example', phone: '+49 30 1234563' },
    options: { profile: 'transit' },
  },
  {
    id: 'gbfs-sample-oslo',
    name: 'GBFS 2.3 sample system (Oslo)',
    connector: 'gbfs',
    environments: BOTH,
    countries: ['NO'],
    languages: ['en'],
    branding: { primaryColor: '#1D4ED8' },
    contact: { url: 'https://github.com/MobilityData/gbfs' },
    options: { url: sampleFeed('v2.3'), localFeeds: true },
  },
  {
    id: 'gbfs-sample-paris',
    name: 'GBFS 3.0 sample system (Paris)',
    connector: 'gbfs',
    environments: BOTH,
    countries: ['FR'],
    languages: ['en', 'fr'],
    branding: { primaryColor: '#059669' },
    contact: { url: 'https://github.com/MobilityData/gbfs' },
    options: { url: sampleFeed('v3.0'), localFeeds: true },
  },
]

/** The built-in providers whose data are MobilityData's sample files: fixed, and years old by design. */
export const SAMPLE_PROVIDER_IDS = ['gbfs-sample-oslo', 'gbfs-sample-paris']

/**
 * Gives the bundled sample systems a logger of their own: what their feeds' checks find (every `last_updated` is
 * years old, a zone names a vehicle type the sample does not publish) is expected of demo data, so it is said once
 * at info level with the details at debug, rather than as warnings that read like a failing start.
 */
export function quietSamples(
  entries: ProviderEntry[],
  log: { info(message: string): void; debug(message: string): void },
): ProviderEntry[] {
  let told = false
  return entries.map((entry) => {
    if (!SAMPLE_PROVIDER_IDS.includes(entry.id)) return entry
    const logger = {
      warn: (message: string) => {
        if (!told) {
          told = true
          log.info(
            `the bundled GBFS samples (${SAMPLE_PROVIDER_IDS.join(', ')}) are fixed demo data, years old by design: ` +
              'served as they are (what their feed checks report is logged at debug level)',
          )
        }
        log.debug(`gbfs ${entry.id}: ${message}`)
      },
    }
    return { ...entry, options: { ...entry.options, logger } }
  })
}
