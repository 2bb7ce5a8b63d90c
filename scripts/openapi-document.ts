/**
 * Writes the API document as the service serves it (`GET /mobility-api/v2/openapi.json`, as reached at
 * http://localhost:3000) to a file, built in-process on an empty in-memory store with the demo providers:
 * `npm run lint:openapi` lints it, openapi-typescript and other generators read it.
 *
 *   npm run openapi:document -- [--client] [out.json]     (default: a temporary file; its path is printed)
 *
 * With `--client`, the document the TypeScript client is generated from: the public API only (paths under
 * /mobility-api/v2, written without that prefix, which becomes the server URL), and no examples (they carry dates
 * relative to the day the document is served, and the client's types must not change from one day to the next).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { API_PREFIX, createApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { generateTokenKeys } from '../src/platform/tokens.ts'
import { openRuntime } from '../src/runtime.ts'

/** Drops `example` and `examples` wherever they sit (schemas, parameters, media types). */
export function withoutExamples(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutExamples)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'example' || key === 'examples') continue
    out[key] = withoutExamples(inner)
  }
  return out
}

/** The public API's operations, paths relative to the prefix, without examples. */
export function clientDocument(document: Record<string, unknown>): unknown {
  const paths: Record<string, unknown> = {}
  for (const [path, item] of Object.entries(document.paths as Record<string, unknown>)) {
    if (path.startsWith(`${API_PREFIX}/`)) paths[path.slice(API_PREFIX.length)] = item
  }
  return withoutExamples({ ...document, servers: [{ url: API_PREFIX }], paths })
}

const args = process.argv.slice(2)
const forClient = args.includes('--client')
const out = args.find((arg) => !arg.startsWith('--')) ?? join(tmpdir(), `mas-openapi-${process.pid}.json`)
const dataDir = mkdtempSync(join(tmpdir(), 'mas-openapi-'))
const config = loadConfig({
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  TOKEN_KEYS: generateTokenKeys(),
  DEMO_TENANT: 'false',
})
const runtime = await openRuntime(config, { logger: false, inMemory: true, sampleLogger: { info() {}, debug() {} } })
const app = await createApp(runtime)
try {
  const res = await app.inject({ url: `${API_PREFIX}/openapi.json`, headers: { host: 'localhost:3000' } })
  if (res.statusCode !== 200) throw new Error(`the document answered ${res.statusCode}: ${res.body}`)
  const document = JSON.parse(res.body)
  writeFileSync(out, `${JSON.stringify(forClient ? clientDocument(document) : document, null, 2)}\n`)
  process.stdout.write(`${out}\n`)
} finally {
  await app.close()
  await runtime.close()
  rmSync(dataDir, { recursive: true, force: true })
}
