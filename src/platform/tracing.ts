import { AsyncLocalStorage } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import diagnostics from 'node:diagnostics_channel'
import { createRequire } from 'node:module'

/**
 * Traces over OTLP/HTTP (JSON), without the OpenTelemetry SDK (not among the dependencies): spans for every request,
 * every provider call, every outgoing HTTP request (with `traceparent`, so HTTP providers continue the trace), every
 * PostgreSQL query and every Redis command. Off, and free, unless OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: nothing is then created or installed.
 */

type Attribute = string | number | boolean
const KIND = { internal: 1, server: 2, client: 3 } as const

export interface Span {
  traceId: string
  spanId: string
  setAttribute(key: string, value: Attribute | undefined): void
  /** Ends the span; an error (or `failed`) marks it as failed. */
  end(error?: unknown): void
}

interface SpanRecord {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  start: bigint
  end?: bigint
  attributes: Record<string, Attribute>
  error?: string
}

export interface Tracing {
  /** A span, child of the active one (or of `parent`, a `traceparent` value), not made active. */
  start(
    name: string,
    options?: { kind?: keyof typeof KIND; parent?: string; attributes?: Record<string, Attribute> },
  ): Span
  /** Runs `fn` with `span` active: what it starts (queries, commands, HTTP calls) becomes its children. */
  within<T>(span: Span, fn: () => T): T
  /** Makes `span` active for the rest of the current asynchronous flow (a request's hooks and handler). */
  enter(span: Span): void
  /** `fn` in a span of its own, ended with its outcome. */
  trace<T>(name: string, attributes: Record<string, Attribute>, fn: () => Promise<T>): Promise<T>
  /** Sends what is buffered; call before exit. */
  shutdown(): Promise<void>
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/
const hex = (bytes: number) => randomBytes(bytes).toString('hex')
const now = () => process.hrtime.bigint() + EPOCH_OFFSET
// hrtime is monotonic from an arbitrary origin; OTLP wants nanoseconds since the epoch.
const EPOCH_OFFSET = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint()
const MAX_BUFFER = 2048
const FLUSH_MS = 1000

export interface TracingOptions {
  /** Where spans are POSTed (…/v1/traces). */
  url: string
  serviceName: string
  /** Failures to export are told here (once per outage, not per batch). */
  warn?: (message: string) => void
}

export function createTracing(options: TracingOptions): Tracing {
  const storage = new AsyncLocalStorage<SpanRecord>()
  const exportOrigin = new URL(options.url).origin
  let buffer: SpanRecord[] = []
  let failing = false

  const attributesOf = (values: Record<string, Attribute>) =>
    Object.entries(values).map(([key, value]) => ({
      key,
      value:
        typeof value === 'string'
          ? { stringValue: value }
          : typeof value === 'boolean'
            ? { boolValue: value }
            : Number.isInteger(value)
              ? { intValue: String(value) }
              : { doubleValue: value },
    }))

  const flush = async () => {
    if (buffer.length === 0) return
    const spans = buffer
    buffer = []
    const body = {
      resourceSpans: [
        {
          resource: { attributes: attributesOf({ 'service.name': options.serviceName }) },
          scopeSpans: [
            {
              scope: { name: 'mobility-aggregation-service' },
              spans: spans.map((s) => ({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
                name: s.name,
                kind: s.kind,
                startTimeUnixNano: String(s.start),
                endTimeUnixNano: String(s.end ?? s.start),
                attributes: attributesOf(s.attributes),
                status: s.error !== undefined ? { code: 2, message: s.error } : { code: 1 },
              })),
            },
          ],
        },
      ],
    }
    // Outside any span, so the export is not traced itself.
    await storage.exit(async () => {
      try {
        const res = await fetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5000),
        })
        await res.arrayBuffer()
        if (!res.ok) throw new Error(`HTTP ${res.status}`)
        failing = false
      } catch (error) {
        if (!failing) options.warn?.(`traces could not be sent to ${options.url}: ${(error as Error).message}`)
        failing = true
      }
    })
  }
  const timer = setInterval(() => void flush(), FLUSH_MS)
  timer.unref()

  const spanOf = (record: SpanRecord): Span & { record: SpanRecord } => ({
    record,
    traceId: record.traceId,
    spanId: record.spanId,
    setAttribute(key, value) {
      if (value !== undefined) record.attributes[key] = value
    },
    end(error) {
      if (record.end !== undefined) return
      record.end = now()
      if (error !== undefined && error !== false) record.error = error instanceof Error ? error.message : String(error)
      // Dropped when the collector is away for long: memory stays bounded.
      if (buffer.length < MAX_BUFFER) buffer.push(record)
      if (buffer.length >= 512) void flush()
    },
  })

  const tracing: Tracing = {
    start(name, { kind = 'internal', parent, attributes = {} } = {}) {
      const incoming = parent ? TRACEPARENT.exec(parent) : null
      const active = incoming ? undefined : storage.getStore()
      return spanOf({
        traceId: incoming?.[1] ?? active?.traceId ?? hex(16),
        spanId: hex(8),
        parentSpanId: incoming?.[2] ?? active?.spanId,
        name,
        kind: KIND[kind],
        start: now(),
        attributes: { ...attributes },
      })
    },
    within: (span, fn) => storage.run((span as Span & { record: SpanRecord }).record, fn),
    enter: (span) => storage.enterWith((span as Span & { record: SpanRecord }).record),
    async trace(name, attributes, fn) {
      const span = tracing.start(name, { attributes })
      try {
        const value = await tracing.within(span, fn)
        span.end()
        return value
      } catch (error) {
        span.end(error)
        throw error
      }
    },
    async shutdown() {
      clearInterval(timer)
      await flush()
    },
  }
  instrument(tracing, storage, exportOrigin)
  return tracing
}

const traceparentOf = (span: Span) => `00-${span.traceId}-${span.spanId}-01`

let instrumented: { tracing: Tracing; storage: AsyncLocalStorage<SpanRecord>; exportOrigin: string } | undefined

/**
 * Process-wide hooks (diagnostics channels, pg's query): installed once, and always reporting to the latest tracing.
 * Only work inside a traced request or provider call makes spans, so background polling stays out of the traces.
 */
function instrument(tracing: Tracing, storage: AsyncLocalStorage<SpanRecord>, exportOrigin: string): void {
  const first = instrumented === undefined
  instrumented = { tracing, storage, exportOrigin }
  if (!first) return
  const current = () => instrumented as NonNullable<typeof instrumented>

  // Outgoing HTTP (fetch): a client span, and `traceparent` so the provider can continue the trace.
  const requests = new WeakMap<object, Span>()
  diagnostics.subscribe('undici:request:create', (message) => {
    const { request } = message as {
      request: { origin: string; method: string; path: string; addHeader(k: string, v: string): void }
    }
    const { tracing, storage, exportOrigin } = current()
    if (!storage.getStore() || request.origin === exportOrigin) return
    const url = `${request.origin}${request.path.split('?')[0]}`
    const span = tracing.start(`${request.method} ${new URL(request.origin).host}`, {
      kind: 'client',
      attributes: {
        'http.request.method': request.method,
        'url.full': url,
        'server.address': new URL(request.origin).hostname,
      },
    })
    request.addHeader('traceparent', traceparentOf(span))
    requests.set(request, span)
  })
  diagnostics.subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } }
    const span = requests.get(request)
    span?.setAttribute('http.response.status_code', response.statusCode)
    span?.end(response.statusCode >= 500 ? `HTTP ${response.statusCode}` : undefined)
  })
  diagnostics.subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request: object; error: unknown }
    requests.get(request)?.end(error)
  })

  // Redis (ioredis publishes its commands on a tracing channel).
  const commands = new WeakMap<object, Span>()
  diagnostics.tracingChannel('ioredis:command').subscribe({
    start(context) {
      const { tracing, storage } = current()
      if (!storage.getStore()) return
      const c = context as { command: string; serverAddress?: string; serverPort?: number }
      commands.set(
        context,
        tracing.start(`redis ${c.command}`, {
          kind: 'client',
          attributes: { 'db.system': 'redis', 'db.operation.name': c.command, 'server.address': c.serverAddress ?? '' },
        }),
      )
    },
    end() {},
    asyncStart() {},
    asyncEnd(context) {
      commands.get(context)?.end((context as { error?: unknown }).error)
    },
    error(context) {
      commands.get(context)?.end((context as { error?: unknown }).error ?? 'error')
    },
  })

  // PostgreSQL: node-postgres has no channel; its query method is wrapped (what OpenTelemetry's instrumentation does).
  const pg = createRequire(import.meta.url)('pg') as {
    Client: { prototype: { query: (...args: unknown[]) => unknown } }
  }
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function tracedQuery(this: unknown, ...args: unknown[]) {
    const { tracing, storage } = current()
    if (!storage.getStore()) return query.apply(this, args)
    const first = args[0] as string | { text?: string } | undefined
    const text = typeof first === 'string' ? first : (first?.text ?? '')
    const span = tracing.start(`pg ${text.trim().split(/\s+/)[0]?.toUpperCase() ?? 'query'}`, {
      kind: 'client',
      attributes: { 'db.system': 'postgresql', 'db.query.text': text.slice(0, 500) },
    })
    const callback = args.at(-1)
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: unknown, ...rest: unknown[]) => {
        span.end(error ?? undefined)
        return callback(error, ...rest)
      }
      return query.apply(this, args)
    }
    const result = query.apply(this, args) as Promise<unknown> | undefined
    if (result && typeof result.then === 'function') {
      result.then(
        () => span.end(),
        (error: unknown) => span.end(error),
      )
    } else span.end()
    return result
  }
}
