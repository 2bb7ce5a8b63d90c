import { parseGtfsTime } from './calendar.ts'

/**
 * One CSV record as scanCsv hands it out: field offsets into the chunk's bytes (an unquoted line), or the fields'
 * text (a quoted record). The readers give what the loader used to compute from `row[i].trim()`, `Number(...)` and
 * `parseGtfsTime(row[i])`, the same values, without making a string for each field of each of millions of rows:
 * anything but plain ASCII falls back to the text.
 */
export class CsvRecord {
  /** Fields in the record. */
  count = 0
  private buf: Buffer = Buffer.alloc(0)
  private starts = new Int32Array(32)
  private ends = new Int32Array(32)
  private strings: string[] | undefined

  reset(buf: Buffer, start: number): void {
    this.buf = buf
    this.strings = undefined
    this.count = 0
    this.starts[0] = start
  }

  /** A comma at `at` ends the current field. */
  split(at: number): void {
    const k = this.count++
    if (k + 1 === this.starts.length) {
      const starts = new Int32Array(this.starts.length * 2)
      starts.set(this.starts)
      this.starts = starts
      const ends = new Int32Array(this.ends.length * 2)
      ends.set(this.ends)
      this.ends = ends
    }
    this.ends[k] = at
    this.starts[k + 1] = at + 1
  }

  /** The record ends at `end` (its line break, or the carriage return before it). */
  finish(end: number): void {
    this.ends[this.count++] = end
  }

  setStrings(fields: string[]): void {
    this.strings = fields
    this.count = fields.length
  }

  /** The fields as text (what the small files are read with): the line decoded once and split at its commas. */
  fields(): string[] {
    if (this.strings) return this.strings
    // A comma is one byte in UTF-8 and never part of another character, so this splits where the bytes did.
    return this.buf.toString('utf8', this.starts[0], this.ends[this.count - 1]).split(',')
  }

  /** The field as it is (`row[i]`): undefined for a column the row does not reach. */
  raw(i: number): string | undefined {
    if (i < 0 || i >= this.count) return undefined
    return this.strings ? this.strings[i] : this.buf.toString('utf8', this.starts[i], this.ends[i])
  }

  /** The field trimmed; '' when absent (`(row[i] ?? '').trim()`). */
  text(i: number): string {
    return (this.raw(i) ?? '').trim()
  }

  /**
   * Sets [ts, te) to the field's bytes without ASCII white space at their ends; false when the field is text (a
   * quoted record) or starts or ends with a non-ASCII byte (which may be white space String.trim removes).
   */
  private trimmed(i: number): boolean {
    if (this.strings) return false
    const buf = this.buf
    let s = this.starts[i]
    let e = this.ends[i]
    while (s < e && (buf[s] === 32 || (buf[s] >= 9 && buf[s] <= 13))) s++
    while (e > s && (buf[e - 1] === 32 || (buf[e - 1] >= 9 && buf[e - 1] <= 13))) e--
    if (s < e && (buf[s] >= 0x80 || buf[e - 1] >= 0x80)) return false
    this.ts = s
    this.te = e
    return true
  }
  private ts = 0
  private te = 0

  /** Whether the trimmed field is empty. */
  isEmpty(i: number): boolean {
    if (i < 0 || i >= this.count) return true
    return this.trimmed(i) ? this.ts === this.te : this.text(i) === ''
  }

  /** `text(i) === '1'`. */
  isOne(i: number): boolean {
    if (i < 0 || i >= this.count) return false
    if (!this.trimmed(i)) return this.text(i) === '1'
    return this.te - this.ts === 1 && this.buf[this.ts] === 49
  }

  /** `text(i) === '0'`. */
  isZero(i: number): boolean {
    if (i < 0 || i >= this.count) return false
    if (!this.trimmed(i)) return this.text(i) === '0'
    return this.te - this.ts === 1 && this.buf[this.ts] === 48
  }

  /** `Number(text(i))`: plain digits are read from the bytes, anything else goes through Number. */
  number(i: number): number {
    if (i >= 0 && i < this.count && this.trimmed(i)) {
      const buf = this.buf
      const s = this.ts
      const e = this.te
      if (e > s && e - s <= 9) {
        let value = 0
        let k = s
        for (; k < e; k++) {
          const c = buf[k] - 48
          if (c < 0 || c > 9) break
          value = value * 10 + c
        }
        if (k === e) return value
      }
    }
    return Number(this.text(i))
  }

  /** `parseGtfsTime(raw(i) ?? '')`, from the bytes (the same rules: spaces around, H+:MM:SS). */
  time(i: number): number {
    if (i < 0 || i >= this.count) return -1
    if (this.strings) return parseGtfsTime(this.strings[i])
    const buf = this.buf
    let s = this.starts[i]
    let e = this.ends[i]
    while (s < e && buf[s] === 32) s++
    while (e > s && buf[e - 1] === 32) e--
    if (s === e) return -1
    let hours = 0
    let digits = 0
    for (; s < e; s++) {
      const c = buf[s]
      if (c === 58) break
      if (c < 48 || c > 57) return Number.NaN
      hours = hours * 10 + (c - 48)
      digits++
    }
    if (digits === 0 || e - s !== 6 || buf[s + 3] !== 58) return Number.NaN
    const m1 = buf[s + 1] - 48
    const m2 = buf[s + 2] - 48
    const s1 = buf[s + 4] - 48
    const s2 = buf[s + 5] - 48
    if (m1 < 0 || m1 > 5 || m2 < 0 || m2 > 9 || s1 < 0 || s1 > 5 || s2 < 0 || s2 > 9) return Number.NaN
    return hours * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2
  }

  /** `keys.get(text(i))`, -1 for none: an ASCII id is looked up by its bytes, without a string. */
  lookup(i: number, keys: ByteKeys): number {
    if (i < 0 || i >= this.count) return keys.text('')
    // The id of the row before, as it stands (no white space to trim then): most trip_ids.
    if (!this.strings && keys.isLast(this.buf, this.starts[i], this.ends[i])) return keys.lastIndex
    if (!this.trimmed(i)) return keys.text(this.text(i))
    const found = keys.probe(this.buf, this.ts, this.te)
    return found === NOT_ASCII ? keys.text(this.text(i)) : found
  }
}

export const NOT_ASCII = -2

const hashBytes = (buf: Uint8Array, start: number, end: number): number => {
  let h = 0x811c9dc5
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193)
  return mix(h)
}

/** FNV's low bits follow the ids' low bits (ids like S1234 crowd a few slots): a finalizer spreads them. */
const mix = (h: number): number => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/**
 * Ids (stop_id, trip_id) to their index, looked up by their UTF-8 bytes or by text: an open-addressing table over
 * the ids' bytes, beside the Map the loader keeps them in.
 */
export class ByteKeys {
  private readonly ids: Map<string, number>
  private readonly pool: Uint8Array
  private readonly offsets: Int32Array
  private readonly values: Int32Array
  /** Entry + 1 per slot, 0 for an empty one. */
  private readonly slots: Int32Array
  private readonly mask: number
  // The id looked up last, and its answer: stop_times rows come grouped by trip, so trip_id repeats row after row.
  private last = new Uint8Array(64)
  private lastLength = -1
  private lastValue = -1

  constructor(ids: Map<string, number>) {
    this.ids = ids
    const count = ids.size
    const offsets = new Int32Array(count + 1)
    let bytes = 0
    for (const id of ids.keys()) bytes += Buffer.byteLength(id, 'utf8')
    const pool = Buffer.allocUnsafe(bytes)
    let k = 0
    for (const id of ids.keys()) {
      offsets[k + 1] = offsets[k] + pool.write(id, offsets[k], 'utf8')
      k++
    }
    let size = 16
    while (size < count * 2) size *= 2
    const slots = new Int32Array(size)
    for (let k = 0; k < count; k++) {
      let slot = hashBytes(pool, offsets[k], offsets[k + 1]) & (size - 1)
      while (slots[slot] !== 0) slot = (slot + 1) & (size - 1)
      slots[slot] = k + 1
    }
    this.pool = new Uint8Array(pool.buffer, pool.byteOffset, pool.byteLength)
    this.offsets = offsets
    this.values = Int32Array.from(ids.values())
    this.slots = slots
    this.mask = size - 1
  }

  /** Whether buf[start, end) is the id looked up last (its index is `lastIndex` then). */
  isLast(buf: Uint8Array, start: number, end: number): boolean {
    const length = end - start
    if (length !== this.lastLength) return false
    const last = this.last
    let j = 0
    while (j < length && last[j] === buf[start + j]) j++
    return j === length
  }

  get lastIndex(): number {
    return this.lastValue
  }

  /** The index of the id in buf[start, end), -1 for none, NOT_ASCII when it is to be looked up as text. */
  bytes(buf: Uint8Array, start: number, end: number): number {
    return this.isLast(buf, start, end) ? this.lastValue : this.probe(buf, start, end)
  }

  /** `bytes` without first asking whether it is the last id. */
  probe(buf: Uint8Array, start: number, end: number): number {
    const length = end - start
    let h = 0x811c9dc5
    let high = 0
    for (let i = start; i < end; i++) {
      const c = buf[i]
      high |= c
      h = Math.imul(h ^ c, 0x01000193)
    }
    // Bytes that are not valid UTF-8 read as U+FFFD in text: such an id is matched as text.
    if (high >= 0x80) return NOT_ASCII
    const { slots, offsets, pool, mask } = this
    let found = -1
    for (let slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]
      if (entry === 0) break
      const a = offsets[entry - 1]
      if (offsets[entry] - a !== length) continue
      let j = 0
      while (j < length && pool[a + j] === buf[start + j]) j++
      if (j === length) {
        found = this.values[entry - 1]
        break
      }
    }
    if (length > this.last.length) this.last = new Uint8Array(length * 2)
    const copy = this.last
    for (let j = 0; j < length; j++) copy[j] = buf[start + j]
    this.lastLength = length
    this.lastValue = found
    return found
  }

  text(id: string): number {
    return this.ids.get(id) ?? -1
  }
}
