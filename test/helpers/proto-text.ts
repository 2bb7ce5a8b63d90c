import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'

/**
 * The protobuf text format (as the GTFS-Realtime specification writes its examples, `*.asciipb`) read into the
 * bindings' `fromObject` form and encoded, since there is no protoc here. Enough of the format for those examples:
 * nested messages, quoted strings, numbers, enum names and `#` comments.
 */

/** Fields of gtfs-realtime.proto that repeat (everything else holds one value). */
const REPEATED = new Set([
  'entity',
  'active_period',
  'informed_entity',
  'translation',
  'stop_time_update',
  'multi_carriage_details',
  'localized_image',
])

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

type Value = string | number | boolean | Message
interface Message {
  [field: string]: Value | Value[]
}

export function parseProtoText(text: string): Message {
  const tokens: string[] = []
  const pattern = /\s+|#[^\n]*|("(?:[^"\\]|\\.)*")|([{}:])|([^\s{}:#"]+)/gy
  for (let match = pattern.exec(text); match && pattern.lastIndex <= text.length; match = pattern.exec(text)) {
    const token = match[1] ?? match[2] ?? match[3]
    if (token !== undefined) tokens.push(token)
    if (pattern.lastIndex === text.length) break
  }
  let at = 0
  const message = (): Message => {
    const out: Message = {}
    while (at < tokens.length && tokens[at] !== '}') {
      const name = tokens[at++]
      let value: Value
      if (tokens[at] === ':') at++
      if (tokens[at] === '{') {
        at++
        value = message()
        if (tokens[at++] !== '}') throw new Error(`unclosed message ${name}`)
      } else {
        const raw = tokens[at++]
        value = raw.startsWith('"')
          ? JSON.parse(raw)
          : /^-?\d+(\.\d+)?$/.test(raw)
            ? Number(raw)
            : raw === 'true' || raw === 'false'
              ? raw === 'true'
              : raw
      }
      const key = camel(name)
      if (!REPEATED.has(name)) out[key] = value
      else if (Array.isArray(out[key])) out[key].push(value)
      else out[key] = [value]
    }
    return out
  }
  const root = message()
  if (at !== tokens.length) throw new Error(`unexpected ${tokens[at]}`)
  return root
}

/** An `.asciipb` FeedMessage as the binary a feed serves. */
export function encodeProtoText(text: string): Uint8Array {
  const message = transit_realtime.FeedMessage.fromObject(parseProtoText(text))
  return transit_realtime.FeedMessage.encode(message).finish()
}
