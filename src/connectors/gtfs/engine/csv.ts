import type { Readable } from 'node:stream'

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

/**
 * Streams one CSV file row by row: UTF-8 with or without a byte order mark, LF or CRLF, quoted fields (with
 * commas, quotes and line breaks inside), ragged rows. A record whose quote never closes is reported and skipped.
 * Hand-written rather than a general CSV library: it runs once per stop_times row, millions of times, and
 * unquoted lines (nearly all of GTFS) take a plain split.
 */
export async function readCsv(
  stream: Readable,
  onRow: (row: string[], header: Header, rowNumber: number) => void,
  report: (message: string) => void,
): Promise<number> {
  const decoder = new TextDecoder('utf-8')
  let header: Header | undefined
  let rows = 0
  let lineNumber = 0
  const emit = (fields: string[]) => {
    if (fields.length === 1 && fields[0].trim() === '') return
    if (!header) {
      header = new Header(fields)
      return
    }
    rows++
    onRow(fields, header, rows)
  }
  let rest = ''
  /** Parses the complete lines of `text`; returns where the unfinished part begins. */
  const consume = (text: string, final: boolean): number => {
    let pos = 0
    const n = text.length
    while (pos < n) {
      let nl = text.indexOf('\n', pos)
      if (nl < 0) {
        if (!final) break
        nl = n
      }
      const end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl
      const line = text.slice(pos, end)
      lineNumber++
      if (line.indexOf('"') < 0) {
        emit(line.split(','))
        pos = nl + 1
        continue
      }
      // A quoted field may hold line breaks: take more lines until the record closes.
      let record = splitQuoted(line)
      let last = nl
      let spanned = 0
      while (!record && last < n && spanned < MAX_RECORD_LINES) {
        let next = text.indexOf('\n', last + 1)
        if (next < 0) {
          if (!final) {
            lineNumber--
            return pos
          }
          next = n
        }
        spanned++
        const stop = next > last + 1 && text.charCodeAt(next - 1) === 13 ? next - 1 : next
        record = splitQuoted(text.slice(pos, stop))
        last = next
      }
      if (record) {
        lineNumber += spanned
        emit(record)
        pos = last + 1
      } else {
        report(`line ${lineNumber}: a quoted field is never closed; the line is skipped`)
        pos = nl + 1
      }
    }
    return Math.min(pos, n)
  }
  for await (const chunk of stream) {
    const text = rest + decoder.decode(chunk as Buffer, { stream: true })
    rest = text.slice(consume(text, false))
  }
  const text = rest + decoder.decode()
  consume(text, true)
  return rows
}
