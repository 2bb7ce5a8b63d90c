import type { Counter, Histogram } from 'prom-client'

type CallLabels = { provider: string; operation: string }
type OutcomeLabels = CallLabels & { outcome: string }

/**
 * The figures of one provider and operation: calls by outcome counted since the last scrape, and the latency
 * observations per bucket (not cumulative; the last slot is past the highest bound), their sum and count.
 */
export interface ProviderCallTally {
  /** Counts one call that ended with `outcome` after `seconds`. */
  observe(outcome: string, seconds: number): void
}

/** The value prom-client's Histogram keeps per label set, under its hash of the labels (prom-client 15, `observe`). */
interface HistogramEntry {
  labels: CallLabels
  bucketValues: Record<number, number>
  sum: number
  count: number
}

/**
 * `provider_calls_total` and `provider_call_duration_seconds`, counted per call in plain numbers and handed to
 * prom-client when a scrape collects them, as requestTally does for the request metrics: prom-client's `inc` and
 * `observe` check and hash the labels at every call, even through `labels()` children (20 provider calls per car
 * search, ~7 % of its profile). The label sets are bounded: providers × operations × outcomes.
 *
 * Each provider and operation gets its tally once (`of`), so a call costs a bucket search and one map look-up by
 * its outcome. The counter gets what was counted since the last scrape through its own `inc`, in the order the
 * outcomes were first seen; the histogram's collect writes the totals as the values prom-client itself keeps per
 * label set. The same text comes out (test/unit/provider-tally.test.ts).
 */
export function providerTally(bounds: readonly number[]) {
  const kinds = new Map<string, Map<string, Kind>>()
  /** Tallies and outcome counts in the order first seen, which is the order prom-client lists series in. */
  const all: Kind[] = []
  const counts: { labels: OutcomeLabels; pending: number }[] = []

  class Kind implements ProviderCallTally {
    readonly labels: CallLabels
    readonly outcomes = new Map<string, { labels: OutcomeLabels; pending: number }>()
    readonly buckets: number[] = Array(bounds.length + 1).fill(0)
    sum = 0
    count = 0
    /** Whether an observation was made: prom-client lists a label set from its first observation on. */
    seen = false
    constructor(provider: string, operation: string) {
      this.labels = { provider, operation }
    }
    observe(outcome: string, seconds: number): void {
      if (!this.seen) {
        this.seen = true
        all.push(this)
      }
      let b = 0
      while (b < bounds.length && seconds > bounds[b]) b++
      this.buckets[b]++
      this.sum += seconds
      this.count++
      let counted = this.outcomes.get(outcome)
      if (counted === undefined) {
        counted = { labels: { ...this.labels, outcome }, pending: 0 }
        this.outcomes.set(outcome, counted)
        counts.push(counted)
      }
      counted.pending++
    }
  }

  return {
    /** The tally of one provider and operation (made on first use, then the same object). */
    of(provider: string, operation: string): ProviderCallTally {
      let byOperation = kinds.get(provider)
      if (byOperation === undefined) {
        byOperation = new Map()
        kinds.set(provider, byOperation)
      }
      let kind = byOperation.get(operation)
      if (kind === undefined) {
        kind = new Kind(provider, operation)
        byOperation.set(operation, kind)
      }
      return kind
    },
    /** Adds what was counted since the last call to the counter. */
    flushCounts(counter: Counter<'provider' | 'operation' | 'outcome'>): void {
      for (const counted of counts) {
        if (counted.pending === 0) continue
        counter.inc(counted.labels, counted.pending)
        counted.pending = 0
      }
    },
    /** Puts the totals into the histogram, as its own observations would have left them. */
    writeLatency(histogram: Histogram<'provider' | 'operation'>): void {
      const kept = (histogram as unknown as { hashMap: Record<string, HistogramEntry> }).hashMap
      for (const kind of all) {
        const bucketValues: Record<number, number> = {}
        for (let i = 0; i < bounds.length; i++) bucketValues[bounds[i]] = kind.buckets[i]
        // prom-client's hash of the labels: its sorted label names, `name:value,` each.
        kept[`operation:${kind.labels.operation},provider:${kind.labels.provider},`] = {
          labels: kind.labels,
          bucketValues,
          sum: kind.sum,
          count: kind.count,
        }
      }
    },
  }
}
