import { createHash } from 'node:crypto'
import { open } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { readBoundedBody } from '../shared/bounded-body.ts'

/** Why a feed could not be read; `NOT_FOUND` is the normal answer for an optional feed a system does not publish. */
export type FeedErrorKind = 'NOT_FOUND' | 'HTTP' | 'TIMEOUT' | 'TOO_LARGE' | 'PARSE' | 'NETWORK' | 'UNSUPPORTED'

export class FeedError extends Error {
  readonly kind: FeedErrorKind
  readonly status?: number

  constructor(kind: FeedErrorKind, message: string, status?: number) {
    super(message)
    this.name = 'FeedError'
    this.kind = kind
    this.status = status
  }
}

export interface FetchOptions {
  timeoutMs: number
  maxBytes: number
  /** Aborts the read (the connector stops). */
  signal?: AbortSignal
  headers?: Record<string, string>
  /** Validators of the copy in hand: an unchanged feed answers `{ notModified: true }` without a body. */
  etag?: string
  lastModified?: string
}

export interface FeedBody {
  notModified: false
  json: unknown
  /** sha1 of the bytes read: equal hashes, equal data. */
  hash: string
  bytes: number
  etag?: string
  lastModified?: string
}

export type FetchResult = { notModified: true } | FeedBody

const decoder = new TextDecoder('utf-8', { fatal: false })

function parse(url: URL, bytes: Uint8Array): FeedBody {
  const hash = createHash('sha1').update(bytes).digest('hex')
  let json: unknown
  try {
    // TextDecoder drops a byte order mark, which JSON.parse would refuse.
    json = JSON.parse(decoder.decode(bytes))
  } catch (error) {
    throw new FeedError('PARSE', `${display(url)} is not JSON (${(error as Error).message})`)
  }
  return { notModified: false, json, hash, bytes: bytes.byteLength }
}

/** The URL without user info or query, for messages (a query may carry an API key). */
export function display(url: URL): string {
  return url.protocol === 'file:' ? url.pathname : `${url.origin}${url.pathname}`
}

async function readFileUrl(url: URL, options: FetchOptions): Promise<FetchResult> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(fileURLToPath(url), 'r')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FeedError('NOT_FOUND', `${display(url)} does not exist`)
    throw new FeedError('NETWORK', `${display(url)} cannot be read (${code ?? (error as Error).message})`)
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new FeedError('NOT_FOUND', `${display(url)} is not a file`)
    if (stat.size > options.maxBytes) {
      throw new FeedError(
        'TOO_LARGE',
        `${display(url)} has ${stat.size} bytes, more than the limit of ${options.maxBytes}`,
      )
    }
    const etag = `${stat.mtimeMs}-${stat.size}`
    if (options.etag === etag) return { notModified: true }
    const bytes = await handle.readFile({ signal: options.signal })
    if (bytes.byteLength > options.maxBytes) {
      throw new FeedError('TOO_LARGE', `${display(url)} is larger than the limit of ${options.maxBytes} bytes`)
    }
    return { ...parse(url, bytes), etag }
  } finally {
    await handle.close()
  }
}

const readBody = (url: URL, response: Response, maxBytes: number) =>
  readBoundedBody(response, maxBytes, display(url), (message) => new FeedError('TOO_LARGE', message))

async function fetchHttp(url: URL, options: FetchOptions): Promise<FetchResult> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'mobility-aggregation-service (GBFS connector)',
    ...options.headers,
  }
  if (options.etag) headers['if-none-match'] = options.etag
  if (options.lastModified) headers['if-modified-since'] = options.lastModified
  try {
    const response = await fetch(url, { headers, signal, redirect: 'follow' })
    if (response.status === 304) {
      await response.body?.cancel().catch(() => {})
      return { notModified: true }
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      const kind = response.status === 404 || response.status === 410 ? 'NOT_FOUND' : 'HTTP'
      throw new FeedError(kind, `${display(url)} answered HTTP ${response.status}`, response.status)
    }
    const bytes = await readBody(url, response, options.maxBytes)
    const result = parse(url, bytes)
    const etag = response.headers.get('etag') ?? undefined
    const lastModified = response.headers.get('last-modified') ?? undefined
    return { ...result, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) }
  } catch (error) {
    if (error instanceof FeedError) throw error
    if (timeout.aborted) throw new FeedError('TIMEOUT', `${display(url)} did not answer within ${options.timeoutMs} ms`)
    if (options.signal?.aborted) throw new FeedError('NETWORK', `${display(url)}: read aborted`)
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    throw new FeedError(
      'NETWORK',
      `${display(url)} cannot be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`,
    )
  }
}

/** Reads one JSON document from `http:`, `https:` or `file:`, within a time and size limit. Throws FeedError. */
export function fetchJson(url: URL, options: FetchOptions): Promise<FetchResult> {
  if (url.protocol === 'file:') return readFileUrl(url, options)
  if (url.protocol === 'http:' || url.protocol === 'https:') return fetchHttp(url, options)
  return Promise.reject(new FeedError('UNSUPPORTED', `${url.protocol} URLs are not supported`))
}
