import { hash } from 'node:crypto'
import { ApiError, type ErrorCode, isApiError } from '../../contract/errors.ts'
import { errorMessage } from '../../platform/i18n/index.ts'
import { detail } from '../../platform/i18n/texts.ts'
import { outageIn } from '../../platform/outage.ts'
import type { TokenCipher } from '../../platform/tokens.ts'
import { type TokenKind, tokenContext, tokenError } from '../token-diagnosis.ts'

/** Spec 8: a cursor session lasts 30 minutes, renewed at each page request. */
export const CURSOR_SESSION_MS = 30 * 60 * 1000
/** A provider that failed keeps a list paging (`hasMore`) for at most this many pages in a row. */
export const MAX_PAGE_RETRIES = 2

/** One provider's list, best first (nearest, most relevant), stable between requests. */
export interface PageSource<T> {
  id: string
  /** The first `want` items of the provider's list (fewer when it has no more). */
  fetch(want: number): Promise<T[]>
}

interface Claim {
  /** Hash of the parameters the cursor belongs to. */
  h: string
  /** When the cursor was issued (ms): the session runs 30 minutes from the last page. */
  t: number
  /** How many items of each provider's list were served so far. */
  c: Record<string, number>
  /** Pages in a row each provider failed on. */
  r?: Record<string, number>
}

export interface MergedPage<T> {
  items: T[]
  hasMore: boolean
  nextCursor?: string
  /** Each source's answer to this page's request, in the order of `sources`. */
  settled: PromiseSettledResult<T[]>[]
}

/** A hash of the parameters a cursor is valid for; other parameters start a fresh first page (spec 8). */
// One-shot crypto.hash: no Hash object per page (the same SHA-256 digest, base64url).
export const paramsHash = (params: unknown) => hash('sha256', JSON.stringify(params), 'base64url')

/**
 * A page of several providers' lists merged in one order, behind a stateless cursor (spec 8). The cursor remembers
 * how far into each provider's list the pages went, so a provider that failed on one page is asked again on the
 * next and its items join from where they stand, without skipping or repeating the others. Each page asks every
 * provider for the part it has not served plus one page and one item more: enough to fill the page and to know
 * whether more follow. A cursor older than 30 minutes answers INVALID_CURSOR (`CURSOR_EXPIRED`).
 */
export async function mergedPage<T>(options: {
  tokens: TokenCipher
  /** Binds the cursor to the tenant, environment and list (endpoint). */
  context: { kind: TokenKind; tenantId: string; environment: string }
  cursor: string | undefined
  params: unknown
  now: Date
  limit: number
  sources: PageSource<T>[]
  compare: (a: T, b: T) => number
}): Promise<MergedPage<T>> {
  const { tokens, limit, sources, now } = options
  const { kind, tenantId, environment } = options.context
  const context = tokenContext(kind, tenantId, environment)
  const h = paramsHash(options.params)
  let served: Record<string, number> = {}
  let retries: Record<string, number> = {}
  if (options.cursor) {
    const claim = tokens.open<Claim>(context, options.cursor)
    if (!claim || typeof claim.c !== 'object' || claim.c === null)
      throw tokenError('INVALID_CURSOR', tokens, kind, { tenantId, environment }, options.cursor, 'cursor')
    // Changed parameters start a fresh first page silently.
    if (claim.h === h) {
      if (now.getTime() - claim.t > CURSOR_SESSION_MS)
        throw new ApiError('INVALID_CURSOR', undefined, { cursor: detail('HAS_EXPIRED'), reason: 'CURSOR_EXPIRED' })
      served = claim.c
      retries = claim.r ?? {}
    }
  }
  const settled = await Promise.allSettled(sources.map((s) => s.fetch((served[s.id] ?? 0) + limit + 1)))
  const candidates: { source: number; item: T }[] = []
  const nextRetries: Record<string, number> = {}
  let retrying = false
  settled.forEach((answer, i) => {
    const id = sources[i].id
    if (answer.status === 'rejected') {
      nextRetries[id] = (retries[id] ?? 0) + 1
      if (nextRetries[id] <= MAX_PAGE_RETRIES) retrying = true
      return
    }
    for (const item of answer.value.slice(served[id] ?? 0)) candidates.push({ source: i, item })
  })
  candidates.sort((a, b) => options.compare(a.item, b.item))
  const page = candidates.slice(0, limit)
  const hasMore = candidates.length > limit || retrying
  if (!hasMore) return { items: page.map((x) => x.item), hasMore, settled }
  const nextServed: Record<string, number> = {}
  for (const s of sources) if (served[s.id]) nextServed[s.id] = served[s.id]
  for (const { source } of page) nextServed[sources[source].id] = (nextServed[sources[source].id] ?? 0) + 1
  const claim: Claim = { h, t: now.getTime(), c: nextServed, ...(retrying ? { r: nextRetries } : {}) }
  return { items: page.map((x) => x.item), hasMore, nextCursor: tokens.seal(context, claim), settled }
}

/** What a provider that failed in a list answer reports (`providers[].error`): its code and the message in the caller's language. */
export function providerError(reason: unknown, language: string): { code: ErrorCode; message: string } {
  const code = isApiError(reason) ? reason.code : 'PROVIDER_ERROR'
  return { code, message: errorMessage(language, code, isApiError(reason) ? reason.details?.reason : undefined) }
}

/**
 * A provider's entry in a list answer's `providers`: how it answered, how many items it gave (under `count`:
 * `offers`, `stations`, ...), and why it failed.
 */
export function providerOutcome<K extends string>(
  provider: { entry: { id: string; name: string } },
  answer: PromiseSettledResult<unknown>,
  language: string,
  count: K,
  items: number,
) {
  return {
    id: provider.entry.id,
    name: provider.entry.name,
    status: sourceStatus(answer),
    ...({ [count]: items } as Record<K, number>),
    ...(answer.status === 'rejected' ? { error: providerError(answer.reason, language) } : {}),
  }
}

/**
 * A list that no provider could answer is an error, not an empty list: 504 TIMEOUT when every provider missed the
 * deadline, else 500 PROVIDER_ERROR, with `details.providers` saying how each failed. Only for a first page: on a
 * later page the failed providers are asked again on the next (spec 8), so the page answers.
 */
export function failIfNoProviderAnswered(answers: PromiseSettledResult<unknown>[], providers: unknown[]): void {
  if (answers.length === 0 || answers.some((a) => a.status === 'fulfilled')) return
  // Providers that failed because Redis or the database is down (the sandbox keeps its state there): 503, not 500.
  const outage = answers.map((a) => a.status === 'rejected' && outageIn(a.reason)).find((e) => e)
  if (outage) throw new ApiError(outage.code, undefined, { ...outage.details, providers }, { headers: outage.headers })
  const code = answers.every((a) => sourceStatus(a) === 'TIMEOUT') ? 'TIMEOUT' : 'PROVIDER_ERROR'
  throw new ApiError(code, undefined, { providers })
}

/** A provider's status in a list answer (`providers[].status`). */
export const sourceStatus = (answer: PromiseSettledResult<unknown>): 'OK' | 'FAILED' | 'TIMEOUT' =>
  answer.status === 'fulfilled'
    ? 'OK'
    : answer.reason instanceof ApiError && answer.reason.code === 'TIMEOUT'
      ? 'TIMEOUT'
      : 'FAILED'
