import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'

/** What one attempt learned: the answer's status, or why there was none. */
export interface SendResult {
  statusCode?: number
  error?: string
  durationMs: number
}

/** Bytes of an answer read at most; the rest is not waited for (the status decides). */
export const MAX_ANSWER_BYTES = 4096
const MAX_ERROR_LENGTH = 300

const shorten = (text: string) => (text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text)

/**
 * POSTs `body` to `url`, connecting to `address` only: the name was resolved and judged before, and the connection
 * must not resolve it again (DNS rebinding). The URL's host still goes into the Host header and TLS's SNI and
 * certificate check. Never follows redirects; gives up after `timeoutMs`.
 */
export function send(
  url: URL,
  target: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  now: () => number = performance.now.bind(performance),
): Promise<SendResult> {
  const started = now()
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<SendResult>((resolve) => {
    let settled = false
    let statusCode: number | undefined
    let timer: NodeJS.Timeout | undefined
    let req: ReturnType<typeof httpRequest> | undefined
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req?.destroy()
      resolve({ ...result, durationMs: Math.round(now() - started) })
    }
    try {
      req = request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinned,
        agent: false,
      })
    } catch (error) {
      finish({ error: shorten((error as Error).message) })
      return
    }
    // An answer whose status came in time counts even if its body dawdles.
    timer = setTimeout(
      () => finish(statusCode === undefined ? { error: `no answer within ${timeoutMs / 1000} s` } : { statusCode }),
      timeoutMs,
    )
    req.on('response', (res: IncomingMessage) => {
      statusCode = res.statusCode
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read >= MAX_ANSWER_BYTES) finish({ statusCode })
      })
      res.on('end', () => finish({ statusCode }))
      res.on('error', () => finish({ statusCode }))
    })
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        statusCode === undefined
          ? { error: shorten(error.code ? `${error.code}: ${error.message}` : error.message) }
          : { statusCode },
      ),
    )
    req.end(body)
  })
}
