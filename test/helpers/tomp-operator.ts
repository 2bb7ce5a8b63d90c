import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { drained } from '../../src/connectors/sandbox/micro/trips.ts'
import { ASSET_TYPES, type AssetState, fixture, generateAssets, PRICING_PLANS, regions } from './tomp-fleet.ts'

/**
 * A TOMP-API 1.6.1 transport operator for tests, in process on a real port: operator information, available assets,
 * pricing plans and regions (see tomp-fleet.ts), plannings (POST /planning/offers, POST /plannings?booking-intent=true),
 * bookings with COMMIT and CANCEL, and leg events. Bookings and legs live in memory and follow the TOMP state machine:
 * a refused transition answers 400 or 403 with a TOMP error body. Committed bookings whose ride does not start expire
 * after `reserveMinutes`; a ride drains the battery as the sandbox's does, so a flat vehicle becomes disabled.
 */

export interface TompOperatorOptions {
  clock?: () => Date
  seed?: string
  size?: number
  /** Asked for as X-API-Key when set (401 otherwise). */
  apiKey?: string
  reserveMinutes?: number
  /** Offers ask for the rider's e-mail (conditionRequireBookingData). */
  requireEmail?: boolean
}

interface Booking {
  id: string
  legId: string
  assetId: string
  state: 'PENDING' | 'CONFIRMED' | 'CANCELLED' | 'EXPIRED' | 'STARTED' | 'FINISHED'
  legState: 'NOT_STARTED' | 'PREPARING' | 'IN_USE' | 'PAUSED' | 'FINISHED' | 'CANCELLED'
  createdAt: number
  departure: number
  from: { latitude: number; longitude: number }
  to?: { latitude: number; longitude: number }
  startedAt?: number
  customer?: Record<string, unknown>
}

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  headers: IncomingMessage['headers']
  body: unknown
}

const MINUTE = 60_000
const MIN_CHARGE = 5
const place = (p: { latitude: number; longitude: number }) => ({ coordinates: { lat: p.latitude, lng: p.longitude } })

class Problem extends Error {
  readonly status: number
  readonly errorcode: number
  readonly headers: Record<string, string>

  constructor(status: number, errorcode: number, title: string, headers: Record<string, string> = {}) {
    super(title)
    this.status = status
    this.errorcode = errorcode
    this.headers = headers
  }
}

export async function startTompOperator(options: TompOperatorOptions = {}) {
  const clock = options.clock ?? (() => new Date())
  const assets = generateAssets(options.seed ?? 'tomp-operator', options.size ?? 300)
  const byId = new Map(assets.map((a) => [a.id, a]))
  const offers = new Map<string, { assetId: string; validUntil: number; from: Booking['from'] }>()
  const bookings = new Map<string, Booking>()
  const legs = new Map<string, Booking>()
  const requests: RecordedRequest[] = []
  const overrides = new Map<string, unknown>()
  /** Run once each, right after the next answer to `GET <path>` is made (before the service can read it). */
  const afterGet = new Map<string, Array<() => void>>()
  const state = { mode: undefined as 'error' | 'hang' | undefined, jammed: false, lost: new Set<string>() }
  const now = () => clock().getTime()

  const holder = (asset: AssetState) =>
    [...bookings.values()].find((b) => b.assetId === asset.id && ['PENDING', 'CONFIRMED', 'STARTED'].includes(b.state))
  const usable = (asset: AssetState) => !asset.maintenance && (asset.batteryPercent ?? 100) >= MIN_CHARGE

  /** Lapsed offers and pending bookings, and reservations not started in time, expire. */
  function tick() {
    const t = now()
    for (const [id, offer] of offers) if (offer.validUntil <= t) offers.delete(id)
    for (const b of bookings.values()) {
      const waiting = b.state === 'CONFIRMED' && (b.legState === 'NOT_STARTED' || b.legState === 'PREPARING')
      const lapsed =
        (b.state === 'PENDING' && t - b.createdAt > 5 * MINUTE) ||
        (waiting && t > b.departure + (options.reserveMinutes ?? 120) * MINUTE)
      if (lapsed) b.state = 'EXPIRED'
    }
  }

  const assetJson = (a: AssetState, withLocation = true) => ({
    id: a.id,
    ...(withLocation ? { overriddenProperties: { location: place(a) } } : {}),
  })
  const legJson = (b: Booking) => {
    const a = byId.get(b.assetId)!
    return {
      id: b.legId,
      from: place(b.from),
      ...(b.to ? { to: place(b.to) } : {}),
      departureTime: new Date(b.departure).toISOString(),
      assetType: { id: a.type.id, assetClass: a.type.assetClass },
      asset: assetJson(a),
      state: b.legState,
    }
  }
  const bookingJson = (b: Booking) => ({
    id: b.id,
    state: b.state,
    departureTime: new Date(b.departure).toISOString(),
    legs: [legJson(b)],
    ...(b.customer ? { customer: b.customer } : {}),
  })

  function availableAssets() {
    return ASSET_TYPES.map((type) => ({
      id: type.id,
      assetClass: type.assetClass,
      ...(type.assetSubClass ? { assetSubClass: type.assetSubClass } : {}),
      sharedProperties: {
        name: type.name,
        propulsion: type.propulsion,
        defaultReserveTime: options.reserveMinutes ?? 120,
      },
      // Both ways of naming a plan: by id (resolved against /operator/pricing-plans) and embedded.
      ...(type.id === 'bike'
        ? { defaultPricingPlan: PRICING_PLANS.find((p) => (p as { planId: string }).planId === type.planId) }
        : { applicablePricings: [{ planId: type.planId }] }),
      assets: assets
        .filter((a) => a.type === type && !['IN_USE', 'PAUSED'].includes(holder(a)?.legState ?? ''))
        .map((a) => ({
          ...assetJson(a),
          isReserved: holder(a) !== undefined,
          isDisabled: !usable(a),
          ...(a.batteryPercent === undefined ? {} : { stateOfCharge: a.batteryPercent }),
          rentalUrl: `https://freebike.example/rent?asset=${a.id}`,
        })),
    }))
  }

  function planning(body: Record<string, any>) {
    const from = body?.from?.coordinates
    if (typeof from?.lat !== 'number' || typeof from?.lng !== 'number') throw new Problem(400, 4001, 'from is required')
    const wanted: string[] = Array.isArray(body.useAssets) ? body.useAssets : []
    const validUntil = now() + 5 * MINUTE
    const options_ = wanted
      .map((id) => byId.get(id))
      .filter((a): a is AssetState => !!a && usable(a) && !holder(a))
      .map((a) => {
        const id = `BK-${randomBytes(5).toString('hex').toUpperCase()}`
        offers.set(id, { assetId: a.id, validUntil, from: { latitude: from.lat, longitude: from.lng } })
        const conditions = options.requireEmail
          ? [{ conditionType: 'conditionRequireBookingData', requiredFields: ['EMAIL'] }]
          : []
        return { id, state: 'NEW', legs: [{ from: place(a), asset: { id: a.id } }], conditions }
      })
    return { validUntil: new Date(validUntil).toISOString(), options: options_ }
  }

  function book(body: Record<string, any>) {
    const offer = offers.get(body?.id)
    if (!offer) throw new Problem(404, 4041, 'no such offer')
    const asset = byId.get(offer.assetId)!
    if (holder(asset) || !usable(asset)) throw new Problem(409, 4091, 'the asset is taken')
    if (options.requireEmail && typeof body.customer?.email !== 'string')
      throw new Problem(400, 4002, 'customer.email is required')
    offers.delete(body.id)
    const t = now()
    const b: Booking = {
      id: body.id,
      legId: `${body.id}-L1`,
      assetId: asset.id,
      state: 'PENDING',
      legState: 'NOT_STARTED',
      createdAt: t,
      departure: t,
      from: { latitude: asset.latitude, longitude: asset.longitude },
      ...(body.customer ? { customer: body.customer } : {}),
    }
    bookings.set(b.id, b)
    legs.set(b.legId, b)
    return bookingJson(b)
  }

  function bookingEvent(b: Booking, operation: string) {
    if (operation === 'COMMIT') {
      if (b.state !== 'PENDING') throw new Problem(403, 4031, `cannot commit a ${b.state} booking`)
      b.state = 'CONFIRMED'
    } else if (operation === 'CANCEL') {
      if (b.state !== 'PENDING' && b.state !== 'CONFIRMED')
        throw new Problem(403, 4032, `cannot cancel a ${b.state} booking`)
      b.state = 'CANCELLED'
      b.legState = 'CANCELLED'
    } else throw new Problem(400, 4003, `operation ${operation} is not supported`)
    return bookingJson(b)
  }

  const RIDE_EVENTS: Record<string, [Booking['legState'][], Booking['legState']]> = {
    PREPARE: [['NOT_STARTED'], 'PREPARING'],
    SET_IN_USE: [['NOT_STARTED', 'PREPARING', 'IN_USE', 'PAUSED'], 'IN_USE'],
    PAUSE: [['IN_USE', 'PAUSED'], 'PAUSED'],
    FINISH: [['IN_USE', 'PAUSED'], 'FINISHED'],
  }

  function legEvent(b: Booking, body: Record<string, any>) {
    const rule = RIDE_EVENTS[body?.event]
    if (!rule) throw new Problem(400, 4004, `event ${body?.event} is not supported`)
    const [from, to] = rule
    const bookingOk =
      b.legState === 'NOT_STARTED' || b.legState === 'PREPARING' ? b.state === 'CONFIRMED' : b.state === 'STARTED'
    if (!from.includes(b.legState) || !bookingOk) {
      throw new Problem(400, 4005, `cannot ${body.event} a leg that is ${b.legState} (booking ${b.state})`)
    }
    // A jammed lock: the operator cannot pause or resume a ride (TOMP's 503 with Retry-After).
    if (state.jammed && (body.event === 'PAUSE' || (body.event === 'SET_IN_USE' && b.state === 'STARTED'))) {
      throw new Problem(503, 5030, 'the lock does not respond', { 'retry-after': '120' })
    }
    const asset = byId.get(b.assetId)!
    if (to === 'IN_USE' && b.state === 'CONFIRMED') {
      b.state = 'STARTED'
      b.startedAt = now()
      b.from = { latitude: asset.latitude, longitude: asset.longitude }
    }
    if (to === 'FINISHED') {
      const target = body.userLocation?.coordinates
      const end = target ? { latitude: target.lat, longitude: target.lng } : b.from
      const minutes = Math.max(0, (now() - (b.startedAt ?? now())) / MINUTE)
      asset.batteryPercent = drained(asset.batteryPercent, b.from, end, minutes)
      asset.latitude = end.latitude
      asset.longitude = end.longitude
      if (target) b.to = end
      b.state = 'FINISHED'
    }
    b.legState = to
    return legJson(b)
  }

  function route(method: string, path: string, query: Record<string, string>, body: any, language: string): unknown {
    if (method === 'GET' && overrides.has(path)) return overrides.get(path)
    if (method === 'GET' && path === 'operator/information') return fixture('information.json')
    if (method === 'GET' && path === 'operator/meta') return fixture('meta.json')
    if (method === 'GET' && path === 'operator/pricing-plans') return PRICING_PLANS
    if (method === 'GET' && path === 'operator/regions') return regions(language)
    if (method === 'GET' && path === 'operator/available-assets') return availableAssets()
    if (method === 'POST' && path === 'planning/offers') return planning(body)
    if (method === 'POST' && path === 'plannings' && query['booking-intent'] === 'true') return planning(body)
    if (method === 'POST' && path === 'bookings') return book(body)
    const [kind, rawId, sub] = path.split('/')
    const id = decodeURIComponent(rawId ?? '')
    const booking = kind === 'bookings' ? bookings.get(id) : kind === 'legs' ? legs.get(id) : undefined
    if ((kind === 'bookings' || kind === 'legs') && rawId) {
      if (!booking) throw new Problem(404, 4042, `no ${kind.slice(0, -1)} ${id}`)
      if (method === 'GET' && sub === undefined) return kind === 'bookings' ? bookingJson(booking) : legJson(booking)
      if (method === 'POST' && sub === 'events') {
        return kind === 'bookings' ? bookingEvent(booking, body?.operation) : legEvent(booking, body)
      }
    }
    throw new Problem(404, 4040, `${method} ${path} is not implemented here`)
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-language': 'en', ...headers })
    res.end(JSON.stringify(body))
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://operator')
      const path = url.pathname.replace(/^\/tomp\//, '').replace(/\/$/, '')
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = text ? JSON.parse(text) : undefined
      } catch {
        return send(res, 400, { errorcode: 4000, title: 'the body is not JSON', status: 400 })
      }
      const query = Object.fromEntries(url.searchParams)
      requests.push({ method: req.method ?? 'GET', path, query, headers: req.headers, body })
      if (state.mode === 'hang') return
      if (state.mode === 'error') return send(res, 500, { errorcode: 5000, title: 'internal error', status: 500 })
      const h = req.headers
      if (options.apiKey && h['x-api-key'] !== options.apiKey) {
        return send(res, 401, { errorcode: 4010, title: 'unknown API key', status: 401 })
      }
      if (h.api !== 'TOMP' || !/^1\./.test(String(h['api-version'])) || !h['maas-id'] || !h['accept-language']) {
        return send(res, 400, {
          errorcode: 4006,
          title: 'Api, Api-Version, maas-id and Accept-Language are required',
          status: 400,
        })
      }
      try {
        tick()
        const answer = route(req.method ?? 'GET', path, query, body, String(h['accept-language']))
        if (req.method === 'GET') {
          for (const hook of afterGet.get(path)?.splice(0) ?? []) hook()
        }
        // Done, but the answer never arrives (a timeout after the operator acted).
        if (state.lost.has(`${req.method} ${path}`)) return
        send(res, req.method === 'POST' && (path === 'bookings' || path.startsWith('plann')) ? 201 : 200, answer)
      } catch (error) {
        if (!(error instanceof Problem)) throw error
        send(res, error.status, {
          errorcode: error.errorcode,
          type: 'about:blank',
          title: error.message,
          status: error.status,
        })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tomp/`

  return {
    url,
    requests,
    /** `error`: every request answers 500; `hang`: no request is answered (until close). */
    set mode(mode: 'error' | 'hang' | undefined) {
      state.mode = mode
    },
    get mode() {
      return state.mode
    },
    /** Requests such as `POST bookings` are carried out, but their answers are lost. */
    lose: (request: string) => state.lost.add(request),
    /** Rides cannot be paused or resumed: PAUSE and SET_IN_USE of a started ride answer 503. */
    set jammed(jammed: boolean) {
      state.jammed = jammed
    },
    /** Answers GET `path` (such as `operator/available-assets`) with `body` instead; undefined restores it. */
    override(path: string, body: unknown) {
      if (body === undefined) overrides.delete(path)
      else overrides.set(path, body)
    },
    /** Runs `hook` once, right after the next answer to GET `path` is made: what it changes that answer misses. */
    afterGet(path: string, hook: () => void) {
      afterGet.set(path, [...(afterGet.get(path) ?? []), hook])
    },
    /** A rider of another MaaS provider starts a ride on the asset: it leaves the available assets. */
    take(assetId: string) {
      const asset = byId.get(assetId)
      if (!asset || holder(asset)) throw new Error(`${assetId} cannot be taken`)
      const id = `BK-OTHER-${randomBytes(4).toString('hex').toUpperCase()}`
      const t = now()
      const b: Booking = {
        id,
        legId: `${id}-L1`,
        assetId,
        state: 'STARTED',
        legState: 'IN_USE',
        createdAt: t,
        departure: t,
        startedAt: t,
        from: { latitude: asset.latitude, longitude: asset.longitude },
      }
      bookings.set(id, b)
      legs.set(b.legId, b)
    },
    asset: (id: string) => byId.get(id),
    booking: (id: string) => bookings.get(id),
    /** The latest booking of an asset. */
    bookingOf: (assetId: string) => [...bookings.values()].filter((b) => b.assetId === assetId).at(-1),
    assets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export type TompOperator = Awaited<ReturnType<typeof startTompOperator>>
