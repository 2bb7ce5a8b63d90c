import { createWriteStream } from 'node:fs'
import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { fileURLToPath } from 'node:url'
import yauzl from 'yauzl'

/**
 * The wire side of GTFS: a feed is a zip or a folder, over `file:` or `http(s):`. Every file is handed out as byte
 * chunks and parsed row by row, so a city feed with millions of stop_times never sits in memory as text.
 */

export class FeedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FeedError'
  }
}

export interface ReadOptions {
  timeoutMs: number
  maxBytes: number
  signal?: AbortSignal
  headers?: Record<string, string>
}

/**
 * One opened feed: its files by name (`stops.txt`), each readable once as byte chunks. A chunk may be reused for the
 * next one (a folder's files are read into one buffer): it is read before the next is asked for.
 */
export interface FeedSource {
  readonly description: string
  /** `undefined` when the feed does not have the file. */
  open(name: string): Promise<AsyncIterable<Uint8Array> | undefined>
  close(): Promise<void>
}

/** The URL without user info or query, for messages (a query may carry an API key). */
export function display(url: URL): string {
  return url.protocol === 'file:' ? url.pathname : `${url.origin}${url.pathname}`
}

/** Bytes a folder's file is read by: one buffer, reused from chunk to chunk (no garbage for 400 MB of stop_times). */
const FILE_CHUNK = 1024 * 1024

async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.allocUnsafe(FILE_CHUNK)
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, FILE_CHUNK, null)
      if (bytesRead === 0) return
      yield buffer.subarray(0, bytesRead)
    }
  } finally {
    await handle.close()
  }
}

function folderSource(dir: string, description: string): FeedSource {
  let names: Map<string, string> | undefined
  return {
    description,
    async open(name) {
      // Real feeds sometimes ship `Stops.txt`; names are matched without regard to case.
      names ??= new Map((await readdir(dir)).map((file) => [file.toLowerCase(), file]))
      const file = names.get(name.toLowerCase())
      return file ? fileChunks(join(dir, file)) : undefined
    },
    close: async () => {},
  }
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) =>
      error || !zip ? reject(error ?? new Error('no zip')) : resolve(zip),
    ),
  )
}

async function zipSource(path: string, description: string, cleanup?: () => Promise<void>): Promise<FeedSource> {
  let zip: yauzl.ZipFile
  try {
    zip = await openZip(path)
  } catch (error) {
    await cleanup?.()
    throw new FeedError(`${description} is neither a folder nor a readable zip (${(error as Error).message})`)
  }
  // Feeds zipped with their folder (`gtfs/stops.txt`) are common: the shallowest file of each name wins.
  const entries = new Map<string, { entry: yauzl.Entry; depth: number }>()
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/') && !entry.fileName.startsWith('__MACOSX/')) {
        const name = basename(entry.fileName).toLowerCase()
        const depth = entry.fileName.split('/').length
        const known = entries.get(name)
        if (!known || depth < known.depth) entries.set(name, { entry, depth })
      }
      zip.readEntry()
    })
    zip.once('end', () => resolve())
    zip.once('error', reject)
    zip.readEntry()
  }).catch(async (error: unknown) => {
    zip.close()
    await cleanup?.()
    throw new FeedError(`${description}: the zip cannot be read (${(error as Error).message})`)
  })
  return {
    description,
    open(name) {
      const found = entries.get(name.toLowerCase())
      if (!found) return Promise.resolve(undefined)
      return new Promise((resolve, reject) =>
        zip.openReadStream(found.entry, (error, stream) =>
          error || !stream ? reject(new FeedError(`${description}: ${name}: ${error?.message}`)) : resolve(stream),
        ),
      )
    },
    async close() {
      zip.close()
      await cleanup?.()
    },
  }
}

async function httpGet(url: URL, options: ReadOptions): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  try {
    return await fetch(url, {
      signal,
      redirect: 'follow',
      headers: { 'user-agent': 'mobility-aggregation-service (GTFS connector)', ...options.headers },
    })
  } catch (error) {
    if (timeout.aborted) throw new FeedError(`${display(url)} did not answer within ${options.timeoutMs} ms`)
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    throw new FeedError(
      `${display(url)} cannot be reached (${cause?.code ?? cause?.message ?? (error as Error).message})`,
    )
  }
}

/** A byte counter that fails the stream past `maxBytes`. */
function limited(body: Readable, url: URL, maxBytes: number): Readable {
  let total = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.byteLength
      if (total > maxBytes) callback(new FeedError(`${display(url)} is larger than the limit of ${maxBytes} bytes`))
      else callback(null, chunk)
    },
  })
  body.on('error', (error) => counter.destroy(error))
  return body.pipe(counter)
}

async function httpSource(url: URL, options: ReadOptions): Promise<FeedSource> {
  const description = display(url)
  if (url.pathname.endsWith('/')) {
    // A published folder: each file is its own request; a 404 means the feed does not have it.
    return {
      description,
      async open(name) {
        const response = await httpGet(new URL(name, url), options)
        if (response.status === 404 || response.status === 410) {
          await response.body?.cancel().catch(() => {})
          return undefined
        }
        if (!response.ok || !response.body) {
          await response.body?.cancel().catch(() => {})
          throw new FeedError(`${description}${name} answered HTTP ${response.status}`)
        }
        return limited(Readable.fromWeb(response.body as WebReadableStream), url, options.maxBytes)
      },
      close: async () => {},
    }
  }
  // A zip needs random access (its directory is at the end): it is streamed to a temporary file first.
  const response = await httpGet(url, options)
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => {})
    throw new FeedError(`${description} answered HTTP ${response.status}`)
  }
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body.cancel().catch(() => {})
    throw new FeedError(`${description} declares ${declared} bytes, more than the limit of ${options.maxBytes}`)
  }
  const dir = await mkdtemp(join(tmpdir(), 'gtfs-'))
  const cleanup = () => rm(dir, { recursive: true, force: true })
  const file = join(dir, 'feed.zip')
  try {
    await pipeline(
      limited(Readable.fromWeb(response.body as WebReadableStream), url, options.maxBytes),
      createWriteStream(file),
    )
  } catch (error) {
    await cleanup()
    if (error instanceof FeedError) throw error
    throw new FeedError(`${description} could not be downloaded (${(error as Error).message})`)
  }
  return zipSource(file, description, cleanup)
}

/** Opens a GTFS feed: a folder or a zip, `file:` or `http(s):`. Throws FeedError when it cannot be opened. */
export async function openFeed(url: URL, options: ReadOptions): Promise<FeedSource> {
  if (url.protocol === 'http:' || url.protocol === 'https:') return httpSource(url, options)
  if (url.protocol !== 'file:') throw new FeedError(`${url.protocol} URLs are not supported`)
  const path = fileURLToPath(url)
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new FeedError(`${display(url)} cannot be read (${error.code ?? error.message})`)
  })
  if (info.isDirectory()) return folderSource(path, display(url))
  if (info.size > options.maxBytes) {
    throw new FeedError(`${display(url)} has ${info.size} bytes, more than the limit of ${options.maxBytes}`)
  }
  return zipSource(path, display(url))
}

/** Reads a whole small document (a GTFS-Realtime feed) from `file:` or `http(s):`, within a time and size limit. */
export async function fetchBytes(url: URL, options: ReadOptions): Promise<Uint8Array> {
  if (url.protocol === 'file:') {
    const path = fileURLToPath(url)
    const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
      throw new FeedError(`${display(url)} cannot be read (${error.code ?? error.message})`)
    })
    try {
      const { size } = await handle.stat()
      if (size > options.maxBytes) throw new FeedError(`${display(url)} is larger than ${options.maxBytes} bytes`)
    } finally {
      await handle.close()
    }
    return readFile(path, { signal: options.signal })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FeedError(`${url.protocol} URLs are not supported`)
  }
  const response = await httpGet(url, options)
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => {})
    throw new FeedError(`${display(url)} answered HTTP ${response.status}`)
  }
  const chunks: Buffer[] = []
  for await (const chunk of limited(Readable.fromWeb(response.body as WebReadableStream), url, options.maxBytes)) {
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}
