import { setFlagsFromString } from 'node:v8'

/**
 * Turns off V8's allocation-site pretenuring for this process, unless node was started with a pretenuring flag of
 * its own. Called once, first thing when the service starts (src/main.ts).
 *
 * V8 watches each allocation site: when most objects of one survive a young-generation collection (a scavenge), it
 * allocates that site's objects in the old generation from then on. A request's objects that live through its
 * providers' wait (~100 ms of a car search, while scavenges come every ~250 ms) survive about half the time, so their
 * sites were pretenured (`--trace-pretenuring`: "tenure" at survival ratios of 0.31 to 0.73). Those objects then die
 * in the old generation, where only a full collection finds them, and until then every young object they point to
 * counts as alive: the scavenges kept and promoted the rest of each finished search. Measured at 100 car searches in
 * flight (`npm run bench -- car-search`, `--trace-gc-nvp`): 5.1 MB promoted per scavenge with pretenuring and 1.45 MB
 * without (the search sessions, which do live on), scavenges of 11.6 ms instead of 7.2 ms, and less CPU per search.
 */
const PRETENURING_FLAG = /allocation[-_]site[-_]pretenuring/

export function noAllocationSitePretenuring(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => PRETENURING_FLAG.test(arg))
  if (!given) setFlagsFromString('--no-allocation-site-pretenuring')
}
