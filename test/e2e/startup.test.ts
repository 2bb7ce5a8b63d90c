import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { generateTokenKeys } from '../../src/platform/tokens.ts'

const ROOT = new URL('../..', import.meta.url).pathname

/** Runs the service with `env` until it exits; answers its exit code and output. */
function run(node: string, entry: string, env: Record<string, string>, timeoutMs = 60_000) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-startup-'))
  const child = spawn(node, [entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => {
    stdout += c
  })
  child.stderr.on('data', (c) => {
    stderr += c
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer)
      rmSync(dataDir, { recursive: true, force: true })
      resolve({ code, stdout, stderr })
    }),
  )
}

const noStack = (text: string) => assert.doesNotMatch(text, /^\s+at /m, `a stack trace was printed:\n${text}`)

describe('start-up messages of the running service', () => {
  it('a missing PROVIDERS_FILE: one line naming the variable and the path, exit code 1', async () => {
    const result = await run(process.execPath, 'src/main.ts', { PROVIDERS_FILE: '/etc/mas/providers.yaml' })
    assert.equal(result.code, 1)
    assert.equal(
      result.stderr.trim(),
      'Failed to start: PROVIDERS_FILE=/etc/mas/providers.yaml cannot be read: there is no such file (resolved to /etc/mas/providers.yaml)',
    )
  })

  it('an unreachable database: says it waits, retries with backoff, then names DATABASE_URL with a hint', async () => {
    const result = await run(process.execPath, 'src/main.ts', {
      DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/mobility',
      TOKEN_KEYS: generateTokenKeys(),
    })
    assert.equal(result.code, 1)
    const waiting = result.stderr.split('\n').filter((l) => l.startsWith('Waiting: the database at DATABASE_URL='))
    assert.equal(waiting.length, 5, result.stderr)
    assert.match(
      result.stderr,
      /Failed to start: DATABASE_URL=postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/mobility: the database did not answer after 6 attempts in \d+ s: .*ECONNREFUSED.*Check that PostgreSQL runs/,
    )
    assert.doesNotMatch(result.stderr + result.stdout, /s3cret/)
    noStack(result.stderr)
  })

  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
    (path) =>
      existsSync(path) && Number(execFileSync(path, ['-p', 'process.versions.node']).toString().split('.')[0]) < 24,
  )
  it('an older Node gets a one-line hint instead of ERR_UNKNOWN_FILE_EXTENSION', {
    skip: !oldNode && 'no Node older than 24 on this machine',
  }, async () => {
    const result = await run(oldNode as string, 'src/start.js', {})
    assert.equal(result.code, 1)
    const lines = result.stderr.trim().split('\n')
    assert.equal(lines.length, 1, result.stderr)
    assert.match(lines[0], /needs Node\.js 24 or newer; this is Node \d+\.\d+\.\d+ .*npm ci.*npm start/)
  })
})
