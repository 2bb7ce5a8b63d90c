import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { liveExamples } from '../../src/api/examples/requests.ts'
import { SANDBOX } from '../../src/http/openapi/examples.ts'
import { type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { deref } from '../helpers/openapi.ts'

/**
 * The API document as a product: every operation named and exemplified, every example valid against its own schema,
 * and the examples of the searches working as they are against the sandbox with the demo test key. The failures list
 * the operations by method and path, so routes added later show what they still lack.
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete']
/** Answers that are not JSON, or are this document itself: no example to give. */
const NO_ANSWER_EXAMPLE = new Set(['getMapTile', 'getMetrics', 'getOpenApiDocument'])

type Op = { method: string; path: string; op: any }
const operations = (doc: any): Op[] =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  )
const where = ({ method, path }: Op) => `${method.toUpperCase()} ${path}`
const success = (op: any) => Object.keys(op.responses).find((s) => /^2\d\d$/.test(s)) as string
/** The example of a request body or answer (named `sandbox`). */
const sandbox = (media: any) => media?.examples?.[SANDBOX]?.value

describe('the examples of the API document', { skip: skipReason }, () => {
  let h: Harness
  let raw: any
  let doc: any
  before(async () => {
    h = await startHarness()
    raw = (await h.request({ url: '/mobility-api/v2/openapi.json' })).body
    doc = deref(raw)
  })
  after(() => h?.close())

  it('names every operation (operationId, tags, summary) and lists no shape twice', () => {
    const missing = operations(doc)
      .filter(({ op }) => !/^[a-z][A-Za-z]+$/.test(op.operationId ?? '') || !op.tags?.length || !op.summary)
      .map(where)
    assert.deepEqual(missing, [], 'operations without a camelCase operationId, tags or summary')
    const ids = operations(doc).map(({ op }) => op.operationId)
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
      'operationIds used twice',
    )
    // Two shapes with one title are registered as Title_2 (src/http/openapi/components.ts): give them names of their own.
    assert.deepEqual(
      Object.keys(raw.components.schemas).filter((name) => /_\d+$/.test(name)),
      [],
      'titles given to two different shapes',
    )
  })

  it('gives every operation examples: parameters, request body and success answer', () => {
    const gaps: string[] = []
    for (const entry of operations(doc)) {
      const { op } = entry
      for (const p of op.parameters ?? []) {
        if (p.in === 'path' && p.example === undefined) gaps.push(`${where(entry)}: path parameter ${p.name}`)
      }
      const body = op.requestBody?.content?.['application/json']
      if (body && sandbox(body) === undefined) gaps.push(`${where(entry)}: request body`)
      const answer = op.responses[success(op)]?.content?.['application/json']
      if (!NO_ANSWER_EXAMPLE.has(op.operationId) && sandbox(answer) === undefined) {
        gaps.push(`${where(entry)}: ${success(op)} answer`)
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const examples = response.content?.['application/json']?.examples
        if (Number(status) >= 400 && status.length === 3 && !examples) gaps.push(`${where(entry)}: ${status} examples`)
      }
    }
    assert.deepEqual(gaps, [], 'add them to src/api/examples (requests.ts, or npm run openapi:examples)')
  })

  it('validates every example against its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: false, validateFormats: true })
    addFormats.default(ajv)
    const base = 'https://mobility.test/openapi.json'
    ajv.addSchema({ $id: base, components: { schemas: raw.components.schemas } })
    // Operation schemas are validated as they stand in the document, their $refs pointing into its components.
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>()
    const check = (schema: unknown, value: unknown, what: string, problems: string[]) => {
      const text = JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`)
      let validate = compiled.get(text)
      if (!validate) {
        validate = ajv.compile(JSON.parse(text))
        compiled.set(text, validate)
      }
      if (!validate(value)) problems.push(`${what}: ${ajv.errorsText(validate.errors)}`)
    }
    // The check itself: a search without its dates is refused.
    const control: string[] = []
    const search = raw.paths['/mobility-api/v2/cars'].post.requestBody.content['application/json']
    check(search.schema, { ...sandbox(search), dates: undefined, limit: 'five' }, 'control', control)
    assert.equal(control.length, 1, 'an invalid example is reported')
    const problems: string[] = []
    for (const entry of operations(raw)) {
      const { op } = entry
      for (const p of op.parameters ?? []) {
        if (p.example !== undefined) check(p.schema, p.example, `${where(entry)} parameter ${p.name}`, problems)
      }
      const body = op.requestBody?.content?.['application/json']
      for (const [name, example] of Object.entries<any>(body?.examples ?? {})) {
        check(body.schema, example.value, `${where(entry)} request body example ${name}`, problems)
      }
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const media = (response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response).content?.[
          'application/json'
        ]
        for (const [name, example] of Object.entries<any>(media?.examples ?? {})) {
          const value = example.$ref ? raw.components.examples[example.$ref.split('/').pop()].value : example.value
          check(media.schema, value, `${where(entry)} ${status} example ${name}`, problems)
          if (Number(status) >= 400) assert.equal(value.error.code, name, `${where(entry)} ${status} ${name}`)
        }
      }
    }
    assert.deepEqual(problems, [])
  })

  it('answers the examples of the searches with their documented status, sent with the demo test key', async () => {
    const demo = await h.apps[0].services.tenants.ensureDemoTenant()
    const key = demo?.keys.find((k) => k.environment === 'test' && k.type === 'secret')?.secret
    assert.ok(key, 'the demo tenant has a test key')
    const byId = new Map(operations(doc).map((entry) => [entry.op.operationId, entry]))
    const failures: string[] = []
    for (const id of Object.keys(liveExamples(new Date()))) {
      const entry = byId.get(id)
      assert.ok(entry, `${id} is in the document`)
      const { method, path, op } = entry
      let url = path
      const query = new URLSearchParams()
      for (const p of op.parameters ?? []) {
        if (p.example === undefined) continue
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(String(p.example)))
        if (p.in === 'query') query.set(p.name, String(p.example))
      }
      const res = await h.request({
        method: method.toUpperCase(),
        url: `${url}${query.size > 0 ? `?${query}` : ''}`,
        key: op.security?.length ? key : undefined,
        body: sandbox(op.requestBody?.content?.['application/json']),
      })
      if (String(res.status) !== success(op)) failures.push(`${where(entry)}: ${res.status} ${res.text.slice(0, 300)}`)
      else if (Array.isArray(res.body?.data?.providers)) {
        // Every provider asked answered: the example does not lean on one failing quietly.
        const failed = res.body.data.providers.filter((p: any) => p.status === 'FAILED' || p.status === 'TIMEOUT')
        if (failed.length > 0) failures.push(`${where(entry)}: providers ${JSON.stringify(failed)}`)
      }
    }
    assert.deepEqual(failures, [])
  })
})
