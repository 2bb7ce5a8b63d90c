import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../contract/errors.ts'

const STATIC = new URL('./static/', import.meta.url)

/** MapLibre GL JS from node_modules, served by the service itself: the page needs no internet. */
function maplibreDist(): string {
  return join(dirname(createRequire(import.meta.url).resolve('maplibre-gl/package.json')), 'dist')
}

/** The files the page may load from MapLibre's dist folder (the worker is loaded by the library, next to itself). */
const ASSETS: Record<string, string> = {
  'maplibre-gl.mjs': 'text/javascript; charset=utf-8',
  'maplibre-gl-worker.mjs': 'text/javascript; charset=utf-8',
  'maplibre-gl.css': 'text/css; charset=utf-8',
  'maplibre-gl.mjs.map': 'application/json; charset=utf-8',
  'maplibre-gl-worker.mjs.map': 'application/json; charset=utf-8',
}

/**
 * The page runs scripts, styles and workers only from this service and talks only to it; it holds API keys, so
 * nothing else may run in it.
 */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "child-src 'self' blob:",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

interface Asset {
  body: Buffer
  type: string
  etag: string
}

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

function send(request: FastifyRequest, reply: FastifyReply, file: Asset, cacheControl: string) {
  reply
    .header('cache-control', cacheControl)
    .header('etag', file.etag)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
  const match = request.headers['if-none-match']
  if (match?.split(',').some((t) => t.trim().replace(/^W\//, '') === file.etag)) {
    return reply.status(304).send()
  }
  return reply.type(file.type).send(file.body)
}

export interface ExplorerDeps {
  /** Where the API lives, `/mobility-api/v2`: the page asks for tiles there. */
  apiPrefix: string
}

/**
 * GET /explorer: a map of the caller's transit lines and vehicles, micromobility vehicles, stations, stops and zones
 * (MapLibre GL JS on the service's vector tiles). The page and its assets need no key; the user pastes one (a
 * publishable key), and the page sends it with every tile request.
 */
export function explorerRoutes(app: FastifyInstance, { apiPrefix }: ExplorerDeps) {
  const cache = new Map<string, Asset>()
  const load = (name: string, read: () => Asset) => {
    let file = cache.get(name)
    if (!file) {
      file = read()
      cache.set(name, file)
    }
    return file
  }
  const page = () =>
    load('index.html', () =>
      asset(
        Buffer.from(
          readFileSync(new URL('index.html', STATIC), 'utf8').replaceAll('{{API_PREFIX}}', apiPrefix),
          'utf8',
        ),
        'text/html; charset=utf-8',
      ),
    )
  const own = (name: string, type: string) => () => load(name, () => asset(readFileSync(new URL(name, STATIC)), type))
  const script = own('explorer.js', 'text/javascript; charset=utf-8')
  const layers = own('layers.js', 'text/javascript; charset=utf-8')
  const styles = own('explorer.css', 'text/css; charset=utf-8')
  const hide = { schema: { hide: true } }

  app.get('/explorer', hide, async (request, reply) => {
    reply.header('content-security-policy', PAGE_CSP).header('x-frame-options', 'DENY')
    return send(request, reply, page(), 'no-cache')
  })
  app.get('/explorer/explorer.js', hide, async (request, reply) => send(request, reply, script(), 'no-cache'))
  app.get('/explorer/layers.js', hide, async (request, reply) => send(request, reply, layers(), 'no-cache'))
  app.get('/explorer/explorer.css', hide, async (request, reply) => send(request, reply, styles(), 'no-cache'))
  app.get<{ Params: { file: string } }>('/explorer/assets/:file', hide, async (request, reply) => {
    const { file } = request.params
    const type = ASSETS[file]
    if (!type)
      throw new ApiError('NOT_FOUND', undefined, { reason: 'ROUTE_NOT_FOUND', path: request.url.split('?')[0] })
    let found: Asset
    try {
      found = load(`assets/${file}`, () => asset(readFileSync(join(maplibreDist(), file)), type))
    } catch {
      throw new ApiError('NOT_FOUND', undefined, { reason: 'ROUTE_NOT_FOUND', path: request.url.split('?')[0] })
    }
    // The library's files change only with its version (the worker is even asked for with ?v=<version>).
    return send(request, reply, found, 'public, max-age=86400')
  })
}
