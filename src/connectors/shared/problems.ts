/**
 * Recent problems of one feed or API provider (GBFS, GTFS, TOMP): bad records skipped, feeds that failed, quirks
 * worked around.
 * Identical messages are counted rather than repeated, so a feed refreshed every 15 s with the same bad record
 * keeps one line; the oldest lines drop out past `capacity`.
 */
export class ProblemLog {
  private readonly entries = new Map<string, { count: number; last: Date }>()
  private readonly clock: () => Date
  private readonly onProblem?: (message: string) => void
  private readonly capacity: number

  constructor(clock: () => Date, onProblem?: (message: string) => void, capacity = 200) {
    this.clock = clock
    this.onProblem = onProblem
    this.capacity = capacity
  }

  add(message: string): void {
    const existing = this.entries.get(message)
    // Re-inserting moves the message to the end (most recent).
    this.entries.delete(message)
    this.entries.set(message, { count: (existing?.count ?? 0) + 1, last: this.clock() })
    if (!existing) this.onProblem?.(message)
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string
      this.entries.delete(oldest)
    }
  }

  /**
   * A reporter for one read of one feed: the first `limit` messages are logged as `<feed>: <message>`, the rest
   * counted and summed up by `flush()`.
   */
  scope(feed: string, limit = 25): { report: (message: string) => void; flush: () => void } {
    let count = 0
    return {
      report: (message) => {
        count++
        if (count <= limit) this.add(`${feed}: ${message}`)
      },
      flush: () => {
        if (count > limit) this.add(`${feed}: ${count - limit} more problems not listed`)
      },
    }
  }

  /** Most recent last: `<time> <message>` with ` (×n)` when it happened n times. */
  list(): string[] {
    return [...this.entries].map(
      ([message, { count, last }]) => `${last.toISOString()} ${message}${count > 1 ? ` (×${count})` : ''}`,
    )
  }
}

/** A connector's problem log that also logs each new problem as `<kind> <providerId>: <message>`. */
export const problemLog = (
  kind: string,
  providerId: string,
  clock: () => Date,
  logger: { warn(message: string): void } | undefined,
) => new ProblemLog(clock, logger ? (message) => logger.warn(`${kind} ${providerId}: ${message}`) : undefined)
