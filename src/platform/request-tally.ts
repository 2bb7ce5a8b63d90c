import type { Counter, Histogram } from 'prom-client'

type RequestLabels = { method: string; route: string }
type CountLabels = RequestLabels & { status: string }

interface RouteTally {
  labels: RequestLabels
  /** Answers by status: counted since the last scrape, and the labels they are counted under. */
  statuses: Map<number, { labels: CountLabels; pending: number }>
  /** Observations per bucket (not cumulative; the last slot is past the highest bound), their sum and count. */
  buckets: number[]
  sum: number
  count: number
}

/** The value prom-client's Histogram keeps per label set, under its hash of the labels (prom-client 15, `observe`). */
interface HistogramEntry {
  labels: RequestLabels
  bucketValues: Record<number, number>
  sum: number
  count: number
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, counted per request in plain numbers and handed to
 * prom-client when a scrape collects them. prom-client's labelled `inc` and `observe` check and hash the labels at
 * every call (~0.6 µs a request, the largest item of the metrics in the request profile); here a request costs two
 * map look-ups by strings that are the same objects every time (the route's URL, the method).
 *
 * The counter gets what was counted since the last scrape through its own `inc`. The histogram has no call that adds
 * more than one observation, so its collect writes the totals as the values prom-client itself keeps per label set;
 * the same text comes out (test/http/metrics.test.ts, test/unit/request-tally.test.ts).
 */
export function requestTally(bounds: readonly number[]) {
  const routes = new Map<string, Map<string, RouteTally>>()
  /** Route tallies and status counts in the order first seen, which is the order prom-client lists series in. */
  const all: RouteTally[] = []
  const counts: { labels: CountLabels; pending: number }[] = []
  const bucketOf = (seconds: number) => {
    for (let i = 0; i < bounds.length; i++) if (seconds <= bounds[i]) return i
    return bounds.length
  }
  return {
    observe(method: string, route: string, status: number, seconds: number): void {
      let byMethod = routes.get(route)
      if (byMethod === undefined) {
        byMethod = new Map()
        routes.set(route, byMethod)
      }
      let tally = byMethod.get(method)
      if (tally === undefined) {
        tally = {
          labels: { method, route },
          statuses: new Map(),
          buckets: Array(bounds.length + 1).fill(0),
          sum: 0,
          count: 0,
        }
        byMethod.set(method, tally)
        all.push(tally)
      }
      let answered = tally.statuses.get(status)
      if (answered === undefined) {
        answered = { labels: { method, route, status: String(status) }, pending: 0 }
        tally.statuses.set(status, answered)
        counts.push(answered)
      }
      answered.pending++
      if (!Number.isFinite(seconds)) return
      tally.buckets[bucketOf(seconds)]++
      tally.sum += seconds
      tally.count++
    },
    /** Adds what was counted since the last call to the counter. */
    flushCounts(counter: Counter<'method' | 'route' | 'status'>): void {
      for (const answered of counts) {
        if (answered.pending === 0) continue
        counter.inc(answered.labels, answered.pending)
        answered.pending = 0
      }
    },
    /** Puts the totals into the histogram, as its own observations would have left them. */
    writeLatency(histogram: Histogram<'method' | 'route'>): void {
      const kept = (histogram as unknown as { hashMap: Record<string, HistogramEntry> }).hashMap
      for (const tally of all) {
        if (tally.count === 0) continue
        const bucketValues: Record<number, number> = {}
        for (let i = 0; i < bounds.length; i++) bucketValues[bounds[i]] = tally.buckets[i]
        kept[`method:${tally.labels.method},route:${tally.labels.route},`] = {
          labels: tally.labels,
          bucketValues,
          sum: tally.sum,
          count: tally.count,
        }
      }
    },
  }
}
