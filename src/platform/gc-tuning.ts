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
 * counts as alive: the scavenges kept and promoted the rest of each finished search. Whether V8 takes that decision
 * depends on timing; in the runs where it did (100 car searches in flight, `--trace-gc-nvp`), each scavenge promoted
 * 5.1 MB instead of 1.45 MB (the search sessions, which do live on) and took 11.6 ms instead of 7.2 ms, and a search
 * cost 10-20 % more CPU. Without pretenuring every run is like the good ones (README, Benchmarks: car-search).
 */
const PRETENURING_FLAG = /allocation[-_]site[-_]pretenuring/

export function noAllocationSitePretenuring(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => PRETENURING_FLAG.test(arg))
  if (!given) setFlagsFromString('--no-allocation-site-pretenuring')
}
