import { ApiError } from '../../contract/errors.ts'
import { permanentProviderError, vehicleNotAvailable } from '../refusals.ts'
import { readBoundedBody } from '../shared/bounded-body.ts'

/**
 * The wire calls of a TOMP-API 1.x operator: every request carries the headers the specification makes mandatory
 * (Accept-Language, Api, Api-Version, maas-id) plus the configured authentication, runs within a deadline and a size
 * limit, and fails with a TompError that says what went wrong; `operatorError` turns that into the one error type.
 */

export type TompErrorKind = 'HTTP' | 'TIMEOUT' | 'ABORTED' | 'NETWORK' | 'BAD_RESPONSE'

/** The error body of TOMP (RFC 7807-like): `errorcode` is the operator's, `status` the HTTP status. */
export interface TompProblem {
  errorcode?: number
  title?: string
  detail?: string
}

export class TompError extends Error {
  readonly kind: TompErrorKind
  readonly status?: number
  readonly problem?: TompProblem

  constructor(kind: TompErrorKind, message: string, status?: number, problem?: TompProblem) {
    super(message)
    this.name = 'TompError'
    this.kind = kind
    this.status = status
    this.problem = problem
  }
}

export interface ClientOptions {
  /** The operator's base URL, ending in `/`; paths are resolved against it. */
  url: URL
  apiVersion: string
  maasId: string
  apiKey?: string
  token?: string
  headers?: Record<string, string>
  timeoutMs: number
  maxBytes: number
}

export interface CallOptions {
  language: string
  /** The caller's signal (or the connector's own, for shared reads). */
  signal?: AbortSignal
  query?: Record<string, string>
}

const problemOf = (value: unknown): TompProblem | undefined => {
  // Some operators wrap problems as `{ errors: [...] }` (the specification's errorResponse).
  const raw = (value as { errors?: unknown[] } | undefined)?.errors?.[0] ?? value
  if (typeof raw !== 'object' || raw === null) return undefined
  const { errorcode, title, detail } = raw as Record<string, unknown>
  const problem: TompProblem = {
    ...(typeof errorcode === 'number' ? { errorcode } : {}),
    ...(typeof title === 'string' ? { title: title.slice(0, 200) } : {}),
    ...(typeof detail === 'string' ? { detail: detail.slice(0, 500) } : {}),
  }
  return Object.keys(problem).length > 0 ? problem : undefined
}

const readText = async (response: Response, maxBytes: number, where: string) =>
  (await readBoundedBody(response, maxBytes, where, (message) => new TompError('BAD_RESPONSE', message))).toString(
    'utf8',
  )

export function tompClient(options: ClientOptions) {
  const auth: Record<string, string> = {
    ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}),
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  }

  async function request(method: 'GET' | 'POST', path: string, body: unknown, call: CallOptions): Promise<unknown> {
    const url = new URL(path, options.url)
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value)
    // Messages name the path only: the base URL may carry credentials, and the log is not the place for them.
    const where = `${method} ${url.pathname}`
    const timeout = AbortSignal.timeout(options.timeoutMs)
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-language': call.language,
      api: 'TOMP',
      'api-version': options.apiVersion,
      'maas-id': options.maasId,
      'user-agent': 'mobility-aggregation-service (TOMP connector)',
      ...options.headers,
      ...auth,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    }
    let response: Response
    let text: string
    try {
      response = await fetch(url, {
        method,
        headers,
        signal,
        redirect: 'follow',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      text = await readText(response, options.maxBytes, where)
    } catch (error) {
      if (error instanceof TompError) throw error
      if (call.signal?.aborted) throw new TompError('ABORTED', `${where}: the caller gave up`)
      if (timeout.aborted) throw new TompError('TIMEOUT', `${where} did not answer within ${options.timeoutMs} ms`)
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      throw new TompError(
        'NETWORK',
        `${where}: cannot reach the operator (${cause?.code ?? cause?.message ?? (error as Error).message})`,
      )
    }
    let json: unknown
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text)
      } catch {
        if (response.ok) throw new TompError('BAD_RESPONSE', `${where} answered ${response.status} without JSON`)
      }
    }
    if (!response.ok) {
      const problem = problemOf(json)
      const said = problem?.title ?? problem?.detail
      throw new TompError(
        'HTTP',
        `${where} answered HTTP ${response.status}${said ? ` (${said})` : ''}`,
        response.status,
        problem,
      )
    }
    return json
  }

  return {
    get: (path: string, call: CallOptions) => request('GET', path, undefined, call),
    post: (path: string, body: unknown, call: CallOptions) => request('POST', path, body, call),
  }
}

export type TompClient = ReturnType<typeof tompClient>

/**
 * A TOMP or HTTP failure as the service's one error type, the way the sandbox and GBFS connectors report theirs:
 * the caller giving up and the operator's silence are TIMEOUT; an unknown booking or leg is NOT_FOUND; anything else
 * the operator did wrong or refused is PROVIDER_ERROR with a `reason` (`refusal` names what a 4xx refusal means where
 * the caller knows); a 4xx refusal is definitive (`retryable: false`), and VEHICLE_NOT_AVAILABLE while booking is the
 * vehicle taken: 404 OFFER_EXPIRED, as every trip connector answers it. `operatorStatus` and the operator's own
 * `errorcode` are kept for support; the operator's texts only go to the message, which stays in the log.
 */
export function operatorError(error: unknown, refusal?: string): ApiError {
  if (error instanceof ApiError) return error
  if (!(error instanceof TompError)) {
    return new ApiError('PROVIDER_ERROR', (error as Error)?.message, { reason: 'OPERATOR_ERROR' })
  }
  const operator = {
    ...(error.status === undefined ? {} : { operatorStatus: error.status }),
    ...(error.problem?.errorcode === undefined ? {} : { operatorErrorCode: error.problem.errorcode }),
  }
  switch (error.kind) {
    case 'ABORTED':
      return new ApiError('TIMEOUT', error.message, { reason: 'ABORTED' })
    case 'TIMEOUT':
      return new ApiError('TIMEOUT', error.message, { reason: 'OPERATOR_TIMEOUT' })
    case 'NETWORK':
      return new ApiError('PROVIDER_ERROR', error.message, { reason: 'OPERATOR_UNREACHABLE' })
    case 'BAD_RESPONSE':
      return new ApiError('PROVIDER_ERROR', error.message, { reason: 'OPERATOR_BAD_RESPONSE' })
  }
  const status = error.status ?? 500
  if (status === 404 || status === 410) return new ApiError('NOT_FOUND', error.message, operator)
  if (status === 401)
    return new ApiError('PROVIDER_ERROR', error.message, { reason: 'OPERATOR_UNAUTHORIZED', ...operator })
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    // The operator works and refused this request: an answer, not a fault, and the same answer again on a retry.
    if (refusal === 'VEHICLE_NOT_AVAILABLE') return vehicleNotAvailable(error.message, operator)
    return permanentProviderError(refusal ?? 'OPERATOR_REJECTED', error.message, operator)
  }
  return new ApiError('PROVIDER_ERROR', error.message, { reason: 'OPERATOR_ERROR', ...operator })
}

/** Whether the operator refused the request (a 4xx other than not found, unauthorized or too many requests). */
export const isRefusal = (error: unknown) =>
  error instanceof TompError &&
  error.kind === 'HTTP' &&
  error.status !== undefined &&
  error.status >= 400 &&
  error.status < 500 &&
  ![401, 404, 408, 410, 429].includes(error.status)

export const isNotFound = (error: unknown) =>
  error instanceof TompError && error.kind === 'HTTP' && (error.status === 404 || error.status === 410)
