import assert from 'node:assert/strict'
import { BlockList } from 'node:net'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { classifyAddress, parseIpv6 } from '../../src/domain/webhooks/addresses.ts'

// An independent oracle for IPv4: node's BlockList over the ranges RFC 6890 names as not globally reachable.
const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]
const v4Blocked = new BlockList()
for (const [base, bits] of V4_BLOCKED) v4Blocked.addSubnet(base, bits, 'ipv4')

const v4Text = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.')
const v6Text = (n: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':')
/** An address of the IPv4 range `base/bits`, anywhere in it. */
const inV4 = (base: string, bits: number) =>
  fc.nat({ max: 2 ** (32 - bits) - 1 }).map((offset) => {
    const start = base.split('.').reduce((acc, part) => acc * 256 + Number(part), 0)
    return v4Text(start + offset)
  })
/** An address of the IPv6 range `prefix/bits`, anywhere in it. */
const inV6 = (prefix: string, bits: number) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(128 - bits)) - 1n }).map((offset) => {
    const base = parseIpv6(prefix) as bigint
    return v6Text(((base >> BigInt(128 - bits)) << BigInt(128 - bits)) | offset)
  })
const v4Of = (text: string) => text.split('.').reduce((acc, part) => acc * 256 + Number(part), 0)
/** The IPv4 address written as the IPv6 forms that carry it. */
const carriers = (v4: string) => {
  const n = v4Of(v4)
  const hex = `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  return [`::ffff:${v4}`, `::ffff:${hex}`, `0:0:0:0:0:ffff:${hex}`, `[::ffff:${v4}]`, `64:ff9b::${v4}`, `::${v4}`]
}

describe('webhook address classification', () => {
  it('IPv4: exactly the special-purpose ranges are refused, and each gets its class', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const cls = classifyAddress(address)
        assert.equal(cls !== 'public', v4Blocked.check(address, 'ipv4'), `${address} is ${cls}`)
      }),
      { numRuns: 5000 },
    )
    for (const [base, bits, expected] of V4_BLOCKED) {
      fc.assert(
        fc.property(inV4(base, bits), (address) => {
          assert.equal(classifyAddress(address), expected, address)
        }),
        { numRuns: 200 },
      )
    }
  })

  it('IPv6 forms carrying an IPv4 address (mapped, compatible, NAT64) are judged by that address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        for (const form of carriers(v4)) {
          if (form.startsWith('::') && !form.startsWith('::ffff') && v4Of(v4) <= 1) continue // :: and ::1 are themselves
          assert.equal(classifyAddress(form), classifyAddress(v4), `${form} (${v4})`)
        }
      }),
      { numRuns: 3000 },
    )
    // 6to4 carries it in bits 16..48.
    fc.assert(
      fc.property(fc.ipV4(), fc.bigInt({ min: 0n, max: (1n << 80n) - 1n }), (v4, rest) => {
        const address = v6Text((0x2002n << 112n) | (BigInt(v4Of(v4)) << 80n) | rest)
        assert.equal(classifyAddress(address), classifyAddress(v4), `${address} (${v4})`)
      }),
    )
  })

  it('IPv6 ranges: loopback, unspecified, unique local, link-local, multicast, documentation; global unicast only is public', () => {
    assert.equal(classifyAddress('::1'), 'loopback')
    assert.equal(classifyAddress('::'), 'unspecified')
    for (const [prefix, bits, expected] of [
      ['fc00::', 7, 'private'],
      ['fe80::', 10, 'link-local'],
      ['fec0::', 10, 'link-local'],
      ['ff00::', 8, 'multicast'],
      ['2001:db8::', 32, 'documentation'],
      ['3fff::', 20, 'documentation'],
      ['2001::', 32, 'reserved'],
      ['2001:100::', 24, 'reserved'],
      ['100::', 64, 'reserved'],
      ['4000::', 2, 'reserved'],
    ] as const) {
      fc.assert(
        fc.property(inV6(prefix, bits), (address) => {
          assert.equal(classifyAddress(address), expected, address)
        }),
        { numRuns: 300 },
      )
    }
    // 2000::/3 outside the special blocks is public.
    fc.assert(
      fc.property(inV6('2000::', 3), (address) => {
        const n = parseIpv6(address) as bigint
        const within = (prefix: string, bits: number) =>
          n >> BigInt(128 - bits) === (parseIpv6(prefix) as bigint) >> BigInt(128 - bits)
        // 6to4 (judged by its IPv4 address), 2001::/23 (IETF protocol assignments), 3fff::/20 (documentation).
        fc.pre(!within('2002::', 16) && !within('2001::', 23) && !within('3fff::', 20))
        assert.equal(classifyAddress(address), 'public', address)
      }),
      { numRuns: 3000 },
    )
  })

  it('IPv6: any spelling of one address gets one class; zones and brackets are ignored', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
        const upper = address.toUpperCase()
        const cls = classifyAddress(address)
        assert.notEqual(cls, 'invalid', address)
        assert.equal(classifyAddress(canonical), cls, `${address} ~ ${canonical}`)
        assert.equal(classifyAddress(upper), cls, upper)
        assert.equal(classifyAddress(`[${address}]`), cls)
        assert.equal(parseIpv6(canonical), parseIpv6(address))
      }),
      { numRuns: 3000 },
    )
    assert.equal(classifyAddress('fe80::1%eth0'), 'link-local')
  })

  it('anything that is not an address is invalid, never public', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        const cls = classifyAddress(text)
        if (cls === 'public') assert.ok(/^[0-9a-fA-F:.[\]\s]+$/.test(text), text)
      }),
      { numRuns: 3000 },
    )
    for (const text of ['', 'localhost', '1.2.3', '256.1.1.1', '::g', '1::2::3', '01.2.3.4']) {
      assert.equal(classifyAddress(text), 'invalid', text)
    }
  })
})
