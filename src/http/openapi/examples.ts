import type { ErrorCode } from '../../contract/errors.ts'
import { errorExample } from './error-examples.ts'
import { type Json, operationsOf } from './finalize.ts'

/** The example of one operation: a request that works against the sandbox, and what it answers. */
export interface OperationExample {
  /** Path parameters. */
  params?: Record<string, string | number>
  /** The query parameters to send (parameters left out get no example, so the docs page leaves them empty). */
  query?: Record<string, string | number | boolean>
  body?: unknown
  /** The success answer (the whole body, envelope included). */
  response?: unknown
}

/** Examples by operationId, for the day the document is served (dates in them are relative to it). */
export type ExampleSource = (now: Date) => Record<string, OperationExample>

type Doc = Json

/** The name of the example of each request body and success answer. */
export const SANDBOX = 'sandbox'
const REQUEST = 'A request the sandbox answers (test key)'
const ANSWER = 'What the sandbox answers'

/** Puts the examples into a copy of the document: parameters, request bodies, success answers, error envelopes. */
export function attachExamples(doc: Doc, source: ExampleSource, now: Date): void {
  const examples = source(now)
  for (const [, , op] of operationsOf(doc)) {
    const example = examples[op.operationId]
    if (!example) continue
    for (const parameter of op.parameters ?? []) {
      const values = parameter.in === 'path' ? example.params : parameter.in === 'query' ? example.query : undefined
      if (values?.[parameter.name] !== undefined) parameter.example = values[parameter.name]
    }
    // Bodies and answers as named examples (`examples.sandbox`), not `example`: the docs page shows and sends them
    // the same way, and type generators (openapi-typescript) do not copy them into every type's comment.
    const body = op.requestBody?.content?.['application/json']
    if (body && example.body !== undefined) body.examples = { [SANDBOX]: { summary: REQUEST, value: example.body } }
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      const media = response.content?.['application/json']
      if (/^2\d\d$/.test(status) && media && example.response !== undefined) {
        media.examples = { [SANDBOX]: { summary: ANSWER, value: example.response } }
      }
    }
  }
  const timestamp = now.toISOString()
  for (const code of Object.keys(doc.components?.examples ?? {}) as ErrorCode[]) {
    doc.components.examples[code] = { summary: code, value: errorExample(code, timestamp) }
  }
}
