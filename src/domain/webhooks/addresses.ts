import { isIP } from 'node:net'

/**
 * Which addresses a live webhook may reach. Only globally routable unicast addresses are `public`; everything else
 * (private, loopback, link-local, unspecified, CGNAT, multicast, documentation, reserved) is refused unless
 * WEBHOOKS_ALLOW_PRIVATE is set. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by
 * that address, so `::ffff:127.0.0.1` is loopback like `127.0.0.1`.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'unspecified'
  | 'cgnat'
  | 'multicast'
  | 'documentation'
  | 'reserved'
  | 'invalid'

type Range = [base: bigint, bits: number, cls: AddressClass]

const v4 = (text: string): bigint => {
  const parts = text.split('.').map(Number)
  return BigInt(((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3])
}

/** IPv4 special-purpose ranges (IANA registry, RFC 6890), most specific first where they nest. */
const V4_RANGES: Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'cgnat'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link-local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'documentation'],
  [v4('192.88.99.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved'],
  [v4('198.51.100.0'), 24, 'documentation'],
  [v4('203.0.113.0'), 24, 'documentation'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved'],
]

const inRange = (value: bigint, width: number, [base, bits]: Range) =>
  value >> BigInt(width - bits) === base >> BigInt(width - bits)

function classifyV4(value: bigint): AddressClass {
  for (const range of V4_RANGES) if (inRange(value, 32, range)) return range[2]
  return 'public'
}

/** An IPv6 address (without zone) as one 128-bit number; undefined when it is not one. */
export function parseIpv6(text: string): bigint | undefined {
  if (isIP(text) !== 6) return undefined
  let s = text
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes its two hex groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (dotted) {
    const n = v4(dotted[2])
    s = `${dotted[1]}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`
  }
  const [before, after] = s.split('::')
  const head = before ? before.split(':') : []
  const tail = after ? after.split(':') : []
  const fill = after === undefined ? 0 : 8 - head.length - tail.length
  const words = [...head, ...Array<string>(fill).fill('0'), ...tail]
  return words.reduce((acc, word) => (acc << 16n) | BigInt(Number.parseInt(word, 16)), 0n)
}

const v6 = (text: string) => parseIpv6(text) as bigint

/** IPv6 ranges outside 2000::/3 are refused anyway; these are the special ones inside it, and the embedding forms. */
const V6_RANGES: Range[] = [
  [v6('2001:db8::'), 32, 'documentation'],
  [v6('2001::'), 23, 'reserved'], // protocol assignments, Teredo (2001::/32) included
  [v6('3fff::'), 20, 'documentation'],
]

function classifyV6(value: bigint): AddressClass {
  if (value === 0n) return 'unspecified'
  if (value === 1n) return 'loopback'
  const top = (bits: number) => value >> BigInt(128 - bits)
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated): the IPv4 address decides
  if (top(96) === 0xffffn || top(96) === 0n) return classifyV4(value & 0xffffffffn)
  // 64:ff9b::/96 (NAT64, RFC 6052) reaches the embedded IPv4 address
  if (top(96) === v6('64:ff9b::') >> 32n) return classifyV4(value & 0xffffffffn)
  // 2002::/16 (6to4) reaches the IPv4 address in bits 16..48
  if (top(16) === 0x2002n) return classifyV4((value >> 80n) & 0xffffffffn)
  if (top(7) === 0x7en) return 'private' // fc00::/7 unique local
  if (top(10) === 0x3fan) return 'link-local' // fe80::/10
  if (top(10) === 0x3fbn) return 'link-local' // fec0::/10, deprecated site-local
  if (top(8) === 0xffn) return 'multicast'
  for (const range of V6_RANGES) if (inRange(value, 128, range)) return range[2]
  // Only 2000::/3 is global unicast; everything else is unassigned or special (100::/64 discard, 64:ff9b:1::/48, ...)
  return top(3) === 1n ? 'public' : 'reserved'
}

/** The class of an IPv4 or IPv6 address as text (IPv6 may carry a zone, `fe80::1%eth0`, or brackets). */
export function classifyAddress(address: string): AddressClass {
  let text = address.trim()
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1)
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  const family = isIP(text)
  if (family === 4) return classifyV4(v4(text))
  if (family === 6) {
    const value = parseIpv6(text)
    return value === undefined ? 'invalid' : classifyV6(value)
  }
  return 'invalid'
}

export const isPublicAddress = (address: string) => classifyAddress(address) === 'public'
