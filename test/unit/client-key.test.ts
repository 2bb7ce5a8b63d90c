import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { clientKey } from '../../src/http/auth-failures.ts'

const group = fc.integer({ min: 0, max: 0xffff })
const groups = (n: number) => fc.array(group, { minLength: n, maxLength: n })
/** Written the long way, or with the longest run of zero groups as `::`, as a peer might send it. */
const write = (parts: number[], compress: boolean) => {
  const hex = parts.map((g) => g.toString(16))
  if (!compress) return hex.join(':')
  let best = [-1, 0]
  for (let i = 0; i < 8; i++) {
    let j = i
    while (j < 8 && parts[j] === 0) j++
    if (j - i > best[1]) best = [i, j - i]
  }
  if (best[1] < 2) return hex.join(':')
  return `${hex.slice(0, best[0]).join(':')}::${hex.slice(best[0] + best[1]).join(':')}`
}

describe('the address the failed-authentication throttle counts by', () => {
  it('is the /64 of an IPv6 address, however it is written', () => {
    fc.assert(
      fc.property(groups(4), groups(4), groups(4), fc.boolean(), fc.boolean(), (prefix, a, b, ca, cb) => {
        assert.equal(clientKey(write([...prefix, ...a], ca)), clientKey(write([...prefix, ...b], cb)))
      }),
    )
    assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64')
    assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
    assert.notEqual(clientKey('2001:db8:0:1::1'), clientKey('2001:db8:0:2::1'))
  })

  it('is the address itself for IPv4, also IPv4-mapped', () => {
    assert.equal(clientKey('192.0.2.7'), '192.0.2.7')
    assert.equal(clientKey('::ffff:192.0.2.7'), '192.0.2.7')
    assert.equal(clientKey('unknown'), 'unknown')
  })
})
