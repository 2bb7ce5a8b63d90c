/**
 * Typed client of the Mobility Aggregation Service API.
 *
 * - Types are generated from the served OpenAPI document (`src/schema.ts`, `npm run client:generate` at the root).
 * - Requests go through openapi-fetch: `client.api.POST('/cars', { body })` is typed by path and method.
 * - `unwrap()` turns an answer into its `data`, or throws a `MobilityApiError` carrying the envelope's error.
 * - Retries follow spec 7.3: network errors, 5xx and 429 are retried after 1, 2, 4, 8 s (plus 0-1 s jitter), or when
 *   `Retry-After` says; everything else is answered at once.
 * - Every POST and PATCH carries an `Idempotency-Key` (the same on each retry), so a retried booking books once.
 * - `pages()` walks cursor pages.
 */
import createFetchClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './schema.ts'

export type { components, paths }
export type ErrorCode = components['schemas'] extends { ErrorCode: infer C } ? C : string

export interface MobilityClientOptions {
  /** Where the API lives, including the prefix: `https://api.example.com/mobility-api/v2`. */
  baseUrl: string
  /** A secret (`svc_live_`, `svc_test_`) or publishable key (`svc_pk_...`; browsers only). */
  apiKey: string
  /** Accept-Language of every request (`en`, `de`, `fr`). */
  language?: string
  /** Retries after the first attempt (spec 7.3: 3 to 5; default 4). 0 turns retrying off. */
  maxRetries?: number
  /** Extra headers on every request (X-Sandbox-Scenario with a test key, for example). */
  headers?: Record<string, string>
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>
  /** Waits between attempts (tests replace it). */
  sleep?: (ms: number) => Promise<void>
  /** Source of jitter in [0, 1) (tests pin it). */
  random?: () => number
  /** Makes the Idempotency-Key of a write (default: a random UUID). */
  idempotencyKey?: () => string
}

/** The envelope's error, thrown by `unwrap()`. */
export class MobilityApiError extends Error {
  override name = 'MobilityApiError'
  readonly status: number
  readonly code: string
  readonly details: Record<string, unknown> | undefined
  /** `meta.requestId`: log it with every error (spec 7.3). */
  readonly requestId: string | undefined
  constructor(status: number, code: string, message: string, details?: Record<string, unknown>, requestId?: string) {
    super(message)
    this.status = status
    this.code = code
    this.details = details
    this.requestId = requestId
  }
  /** Whether sending the same request again may succeed (spec 7.3). */
  get retryable(): boolean {
    if (this.details && typeof this.details.retryable === 'boolean') return this.details.retryable
    return this.status === 429 || this.status >= 500
  }
}

const BACKOFF_SECONDS = [1, 2, 4, 8]
const MAX_RETRY_AFTER_SECONDS = 60
const WRITES = new Set(['POST', 'PATCH'])

/** How long to wait before retry number `retry` (0-based): 1, 2, 4, 8, 8 ... s plus up to 1 s of jitter. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = BACKOFF_SECONDS[Math.min(retry, BACKOFF_SECONDS.length - 1)]
  const r = random()
  // A jitter source that misbehaves (NaN, out of range) must not make the wait NaN or negative.
  const jitter = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0
  return Math.round((base + jitter) * 1000)
}

/** `Retry-After` as milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), MAX_RETRY_AFTER_SECONDS) * 1000
  const at = Date.parse(trimmed)
  if (Number.isNaN(at)) return undefined
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_SECONDS * 1000)
}

const retryableStatus = (status: number) => status === 429 || (status >= 500 && status !== 501)

/** An error answer that says `details.retryable: false` (a provider's refusal) is final even with a 5xx status. */
async function saysFinal(response: Response): Promise<boolean> {
  try {
    const body = (await response.clone().json()) as { error?: { details?: { retryable?: unknown } } }
    return body?.error?.details?.retryable === false
  } catch {
    return false
  }
}

/** A fetch that retries as spec 7.3 says and adds an Idempotency-Key to writes. */
export function retryingFetch(options: MobilityClientOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const maxRetries = options.maxRetries ?? 4
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const random = options.random ?? Math.random
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID())
  return async (request) => {
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', newKey())
    }
    for (let retry = 0; ; retry++) {
      const attempt = request.clone()
      let response: Response | undefined
      try {
        response = await send(attempt)
      } catch (error) {
        if (retry >= maxRetries || request.signal.aborted) throw error
      }
      if (response && (!retryableStatus(response.status) || retry >= maxRetries || (await saysFinal(response))))
        return response
      const wait = (response && retryAfterMs(response.headers.get('retry-after'))) ?? backoffMs(retry, random)
      // The body of an answer we do not return is read to the end, so the connection can be reused.
      await response?.body?.cancel().catch(() => {})
      await sleep(wait)
    }
  }
}

export interface MobilityClient {
  /** The typed openapi-fetch client: `api.GET('/cars/bookings/{bookingId}', { params: { path: { bookingId } } })`. */
  api: Client<paths>
}

export function createMobilityClient(options: MobilityClientOptions): MobilityClient {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}`, ...options.headers }
  if (options.language) headers['accept-language'] = options.language
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch(options),
  })
  return { api }
}

interface Answer {
  data?: unknown
  error?: unknown
  response: Response
}

/** The inner `data` of a success answer (the error half of openapi-fetch's union contributes nothing). */
type DataOf<A> = A extends { data?: infer D }
  ? [NonNullable<D>] extends [never]
    ? never
    : NonNullable<D> extends { data: infer Inner }
      ? Inner
      : never
  : never

interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: Record<string, unknown> }
  meta?: { requestId?: string }
}

/** The answer's `data`, or a `MobilityApiError` made of its envelope. */
export async function unwrap<A extends Answer>(answer: PromiseLike<A>): Promise<DataOf<A>> {
  const { data, error, response } = await answer
  if (response.ok && data && typeof data === 'object' && 'data' in data) return (data as { data: DataOf<A> }).data
  if (response.ok && response.status === 204) return undefined as DataOf<A>
  const envelope = (error ?? data ?? {}) as ErrorEnvelope
  throw new MobilityApiError(
    response.status,
    envelope.error?.code ?? 'INTERNAL_ERROR',
    envelope.error?.message ?? `HTTP ${response.status}`,
    envelope.error?.details,
    envelope.meta?.requestId ?? response.headers.get('x-request-id') ?? undefined,
  )
}

interface CursorPage {
  pagination?: { hasMore?: boolean; nextCursor?: string }
}

/**
 * Walks cursor pages: `fetchPage(undefined)` asks for the first, then `fetchPage(nextCursor)` while `hasMore`.
 *
 *   for await (const page of pages((cursor) => client.api.POST('/cars', { body: { ...search, cursor } })))
 *     show(page.offers)
 */
export async function* pages<A extends Answer>(
  fetchPage: (cursor: string | undefined) => Promise<A>,
  options: { maxPages?: number } = {},
): AsyncGenerator<DataOf<A>> {
  let cursor: string | undefined
  for (let n = 0; n < (options.maxPages ?? Number.POSITIVE_INFINITY); n++) {
    const page = await unwrap(fetchPage(cursor))
    yield page
    const pagination = (page as CursorPage).pagination
    if (!pagination?.hasMore || !pagination.nextCursor) return
    cursor = pagination.nextCursor
  }
}
