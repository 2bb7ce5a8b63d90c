import { hash } from 'node:crypto'
import type { Registry } from '../../connectors/registry.ts'
import {
  type CarConnector,
  type CarSearchQuery,
  isCarConnector,
  type ProviderCarOffer,
} from '../../connectors/types/cars.ts'
import type { CallContext, Provider } from '../../connectors/types/common.ts'
import type { CarOffer, CarSearchRequest } from '../../contract/cars.ts'
import { ApiError } from '../../contract/errors.ts'
import type { ProviderDisplay, Warning } from '../../contract/shared.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { lru } from '../../platform/lru.ts'
import { randomId } from '../../platform/random.ts'
import type { SessionStore } from '../../platform/sessions/types.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import type { Geocoder } from '../geocoding/index.ts'
import { type Caller, type CallProvider, eligibleProviders } from '../providers/calls.ts'
import { failIfNoProviderAnswered, providerError, sourceStatus } from '../providers/merged-pages.ts'
import { tokenContext, tokenError } from '../token-diagnosis.ts'
import { checkRentalPeriod } from './dates.ts'
import { resolveLocation } from './locations.ts'
import type { OfferTokens } from './offer-tokens.ts'
import { offerClaim, presentOffer, providerDisplay } from './present.ts'
import {
  type AxisRanges,
  answerKeys,
  axisRanges,
  emptyKeys,
  keysUpTo,
  matchesFilters,
  orderPool,
  type PackedPool,
  scoreOffers,
  unpackPool,
  widenRanges,
} from './ranking.ts'

export const SESSION_TTL_MS = 30 * 60 * 1000
/**
 * A session keeps a window of the ordered offers, up to this many (10 pages of 20): bounded memory per search. When
 * more matched, paging past the window asks the providers again for the next one (see `more`).
 */
export const MAX_SESSION_OFFERS = 200
/** A provider that failed is asked again on the next pages, at most this many times. */
export const MAX_RETRIES = 2

export interface SearchDeps {
  registry: Registry
  callProvider: CallProvider
  sessions: SessionStore
  tokens: TokenCipher
  offerTokens: OfferTokens
  geocoder: Geocoder
  searchTimeoutMs: number
  offerTokenTtlSeconds: number
}

interface Session {
  h: string
  query: {
    pickup: CarSearchQuery['pickup']
    dropoff?: CarSearchQuery['dropoff']
    start: string
    end: string
    driverAge?: number
    estimatedKilometers?: number
  }
  /** A window of the offers in the order served, up to MAX_SESSION_OFFERS, starting at position `base`. */
  pool: PackedPool
  base?: number
  /** More offers matched than the window holds: they follow after it. */
  more?: boolean
  pending: string[]
  /** How often each pending provider was asked again; after MAX_RETRIES it is given up, so paging ends. */
  retries: Record<string, number>
  ranges: AxisRanges
  bestTaken: boolean
  searchedPeriod: { start: string; end: string }
  warnings: Warning[]
}

export interface ProviderOutcome {
  id: string
  name: string
  status: 'OK' | 'FAILED' | 'TIMEOUT'
  offers: number
  error?: { code: string; message: string }
}

const cursorContext = (caller: Caller) => tokenContext('cars-cursor', caller.tenant.id, caller.environment)
/** Sessions are bounded per tenant first (see SessionStore): a tenant's storm evicts its own. */
const sessionScope = (caller: Caller) => caller.tenant.id

interface CursorClaim {
  /** The session. */
  s: string
  /** Hash of the search parameters. */
  h: string
  /** Where the next page starts in the session's order. */
  o?: number
  /** When the cursor was issued (ms): a session missing less than SESSION_TTL_MS later was evicted, not expired. */
  t?: number
}

/** How many hashes of search parameters are kept (a client's next pages, the same search again). */
const PARAMETER_HASHES = 256

/** POST /cars: fan-out under one deadline, merge, filter, score, sort, and page through a server-side session. */
export function createCarSearch(deps: SearchDeps) {
  // The hash of the same parameters (every page of a search, a search asked again) is looked up instead of digested
  // again: a sha256 per search was ~2.4 % of the car-search profile, a map look-up of its JSON costs a fraction.
  const hashes = lru<string, string>(PARAMETER_HASHES)
  const parametersHash = (json: string): string => {
    let h = hashes.get(json)
    if (h === undefined) {
      // One-shot: a Hash object per search cost more than the digest.
      h = hash('sha256', json, 'base64url')
      hashes.set(json, h)
    }
    return h
  }
  /** Each provider's outcome, in the order of `providers` (no pair object per provider). */
  function ask(caller: Caller, providers: (Provider & { connector: CarConnector })[], query: CarSearchQuery) {
    const search = (c: CarConnector, ctx: CallContext) => c.searchCars(query, ctx)
    // The calls share one signal and context (their connectors keep nothing running once they answered).
    return Promise.allSettled(
      providers.map((p) => deps.callProvider(caller, p, 'searchCars', deps.searchTimeoutMs, search, true, true)),
    )
  }

  return async function search(request: CarSearchRequest, caller: Caller) {
    const { start, end } = checkRentalPeriod(request.dates, caller.now)
    const pickup = await resolveLocation(request.pickup, 'pickup', deps.geocoder, caller.language)
    const dropoff =
      request.dropoff && (await resolveLocation(request.dropoff, 'dropoff', deps.geocoder, caller.language))
    const query: CarSearchQuery = {
      pickup: { coordinates: pickup.coordinates, radiusMeters: pickup.radiusMeters },
      ...(dropoff ? { dropoff: { coordinates: dropoff.coordinates, radiusMeters: dropoff.radiusMeters } } : {}),
      start,
      end,
      driverAge: request.driverAge,
      estimatedKilometers: request.estimatedKilometers,
    }
    const sortBy = request.sortBy ?? 'RECOMMENDED'
    const withPrice = request.estimatedKilometers !== undefined
    // The period's ISO strings once, for the hash and the session: the same JSON as the dates' toJSON, which
    // JSON.stringify reaches by a generic call (the stringify took 1.4 to 2.7 times as long with the dates).
    const startIso = start.toISOString()
    const endIso = end.toISOString()
    const h = parametersHash(
      JSON.stringify([
        request.pickup,
        request.dropoff,
        startIso,
        endIso,
        request.driverAge,
        request.estimatedKilometers,
        request.filters,
        sortBy,
      ]),
    )

    let session: Session | undefined
    let sessionId: string | undefined
    // Where this page starts in the session's ordered pool: cursors carry it, so asking again with the same cursor
    // (a client's retry) answers the same page.
    let offset = 0
    if (request.cursor) {
      const claim = deps.tokens.open<CursorClaim>(cursorContext(caller), request.cursor)
      if (!claim) {
        const where = { tenantId: caller.tenant.id, environment: caller.environment }
        throw tokenError('INVALID_CURSOR', deps.tokens, 'cars-cursor', where, request.cursor, 'cursor')
      }
      // Changed parameters start a fresh first page silently (spec 8).
      if (claim.h === h) {
        const stored = await deps.sessions.get<Session>(sessionScope(caller), claim.s)
        if (!stored) throw sessionGone(claim, caller.now)
        // A copy: the memory store hands out the stored object itself.
        session = { ...stored, pending: [...stored.pending], retries: { ...stored.retries } }
        sessionId = claim.s
        const end = (stored.base ?? 0) + stored.pool.offers.length
        offset = Math.max(0, Math.min(Number(claim.o) || 0, end))
      }
    }

    const all = eligibleProviders(deps.registry, caller, 'SEARCH', isCarConnector)
    const outcomes: ProviderOutcome[] = []
    const firstPage = !session
    const limit = request.limit ?? 20
    // A page beyond the session's window (more matched than it holds) asks every provider again for the next window.
    const refill =
      !!session?.more &&
      (offset < (session.base ?? 0) || offset + limit > (session.base ?? 0) + session.pool.offers.length)
    const asked = firstPage || refill ? all : all.filter((p) => session!.pending.includes(p.entry.id))
    const answers = await ask(caller, asked, query)
    // Sized once for every offer the answers hold (arrays grown by push copied ~4 times as much as they kept).
    let answered = 0
    for (const result of answers) if (result.status === 'fulfilled') answered += result.value.offers.length
    const freshOffers = new Array<ProviderCarOffer>(answered)
    const freshProviders = new Array<string>(answered)
    // The offers' sort and score keys, copied from each answer's (read once per immutable answer, see answerKeys).
    const allKeys = emptyKeys(answered)
    let merged = 0
    const pending: string[] = []
    let searchedPeriod: Session['searchedPeriod'] | undefined
    const warnings = new Map<string, Warning>()
    for (let i = 0; i < answers.length; i++) {
      const provider = asked[i]
      const result = answers[i]
      // Each outcome as one literal (a spread of a shared base object per provider copied it by the slow path).
      const { id, name } = provider.entry
      if (result.status === 'rejected') {
        pending.push(id)
        outcomes.push({
          id,
          name,
          status: sourceStatus(result),
          offers: 0,
          error: providerError(result.reason, caller.language),
        })
        continue
      }
      let count = 0
      const offers = result.value.offers
      const own = answerKeys(offers)
      for (let j = 0; j < offers.length; j++) {
        if (!matchesFilters(offers[j], request.filters)) continue
        freshOffers[merged] = offers[j]
        freshProviders[merged] = id
        allKeys.cost[merged] = own.cost[j]
        allKeys.time[merged] = own.time[j]
        allKeys.co2[merged] = own.co2[j]
        merged++
        count++
      }
      searchedPeriod ??= result.value.searchedPeriod
      for (const w of result.value.warnings) warnings.set(`${w.code}|${w.field ?? ''}`, w)
      outcomes.push({ id, name, status: 'OK', offers: count })
    }

    freshOffers.length = merged
    freshProviders.length = merged
    const keys = keysUpTo(allKeys, merged)

    if (firstPage) {
      failIfNoProviderAnswered(answers, outcomes)
      const ranges = axisRanges(freshOffers, keys)
      const scored = scoreOffers(freshOffers, ranges, false, keys)
      const pool = { offers: freshOffers, providerIds: freshProviders, recommendations: scored.recommendations }
      session = {
        h,
        query: { ...query, start: startIso, end: endIso },
        pool: orderPool(pool, sortBy, MAX_SESSION_OFFERS, keys),
        more: freshOffers.length > MAX_SESSION_OFFERS,
        pending,
        retries: {},
        ranges,
        bestTaken: scored.bestTaken,
        searchedPeriod: searchedPeriod ?? { start: startIso, end: endIso },
        warnings: [...warnings.values()],
      }
      if (session.pool.offers.length === 0 && pending.length === 0) {
        throw new ApiError('NO_OFFERS_AVAILABLE', undefined, { providers: outcomes })
      }
    } else if (refill) {
      // The whole ordered result again (the providers answer the same search the same way), and the window from
      // this page on. The top offer is BEST_OVERALL again, so every offer keeps its place in the order.
      const s = session!
      s.ranges = widenRanges(s.ranges, axisRanges(freshOffers, keys))
      const scored = scoreOffers(freshOffers, s.ranges, false, keys)
      const ordered = orderPool(
        { offers: freshOffers, providerIds: freshProviders, recommendations: scored.recommendations },
        sortBy,
        offset + MAX_SESSION_OFFERS,
        keys,
      )
      s.pool = {
        offers: ordered.offers.slice(offset),
        providerIds: ordered.providerIds.slice(offset),
        recommendations: ordered.recommendations.slice(offset),
      }
      s.base = offset
      s.more = freshOffers.length > offset + MAX_SESSION_OFFERS
      for (const id of pending) s.retries[id] = (s.retries[id] ?? 0) + 1
      s.pending = pending.filter((id) => s.retries[id] < MAX_RETRIES)
    } else {
      const s = session!
      const at = offset - (s.base ?? 0)
      if (freshOffers.length > 0) {
        s.ranges = widenRanges(s.ranges, axisRanges(freshOffers, keys))
        const late = scoreOffers(freshOffers, s.ranges, true, keys).recommendations
        // Offers that arrive late join the part not served yet, in order; served pages stay as they were.
        const p = s.pool
        const candidates = p.offers.length - at + freshOffers.length
        const rest = orderPool(
          {
            offers: [...p.offers.slice(at), ...freshOffers],
            providerIds: [...p.providerIds.slice(at), ...freshProviders],
            recommendations: [...p.recommendations.slice(at), ...late],
          },
          sortBy,
          MAX_SESSION_OFFERS - at,
        )
        if (candidates > MAX_SESSION_OFFERS - at) s.more = true
        s.pool = {
          offers: [...p.offers.slice(0, at), ...rest.offers],
          providerIds: [...p.providerIds.slice(0, at), ...rest.providerIds],
          recommendations: [...p.recommendations.slice(0, at), ...rest.recommendations],
        }
      }
      for (const id of pending) s.retries[id] = (s.retries[id] ?? 0) + 1
      s.pending = pending.filter((id) => s.retries[id] < MAX_RETRIES)
    }

    const s = session!
    const at = offset - (s.base ?? 0)
    const page = unpackPool(s.pool, at, at + limit, caller.language)
    const hasMore = s.pool.offers.length > at + limit || !!s.more || s.pending.length > 0
    let nextCursor: string | undefined
    if (hasMore || sessionId) {
      // Saved (and its 30 minutes renewed) on every page; kept after the last page so that page can be asked again.
      sessionId ??= randomId(12)
      // The offers are the providers' immutable objects, which other sessions may hold too.
      await deps.sessions.put(sessionScope(caller), sessionId, s, SESSION_TTL_MS, s.pool.offers)
      if (hasMore) {
        const claim: CursorClaim = { s: sessionId, h, o: offset + page.length, t: caller.now.getTime() }
        nextCursor = deps.tokens.seal(cursorContext(caller), claim)
      }
    }

    const byId = new Map<string, (typeof all)[number]>()
    for (const p of all) byId.set(p.entry.id, p)
    // What every offer of the page shares is made once: its providers' display and the tokens' validity; the page's
    // tokens are sealed together.
    const displays = new Map<string, ProviderDisplay>()
    const untilMs = caller.now.getTime() + deps.offerTokenTtlSeconds * 1000
    const usableUntil = { ms: untilMs, iso: new Date(untilMs).toISOString() }
    const shown = page.filter((item) => byId.has(item.providerId))
    const tokens = deps.offerTokens.issueMany(
      'offer',
      caller.tenant.id,
      caller.environment,
      shown.map((item) => offerClaim(item, untilMs, withPrice)),
    )
    const offers: CarOffer[] = []
    shown.forEach((item, i) => {
      const provider = byId.get(item.providerId)!
      let display = displays.get(item.providerId)
      if (!display) {
        display = providerDisplay(provider)
        displays.set(item.providerId, display)
      }
      offers.push(
        presentOffer(item, provider, caller, deps.offerTokens, {
          ttlSeconds: deps.offerTokenTtlSeconds,
          withPrice,
          display,
          usableUntil,
          offerToken: tokens[i],
        }),
      )
    })
    return {
      offers,
      searchedPeriod: s.searchedPeriod,
      pagination: hasMore ? { hasMore, nextCursor } : { hasMore },
      providers: outcomes,
      warnings: s.warnings,
    }
  }
}

/**
 * A cursor whose session is gone: expired (unused for 30 minutes, spec 8), or dropped sooner to keep memory bounded
 * (evicted, or lost with a restart of the embedded service). Either way the search must start again.
 */
function sessionGone(claim: CursorClaim, now: Date): ApiError {
  const age = claim.t === undefined ? Number.POSITIVE_INFINITY : now.getTime() - claim.t
  return age >= SESSION_TTL_MS
    ? new ApiError('INVALID_CURSOR', undefined, { cursor: detail('HAS_EXPIRED'), reason: 'CURSOR_EXPIRED' })
    : new ApiError('INVALID_CURSOR', undefined, {
        cursor: detail('SESSION_NO_LONGER_HELD'),
        reason: 'SESSION_EVICTED',
      })
}

export type CarSearch = ReturnType<typeof createCarSearch>
