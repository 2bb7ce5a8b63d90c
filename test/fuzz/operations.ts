import type { KeyKind } from './corpus.ts'
import type { Schema } from './schema.ts'
import type { Template } from './template.ts'

/** The operations of the OpenAPI document the service serves, and the shape of one generated request. */

// ---------------------------------------------------------------------------------------------------------------
// The operations of the OpenAPI document

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  schema: Schema
  required?: boolean
}

export interface Operation {
  /** `METHOD /path/{param}` as in the document. */
  id: string
  method: string
  path: string
  params: Parameter[]
  body?: Schema
  /** The operator's token (adminToken) rather than an API key. */
  admin: boolean
  /** Needs any credential at all. */
  secured: boolean
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = []
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!METHODS.includes(method)) continue
      const security: any[] = op.security ?? doc.security ?? []
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p: any) => ['path', 'query', 'header'].includes(p.in)),
        body: op.requestBody?.content?.['application/json']?.schema,
        admin: security.some((s) => 'adminToken' in s),
        secured: security.length > 0,
      })
    }
  }
  return ops
}

// ---------------------------------------------------------------------------------------------------------------
// A generated request

export type Body =
  | { kind: 'json'; value: Template }
  /** Bytes as they go on the wire (latin1 string, one char per byte). */
  | { kind: 'bytes'; bytes: string; label: string }

export type Env = 'live' | 'test'

export interface Generated {
  index: number
  op: Operation
  env: Env
  method: string
  /** Path parameter values; Raw ones go into the URL without encoding. */
  pathParams: Record<string, Template>
  /** Appended to the path as is (a wrong suffix, a trailing slash). */
  pathSuffix: string
  /** Name, value; a Raw value is put in the query string as is. */
  query: [string, Template][]
  /** Authorization: a key of the corpus, a raw header value, or none. */
  auth: { kind: KeyKind } | { raw: Template } | { none: true }
  headers: Record<string, Template>
  body?: Body
  /** What was done to the valid base request, for the report. */
  mutations: string[]
}

export interface Base {
  pathParams: Record<string, Template>
  query: [string, Template][]
  body?: Template
}
