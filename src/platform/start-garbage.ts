import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * One full garbage collection once the service listens. The start leaves a lot behind that V8 would only return ~20 s
 * later (its memory reducer): the heap grown while the sources and dependencies loaded, and on a first start the
 * second PGlite instance that ran initdb (a closed WASM instance with its 128+ MiB of memory). Collecting it at once
 * takes tens of milliseconds, before the first request; idle RSS is then what the service really holds.
 */
export function collectStartGarbage(): void {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as ((options?: object) => void) | undefined
  gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}
