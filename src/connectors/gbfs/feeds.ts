import type { ProblemLog } from '../shared/problems.ts'
import { display, FeedError, type FetchOptions, type FetchResult, fetchJson } from './client.ts'
import { type Envelope, id, isObject, num, readEnvelope } from './map.ts'

/** The feeds the connector reads; the others a system lists (alerts, hours, regions, ...) are left alone. */
export const USED_FEEDS = [
  'vehicle_status',
  'free_bike_status',
  'station_information',
  'station_status',
  'vehicle_types',
  'system_pricing_plans',
  'geofencing_zones',
  'system_information',
] as const
export type FeedName = (typeof USED_FEEDS)[number]

/** Feeds whose `last_updated` should be recent; the others (types, plans, zones) may rightly be months old. */
const REALTIME: ReadonlySet<string> = new Set(['vehicle_status', 'free_bike_status', 'station_status'])
const MAX_TTL_SECONDS = 86_400
const MAX_BACKOFF_MS = 600_000
const STALE_AFTER_MS = 3_600_000
const FUTURE_TOLERANCE_MS = 300_000

export interface FeedsConfig {
  /** Discovery: gbfs.json, a 3.0 manifest.json or a gbfs_versions.json. */
  url: URL
  language?: string
  localFeeds: boolean
  systemId?: string
  minTtlSeconds: number
  timeoutMs: number
  maxFeedBytes: number
  headers?: Record<string, string>
  log: ProblemLog
  /** Wall clock: staleness of `last_updated`. */
  clock: () => Date
  /** Monotonic milliseconds: refresh scheduling, immune to clock changes. */
  monotonic: () => number
  signal: AbortSignal
}

interface FeedState {
  name: FeedName
  url: URL
  /** The last good copy, kept when a refresh fails. */
  envelope?: Envelope
  hash?: string
  etag?: string
  lastModified?: string
  dueAt: number
  failures: number
}

interface Discovery {
  gbfsUrl: URL
  version?: string
  /** The language block used (2.x). */
  language?: string
  dueAt: number
  failures: number
}

const versionKey = (v: string) => v.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0)
const compareVersions = (a: string, b: string) => {
  const [x, y] = [versionKey(a), versionKey(b)]
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}
const supported = (version: string) => /^[23]\./.test(version)

/**
 * Discovery and the feeds it lists: each feed is read again when its `ttl` (at least `minTtlSeconds`) has run out,
 * a failed read is retried with backoff and the last good copy kept meanwhile.
 */
export class GbfsFeeds {
  private discovery?: Discovery
  private readonly feeds = new Map<FeedName, FeedState>()

  private readonly config: FeedsConfig

  constructor(config: FeedsConfig) {
    this.config = config
  }

  get version(): string | undefined {
    return this.discovery?.version
  }

  get language(): string | undefined {
    return this.config.language ?? this.discovery?.language
  }

  /** The vehicle feed in use: free_bike_status (2.x) or vehicle_status (3.x), whichever gbfs.json lists. */
  get vehicleFeed(): FeedName {
    return this.feeds.has('free_bike_status') ? 'free_bike_status' : 'vehicle_status'
  }

  /** The last good copy of a feed, if any. */
  get(name: FeedName): Envelope | undefined {
    return this.feeds.get(name)?.envelope
  }

  /** The oldest `last_updated` among the realtime feeds in use (vehicles, stations): how stale the data served is. */
  realtimeLastUpdated(): Date | undefined {
    let oldest: Date | undefined
    for (const name of REALTIME) {
      const at = this.get(name as FeedName)?.lastUpdated
      if (at && (!oldest || at < oldest)) oldest = at
    }
    return oldest
  }

  hash(name: FeedName): string {
    return this.feeds.get(name)?.hash ?? '-'
  }

  /** Urls of the feeds in use, by name (for tests and diagnostics). */
  urls(): Record<string, string> {
    return Object.fromEntries([...this.feeds].map(([name, feed]) => [name, feed.url.href]))
  }

  nextDueAt(): number {
    let next = this.discovery?.dueAt ?? Number.POSITIVE_INFINITY
    for (const feed of this.feeds.values()) next = Math.min(next, feed.dueAt)
    return next
  }

  isDue(): boolean {
    return this.nextDueAt() <= this.config.monotonic()
  }

  /** Reads the discovery file and sets up the feeds it lists. Throws when there is no usable discovery. */
  async discover(): Promise<void> {
    const { gbfsUrl, envelope } = await this.resolveDiscovery()
    const report = this.config.log.scope('gbfs.json')
    const { listed, language } = this.listedFeeds(gbfsUrl, envelope, report.report)
    report.flush()
    const now = this.config.monotonic()
    for (const [name, url] of listed) {
      const feed = this.feeds.get(name)
      if (!feed) this.feeds.set(name, { name, url, dueAt: now, failures: 0 })
      else if (feed.url.href !== url.href)
        Object.assign(feed, { url, dueAt: now, etag: undefined, lastModified: undefined })
    }
    for (const name of [...this.feeds.keys()]) {
      if (!listed.has(name)) {
        this.feeds.delete(name)
        this.config.log.add(`gbfs.json: ${name} is no longer listed; its data is dropped`)
      }
    }
    this.discovery = {
      gbfsUrl,
      version: envelope.version,
      language,
      dueAt: now + this.ttlMs(envelope.ttl),
      failures: 0,
    }
    if (!this.feeds.has('vehicle_status') && !this.feeds.has('free_bike_status')) {
      this.config.log.add('gbfs.json: lists neither vehicle_status nor free_bike_status; no vehicles will be served')
    }
  }

  /** Reads what is due (discovery included); returns the names of feeds whose data changed. */
  async refresh(): Promise<Set<FeedName>> {
    const now = this.config.monotonic()
    if (this.discovery && this.discovery.dueAt <= now) {
      try {
        await this.discover()
      } catch (error) {
        const discovery = this.discovery
        discovery.failures++
        discovery.dueAt = this.config.monotonic() + this.backoffMs(discovery.failures)
        this.config.log.add(`gbfs.json: ${(error as Error).message}; the feeds known so far are kept`)
      }
    }
    const due = [...this.feeds.values()].filter((feed) => feed.dueAt <= this.config.monotonic())
    const changed = await Promise.all(due.map((feed) => this.read(feed)))
    return new Set(due.filter((_, i) => changed[i]).map((feed) => feed.name))
  }

  // -------------------------------------------------------------------------------------------------------------

  private fetchOptions(url: URL, previous?: { etag?: string; lastModified?: string }): FetchOptions {
    // Headers (API keys) only go to the origin of the configured URL, never to hosts a feed points at.
    const sameOrigin = url.protocol !== 'file:' && url.origin === this.config.url.origin
    return {
      timeoutMs: this.config.timeoutMs,
      maxBytes: this.config.maxFeedBytes,
      signal: this.config.signal,
      ...(sameOrigin && this.config.headers ? { headers: this.config.headers } : {}),
      ...(previous?.etag ? { etag: previous.etag } : {}),
      ...(previous?.lastModified ? { lastModified: previous.lastModified } : {}),
    }
  }

  private async fetchBody(url: URL): Promise<Extract<FetchResult, { notModified: false }>> {
    const result = await fetchJson(url, this.fetchOptions(url))
    if (result.notModified) throw new FeedError('HTTP', `${display(url)} answered 304 without a prior copy`)
    return result
  }

  /** A URL a discovery-type file points at, resolved and checked: a remote file never leads to a local one. */
  private follow(raw: unknown, base: URL, what: string): URL {
    if (typeof raw !== 'string' || raw.trim() === '') throw new Error(`${what} has no url`)
    let url: URL
    try {
      url = new URL(raw, base)
    } catch {
      throw new Error(`${what} has an invalid url ${JSON.stringify(raw)}`)
    }
    const local = this.config.url.protocol === 'file:'
    const ok = url.protocol === 'http:' || url.protocol === 'https:' || (local && url.protocol === 'file:')
    if (!ok)
      throw new Error(`${what}: ${url.protocol} URLs are not followed from ${this.config.url.protocol} discovery`)
    return url
  }

  /** gbfs.json, following a 3.0 manifest or a gbfs_versions file when the configured URL names one. */
  private async resolveDiscovery(): Promise<{ gbfsUrl: URL; envelope: Envelope }> {
    let url = this.config.url
    let body = await this.fetchBody(url)
    for (let hop = 0; hop < 2; hop++) {
      const data = isObject(body.json) && isObject(body.json.data) ? body.json.data : undefined
      if (!data) throw new Error(`${display(url)} is not a GBFS discovery file (no "data" object)`)
      let next: unknown
      if (Array.isArray(data.datasets)) {
        // manifest.json (3.0): the configured system, else the first; its latest supported version.
        const datasets = data.datasets.filter(isObject)
        const dataset = this.config.systemId ? datasets.find((d) => d.system_id === this.config.systemId) : datasets[0]
        if (!dataset) {
          throw new Error(`${display(url)} lists no dataset${this.config.systemId ? ` "${this.config.systemId}"` : ''}`)
        }
        next = this.latestVersionUrl(dataset.versions, url)
        if (this.config.localFeeds) next = 'gbfs.json'
      } else if (Array.isArray(data.versions) && !Array.isArray(data.feeds)) {
        // gbfs_versions.json
        next = this.latestVersionUrl(data.versions, url)
      } else break
      url = this.follow(next, url, display(url))
      body = await this.fetchBody(url)
    }
    const json = body.json as Record<string, unknown>
    const ttl = num(json.ttl)
    return {
      gbfsUrl: url,
      envelope: {
        data: json.data as Record<string, unknown>,
        ttl: ttl !== undefined && ttl >= 0 ? ttl : undefined,
        version: typeof json.version === 'string' ? json.version : undefined,
      },
    }
  }

  private latestVersionUrl(versions: unknown, where: URL): unknown {
    const list = (Array.isArray(versions) ? versions : [])
      .filter(isObject)
      .filter((v) => typeof v.version === 'string' && typeof v.url === 'string') as { version: string; url: string }[]
    if (list.length === 0) throw new Error(`${display(where)} lists no versions`)
    const usable = list.filter((v) => supported(v.version))
    const pick = (usable.length > 0 ? usable : list).sort((a, b) => compareVersions(b.version, a.version))[0]
    return pick.url
  }

  /** The feeds of gbfs.json: 3.0 `data.feeds`, 2.x `data.<language>.feeds`. */
  private listedFeeds(
    gbfsUrl: URL,
    envelope: Envelope,
    report: (m: string) => void,
  ): { listed: Map<FeedName, URL>; language?: string } {
    const data = envelope.data
    let feeds: unknown
    let language: string | undefined
    if (Array.isArray(data.feeds)) feeds = data.feeds
    else {
      const languages = Object.keys(data).filter(
        (key) => isObject(data[key]) && Array.isArray((data[key] as { feeds?: unknown }).feeds),
      )
      const wanted = this.config.language
      language =
        (wanted && languages.find((l) => l.toLowerCase() === wanted.toLowerCase())) ||
        (wanted && languages.find((l) => l.toLowerCase().split('-')[0] === wanted.toLowerCase().split('-')[0])) ||
        languages.find((l) => l.toLowerCase() === 'en') ||
        languages[0]
      if (wanted && language && language.toLowerCase().split('-')[0] !== wanted.toLowerCase().split('-')[0]) {
        report(`no feeds in language "${wanted}"; "${language}" used (offered: ${languages.join(', ')})`)
      }
      feeds = language ? (data[language] as { feeds: unknown }).feeds : undefined
    }
    if (!Array.isArray(feeds)) throw new Error(`${display(gbfsUrl)} lists no feeds`)

    const listed = new Map<FeedName, URL>()
    for (const raw of feeds) {
      if (!isObject(raw)) continue
      const name = id(raw.name) as FeedName | undefined
      if (!name || !(USED_FEEDS as readonly string[]).includes(name) || listed.has(name)) continue
      try {
        listed.set(
          name,
          this.config.localFeeds ? new URL(`${name}.json`, gbfsUrl) : this.follow(raw.url, gbfsUrl, `feed ${name}`),
        )
      } catch (error) {
        report(`${(error as Error).message}; feed not used`)
      }
    }
    // A system listing both vehicle feeds: the one of its version.
    if (listed.has('vehicle_status') && listed.has('free_bike_status')) {
      listed.delete(envelope.version?.startsWith('2') ? 'vehicle_status' : 'free_bike_status')
    }
    return { listed, language }
  }

  private ttlMs(ttl: number | undefined): number {
    return Math.min(Math.max(ttl ?? 0, this.config.minTtlSeconds), MAX_TTL_SECONDS) * 1000
  }

  private backoffMs(failures: number): number {
    const base = this.config.minTtlSeconds * 1000
    return Math.min(base * 2 ** Math.min(failures - 1, 10), Math.max(MAX_BACKOFF_MS, base))
  }

  /** Reads one feed; true when its data changed. Never throws. */
  private async read(feed: FeedState): Promise<boolean> {
    const scope = this.config.log.scope(feed.name)
    try {
      const result = await fetchJson(feed.url, this.fetchOptions(feed.url, feed))
      if (result.notModified) {
        feed.failures = 0
        feed.dueAt = this.config.monotonic() + this.ttlMs(feed.envelope?.ttl)
        return false
      }
      const envelope = readEnvelope(feed.name, result.json)
      if (typeof envelope === 'string') throw new FeedError('PARSE', envelope)
      this.check(feed.name, envelope, scope.report)
      const changed = result.hash !== feed.hash
      Object.assign(feed, {
        envelope,
        hash: result.hash,
        etag: result.etag,
        lastModified: result.lastModified,
        failures: 0,
        dueAt: this.config.monotonic() + this.ttlMs(envelope.ttl),
      })
      return changed
    } catch (error) {
      if (this.config.signal.aborted) return false
      feed.failures++
      feed.dueAt = this.config.monotonic() + this.backoffMs(feed.failures)
      const kept = feed.envelope ? 'the last good copy is kept' : 'no data from it yet'
      const missing = error instanceof FeedError && error.kind === 'NOT_FOUND'
      scope.report(`${missing ? 'not available' : 'cannot be read'}: ${(error as Error).message}; ${kept}`)
      return false
    } finally {
      scope.flush()
    }
  }

  /** Quirks worth knowing that do not stop the feed from being used. */
  private check(name: FeedName, envelope: Envelope, report: (m: string) => void): void {
    const discovered = this.discovery?.version
    if (envelope.version && discovered && envelope.version[0] !== discovered[0]) {
      report(`version ${envelope.version} in a ${discovered} system (read anyway)`)
    }
    if (!envelope.lastUpdated) {
      report('last_updated is missing or not a time')
      return
    }
    const age = this.config.clock().getTime() - envelope.lastUpdated.getTime()
    if (age < -FUTURE_TOLERANCE_MS) report(`last_updated ${envelope.lastUpdated.toISOString()} is in the future`)
    else if (REALTIME.has(name) && age > this.ttlMs(envelope.ttl) + STALE_AFTER_MS) {
      report(`last_updated ${envelope.lastUpdated.toISOString()} is more than an hour old; stale data served`)
    }
  }
}
