import { CsvRecord } from './csv-record.ts'

export { ByteKeys, CsvRecord } from './csv-record.ts'

/** A CSV file's header: column positions by name (names trimmed; unknown columns are ignored). */
export class Header {
  readonly names: string[]
  private readonly positions = new Map<string, number>()

  constructor(names: string[]) {
    this.names = names.map((name) => name.trim())
    this.names.forEach((name, i) => {
      if (!this.positions.has(name)) this.positions.set(name, i)
    })
  }

  /** The position of a column, -1 when the file does not have it. */
  col(name: string): number {
    return this.positions.get(name) ?? -1
  }
}

/** Splits one CSV record that has quotes (RFC 4180; a quote inside an unquoted field is kept as it is). */
function splitQuoted(line: string): string[] | undefined {
  const fields: string[] = []
  let i = 0
  const n = line.length
  for (;;) {
    if (line.charCodeAt(i) === 34) {
      let value = ''
      i++
      for (;;) {
        const close = line.indexOf('"', i)
        if (close < 0) return undefined
        value += line.slice(i, close)
        if (line.charCodeAt(close + 1) === 34) {
          value += '"'
          i = close + 2
          continue
        }
        i = close + 1
        break
      }
      const comma = line.indexOf(',', i)
      if (comma < 0) {
        fields.push(value + line.slice(i))
        return fields
      }
      fields.push(value + line.slice(i, comma))
      i = comma + 1
    } else {
      const comma = line.indexOf(',', i)
      if (comma < 0) {
        fields.push(line.slice(i, n))
        return fields
      }
      fields.push(line.slice(i, comma))
      i = comma + 1
    }
  }
}

/** Lines a quoted field may span before the row is taken as malformed (an unclosed quote). */
const MAX_RECORD_LINES = 50

const LF = 10
const CR = 13
const QUOTE = 34
const COMMA = 44

/**
 * Streams one CSV file record by record: UTF-8 with or without a byte order mark, LF or CRLF, quoted fields (with
 * commas, quotes and line breaks inside), ragged rows. A record whose quote never closes is reported and skipped.
 * Hand-written rather than a general CSV library: it runs once per stop_times row, millions of times. Lines are
 * scanned as bytes: an unquoted line (nearly all of GTFS) becomes field offsets into the chunk, not strings, and
 * the handler reads numbers, times and ids straight from the bytes (CsvRecord); a quoted one is decoded and split
 * as text. The record is reused: a handler reads it before it returns.
 */
export async function scanCsv(
  stream: AsyncIterable<Uint8Array>,
  onRecord: (record: CsvRecord, header: Header, rowNumber: number) => void,
  report: (message: string) => void,
): Promise<number> {
  let header: Header | undefined
  let rows = 0
  let lineNumber = 0
  const record = new CsvRecord()
  const emit = () => {
    if (record.count === 1 && record.text(0) === '') return
    if (!header) {
      header = new Header(record.fields())
      return
    }
    rows++
    onRecord(record, header, rows)
  }
  /** A record with quotes, from `pos`: as text, taking more lines while a quoted field is open. */
  const quoted = (buf: Buffer, pos: number, nl: number, n: number, final: boolean): number => {
    const end = nl > pos && buf[nl - 1] === CR ? nl - 1 : nl
    let fields = splitQuoted(buf.toString('utf8', pos, end))
    let last = nl
    let spanned = 0
    while (!fields && last < n && spanned < MAX_RECORD_LINES) {
      let next = buf.indexOf(LF, last + 1)
      if (next < 0) {
        if (!final) {
          lineNumber--
          return -1
        }
        next = n
      }
      spanned++
      const stop = next > last + 1 && buf[next - 1] === CR ? next - 1 : next
      fields = splitQuoted(buf.toString('utf8', pos, stop))
      last = next
    }
    if (fields) {
      lineNumber += spanned
      record.setStrings(fields)
      emit()
      return last + 1
    }
    report(`line ${lineNumber}: a quoted field is never closed; the line is skipped`)
    return nl + 1
  }
  /** Parses the complete lines of `buf`; returns where the unfinished part begins. */
  const consume = (buf: Buffer, final: boolean): number => {
    let pos = 0
    const n = buf.length
    while (pos < n) {
      // One pass over the line's bytes: commas, the line's end, and whether it has a quote.
      record.reset(buf, pos)
      let i = pos
      let hasQuote = false
      for (; i < n; i++) {
        const c = buf[i]
        // Digits, letters and colons, most of the bytes, are above all four.
        if (c > COMMA) continue
        if (c === COMMA) record.split(i)
        else if (c === LF) break
        else if (c === QUOTE) hasQuote = true
      }
      if (i === n && !final) break
      lineNumber++
      if (hasQuote) {
        const next = quoted(buf, pos, i, n, final)
        if (next < 0) return pos
        pos = next
        continue
      }
      record.finish(i > pos && buf[i - 1] === CR ? i - 1 : i)
      emit()
      pos = i + 1
    }
    return Math.min(pos, n)
  }
  // The unfinished end of the last chunk, copied: a chunk may be reused for the next (FeedSource).
  let rest: Buffer | undefined
  let first = true
  for await (const chunk of stream) {
    let buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    if (first) {
      if (rest) buf = Buffer.concat([rest, buf])
      rest = undefined
      if (buf.length < 3) {
        rest = Buffer.from(buf)
        continue
      }
      first = false
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3)
    }
    if (rest) {
      // The line the last chunk ended in: its rest and this chunk's first line, copied together (not the chunk).
      const nl = buf.indexOf(LF)
      if (nl < 0) {
        rest = Buffer.concat([rest, buf])
        continue
      }
      const joined = Buffer.concat([rest, buf.subarray(0, nl + 1)])
      const used = consume(joined, false)
      if (used < joined.length) {
        // A quoted record that goes on past this line: the whole chunk joins it.
        rest = Buffer.concat([joined.subarray(used), buf.subarray(nl + 1)])
        continue
      }
      buf = buf.subarray(nl + 1)
    }
    const used = consume(buf, false)
    rest = used < buf.length ? Buffer.from(buf.subarray(used)) : undefined
  }
  if (rest) {
    let buf = rest
    if (first && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3)
    consume(buf, true)
  }
  return rows
}

/** scanCsv with each row as its fields' text (for the small files, where strings cost nothing worth saving). */
export function readCsv(
  stream: AsyncIterable<Uint8Array>,
  onRow: (row: string[], header: Header, rowNumber: number) => void,
  report: (message: string) => void,
): Promise<number> {
  return scanCsv(stream, (record, header, rowNumber) => onRow(record.fields(), header, rowNumber), report)
}
