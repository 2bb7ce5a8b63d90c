/**
 * Requests are generated as templates: plain JSON-like trees in which a few leaves stand for something only the
 * running service knows (a live offer token, a booking id, "72 hours from the service's clock"). The generator is a
 * pure function of the seed and the request's index, so a printed request can be generated again; the leaves are
 * filled in just before it is sent.
 */

/** A value from the corpus (tokens, ids, cursors the service handed out), picked by `pick`. */
export class Ref {
  readonly slot: string
  readonly pick: number
  /** Applied to the resolved value (truncate, flip a character, wrap...). */
  readonly transform?: (value: string) => string
  readonly label?: string
  constructor(slot: string, pick: number, transform?: (value: string) => string, label?: string) {
    this.slot = slot
    this.pick = pick
    this.transform = transform
    this.label = label
  }
  toJSON() {
    return `<${this.label ?? this.slot}#${this.pick}>`
  }
}

/** A point in time relative to the service's clock when the request is sent, as an ISO string (or `format`). */
export type AtFormat = 'date-time' | 'date' | 'date-time-offset' | 'month-start'

export class At {
  readonly offsetMs: number
  readonly format: AtFormat
  constructor(offsetMs: number, format: AtFormat = 'date-time') {
    this.offsetMs = offsetMs
    this.format = format
  }
  toJSON() {
    return `<now${this.offsetMs >= 0 ? '+' : ''}${Math.round(this.offsetMs / 60_000)}min:${this.format}>`
  }
}

/** JSON text inserted as is (numbers JSON.stringify cannot write: 1e309, 1e-400, 30-digit integers, -0). */
export class Raw {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
  toJSON() {
    return `<raw ${this.text.length > 60 ? `${this.text.slice(0, 60)}…(${this.text.length} chars)` : this.text}>`
  }
}

export type Leaf = string | number | boolean | null | Ref | At | Raw
export type Template = Leaf | Template[] | { [key: string]: Template }

export interface Resolver {
  ref(slot: string, pick: number): string
  now(): number
}

const iso = (ms: number, format: AtFormat) => {
  const d = new Date(ms)
  if (Number.isNaN(d.getTime())) return String(ms)
  if (format === 'date') return d.toISOString().slice(0, 10)
  // The first day of the month after the instant (subscriptions start on one).
  if (format === 'month-start')
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
  if (format === 'date-time-offset') {
    // The same instant written with a +02:00 offset (the service normalizes offsets to UTC).
    const shifted = new Date(ms + 2 * 3600_000).toISOString().replace('Z', '')
    return `${shifted.slice(0, 19)}+02:00`
  }
  return d.toISOString()
}

/** Fills in Ref and At; Raw stays (it only exists inside JSON text). */
export function resolve(t: Template, r: Resolver): Template {
  if (t instanceof Ref) return t.transform ? t.transform(r.ref(t.slot, t.pick)) : r.ref(t.slot, t.pick)
  if (t instanceof At) return iso(r.now() + t.offsetMs, t.format)
  if (t instanceof Raw || t === null || typeof t !== 'object') return t
  if (Array.isArray(t)) return t.map((x) => resolve(x, r))
  const out: Record<string, Template> = {}
  for (const [k, v] of Object.entries(t)) {
    // Own properties named __proto__ must stay data, not become the prototype.
    Object.defineProperty(out, k, { value: resolve(v, r), enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** A resolved template as a string (query values, path segments). */
export function text(t: Template): string {
  if (t instanceof Raw) return t.text
  if (typeof t === 'string') return t
  return JSON.stringify(t)
}

/** JSON text of a resolved template, with Raw leaves inserted verbatim. */
export function toJson(t: Template): string {
  const raws: string[] = []
  const marker = (i: number) => `\u0000raw${i}\u0000`
  // The replacer sees what toJSON made of a value; the holder still has the Raw itself.
  const json = JSON.stringify(t, function (this: any, key, value) {
    const original = key === '' ? t : this[key]
    if (original instanceof Raw) {
      raws.push(original.text)
      return marker(raws.length - 1)
    }
    return value
  })
  if (raws.length === 0) return json
  // JSON.stringify escapes NUL as \u0000, so the marker cannot collide with a generated string.
  return json.replace(/"\\u0000raw(\d+)\\u0000"/g, (_m, i) => raws[Number(i)])
}

/** Deep copy that keeps Ref, At and Raw leaves (they are immutable). */
export function clone<T extends Template>(t: T): T {
  if (t === null || typeof t !== 'object' || t instanceof Ref || t instanceof At || t instanceof Raw) return t
  if (Array.isArray(t)) return t.map(clone) as T
  const out: Record<string, Template> = {}
  for (const [k, v] of Object.entries(t)) {
    Object.defineProperty(out, k, { value: clone(v), enumerable: true, writable: true, configurable: true })
  }
  return out as T
}

export type Path = (string | number)[]

/** Every path to a node of the tree (objects' keys and arrays' indices), the root excluded. */
export function paths(t: Template, prefix: Path = [], out: Path[] = []): Path[] {
  if (t === null || typeof t !== 'object' || t instanceof Ref || t instanceof At || t instanceof Raw) return out
  const entries: [string | number, Template][] = Array.isArray(t) ? t.map((v, i) => [i, v]) : Object.entries(t)
  for (const [k, v] of entries) {
    out.push([...prefix, k])
    paths(v, [...prefix, k], out)
  }
  return out
}

/** The parent container of `path` and the last key, creating nothing. */
export function parentOf(root: Template, path: Path): { parent: any; key: string | number } | undefined {
  let node: any = root
  for (const k of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return undefined
    node = node[k]
  }
  if (node === null || typeof node !== 'object' || node instanceof Ref || node instanceof At || node instanceof Raw)
    return undefined
  return { parent: node, key: path[path.length - 1] }
}

export const pathText = (path: Path) =>
  path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('') || '(root)'
