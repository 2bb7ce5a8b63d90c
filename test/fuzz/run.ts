/**
 * `npm run fuzz`: every operation of the OpenAPI document the service serves, driven with generated bad input, in
 * both shapes (embedded in-process; two instances on PostgreSQL + Redis). Prints answers by status and by route and
 * fails (exit code 1) on any 5xx no scenario or spec rule asked for and on any answer that is not the envelope.
 *
 *   FUZZ_REQUESTS     requests per shape (default 100000)
 *   FUZZ_SEED         seed of the run (default: random, printed); the same seed generates the same requests
 *   FUZZ_SHAPES       embedded,distributed (default both); the distributed shape is skipped with a message when
 *                     PostgreSQL or Redis cannot be reached (TEST_DATABASE_URL, TEST_REDIS_URL)
 *   FUZZ_CONCURRENCY  requests in flight (default 32)
 *   FUZZ_BATCH        requests between refills of tokens and ids (default 500)
 *   FUZZ_REPLAY       comma-separated request indices: send only these (after the same setup), printed in full
 *   FUZZ_OPS          only the operations whose id matches this regular expression (e.g. 'POST .+cars')
 *   FUZZ_VERBOSE=1    print every request and answer
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const env = process.env
const int = (name: string, fallback: number) => {
  const v = env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0) {
    process.stderr.write(`${name} must be a whole number, not ${JSON.stringify(v)}\n`)
    process.exit(2)
  }
  return n
}

const seed = int('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31))

if (env.FUZZ_CHILD_SHAPE === undefined) {
  // The shape is fixed when the harness is imported, so each shape runs in a process of its own.
  const shapes = (env.FUZZ_SHAPES ?? 'embedded,distributed').split(',').map((s) => s.trim())
  let failed = false
  for (const shape of shapes) {
    if (shape !== 'embedded' && shape !== 'distributed') {
      process.stderr.write(`FUZZ_SHAPES: unknown shape ${JSON.stringify(shape)}\n`)
      process.exit(2)
    }
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
        stdio: 'inherit',
        env: { ...env, FUZZ_CHILD_SHAPE: shape, TEST_SHAPE: shape, FUZZ_SEED: String(seed) },
      })
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)))
    })
    if (code !== 0) failed = true
  }
  process.stdout.write(failed ? '\nfuzz: FAILED (see the unexpected answers above)\n' : '\nfuzz: passed\n')
  process.exit(failed ? 1 : 0)
}

const shape = env.FUZZ_CHILD_SHAPE
const { skipReason, startHarness } = await import('../helpers/harness.ts')
if (skipReason) {
  process.stdout.write(`\nfuzz (${shape}): SKIPPED: ${skipReason}\n`)
  process.exit(0)
}
const { runFuzz } = await import('./fuzzer.ts')
const { report } = await import('./report.ts')

const crashes: string[] = []
process.on('unhandledRejection', (error) => crashes.push(`unhandled rejection: ${(error as Error)?.stack ?? error}`))
process.on('uncaughtException', (error) => crashes.push(`uncaught exception: ${error?.stack ?? error}`))

const replay = env.FUZZ_REPLAY?.split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n >= 0)
const options = {
  requests: int('FUZZ_REQUESTS', 100_000),
  seed,
  concurrency: Math.max(1, int('FUZZ_CONCURRENCY', 32)),
  batch: Math.max(1, int('FUZZ_BATCH', 500)),
  clockStepMs: 15_000,
  timeoutMs: 30_000,
  replay,
  only: env.FUZZ_OPS ? new RegExp(env.FUZZ_OPS) : undefined,
  verbose: env.FUZZ_VERBOSE === '1',
  log: (line: string) => process.stdout.write(`${line}\n`),
}
process.stdout.write(
  `\nfuzz (${shape}): ${replay ? `replaying ${replay.join(', ')}` : `${options.requests} requests`}, ` +
    `FUZZ_SEED=${seed}, ${options.concurrency} in flight\n`,
)
// Forged keys would soon have 127.0.0.1 refused (429) before any key is checked, and the rest of the run would stop
// there instead of reaching validation; the failed-authentication throttle has tests of its own.
const h = await startHarness({ env: { AUTH_FAILURE_LIMIT: '0' } })
let failed = false
try {
  const result = await runFuzz(h, options)
  process.stdout.write(`${report(result, seed, `fuzz (${shape})`)}\n`)
  failed = result.findings.size > 0
} finally {
  // Closing waits for work the fuzz left running (jobs, provider calls); it must not keep the verdict back for long.
  await Promise.race([h.close(), new Promise((r) => setTimeout(r, 15_000).unref())])
}
if (crashes.length) {
  failed = true
  process.stdout.write(`\n${crashes.length} crashes of the process:\n${crashes.slice(0, 5).join('\n')}\n`)
}
process.exit(failed ? 1 : 0)
