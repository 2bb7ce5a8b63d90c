import { randomFillSync } from 'node:crypto'

const POOL_BYTES = 8192
const pool = Buffer.allocUnsafe(POOL_BYTES)
let offset = POOL_BYTES

/**
 * `n` cryptographically random bytes (n ≤ 256), taken from a pool refilled from the CSPRNG 8 KiB at a time: a search
 * seals dozens of tokens, and one `randomBytes` call per IV and nonce showed in its profile. Each byte is handed out
 * once; the result is a copy, so callers may keep it.
 */
export function randomChunk(n: number): Buffer {
  if (n > 256) throw new RangeError('randomChunk: at most 256 bytes')
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool)
    offset = 0
  }
  const out = Buffer.from(pool.subarray(offset, offset + n))
  // The pool's bytes are wiped once handed out, so a later bug could never hand them out twice.
  pool.fill(0, offset, offset + n)
  offset += n
  return out
}

/** A random id of `bytes` random bytes in base64url. */
export const randomId = (bytes: number) => randomChunk(bytes).toString('base64url')
