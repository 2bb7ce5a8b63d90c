import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { detail, type Text } from '../../platform/i18n/texts.ts'
import { type AddressClass, classifyAddress } from './addresses.ts'

/** Resolves a host name to its addresses (injected in tests to play DNS rebinding). */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>

export const MAX_URL_LENGTH = 2048
const RESOLVE_TIMEOUT_MS = 3000

export const systemResolver: HostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true })

export interface UrlRules {
  environment: 'live' | 'test'
  /** WEBHOOKS_ALLOW_PRIVATE: live endpoints may reach private addresses (and use http: there). */
  allowPrivate: boolean
}

/** Why a URL or the address it leads to is refused; `reason` goes to `details.reason`. */
export interface Refusal {
  reason:
    | 'URL_INVALID'
    | 'URL_TOO_LONG'
    | 'URL_HAS_CREDENTIALS'
    | 'URL_NOT_HTTPS'
    | 'URL_ADDRESS_NOT_ALLOWED'
    | 'URL_NOT_RESOLVED'
  /** Rendered in the caller's language in an error's details; English where it is written to a delivery record. */
  message: Text
  address?: string
  addressClass?: AddressClass
}

/** The host of a URL as an address or a name to resolve (IPv6 literals lose their brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1')

/** What can be said from the text alone: a http(s) URL, bounded, without user or password. */
export function checkUrlText(raw: string): { url: URL } | { refusal: Refusal } {
  if (raw.length > MAX_URL_LENGTH) {
    return { refusal: { reason: 'URL_TOO_LONG', message: detail('URL_AT_MOST', { max: MAX_URL_LENGTH }) } }
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { refusal: { reason: 'URL_INVALID', message: detail('URL_ABSOLUTE') } }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { refusal: { reason: 'URL_INVALID', message: detail('URL_ABSOLUTE') } }
  }
  if (url.username || url.password) {
    return {
      refusal: {
        reason: 'URL_HAS_CREDENTIALS',
        message: detail('URL_NO_CREDENTIALS'),
      },
    }
  }
  if (url.hash) return { refusal: { reason: 'URL_INVALID', message: detail('URL_NO_FRAGMENT') } }
  return { url }
}

/** Judges one address the URL leads to; undefined when it may be reached. */
export function judgeAddress(url: URL, address: string, rules: UrlRules): Refusal | undefined {
  if (rules.environment === 'test') return undefined
  const addressClass = classifyAddress(address)
  const isPublic = addressClass === 'public'
  if (!isPublic && !rules.allowPrivate) {
    return {
      reason: 'URL_ADDRESS_NOT_ALLOWED',
      message: detail('URL_LEADS_TO', { host: hostOf(url), address, addressClass }),
      address,
      addressClass,
    }
  }
  // WEBHOOKS_ALLOW_PRIVATE admits plain http on the private network only; on the internet it stays https.
  if (url.protocol !== 'https:' && isPublic) {
    return { reason: 'URL_NOT_HTTPS', message: detail('URL_HTTPS_ONLY'), address, addressClass }
  }
  return undefined
}

const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host)

/** Resolves with a deadline; undefined when the name does not resolve (now). */
async function resolveAll(host: string, resolve: HostResolver): Promise<{ address: string; family: number }[]> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS)
  })
  try {
    const found = await Promise.race([resolve(host), deadline])
    if (found.length === 0) throw new Error('no addresses')
    return found
  } finally {
    clearTimeout(timer)
  }
}

/** The address a delivery connects to: resolved once and judged, so a second resolution cannot swap it. */
export type Target = { ok: true; address: string; family: 4 | 6 } | { ok: false; refusal: Refusal }

/**
 * Resolves the URL's host and judges every address it gives (any refused one refuses the URL: a name that also leads
 * inside must not be used to get there). At registration (`registering`), a name that does not resolve now is
 * accepted for https (DNS may be late); at delivery it is a failed attempt.
 */
export async function resolveTarget(
  url: URL,
  rules: UrlRules,
  resolve: HostResolver,
  registering = false,
): Promise<Target> {
  const host = hostOf(url)
  const literal = isIP(host)
  if (rules.environment === 'live' && !rules.allowPrivate && url.protocol !== 'https:') {
    return { ok: false, refusal: { reason: 'URL_NOT_HTTPS', message: detail('URL_HTTPS_ONLY') } }
  }
  if (!literal && isLocalhostName(host) && rules.environment === 'live' && !rules.allowPrivate) {
    return {
      ok: false,
      refusal: {
        reason: 'URL_ADDRESS_NOT_ALLOWED',
        message: detail('URL_LOCAL_MACHINE', { host }),
        addressClass: 'loopback',
      },
    }
  }
  let addresses: { address: string; family: number }[]
  try {
    addresses = literal ? [{ address: host, family: literal }] : await resolveAll(host, resolve)
  } catch (error) {
    const message = detail('URL_NOT_RESOLVED', { host, error: (error as Error).message })
    if (registering && (rules.environment === 'test' || url.protocol === 'https:')) {
      return { ok: true, address: '', family: 4 }
    }
    return { ok: false, refusal: { reason: 'URL_NOT_RESOLVED', message } }
  }
  for (const { address } of addresses) {
    const refusal = judgeAddress(url, address, rules)
    if (refusal) return { ok: false, refusal }
  }
  const [first] = addresses
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 }
}

/** The registration check (POST and PATCH of a URL): undefined when the URL may be used. */
export async function refusalAtRegistration(
  url: URL,
  rules: UrlRules,
  resolve: HostResolver,
): Promise<Refusal | undefined> {
  if (rules.environment === 'test') return undefined
  const target = await resolveTarget(url, rules, resolve, true)
  return target.ok ? undefined : target.refusal
}
