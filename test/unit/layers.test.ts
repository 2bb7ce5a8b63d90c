/**
 * Imports point down only (ARCHITECTURE.md "Layers"): each layer of src/ imports from itself and the layers below it.
 * The test reads every relative import of src/ (static, `import type`, `export ... from`, side-effect and dynamic
 * `import()`) and names each one that points up.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

/** Bottom to top. `http` and `api` share a rank; the top-level files (app.ts, main.ts, ...) and cli/ are the top. */
const LAYERS: Record<string, number> = {
  contract: 0,
  platform: 1,
  // config.ts reads the environment once and imports only platform/ (token keys): it sits beside platform, so every
  // layer above may take its Config type.
  'config.ts': 1,
  store: 2,
  connectors: 3,
  domain: 4,
  http: 5,
  api: 5,
  cli: 6,
}
const TOP = 6

/** The rank of a path inside src/ (`domain/cars/search.ts`); a folder with no rank is an error, not a free pass. */
export function layerOf(path: string): number {
  const [first, ...rest] = path.split('/')
  if (first in LAYERS) return LAYERS[first]
  if (rest.length === 0) return TOP
  throw new Error(`src/${first}/ has no layer: add it to LAYERS in test/unit/layers.test.ts and ARCHITECTURE.md`)
}

const SPECIFIERS = [
  // import x from, import { x } from, import type { X } from, export { x } from, export * from
  /\b(?:import|export)\b[^;'"`]*?\bfrom\s*['"]([^'"]+)['"]/g,
  // import './side-effect.ts'
  /\bimport\s*['"]([^'"]+)['"]/g,
  // import('./dynamic.ts'), also inside type positions
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
]

/** Every module specifier a source names, in order of appearance. */
export function importsOf(source: string): string[] {
  const found: { at: number; specifier: string }[] = []
  for (const pattern of SPECIFIERS) {
    for (const match of source.matchAll(pattern)) found.push({ at: match.index, specifier: match[1] })
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.specifier)
}

export interface UpwardImport {
  file: string
  specifier: string
  target: string
}

/** The imports of `files` (paths relative to src/, with their text) that point to a higher layer. */
export function upwardImports(files: Record<string, string>): UpwardImport[] {
  const out: UpwardImport[] = []
  for (const [file, source] of Object.entries(files)) {
    for (const specifier of importsOf(source)) {
      if (!specifier.startsWith('.')) continue // packages and node: built-ins
      const target = posix.normalize(posix.join(posix.dirname(file), specifier))
      if (target.startsWith('..')) throw new Error(`${file} imports ${specifier}, outside src/`)
      if (layerOf(target) > layerOf(file)) out.push({ file, specifier, target })
    }
  }
  return out
}

function sourcesOf(root: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.(ts|js|mjs|mts)$/.test(entry.name)) {
        files[relative(root, path).split('\\').join('/')] = readFileSync(path, 'utf8')
      }
    }
  }
  walk(root)
  return files
}

const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src')

describe('layers', () => {
  it('no import of src/ points up (contract ← platform ← store ← connectors ← domain ← http, api ← the rest)', () => {
    const files = sourcesOf(SRC)
    assert.ok(Object.keys(files).length > 100, 'read the whole of src/')
    const upward = upwardImports(files)
    assert.deepEqual(
      upward.map((u) => `src/${u.file} imports '${u.specifier}' (src/${u.target}), a layer above it`),
      [],
    )
  })

  it('the contract imports nothing of the service', () => {
    const files = sourcesOf(SRC)
    const outside = Object.entries(files)
      .filter(([file]) => file.startsWith('contract/'))
      .flatMap(([file, source]) =>
        importsOf(source)
          .filter((s) => s.startsWith('.') && !posix.join(posix.dirname(file), s).startsWith('contract/'))
          .map((s) => `src/${file} imports ${s}`),
      )
    assert.deepEqual(outside, [])
  })

  it('finds every kind of import that points up, and lets downward ones be', () => {
    const sample = {
      'domain/cars/search.ts': [
        "import { ApiError } from '../../contract/errors.ts'", // down: fine
        "import type { Kv } from '../../platform/kv/types.ts'", // down: fine
        "import { carRoutes } from '../../api/cars/routes.ts'",
        "import type {\n  TypedApp,\n} from '../../http/typed-app.ts'",
        "export { createApp } from '../../app.ts'",
        "import '../../cli/admin.ts'",
        "const main = await import('../../main.ts')",
        "import fastify from 'fastify'", // a package: not a layer
      ].join('\n'),
      'platform/geo.ts':
        "import * as shared from '../store/db.ts'\nimport { Coordinates } from '../contract/shared.ts'",
      'config.ts': "import { parseTokenKeys } from './platform/tokens.ts'\nimport { x } from './store/db.ts'",
      'api/cars/routes.ts': "import { statusFor } from '../../http/errors.ts'", // same rank: fine
      'contract/cars.ts': "import type { Booking } from '../domain/cars/bookings.ts'",
    }
    assert.deepEqual(
      upwardImports(sample).map((u) => `${u.file} -> ${u.target}`),
      [
        'domain/cars/search.ts -> api/cars/routes.ts',
        'domain/cars/search.ts -> http/typed-app.ts',
        'domain/cars/search.ts -> app.ts',
        'domain/cars/search.ts -> cli/admin.ts',
        'domain/cars/search.ts -> main.ts',
        'platform/geo.ts -> store/db.ts',
        'config.ts -> store/db.ts',
        'contract/cars.ts -> domain/cars/bookings.ts',
      ],
    )
  })

  it('refuses a folder of src/ that has no layer', () => {
    assert.throws(
      () => upwardImports({ 'widgets/a.ts': "import '../contract/errors.ts'" }),
      /src\/widgets\/ has no layer/,
    )
  })
})
