import { readFileSync } from 'node:fs'
import type { ExampleSource, OperationExample } from '../../http/openapi/examples.ts'
import { liveExamples } from './requests.ts'

/**
 * The examples of the API document, by operationId: what scripts/capture-examples.ts recorded from the sandbox
 * (captured.json), moved to the day the document is served, and the requests of requests.ts, made for that day.
 */

interface CapturedFile {
  capturedAt: string
  operations: Record<string, OperationExample & { status: number }>
}

const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/
const DAY = 86_400_000

/**
 * Every date and date-time in `value` moved by whole days (date-times) or whole months (dates: billing days and
 * subscription starts stay the first of their month), keeping the example's own order of events.
 */
export function shiftDates(value: unknown, days: number, months: number): unknown {
  if (Array.isArray(value)) return value.map((v) => shiftDates(v, days, months))
  if (typeof value === 'string') {
    if (DATE_TIME.test(value)) {
      const moved = new Date(Date.parse(value) + days * DAY).toISOString()
      // Written as the service writes them: with or without milliseconds.
      return value.includes('.') ? moved : moved.replace('.000Z', 'Z')
    }
    if (DATE.test(value)) {
      const [y, m, d] = value.split('-').map(Number)
      const moved = new Date(Date.UTC(y, m - 1 + months, d))
      return moved.getUTCDate() === d ? moved.toISOString().slice(0, 10) : value
    }
    return value
  }
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shiftDates(v, days, months)]))
}

let file: CapturedFile | undefined
const captured = (): CapturedFile => {
  file ??= JSON.parse(readFileSync(new URL('./captured.json', import.meta.url), 'utf8')) as CapturedFile
  return file
}

export const operationExamples: ExampleSource = (now) => {
  const { capturedAt, operations } = captured()
  const then = new Date(capturedAt)
  const dayOf = (d: Date) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
  const days = Math.round((dayOf(now) - dayOf(then)) / DAY)
  const months = (now.getUTCFullYear() - then.getUTCFullYear()) * 12 + now.getUTCMonth() - then.getUTCMonth()
  const out: Record<string, OperationExample> = {}
  for (const [id, { status: _, ...example }] of Object.entries(operations)) {
    out[id] = shiftDates(example, days, months) as OperationExample
  }
  for (const [id, request] of Object.entries(liveExamples(now))) out[id] = { ...out[id], ...request }
  return out
}
