import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../contract/errors.ts'
import { detail } from '../platform/i18n/texts.ts'
import type { Jobs } from '../platform/jobs.ts'
import type { IdempotencyRepo, KeptAnswer } from '../store/idempotency-repo.ts'
import type { IdempotencyRow } from '../store/schema.ts'
import {
  describeRequest,
  fingerprintOf,
  IDEMPOTENCY_HEADER,
  idempotencyKeyOf,
  keepsAnswer,
  scopeIdOf,
  withoutPersonalData,
} from './idempotency-rules.ts'
import { routeConfig } from './route-context.ts'

/** How long a first answer is replayed (DECISIONS: 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000
export const REPLAYED_HEADER = 'idempotent-replayed'
export const REDACTED_HEADER = 'idempotent-redacted'
/** Seconds a repeat is told to wait while the first request runs: most finish within a second or two. */
const IN_PROGRESS_RETRY_SECONDS = 1
/** The answer's headers that belong to it and are replayed; the others are the new request's own. */
const KEPT_HEADERS = ['content-type', 'content-language', 'location']
const SWEEP_JOB = 'idempotency.sweep'
const SWEEP_ID = 'idempotency_sweep'
const SWEEP_EVERY_MS = 15 * 60_000

export interface IdempotencyDeps {
  repo: IdempotencyRepo
  jobs: Jobs
  clock: () => Date
  /** A request holds its key this long; past it (the instance crashed or hung) a repeat may take the key over. */
  leaseMs: number
  /** Larger answers are not kept (the key is freed). */
  maxAnswerBytes: number
  /** Only routes under this prefix (the public API) take the header. */
  apiPrefix: string
}

interface Pending {
  key: string
  request: string
  claim?: { id: string; owner: string; settled: boolean }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key of a POST or PATCH of the public API, and this request's hold on it. */
    idempotency?: Pending
  }
}

const token = () => randomBytes(16).toString('hex')

const reused = () =>
  new ApiError(
    'INVALID_REQUEST',
    undefined,
    {
      reason: 'IDEMPOTENCY_KEY_REUSED',
      'Idempotency-Key': detail('IDEMPOTENCY_KEY_USED_ELSEWHERE'),
    },
    { status: 422 },
  )

const inProgress = () =>
  new ApiError(
    'INTERNAL_ERROR',
    undefined,
    { reason: 'IDEMPOTENCY_KEY_IN_PROGRESS', retryable: true, retryAfterSeconds: IN_PROGRESS_RETRY_SECONDS },
    { status: 409, headers: { 'retry-after': String(IN_PROGRESS_RETRY_SECONDS) } },
  )

function replay(reply: FastifyReply, row: IdempotencyRow): FastifyReply {
  reply.code(row.status ?? 200)
  for (const [name, value] of Object.entries(row.headers ?? {})) reply.header(name, value)
  reply.header(REPLAYED_HEADER, 'true')
  if (row.redacted) reply.header(REDACTED_HEADER, 'true')
  return reply.send(row.body ?? '')
}

/**
 * `Idempotency-Key` on every POST and PATCH of the public API (DECISIONS "Safe retries"): the first request with a key
 * takes it in the database (one atomic insert, so across instances one wins), runs, and its answer is kept for 24 hours
 * if it is worth keeping (see `keepsAnswer`); a repeat gets that answer again with `Idempotent-Replayed: true`, 409
 * while the first still runs, 422 when it is another request. Under retention NONE the kept answer has no personal
 * fields (`Idempotent-Redacted: true` on replay).
 */
export function createIdempotency(deps: IdempotencyDeps) {
  const { repo, clock } = deps

  const applies = (request: FastifyRequest) => {
    if ((request.method !== 'POST' && request.method !== 'PATCH') || request.auth === undefined) return false
    const route = routeConfig(request)
    return route.permission !== undefined && (route.url ?? '').startsWith(`${deps.apiPrefix}/`)
  }

  /** Takes the key, or answers for it: a replay, 409 while it runs, 422 for another request. */
  async function takeOrAnswer(request: FastifyRequest, reply: FastifyReply, pending: Pending) {
    const { key, tenant } = request.auth ?? {}
    if (!key || !tenant) return
    const id = scopeIdOf(key.id, pending.key)
    // A row that changes between the claim and the read (freed, taken over) is claimed again, a few times at most.
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = clock()
      const salt = token()
      const owner = token()
      const claimed = await repo.claim({
        id,
        tenantId: tenant.id,
        environment: key.environment,
        apiKeyId: key.id,
        salt,
        fingerprint: fingerprintOf(salt, pending.request),
        owner,
        now,
        lockedUntil: new Date(now.getTime() + deps.leaseMs),
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      })
      if (claimed) {
        pending.claim = { id, owner, settled: false }
        return
      }
      const row = await repo.find(id)
      const at = clock().getTime()
      if (!row || row.expiresAt.getTime() <= at) continue
      if (row.state === 'running' && (row.lockedUntil?.getTime() ?? 0) <= at) continue
      if (fingerprintOf(row.salt, pending.request) !== row.fingerprint) throw reused()
      if (row.state === 'running') throw inProgress()
      return replay(reply, row)
    }
    throw inProgress()
  }

  /** The answer as it will be kept, or undefined when it is not kept. */
  function keptAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): KeptAnswer | undefined {
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
    if (text === undefined || !keepsAnswer(reply.statusCode, text)) return undefined
    if (Buffer.byteLength(text) > deps.maxAnswerBytes) return undefined
    const headers: Record<string, string> = {}
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name)
      if (value !== undefined) headers[name] = String(value)
    }
    if (request.auth?.tenant.dataRetention !== 'NONE') {
      return { status: reply.statusCode, headers, body: text, redacted: false }
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      // Not JSON, so not read for personal fields: not kept under retention NONE.
      return undefined
    }
    const { value, removed } = withoutPersonalData(parsed)
    return { status: reply.statusCode, headers, body: JSON.stringify(value), redacted: removed }
  }

  /** Keeps or frees the key once the answer is ready, before it is sent, so a repeat after it sees the outcome. */
  async function settle(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.idempotency?.claim
    if (!claim || claim.settled) return
    claim.settled = true
    try {
      const answer = keptAnswer(request, reply, payload)
      if (answer) await repo.settle(claim.id, claim.owner, answer)
      else await repo.release(claim.id, claim.owner)
    } catch (error) {
      // The answer still goes out; the key stays held until its lease runs out, then a repeat runs again.
      request.log.warn({ err: error }, 'could not keep the answer of an idempotent request')
    }
  }

  /** Puts the sweep job in the queue unless it is there already (one id, so it is pending once across instances). */
  const scheduleSweep = () => deps.jobs.enqueue(SWEEP_JOB, {}, { id: SWEEP_ID, replaceFinished: true, maxAttempts: 1 })

  return {
    /** Installs the hooks; before the routes are registered, so that they apply to all of them. */
    install(app: FastifyInstance): void {
      app.decorateRequest('idempotency', undefined)
      // Before validation fills in defaults: the request is compared as the client sent it.
      const preValidation = async (request: FastifyRequest) => {
        if (!applies(request)) return
        const key = idempotencyKeyOf(request.headers[IDEMPOTENCY_HEADER])
        if (key === undefined) return
        request.idempotency = { key, request: describeRequest(request.method, request.url, request.body) }
      }
      // After validation: what failed it never took the key.
      const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
        if (request.idempotency) return takeOrAnswer(request, reply, request.idempotency)
      }
      const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        await settle(request, reply, payload)
        return payload
      }
      // Only routes that take POST or PATCH get the hooks (first among their own), so a GET runs none of them: three
      // async hooks per request showed in the GET /auth/check profile. Hooks of the app run before a route's, as the
      // app's other onSend hook (Content-Language, Vary) did before these when they were the app's.
      const first = <H>(hook: H, own: H | H[] | undefined): H[] => [
        hook,
        ...(own === undefined ? [] : ([own].flat() as H[])),
      ]
      app.addHook('onRoute', (route) => {
        const methods = [route.method].flat()
        if (!methods.includes('POST') && !methods.includes('PATCH')) return
        route.preValidation = first(preValidation, route.preValidation) as typeof route.preValidation
        route.preHandler = first(preHandler, route.preHandler) as typeof route.preHandler
        route.onSend = first(onSend, route.onSend) as typeof route.onSend
      })
    },

    /** Registers the job that deletes expired keys. */
    registerSweep(): void {
      deps.jobs.register(SWEEP_JOB, async () => {
        await repo.deleteExpired(clock())
      })
    },

    scheduleSweep,

    /**
     * Schedules the sweep now and every 15 minutes on this instance; with several instances it still runs once per
     * turn (on one of them), and sweeps go on while any instance runs. Answers a function that stops the timer.
     */
    startSweeps(onError: (error: unknown) => void): () => void {
      const schedule = () => void scheduleSweep().catch(onError)
      schedule()
      const timer = setInterval(schedule, SWEEP_EVERY_MS)
      timer.unref()
      return () => clearInterval(timer)
    },
  }
}

export type Idempotency = ReturnType<typeof createIdempotency>
