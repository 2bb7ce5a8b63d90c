import { isIPv4, isIPv6 } from 'node:net'
import type { Kv, RateLimiter } from '../platform/kv/types.ts'
import { outageIn } from '../platform/outage.ts'

/** Addresses whose marker key `retryAfterNow` keeps at most (then it starts over). */
const MAX_REMEMBERED_ADDRESSES = 10_000

const ignoreOutage = (error: unknown): undefined => {
  if (!outageIn(error)) throw error
  return undefined
}

export interface AuthFailureSettings {
  /** Failed authentications allowed per client address within the window; 0 turns the throttle off. */
  limit: number
  windowSeconds: number
}

/**
 * The address a throttle counts by. IPv4-mapped IPv6 addresses are the IPv4 address; other IPv6 addresses count
 * by their /64, since one host usually holds a whole /64 and could otherwise change address on every attempt.
 */
export function clientKey(ip: string): string {
  // An IPv4 address (the usual case) has no colon: it counts as it is, without the IPv6 parse below.
  if (!ip.includes(':')) return ip
  if (ip.startsWith('::ffff:') && isIPv4(ip.slice(7))) return ip.slice(7)
  const address = ip.split('%')[0]
  if (!isIPv6(address)) return ip
  const [head, tail] = address.split('::')
  const groups = (part: string | undefined) => (part ? part.split(':') : [])
  // An embedded IPv4 address (`::ffff:1.2.3.4`-like forms) takes the place of two groups.
  const width = (list: string[]) => list.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0)
  const first = groups(head)
  const last = groups(tail)
  const full =
    tail === undefined ? first : [...first, ...Array(Math.max(0, 8 - width(first) - width(last))).fill('0'), ...last]
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`
}

/**
 * Failed authentications per client address (unknown, malformed, revoked or expired keys, a wrong admin token), in
 * the shared rate limiter, so every instance counts into one window. Once an address reaches the limit, a marker in
 * the shared store says until when it is refused; requests from it are then answered 429 before any key is looked
 * at, which leaves a guesser nothing to learn and costs no database read.
 */
export function createAuthFailures({
  rateLimiter,
  kv,
  clock,
  settings,
}: {
  rateLimiter: RateLimiter
  kv: Kv
  clock: () => Date
  settings: AuthFailureSettings
}) {
  const windowMs = settings.windowSeconds * 1000
  const blockKey = (client: string) => `authfail:until:${client}`
  const markerKeys = new Map<string, string>()
  /** Seconds until `until` (milliseconds; NaN when there is no marker), 0 when it has passed. */
  const waitFor = (until: number) => {
    if (!(until > 0)) return 0
    const now = clock().getTime()
    return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : 0
  }
  return {
    settings,
    /** Seconds the address must wait before its key is checked again; 0 when it may try now. */
    async retryAfter(ip: string): Promise<number> {
      if (settings.limit === 0) return 0
      // While Redis is unreachable no instance can read the marker: keys are checked (from the database) as usual.
      return waitFor(Number(await kv.get(blockKey(clientKey(ip))).catch(ignoreOutage)))
    },
    /** `retryAfter` at once where the store is this process's memory; undefined where only `retryAfter` can tell. */
    retryAfterNow(ip: string): number | undefined {
      if (settings.limit === 0) return 0
      if (kv.peek === undefined) return undefined
      // The marker's key per address is remembered: a keep-alive connection's address is one string, whose hash the
      // map keeps, where building the key anew costs a concatenation and hashing it at every request.
      let key = markerKeys.get(ip)
      if (key === undefined) {
        if (markerKeys.size >= MAX_REMEMBERED_ADDRESSES) markerKeys.clear()
        key = blockKey(clientKey(ip))
        markerKeys.set(ip, key)
      }
      return waitFor(Number(kv.peek(key)))
    },
    async record(ip: string): Promise<void> {
      if (settings.limit === 0) return
      const client = clientKey(ip)
      const now = clock().getTime()
      const rate = await rateLimiter.hit(`authfail:${client}`, settings.limit, windowMs, now)
      if (rate.remaining > 0) return
      // Refused until the oldest counted failure leaves the window: then one more attempt fits in it. (`resetAt` is
      // rounded up to the second; the window itself is the bound.)
      const until = Math.max(Math.min(rate.resetAt * 1000, now + windowMs), now + 1000)
      await kv.set(blockKey(client), String(until), until - now).catch(ignoreOutage)
    },
  }
}

export type AuthFailures = ReturnType<typeof createAuthFailures>
