/**
 * When this process's event loop stood still. A timer that fires late (the loop was blocked, or the machine was too
 * busy to run the process) runs before the replies that arrived meanwhile are read: a query or command that was
 * answered in time then "times out" all the same. Such a timeout says nothing about the server, so it must not stop
 * every other request from using it (src/store/postgres.ts, src/platform/kv/redis.ts).
 */
export interface LoopStalls {
  /** How long the loop stood still since `since` (a `performance.now()` time), the stall under way now included. */
  stalledSince(since: number): number
  /**
   * Whether a timeout of `timeoutMs` that fires now is explained by the loop standing still: it stood still for a
   * third or more of that time within the last two timeouts (a reply that came in time could not be read then).
   */
  explains(timeoutMs: number): boolean
  close(): void
}

/**
 * A timeout error that says whether the loop's stalls ended it (`stalled`): a query or command gets back the time the
 * loop lost, so its timeout means a server that did not answer in time the loop ran, unless the cap on that (a few
 * timeouts in all) ended it first. Its handler must not excuse it again by the stalls around it.
 */
export function timeoutError(message: string, stalled: boolean): Error & { stalled: boolean } {
  return Object.assign(new Error(message), { stalled })
}

/** Whether a timeout was ended by the loop's stalls: the error's own mark, else what the stalls around now say. */
export function stalledTimeout(error: unknown, stalls: LoopStalls | undefined, timeoutMs: number): boolean {
  const mark = (error as { stalled?: unknown } | undefined)?.stalled
  if (typeof mark === 'boolean') return mark
  return stalls?.explains(timeoutMs) ?? false
}

/** How often the loop is checked. */
const BEAT_MS = 100
/** A beat this late is a stall; shorter delays are a loop busy with ordinary work. */
const STALL_MIN_MS = 50
/** Stalls kept (older ones are of no use to a timeout of seconds). */
const KEEP = 64

export function watchLoopStalls(now: () => number = () => performance.now()): LoopStalls {
  let lastBeat = now()
  const stalls: { from: number; to: number }[] = []
  const beat = () => {
    const at = now()
    if (at - lastBeat - BEAT_MS >= STALL_MIN_MS) {
      stalls.push({ from: lastBeat + BEAT_MS, to: at })
      if (stalls.length > KEEP) stalls.shift()
    }
    lastBeat = at
  }
  const timer = setInterval(beat, BEAT_MS)
  timer.unref()
  const stalledSince = (since: number) => {
    const at = now()
    let total = 0
    for (const s of stalls) total += Math.max(0, Math.min(s.to, at) - Math.max(s.from, since))
    // The beat that is due has not run yet (a late timer of a query may run before it): the loop is standing still.
    if (at - lastBeat - BEAT_MS >= STALL_MIN_MS) total += Math.max(0, at - Math.max(lastBeat + BEAT_MS, since))
    return total
  }
  return {
    stalledSince,
    explains: (timeoutMs) => stalledSince(now() - 2 * timeoutMs) >= timeoutMs / 3,
    close: () => clearInterval(timer),
  }
}
