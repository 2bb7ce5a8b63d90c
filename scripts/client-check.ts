/**
 * Fails when the committed TypeScript client (clients/typescript/openapi.json and src/schema.ts) is not what the
 * served document generates today: `npm run client:check` (CI). `npm run client:generate` brings it up to date.
 * Needs the client's own packages (`npm ci --prefix clients/typescript`).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const client = new URL('../clients/typescript/', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'client-check-'))
try {
  const document = join(dir, 'openapi.json')
  const schema = join(dir, 'schema.ts')
  execFileSync(process.execPath, [new URL('./openapi-document.ts', import.meta.url).pathname, '--client', document], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  // Run on this Node (the project's), not whatever `node` the bin's shebang finds first on the PATH.
  const cli = join(client, 'node_modules/openapi-typescript/bin/cli.js')
  execFileSync(process.execPath, [cli, document, '--output', schema, '--alphabetize'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    // From the client's folder, as `npm run generate` runs it: the root's redocly.yaml (the served document's strict
    // lint) is not meant for the client's document, which leaves the admin API out.
    cwd: client,
  })
  const stale = [
    ['openapi.json', document],
    ['src/schema.ts', schema],
  ].filter(([committed, fresh]) => readFileSync(join(client, committed), 'utf8') !== readFileSync(fresh, 'utf8'))
  if (stale.length > 0) {
    console.error(
      `The TypeScript client is stale (${stale.map(([name]) => `clients/typescript/${name}`).join(', ')}): run \`npm run client:generate\` and commit.`,
    )
    process.exit(1)
  }
  console.log('The TypeScript client matches the served document.')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
