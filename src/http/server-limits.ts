import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyHttpOptions, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'

/** The socket-level limits the service runs with, derived from the configuration (README "Slow clients"). */
export interface ServerLimits {
  /** Headers and body of one request must have arrived within this. */
  requestTimeoutMs: number
  /** The headers alone must have arrived within this (a slow-headers client is cut sooner). */
  headersTimeoutMs: number
  /** Idle keep-alive connection between two requests. */
  keepAliveTimeoutMs: number
  /** No byte in either direction for this long closes the connection (a client that stops reading its answer). */
  idleTimeoutMs: number
  /** How often Node looks for requests past their deadline; the real cut-off is up to this much later. */
  checkIntervalMs: number
  maxConnections: number
}

export function serverLimits(config: Config): ServerLimits {
  const requestTimeoutMs = config.requestTimeoutMs
  // Headers are a few hundred bytes: a client that needs more than 10 s for them is not a client.
  const headersTimeoutMs = Math.min(requestTimeoutMs, 10_000)
  return {
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    // Longer than any answer can take to compute (a search waits up to SEARCH_TIMEOUT_MS without writing a byte),
    // so it only ends connections whose client went silent.
    idleTimeoutMs: Math.max(120_000, 2 * Math.max(config.searchTimeoutMs, requestTimeoutMs, config.keepAliveTimeoutMs)),
    // Node checks deadlines every 30 s by default, which would let a 1.5 s timeout last 31 s. The walk only visits
    // connections with a request still arriving, so checking more often is cheap.
    checkIntervalMs: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
    maxConnections: config.maxConnections,
  }
}

/**
 * Fastify's options for those limits. Fastify sets `requestTimeout` (default 0: none!) and `keepAliveTimeout` on the
 * server itself; the headers timeout and the checking interval only exist as options of Node's `http.createServer`.
 */
export function serverOptions(limits: ServerLimits): FastifyHttpOptions<Server> {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
  }
}

const ANSWERED = Symbol('answeredBeforeBody')

/**
 * Marks connections whose answer went out before the request's body had all arrived (a 401 for a body still being
 * sent): Node keeps reading the rest of that body, and if the request timeout then cuts it, the client must not get a
 * second, unsolicited answer. Called by the app's onResponse hook for every request.
 */
export function markIfEarly(request: FastifyRequest): void {
  const raw = request.raw
  if (!raw.complete) {
    const socket = raw.socket as Socket & { [ANSWERED]?: boolean }
    socket[ANSWERED] = true
    raw.once('end', () => {
      socket[ANSWERED] = false
    })
  }
}

export const answeredEarly = (socket: Socket): boolean =>
  (socket as Socket & { [ANSWERED]?: boolean })[ANSWERED] === true
